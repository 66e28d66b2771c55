package research

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"

	"hark/api"
	"hark/gateway/research/researchset"
)

// TestResearchQuestionSet asks every question of the set
// (testdata/questions.json: hand-checked gold facts and pages
// over valgrind, libffi, Node.js, espeak-ng and flite documentation and
// some articles) and fails when fewer of the reports hold their gold fact
// or cite their gold page than minAnswered and minCited, when a report is
// unclean, or when a quote is not found at its recorded passage.
// bench/research prints the same figures per part with times.
// The floors are issue 23's: 0.85 answered and 0.95 cited over the
// whole set (122 questions: 0.90 answered, 110, and 0.98 cited today;
// the 70 tuning ones read 0.94 and 0.97 with mini, the 52 held-out ones
// 0.85 and 1.00). Reports are deterministic for one index, so a floor fails
// only on a change. The 58 questions added in two rounds (ids 82-139,
// half to each part) were written and gold-checked before any report on
// them was seen; the 36 of the last of those rounds read 0.61 (tuning)
// and 0.67 (held-out) answered when added. Issue 23 asks for 0.90 and
// 0.95 to be done, which the whole set reached (by one question) and
// doneAnswered keeps. TestResearchFreshSet asks questions written since.
//
// Issue 38 judges the ranking by cross-validation over every labelled
// question pooled (bench/research -cv, docs/research.md): the weights
// built in read 0.83 [0.79, 0.87] answered and 0.96 [0.94, 0.98] cited
// with mini over 338 questions, folds split by documentation set. These
// floors stay above those intervals' lower bounds (0.79 and 0.94), as
// this set is the easier part of the pool (its tuning part is what the
// rules were written on): new weights that pass cross-validation but
// lose this set's answers fail here, and are looked at again.
const minAnswered, minCited = 0.85, 0.95

// doneAnswered is issue 23's answered share for done, over the whole set.
const doneAnswered = 0.90

// The tuning part, which ranking was tuned on, keeps what it earned
// (0.94 answered, 0.97 cited), less two questions and one: a ranking
// change that loses three of its answers, or two of its citations,
// fails here as well as under the whole set's floors.
const minTuningAnswered, minTuningCited = 0.91, 0.95

func TestResearchQuestionSet(t *testing.T) {
	t.Parallel()
	qs, err := researchset.Load("testdata/questions.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 40 {
		t.Fatalf("the set has %d questions; it needs at least 40", len(qs))
	}
	e := corpusEngine(t)
	// RESEARCH_PART=tuning asks only that part, so that tuning never
	// shows a held-out report (the floors then apply to that part).
	only := os.Getenv("RESEARCH_PART")
	if only != "" {
		qs = slices.DeleteFunc(qs, func(q researchset.Question) bool { return q.Part != only })
	}
	if raceEnabled {
		// Every eighth question (16 of the 122): the reports are still asked in
		// parallel and their passages checked, for the detector.
		var some []researchset.Question
		for i, q := range qs {
			if i%8 == 0 {
				some = append(some, q)
			}
		}
		qs = some
	}
	parts, all := rateSet(t, e, qs)
	answered, cited := float64(all.answered)/float64(all.n), float64(all.cited)/float64(all.n)
	t.Logf("all: %d questions, answered %.2f, cited %.2f", all.n, answered, cited)
	if raceEnabled {
		return // a sample; the floors are the whole set's
	}
	if answered < minAnswered {
		t.Errorf("answered %.2f, below %.2f", answered, minAnswered)
	}
	if only == "" && answered < doneAnswered {
		t.Errorf("answered %d of %d (%.3f), under issue 23's %.2f", all.answered, all.n, answered, doneAnswered)
	}
	if cited < minCited {
		t.Errorf("cited %.2f, below %.2f", cited, minCited)
	}
	if tl := parts[researchset.Tuning]; tl.n > 0 {
		a, c := float64(tl.answered)/float64(tl.n), float64(tl.cited)/float64(tl.n)
		if a < minTuningAnswered {
			t.Errorf("tuning part answered %.2f, below %.2f", a, minTuningAnswered)
		}
		if c < minTuningCited {
			t.Errorf("tuning part cited %.2f, below %.2f", c, minTuningCited)
		}
	}
}

// tally counts a part's reports: how many, and how many answered, cited
// and clean.
type tally struct{ n, answered, cited, clean int }

