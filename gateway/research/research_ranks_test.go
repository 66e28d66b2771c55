package research

import (
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"

	"hark/gateway/research/researchset"
)

// TestResearchFactRanks (RESEARCH_RANKS=1, not part of CI) prints where
// the first quote holding the gold fact ranks among a question's best
// traceDepth quotes, for the tuning part and its two halves (id mod 4 ==
// 1 and 3): the mean reciprocal rank and the share within 1, 4 and 20.
// Answered or not is one bit per question and moves for one question at
// a time; the rank moves for every question a change touches, so a
// change that only fits one question shows as such. RESEARCH_RANKS=all
// adds the held-out part's totals (never its questions), for after a
// change is decided on. RESEARCH_RANKS_SHOW=ID prints a tuning
// question's ranked quotes.
func TestResearchFactRanks(t *testing.T) {
	mode := os.Getenv("RESEARCH_RANKS")
	if mode == "" {
		t.Skip("set RESEARCH_RANKS=1 (tuning) or all (and the held-out totals)")
	}
	qs := loadParts(t, "testdata/questions.json", mode == "all")
	var mu sync.Mutex
	quotes := map[string][]string{}
	tr := func(input string, qs []string) {
		mu.Lock()
		defer mu.Unlock()
		if _, ok := quotes[input]; !ok {
			quotes[input] = qs
		}
	}
	quoteTrace.Store(&tr)
	defer quoteTrace.Store(nil)
	askAll(t, corpusEngine(t), qs)
	type tally struct {
		n              int
		rr             float64
		in1, in4, in20 int
	}
	parts := map[string]*tally{}
	for _, q := range qs {
		traced, ok := quotes[q.Question]
		if !ok {
			continue // a comparison: its sections are each thing compared
		}
		if show := os.Getenv("RESEARCH_RANKS_SHOW"); show != "" && show == strconv.Itoa(q.ID) && q.Part == researchset.Tuning {
			for i, md := range traced {
				t.Logf("#%d quote %d:\n%s", q.ID, i+1, md)
			}
		}
		rank := 0
		for i, md := range traced {
			if researchset.Rate(q, md, nil).Answered {
				rank = i + 1
				break
			}
		}
		names := []string{q.Part}
		if q.Part == researchset.Tuning {
			names = append(names, map[int]string{1: "tuning id%4=1", 3: "tuning id%4=3"}[q.ID%4])
			if rank != 1 && os.Getenv("RESEARCH_RANKS_V") != "" {
				t.Logf("#%d %s: fact ranks %d (0: not in %d)", q.ID, q.Question, rank, traceDepth)
			}
		}
		for _, p := range names {
			tl := parts[p]
			if tl == nil {
				tl = &tally{}
				parts[p] = tl
			}
			tl.n++
			if rank > 0 {
				tl.rr += 1 / float64(rank)
				tl.in20++
				if rank <= 4 {
					tl.in4++
				}
				if rank == 1 {
					tl.in1++
				}
			}
		}
	}
	for _, p := range []string{"tuning id%4=1", "tuning id%4=3", researchset.Tuning, researchset.HeldOut} {
		if tl := parts[p]; tl != nil {
			n := float64(tl.n)
			t.Logf("%-14s %3d questions: MRR %.3f, fact first %.2f, in 4 %.2f, in %d %.2f", p, tl.n, tl.rr/n, float64(tl.in1)/n, float64(tl.in4)/n, traceDepth, float64(tl.in20)/n)
		}
	}
}

// loadParts is the question set in file: its tuning part, or with all
// both parts.
func loadParts(t *testing.T, file string, all bool) []researchset.Question {
	t.Helper()
	qs, err := researchset.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if !all {
		qs = slices.DeleteFunc(qs, func(q researchset.Question) bool { return q.Part != researchset.Tuning })
	}
	return qs
}
