package main

import (
	"math"
	"slices"
	"testing"

	"hark/gateway/research"
	"hark/gateway/research/researchset"
)

// TestAssignFoldsKeepsGroupsWhole: every group's questions are in one
// fold, so no fold is judged on pages it was fitted on, the largest
// groups go to different folds, and a round of its own sets (fresh2's,
// fresh3's and fresh4's four each) is spread one set a fold: the folds
// docs/research.md lists.
func TestAssignFoldsKeepsGroupsWhole(t *testing.T) {
	var qs []pooled
	for g, n := range map[string]int{"nodejs": 130, "valgrind": 80, "espeak-ng": 42, "libffi": 35, "flite": 28, "articles": 23} {
		for i := range n {
			// The older groups hold questions of several rounds.
			qs = append(qs, pooled{group: g, round: []string{"questions/tuning", "fresh"}[i%2]})
		}
	}
	for r, gs := range map[string][]string{
		"fresh2": {"python3.11", "git-doc", "sphinx-doc", "rust-doc"},
		"fresh3": {"postgresql", "sqlite3", "cmake", "debian-reference"},
		"fresh4": {"apache2", "ffmpeg", "r", "graphviz"},
	} {
		for _, g := range gs {
			for i := range 12 {
				qs = append(qs, pooled{group: g, round: r + []string{"/user", "/manual"}[i%2]})
			}
		}
	}
	assignFolds(qs)
	fold := map[string]int{}
	for _, q := range qs {
		if f, ok := fold[q.group]; ok && f != q.fold {
			t.Fatalf("group %s is in folds %d and %d", q.group, f, q.fold)
		}
		fold[q.group] = q.fold
	}
	used := map[int]bool{}
	for _, g := range []string{"nodejs", "valgrind", "espeak-ng", "libffi", "flite"} {
		if used[fold[g]] {
			t.Fatalf("folds %v: the five largest groups share a fold", fold)
		}
		used[fold[g]] = true
	}
	want := map[string]int{"nodejs": 0,
		"valgrind": 1, "sphinx-doc": 1, "sqlite3": 1, "r": 1,
		"espeak-ng": 2, "git-doc": 2, "cmake": 2, "graphviz": 2,
		"libffi": 3, "python3.11": 3, "debian-reference": 3, "apache2": 3,
		"flite": 4, "articles": 4, "rust-doc": 4, "postgresql": 4, "ffmpeg": 4}
	for g, k := range want {
		if fold[g] != k {
			t.Errorf("group %s in fold %d, want %d (docs/research.md's folds)", g, fold[g]+1, k+1)
		}
	}
}

// TestBootstrapInterval: the interval holds the share, and narrows as
// the questions grow more.
func TestBootstrapInterval(t *testing.T) {
	mk := func(n, hit int) []outcome {
		os := make([]outcome, n)
		for i := range hit {
			os[i].Answered = true
		}
		return os
	}
	small, large := bootstrap(mk(40, 30), answered), bootstrap(mk(400, 300), answered)
	for _, v := range []interval{small, large} {
		if v.share != 0.75 || v.lo > v.share || v.hi < v.share || v.lo >= v.hi {
			t.Fatalf("interval %v does not hold 0.75", v)
		}
	}
	if large.hi-large.lo >= small.hi-small.lo {
		t.Fatalf("400 questions' interval %v is no narrower than 40's %v", large, small)
	}
	if v := bootstrap(mk(10, 10), answered); v.lo != 1 || v.hi != 1 {
		t.Fatalf("all answered: interval %v, want [1, 1]", v)
	}
}

// TestLabelReadsFactsAsTheRaterDoes: a candidate is right when its text
// holds a fact, spaces collapsed and code marks dropped; a ranking
// whose candidates are all right, or none, teaches nothing.
func TestLabelReadsFactsAsTheRaterDoes(t *testing.T) {
	q := researchset.Question{Fact: []string{"--leak-check=full", "20 to  30 times"}}
	r := research.Ranking{Texts: []string{"Use `--leak-check=full` for details.", "It runs 20 to\n30 times slower.", "Memcheck is a memory error detector."}}
	got := label(q, r)
	if len(got) != 3 || !got[0] || !got[1] || got[2] {
		t.Fatalf("label = %v, want [true true false]", got)
	}
	if label(q, research.Ranking{Texts: []string{"nothing"}}) != nil {
		t.Fatal("a ranking with no right candidate was kept")
	}
}

// TestFitRaisesTheFeatureThatSeparates: on rankings where one feature
// marks the right candidate and the others are noise, the fit raises
// that feature's weight above its hand weight, and ranks better than
// the hand weights do.
func TestFitRaisesTheFeatureThatSeparates(t *testing.T) {
	names := research.FeatureNames()
	mark := -1
	for i, n := range names {
		if n == "proximity" {
			mark = i
		}
	}
	if mark < 0 {
		t.Fatal("no proximity feature")
	}
	var exs []example
	for k := range 60 {
		e := example{}
		for c := range 6 {
			x := make([]float64, len(names))
			x[0] = math.Log(0.2 + 0.1*float64((k+c)%5)) // relevance: noise
			right := c == k%6
			if right {
				x[mark] = 1
			}
			e.X = append(e.X, x)
			e.Right = append(e.Right, right)
		}
		exs = append(exs, e)
	}
	before := lambda
	lambda = 0.01
	defer func() { lambda = before }()
	w := fit(exs)
	if w["proximity"] <= hand["proximity"]+0.5 {
		t.Fatalf("proximity's weight %v, hand %v: the fit did not raise it", w["proximity"], hand["proximity"])
	}
	if h, f := hitAt(exs, hand, 1), hitAt(exs, w, 1); f <= h {
		t.Fatalf("right first: fitted %.2f, hand %.2f", f, h)
	}
}

// TestPairwiseFitRaisesTheFeatureThatSeparates: the pairwise fit, its
// ridge strength chosen inside the training folds, raises a feature
// that marks the right candidate and ranks better than the hand
// weights, as the listwise fit does.
func TestPairwiseFitRaisesTheFeatureThatSeparates(t *testing.T) {
	names := research.FeatureNames()
	mark := slices.Index(names, "proximity")
	if mark < 0 {
		t.Fatal("no proximity feature")
	}
	var exs []example
	for k := range 60 {
		e := example{Fold: k % 3}
		for c := range 6 {
			x := make([]float64, len(names))
			x[0] = math.Log(0.2 + 0.1*float64((k+c)%5)) // relevance: noise
			right := c == k%6
			if right {
				x[mark] = 1
			}
			e.X = append(e.X, x)
			e.Right = append(e.Right, right)
		}
		exs = append(exs, e)
	}
	w := fitPairwise(exs)
	if w["proximity"] <= hand["proximity"]+0.5 {
		t.Errorf("proximity's weight %v, want well above the hand weight %v", w["proximity"], hand["proximity"])
	}
	if got, was := hitAt(exs, w, 1), hitAt(exs, hand, 1); got <= was {
		t.Errorf("right first: fitted %.2f, hand %.2f: the fit should rank better", got, was)
	}
}
