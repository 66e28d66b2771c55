package research

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"hark/gateway/text"
	"hark/gateway/text/lexicon"
)

// How research ranks a candidate sentence: a log-linear model. Each
// candidate (a sentence that can open a quote and holds enough of the
// question's terms) has the named features below; its score is
// exp(Σ weight·feature), so a feature that was a hand-set multiplier m
// ("×2.5 for a sentence that defines the subject") is an indicator with
// weight ln m, and the weights are fitted on the pooled question set by
// bench/research -fit (weights.json). Scores keep their meaning as
// ratios: pick drops what scores under a quarter of the best.
//
// Hand is each feature's weight as the rules set it before the weights
// were fitted: the fit starts there and is drawn back towards it
// (ridge), so a feature the data says nothing about keeps the rule's
// weight.

// feature is one named feature of a candidate.
type feature struct {
	name string
	hand float64
	doc  string
}

// features are the ranking's features, in the order of a candidate's
// feature vector.
var features = []feature{
	{"relevance", 1, "ln of the fields' BM25F mix: (0.5·sentence + 0.2·passage + 0.3·heading) × (1 + 0.3·label) × (1 + 0.5·headings and title); a passage's opening takes its heading's coverage as its sentence score"},
	{"sentence", 0, "the sentence's BM25 (with half the one it leans on), over the best sentence's"},
	{"passage", 0, "the passage's BM25 over the best passage's"},
	{"heading", 0, "share of the question's terms in the passage's heading"},
	{"label", 0, "share of the question's terms in the term or item name the sentence describes"},
	{"title", 0, "share of the question's terms in the headings above and the page title"},
	{"idf_coverage", 0, "share of the question's terms in the sentence and what it sits under, each weighted by its IDF: the rarest terms count most"},
	{"proximity", 0, "the question's terms the sentence holds over the span of words they sit in"},
	{"page_prior", 1, "ln(1 + 0.5·prior): the search's rank of the page among the sources read, 1/(1+rank)"},
	{"page_position", 0, "where in its page the sentence is, 0 (top) to 1 (end)"},
	{"opening", 0, "the sentence opens its passage"},
	{"shows_code", 0, "the sentence introduces code"},
	{"code_span", 0, "the sentence holds inline code: a name, an option, a call"},
	{"how_code_span", 0, "a how-to question, a sentence holding inline code"},
	{"number", 0, "the sentence holds a number"},
	{"length", 0, "the sentence's words over 40, at most 1"},
	{"block_first", 0, "the sentence opens its paragraph or item"},
	{"subject_in_sentence", 0, "the sentence holds every term of the question's subject"},
	{"opens_on_term", 0, "the sentence opens on a word of the question, whatever the question asks"},
	{"synonym_match", 0, "the question's WordNet synonyms the sentence and what it sits under hold, each by its prior, over the question's terms"},
	{"derived_match", 0, "the same for WordNet's derived forms (\"speak\" for \"speech\")"},
	{"spelling_match", 0, "the same for the other spelling (\"color\" for \"colour\")"},
	{"feedback_match", 0, "the share of RM3's feedback terms (the question's relevance model over its ten best passages) the sentence and what it sits under hold, by weight"},
	{"how_term_entry", math.Log(0.8), "a how-to question, a sentence in an option's or term's entry"},
	{"defines_subject", math.Log(2.5), "the sentence says what the question's subject is: \"A data race happens when …\""},
	{"opens_overview", math.Log(2.5), "the subject's page opens on the subject: \"Cachegrind simulates …\""},
	{"heading_names_subject", math.Log(1.6), "opens the section named after the subject"},
	{"term_description", math.Log(2), "opens the description of the term the question names"},
	{"list_names_subject", math.Log(2), "introduces a list of what the question asks about"},
	{"list_items_named", math.Log(1.5), "and half its items name what they describe"},
	{"how_command", math.Log(1.3), "a how-to question, a sentence that shows a command"},
	{"says_what_named_is", math.Log(1.6), "a definition opening on a word of the question"},
	{"how_definition", math.Log(0.7), "a how-to question, a definition"},
	{"opens_on_named", math.Log(1.3), "not a how-to question, a sentence opening on a word of the question"},
	{"excluded", math.Log(0.5), "holds what the question sets aside (\"besides Helgrind\")"},
	{"excluded_page", math.Log(0.5), "and its page is about that"},
	{"how_example", math.Log(1.2), "a how-to question, an example holding the question's words"},
	{"leans", math.Log(0.85), "needs the sentence before it"},
	{"off_focus", math.Log(focusWeight), "holds none of the question's focus, its rarest term among the sources"},
	{"count_number", math.Log(1.5), "a how-many question, a sentence with a number"},
	{"c_call", math.Log(1.5), "a question about C, a sentence or code calling a C function"},
	{"c_command", math.Log(0.6), "a question about C, a command line"},
	{"bare_list", math.Log(0.3), "a comparison's summary, a sentence naming everything (four commas)"},
	{"bare_term", math.Log(0.5), "a comparison's summary, a remark on an option"},
	{"changelog", math.Log(0.3), "a release note, the question not about changes"},
	{"passage_gate", math.Log(0.3), "the sentence holds too few of the question's terms itself, but one, and its passage holds enough"},
}

