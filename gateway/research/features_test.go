package research

import (
	"math"
	"strings"
	"testing"
)

// TestWeightsFileNamesEveryFeature: the embedded weights.json parses and
// weighs every feature of the ranking, and no other.
func TestWeightsFileNamesEveryFeature(t *testing.T) {
	w, err := fitted()
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != len(features) {
		t.Fatalf("weights.json weighs %d features, the ranking has %d", len(w), len(features))
	}
}

// TestWeightsRefusedByName: weights that lack a feature, name one the
// ranking does not know, or are not finite are refused with the
// feature's name, before any research runs.
func TestWeightsRefusedByName(t *testing.T) {
	if _, err := HandWeights().vector(); err != nil {
		t.Fatalf("the hand weights: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(Weights)
		want string
	}{
		{"missing", func(w Weights) { delete(w, "proximity") }, `"proximity" has no weight`},
		{"unknown", func(w Weights) { w["valgrind_bonus"] = 1 }, `"valgrind_bonus" is no feature`},
		{"not finite", func(w Weights) { w["leans"] = math.NaN() }, `"leans"'s weight is NaN`},
	} {
		w := HandWeights()
		tc.edit(w)
		_, err := w.vector()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one holding %s", tc.name, err, tc.want)
		}
		if _, err := New(Config{Weights: w}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: New's error %v, want one holding %s", tc.name, err, tc.want)
		}
	}
}

// TestHandWeightsAreTheRulesMultipliers: a rule's hand weight is the
// log of the multiplier it was, so exp(Σ w·x) with the hand weights
// scores as the rules did: a definition of the subject (×2.5) on a page
// search ranked first (1 + 0.5·1), leaning on the sentence before
// (×0.85).
func TestHandWeightsAreTheRulesMultipliers(t *testing.T) {
	w, err := HandWeights().vector()
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, len(features))
	x[featureIndex["relevance"]] = math.Log(0.6)
	x[featureIndex["defines_subject"]] = 1
	x[featureIndex["page_prior"]] = math.Log(1 + pagePriorWeight*1)
	x[featureIndex["leans"]] = 1
	if got, want := math.Exp(dot(w, x)), 0.6*2.5*1.5*0.85; math.Abs(got-want) > 1e-12 {
		t.Fatalf("score %v, want %v", got, want)
	}
}

// TestProximity: the question's terms side by side read 1, spread out
// less, absent 0.
func TestProximity(t *testing.T) {
	q := []string{"leak", "check"}
	for _, tc := range []struct {
		toks []string
		want float64
	}{
		{[]string{"use", "leak", "check", "full"}, 1},
		{[]string{"leak", "a", "b", "check"}, 0.5},
		{[]string{"leak", "only"}, 1},
		{[]string{"nothing", "here"}, 0},
	} {
		if got := proximity(q, tc.toks); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("proximity(%v) = %v, want %v", tc.toks, got, tc.want)
		}
	}
}

// TestFeedbackMatch: RM3's terms over the passages that score best,
// and a sentence's share of their weight: all of it, some, none.
func TestFeedbackMatch(t *testing.T) {
	c := &rcorpus{pToks: [][]string{
		{"leak", "check", "full", "memcheck"},
		{"leak", "check", "memcheck", "origin"},
		{"unrelated", "words", "only"},
	}}
	exp := c.feedback([]string{"leak", "check"}, []float64{2, 1, 0})
	if len(exp) == 0 {
		t.Fatal("no feedback terms")
	}
	for _, e := range exp {
		if e.Term == "unrelated" || e.Term == "leak" {
			t.Errorf("feedback term %q: a passage that scored 0, or the question's own", e.Term)
		}
	}
	if got := feedbackMatch(exp, []string{"memcheck"}); math.Abs(got-1) > 1e-9 {
		t.Errorf("a sentence with every feedback term: %v, want 1", got)
	}
	if got := feedbackMatch(exp, []string{"nothing"}); got != 0 {
		t.Errorf("a sentence with none: %v, want 0", got)
	}
}

// A user's words are spread over the manual's passage, not gathered in
// the one sentence that answers ("keep", "variables", "next time",
// "quit" over a section on saving the workspace): a sentence holding
// one of the question's terms in a passage that, with its headings,
// holds enough of them is a candidate, marked passage_gate and scored
// down; one whose passage does not hold enough is none.
func TestSentenceOfAPassageThatAnswersIsACandidate(t *testing.T) {
	d := readMarkdownDoc("# Sessions\n\n## Saving your work\n\n"+
		"When you quit the program, your variables are written to a file for next time.\n\n"+
		"Saving the workspace image keeps them in the file `.RData` in the current directory.\n\n"+
		"## Images\n\nThe workspace image keeps a copy of every object in the session.\n", "Sessions")
	c := newCorpus([]*rdoc{d})
	a := c.respell(newAsk("How do I keep my variables for next time after I quit?", nil, false))
	for s, want := range map[string][2]bool{
		"When you quit the program, your variables are written to a file for next time.":     {true, false},
		"Saving the workspace image keeps them in the file .RData in the current directory.": {true, true},
		"The workspace image keeps a copy of every object in the session.":                   {false, false},
	} {
		ok, byPassage := c.candidate(a, sentAt(t, d, s))
		if [2]bool{ok, byPassage} != want {
			t.Errorf("%q: candidate %v, by its passage %v; want %v", s, ok, byPassage, want)
		}
	}
	rows := c.featureRows(a)
	g := sentAt(t, d, "Saving the workspace image keeps them in the file .RData in the current directory.")
	if rows[g] == nil || rows[g][featureIndex["passage_gate"]] != 1 {
		t.Errorf("the passage's sentence: features %v, want passage_gate 1", rows[g])
	}
	if w := HandWeights()["passage_gate"]; w >= 0 {
		t.Errorf("passage_gate's hand weight %v: a sentence that holds too few of the terms itself is not scored as one that holds them", w)
	}
}
