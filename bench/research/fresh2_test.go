package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hark/gateway/research/researchset"
)

// The round is what fresh2/README.md says: at least 44 questions, 12
// per documentation set, half worded by the user and half in the
// manual's terms, each gold page in one of the sets indexed.
func TestFresh2RoundIsBalanced(t *testing.T) {
	qs, err := loadFresh2("fresh2/questions.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 44 {
		t.Errorf("%d questions; the round needs at least 44", len(qs))
	}
	count := map[string]int{}
	for _, q := range qs {
		in := false
		for _, f := range fresh2Folders {
			if strings.HasPrefix(q.Page, f[0]+"/") {
				in = true
			}
		}
		if !in {
			t.Errorf("#%d: gold page %s is in none of the sets indexed", q.ID, q.Page)
		}
		count[researchset.Group(q.Question)+" "+q.Wording]++
	}
	for _, f := range fresh2Folders {
		g, _, _ := strings.Cut(f[0], "/")
		if count[g+" user"] != count[g+" manual"] || count[g+" user"] < 6 {
			t.Errorf("%s: %d worded by the user, %d in the manual's terms; want as many, at least 6", g, count[g+" user"], count[g+" manual"])
		}
	}
}

func TestLoadFresh2RefusesAWordingItDoesNotKnow(t *testing.T) {
	file := filepath.Join(t.TempDir(), "q.json")
	os.WriteFile(file, []byte(`[{"id":1,"part":"held-out","wording":"casual","question":"q?","fact":["f"],"page":"git-doc/git.html"}]`), 0o644)
	if _, err := loadFresh2(file); err == nil || !strings.Contains(err.Error(), "wording") {
		t.Errorf("a wording neither user nor manual: %v; want an error naming wording", err)
	}
	os.WriteFile(file, []byte(`[{"id":1,"part":"held-out","wording":"user","question":"q?","fact":["f"],"page":"git-doc/git.html"},{"id":1,"part":"held-out","wording":"user","question":"r?","fact":["f"],"page":"git-doc/git.html"}]`), 0o644)
	if _, err := loadFresh2(file); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("an id given twice: %v; want an error", err)
	}
}

func TestSourceTwin(t *testing.T) {
	for in, want := range map[string]string{
		"file:///usr/share/doc/python3.11/html/_sources/library/os.rst.txt":       "file:///usr/share/doc/python3.11/html/library/os.html",
		"file:///usr/share/doc/sphinx-doc/html/_sources/usage/theming.rst.txt":    "file:///usr/share/doc/sphinx-doc/html/usage/theming.html",
		"file:///usr/share/doc/git-doc/git-reset.txt":                             "file:///usr/share/doc/git-doc/git-reset.html",
		"file:///usr/share/doc/git-doc/git-reset.html":                            "file:///usr/share/doc/git-doc/git-reset.html",
		"file:///usr/share/doc/rust-doc/html/book/ch04-01-what-is-ownership.html": "file:///usr/share/doc/rust-doc/html/book/ch04-01-what-is-ownership.html",
	} {
		if got := sourceTwin(in); got != want {
			t.Errorf("sourceTwin(%s) = %s; want %s", in, got, want)
		}
	}
}

// The diagnosis tells the gold page from its source copy, and reads a
// fact as the rater does (spaces folded, code marks dropped).
func TestFresh2DiagGoldAndFact(t *testing.T) {
	q := researchset.Question{Page: "sphinx-doc/html/usage/theming.html", Fact: []string{"html_theme", "set  the theme"}}
	gold := "file:///usr/share/doc/sphinx-doc/html/usage/theming.html"
	copied := "file:///usr/share/doc/sphinx-doc/html/_sources/usage/theming.rst.txt"
	other := "file:///usr/share/doc/sphinx-doc/html/usage/configuration.html"
	if !isGold(q, gold) || isGold(q, copied) || isGold(q, other) {
		t.Errorf("isGold: gold %v, copy %v, other %v; want true, false, false", isGold(q, gold), isGold(q, copied), isGold(q, other))
	}
	if isGoldCopy(q, gold) || !isGoldCopy(q, copied) || isGoldCopy(q, other) {
		t.Errorf("isGoldCopy: gold %v, copy %v, other %v; want false, true, false", isGoldCopy(q, gold), isGoldCopy(q, copied), isGoldCopy(q, other))
	}
	for text, want := range map[string]bool{
		"set the `html_theme` value": true,
		"you   set the\ntheme here":  true,
		"html theme is not the name": false,
	} {
		if got := holdsFact(q, text); got != want {
			t.Errorf("holdsFact(%q) = %v; want %v", text, got, want)
		}
	}
}