// featureIndex is each feature's place in a candidate's vector.
var featureIndex = func() map[string]int {
	m := map[string]int{}
	for i, f := range features {
		m[f.name] = i
	}
	return m
}()

// Weights are the ranking's weights by feature name.
type Weights map[string]float64

// FeatureNames is the ranking's features, in vector order.
func FeatureNames() []string {
	out := make([]string, len(features))
	for i, f := range features {
		out[i] = f.name
	}
	return out
}

// FeatureDocs is what each feature measures, by name.
func FeatureDocs() map[string]string {
	m := map[string]string{}
	for _, f := range features {
		m[f.name] = f.doc
	}
	return m
}

// HandWeights are the weights the hand-written rules set: the fit's
// starting point and prior.
func HandWeights() Weights {
	w := Weights{}
	for _, f := range features {
		w[f.name] = f.hand
	}
	return w
}

// vector is w in feature order; it fails on a feature w lacks or one
// the ranking does not know.
func (w Weights) vector() ([]float64, error) {
	out := make([]float64, len(features))
	for name := range w {
		if _, ok := featureIndex[name]; !ok {
			return nil, fmt.Errorf("research weights: %q is no feature of the ranking (features.go)", name)
		}
	}
	for i, f := range features {
		v, ok := w[f.name]
		if !ok {
			return nil, fmt.Errorf("research weights: feature %q has no weight", f.name)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("research weights: feature %q's weight is %v; it must be a finite number", f.name, v)
		}
		out[i] = v
	}
	return out, nil
}

// weightsFile is the fitted weights (bench/research -fit writes it).
//
//go:embed weights.json
var weightsFile []byte

// WeightsFile is what weights.json holds.
type WeightsFile struct {
	Note    string  `json:"note"`
	Weights Weights `json:"weights"`
}

// fitted is weights.json's weights as a vector.
var fitted = sync.OnceValues(func() ([]float64, error) {
	var f WeightsFile
	if err := json.Unmarshal(weightsFile, &f); err != nil {
		return nil, fmt.Errorf("research weights.json: %w", err)
	}
	return f.Weights.vector()
})

// Ranking is one question's candidates as the ranking sees them, for
// fitting the weights (bench/research -fit): each candidate's features
// and the plain text of the quote it would open.
type Ranking struct {
	Question string
	Features [][]float64 // in FeatureNames order
	Texts    []string
	URLs     []string
}

