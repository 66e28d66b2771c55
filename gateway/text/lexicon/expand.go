package lexicon

import (
	"math"
	"sort"
	"strings"

	"hark/gateway/text"
)

// Source is where an expansion comes from; the ranker weighs each
// source on its own.
type Source int

const (
	Synonym  Source = iota // WordNet: a lemma of one of the word's first synsets
	Derived                // WordNet: a derivationally related form ("speak" → "speech")
	Spelling               // the word lists: the other spelling ("colour" → "color")
	Feedback               // the index: RM3 over the first retrieval's top documents
)

var sourceNames = [...]string{"synonym", "derived", "spelling", "feedback"}

func (s Source) String() string { return sourceNames[s] }

// Expansion is one term a question's word expands to.
type Expansion struct {
	Term   string  // as research's terms are: Family(text.Term(word))
	Source Source  //
	Weight float64 // a prior in (0, 1]: how close the source puts it
}

// synonymSenses is how many of a word's senses, per part of speech,
// Synonym reads: a word's first senses are the ones text uses it in.
const synonymSenses = 2

// Expand is word's expansions from source (Synonym, Derived or
// Spelling; Feedback needs documents, see RM3), as terms other
// than word's own. A synonym's weight falls with the order WordNet
// lists it in (1, 1/2, 1/3 …); a derived form or a spelling weighs 1.
// Multi-word lemmas are left out. Nil when the resource is missing.
func (l *Lexicon) Expand(word string, source Source) []Expansion {
	own, ok := text.Term(strings.ToLower(word))
	if !ok {
		return nil
	}
	own = l.Family(own)
	var words []string
	switch source {
	case Synonym:
		if l.WordNet != nil {
			words = l.WordNet.Synonyms(word, synonymSenses)
		}
	case Derived:
		if l.WordNet != nil {
			for _, r := range l.WordNet.Derived(word) {
				words = append(words, r.Word)
			}
		}
	case Spelling:
		if l.Spelling != nil {
			words = l.Spelling.Variants(word)
		}
	}
	var out []Expansion
	seen := map[string]bool{own: true}
	for _, w := range words {
		if strings.ContainsAny(w, " -") {
			continue
		}
		t, ok := text.Term(w)
		if !ok {
			continue
		}
		t = l.Family(t)
		if seen[t] {
			continue
		}
		seen[t] = true
		wt := 1.0
		if source == Synonym {
			wt = 1 / float64(len(out)+1)
		}
		out = append(out, Expansion{Term: t, Source: source, Weight: wt})
	}
	return out
}

// Doc is one document a first retrieval found: its terms (as research
// reads them) and its retrieval score (higher is better, ≥ 0).
type Doc struct {
	Terms []string
	Score float64
}

// feedbackOriginal is RM3's weight of the original query, as Anserini's
// default (0.5): the expansion terms share the other half.
const feedbackOriginal = 0.5

// RM3 is Lavrenko and Croft's relevance model, interpolated
// with the query as Anserini does): the n terms most likely under the
// relevance model P(w|R) = Σ_d P(w|d)·P(d|Q), where P(w|d) is w's share
// of d's terms and P(d|Q) is d's score's share of the documents', with
// their weights scaled to sum to 1 − 0.5, the query keeping the other
// half. The query's own terms and terms in only one document of several
// are left out: a word of one page says nothing of what the question is
// about.
func RM3(query []string, docs []Doc, n int) []Expansion {
	if len(docs) == 0 || n <= 0 {
		return nil
	}
	total := 0.0
	for _, d := range docs {
		total += math.Max(d.Score, 0)
	}
	inQuery := map[string]bool{}
	for _, q := range query {
		inQuery[q] = true
	}
	p := map[string]float64{}
	df := map[string]int{}
	for _, d := range docs {
		if len(d.Terms) == 0 {
			continue
		}
		pd := 1 / float64(len(docs))
		if total > 0 {
			pd = math.Max(d.Score, 0) / total
		}
		tf := map[string]int{}
		for _, t := range d.Terms {
			tf[t]++
		}
		for t, c := range tf {
			if inQuery[t] {
				continue
			}
			df[t]++
			p[t] += float64(c) / float64(len(d.Terms)) * pd
		}
	}
	type tw struct {
		t string
		w float64
	}
	var all []tw
	for t, w := range p {
		if len(docs) > 1 && df[t] < 2 {
			continue
		}
		all = append(all, tw{t, w})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].w != all[j].w {
			return all[i].w > all[j].w
		}
		return all[i].t < all[j].t
	})
	if len(all) > n {
		all = all[:n]
	}
	sum := 0.0
	for _, x := range all {
		sum += x.w
	}
	out := make([]Expansion, len(all))
	for i, x := range all {
		out[i] = Expansion{Term: x.t, Source: Feedback, Weight: (1 - feedbackOriginal) * x.w / sum}
	}
	return out
}