// rateSet asks every question of qs and rates each report, by part and
// over all; it fails on a report's problems and on a quote not found at
// its recorded passage, and logs the tuning part's misses (never the
// held-out part's, which is read as totals).
func rateSet(t *testing.T, e *testEng, qs []researchset.Question) (map[string]*tally, tally) {
	t.Helper()
	parts := map[string]*tally{researchset.Tuning: {}, researchset.HeldOut: {}}
	var all tally
	outs := askAll(t, e, qs)
	for i, q := range qs {
		out := outs[i]
		var urls []string
		for _, s := range out.Sources {
			urls = append(urls, s.URL)
		}
		s := researchset.Rate(q, out.Content, urls)
		for _, tl := range []*tally{parts[q.Part], &all} {
			tl.n++
			if s.Answered {
				tl.answered++
			}
			if s.Cited {
				tl.cited++
			}
			if s.Clean() {
				tl.clean++
			}
		}
		if (!s.Answered || !s.Cited || !s.Clean()) && q.Part == researchset.Tuning {
			t.Logf("#%d %s (%s): answered %v, cited %v, %v", q.ID, q.Question, q.Part, s.Answered, s.Cited, s.Problems)
			if os.Getenv("RESEARCH_PRINT") != "" {
				t.Logf("\n%s\nsources %v", out.Content, urls)
			}
		}
		for _, p := range s.Problems {
			t.Errorf("#%d %s: %s", q.ID, q.Question, p)
		}
		checkPassages(t, e, out)
	}
	for _, p := range []string{researchset.Tuning, researchset.HeldOut} {
		if tl := parts[p]; tl.n > 0 {
			t.Logf("%s: %d questions, answered %.2f, cited %.2f, clean %.2f", p, tl.n,
				float64(tl.answered)/float64(tl.n), float64(tl.cited)/float64(tl.n), float64(tl.clean)/float64(tl.n))
		}
	}
	return parts, all
}

// askAll asks every question (model auto) and returns the reports in
// order: as many at once as there are CPUs, since the reports are
// independent and asking them is this package's longest test.
func askAll(t *testing.T, e *testEng, qs []researchset.Question) []*api.ResearchOutput {
	t.Helper()
	outs := make([]*api.ResearchOutput, len(qs))
	errs := make([]error, len(qs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out, err := e.Research(context.Background(), api.ResearchInput{Input: qs[i].Question, Model: "auto"})
				if err == nil && out.Status != api.ResearchCompleted {
					err = fmt.Errorf("status %s", out.Status)
				}
				outs[i], errs[i] = out, err
			}
		}()
	}
	for i := range qs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("%q: %v", qs[i].Question, err)
		}
	}
	return outs
}

// checkPassages fails unless every quote of the report has its passage
// and every passage is found at its recorded place in its source's kept
// text: the words between start and end are the quote's words.
func checkPassages(t *testing.T, e *testEng, out *api.ResearchOutput) {
	t.Helper()
	kept := map[string]string{}
	bySource := map[int]int{}
	for _, p := range out.Passages {
		bySource[p.Source]++
		if p.Source < 1 || p.Source > len(out.Sources) || out.Sources[p.Source-1].URL != p.URL {
			t.Errorf("%s: passage cites source %d (%s), not in the sources", out.Content[:min(60, len(out.Content))], p.Source, p.URL)
			continue
		}
		body, ok := kept[p.URL]
		if !ok {
			var err error
			_, body, _, _, err = e.Kept(context.Background(), p.URL)
			if err != nil {
				t.Fatal(err)
			}
			kept[p.URL] = body
		}
		if p.Start < 0 || p.End > len(body) || p.Start >= p.End {
			t.Errorf("quote %q has no place in %s (%d-%d)", p.Quote, p.URL, p.Start, p.End)
			continue
		}
		if s, e, ok := api.Locate(body[p.Start:p.End], p.Quote, 0); !ok || s != 0 || e != p.End-p.Start {
			t.Errorf("quote %q is not at %d-%d of %s: %q", p.Quote, p.Start, p.End, p.URL, body[p.Start:p.End])
		}
	}
	for _, n := range researchset.Citations(out.Content) {
		if bySource[n] == 0 {
			t.Errorf("quote cited [%d] has no passage", n)
		}
	}
}

// TestResearchFreshSet asks the fresh set (bench/research/fresh: 116
// questions over the same pages, written and gold-checked by other hands
// after the ranking was tuned, in three rounds, half of each to each
// part as in the question set). Untouched, the first round's 36 reports
// answered 0.64 (mini) and 0.67 (pro), the second round's 40 (with the
// first round's changes) 0.68 and 0.68, the third round's 40 (with the
// second's) 0.72 and 0.70, all cited: a fairer measure of questions no
// one tuned for than the question set's held-out part, which past
// rounds of tuning read as totals. Its floor keeps what it reads now,
// less one question: a change that loses two of its answers fails here.
func TestResearchFreshSet(t *testing.T) {
	t.Parallel()
	qs, err := researchset.Load("../../bench/research/fresh/questions.json")
	if err != nil {
		t.Fatal(err)
	}
	if raceEnabled {
		qs = qs[:4] // the passages checked under the detector; the floors are the whole set's
	}
	_, all := rateSet(t, corpusEngine(t), qs)
	answered, cited := float64(all.answered)/float64(all.n), float64(all.cited)/float64(all.n)
	t.Logf("all: %d questions, answered %.2f, cited %.2f", all.n, answered, cited)
	if raceEnabled {
		return
	}
	if all.answered < minFreshAnswered {
		t.Errorf("answered %d of %d, below %d", all.answered, all.n, minFreshAnswered)
	}
	if cited < minCited {
		t.Errorf("cited %.2f, below %.2f", cited, minCited)
	}
}

// minFreshAnswered is how many of the fresh set's reports must hold their
// gold fact: what they hold today less one.
const minFreshAnswered = 120 // of 156: 121 (0.78) with model auto