// ranking is a's candidates with their features and quotes' text.
func (c *rcorpus) ranking(question string, a ask) Ranking {
	r := Ranking{Question: question}
	xs := c.featureRows(a)
	for g, x := range xs {
		if x == nil {
			continue
		}
		di, i := c.sref[g][0], c.sref[g][1]
		q, ok := c.quoteAt(di, i, a, newUsedSet())
		if !ok {
			continue
		}
		d := c.docs[di]
		parts := []string{text.Unmark(q.label)}
		for _, k := range q.all() {
			parts = append(parts, text.Unmark(d.Sents[k].Text))
		}
		for _, it := range q.items {
			parts = append(parts, text.Unmark(it.label))
		}
		parts = append(parts, q.code)
		r.Features = append(r.Features, x)
		r.Texts = append(r.Texts, strings.Join(parts, " "))
		r.URLs = append(r.URLs, d.url)
	}
	return r
}

// idfCoverage is the share of the question's terms' IDF (idf, each
// distinct term once) that docs hold: the rarest terms count most.
func idfCoverage(idf map[string]float64, total float64, docs ...[]string) float64 {
	if total <= 0 {
		return 0
	}
	have := 0.0
	seen := make(map[string]bool, len(idf))
	for _, doc := range docs {
		for _, t := range doc {
			if w, ok := idf[t]; ok && !seen[t] {
				seen[t] = true
				have += w
			}
		}
	}
	return have / total
}

// expansionMatch is, per lexical source, the priors of the expansions
// docs hold (each term once), over n, the question's terms.
func expansionMatch(exp []lexicon.Expansion, n int, docs ...[]string) (out [3]float64) {
	if len(exp) == 0 || n == 0 {
		return out
	}
	for _, e := range exp {
		if int(e.Source) < len(out) && holdsAny([]string{e.Term}, docs...) {
			out[e.Source] += e.Weight
		}
	}
	for i := range out {
		out[i] /= float64(n)
	}
	return out
}

// feedbackPassages is how many of the best passages RM3 reads, and
// feedbackTerms how many terms it gives.
const feedbackPassages, feedbackTerms = 10, 20

// feedback is RM3's expansion of terms over the passages that score
// best for them (scores, by passage).
func (c *rcorpus) feedback(terms []string, scores []float64) []lexicon.Expansion {
	idx := make([]int, 0, len(scores))
	for i, v := range scores {
		if v > 0 {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	docs := make([]lexicon.Doc, 0, feedbackPassages)
	for _, i := range idx[:min(len(idx), feedbackPassages)] {
		docs = append(docs, lexicon.Doc{Terms: c.pToks[i], Score: scores[i]})
	}
	return lexicon.RM3(terms, docs, feedbackTerms)
}

// feedbackMatch is the share of exp's weight whose terms docs hold.
func feedbackMatch(exp []lexicon.Expansion, docs ...[]string) float64 {
	have, total := 0.0, 0.0
	for _, e := range exp {
		total += e.Weight
		if holdsAny([]string{e.Term}, docs...) {
			have += e.Weight
		}
	}
	if total == 0 {
		return 0
	}
	return have / total
}

// BuiltInWeights is weights.json's weights.
func BuiltInWeights() Weights {
	var f WeightsFile
	if err := json.Unmarshal(weightsFile, &f); err != nil {
		return nil
	}
	return f.Weights
}

// proximity is how closely toks hold terms: the distinct terms found
// over the span of words from the first to the last of them (1 when
// they stand together or only one is found, 0 when none is).
func proximity(terms, toks []string) float64 {
	want := map[string]bool{}
	for _, t := range terms {
		want[t] = true
	}
	first, last, found := -1, -1, map[string]bool{}
	for i, t := range toks {
		if want[t] {
			if first < 0 {
				first = i
			}
			last = i
			found[t] = true
		}
	}
	if len(found) == 0 {
		return 0
	}
	return math.Min(1, float64(len(found))/float64(last-first+1))
}

// dot is Σ w·x.
func dot(w, x []float64) float64 {
	s := 0.0
	for i := range x {
		s += w[i] * x[i]
	}
	return s
}
