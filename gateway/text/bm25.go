package text

import (
	"math"
	"sort"
)

// BM25 is Okapi BM25 (k1=1.2, b=0.75) over a fixed set of documents
// (each a list of Terms), built once and asked many times. The index
// ranks with FTS5's bm25(); this is the same measure over the passages,
// sentences or pages compared in memory.
type BM25 struct {
	tfs  []map[string]int
	lens []float64
	df   map[string]int
	avg  float64
}

// NewBM25 indexes docs.
func NewBM25(docs [][]string) *BM25 {
	ix := &BM25{tfs: make([]map[string]int, len(docs)), lens: make([]float64, len(docs)), df: map[string]int{}}
	var total float64
	for i, d := range docs {
		tf := make(map[string]int, len(d))
		for _, t := range d {
			tf[t]++
		}
		for t := range tf {
			ix.df[t]++
		}
		ix.tfs[i], ix.lens[i] = tf, float64(len(d))
		total += float64(len(d))
	}
	ix.avg = 1
	if len(docs) > 0 && total > 0 {
		ix.avg = total / float64(len(docs))
	}
	return ix
}

// Score rates every document against the query terms (each counted once).
func (ix *BM25) Score(query []string) []float64 {
	const k1, b = 1.2, 0.75
	out := make([]float64, len(ix.tfs))
	n := float64(len(ix.tfs))
	seen := map[string]bool{}
	for _, q := range query {
		if seen[q] || ix.df[q] == 0 {
			continue
		}
		seen[q] = true
		df := float64(ix.df[q])
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for i, tf := range ix.tfs {
			if f := float64(tf[q]); f > 0 {
				out[i] += idf * f * (k1 + 1) / (f + k1*(1-b+b*ix.lens[i]/ix.avg))
			}
		}
	}
	return out
}

// IDF is a term's inverse document frequency over the documents, as
// Score weighs it: the rarer the term, the more; 0 for a term none holds.
func (ix *BM25) IDF(term string) float64 {
	df := float64(ix.df[term])
	if df == 0 {
		return 0
	}
	n := float64(len(ix.tfs))
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// Holds reports whether some document holds term.
func (ix *BM25) Holds(term string) bool { return ix.df[term] > 0 }

// Respell is the term the documents hold for one that none holds, as
// misspelled or spelled otherwise: one letter more, less, changed or two
// letters swapped ("whisper" of a question, "wisper" of a manual). Of
// several, the one most documents hold, then the first in order. Terms
// under five letters are words of their own, not misspellings ("fork",
// "form"). ok is false when term is held or nothing is one edit away.
func (ix *BM25) Respell(term string) (string, bool) {
	if ix.df[term] > 0 || len(term) < 5 {
		return "", false
	}
	best, bestDF := "", 0
	for t, df := range ix.df {
		if len(t) < 5 || df < bestDF || df == bestDF && t > best || !OneEdit(term, t) {
			continue
		}
		best, bestDF = t, df
	}
	return best, bestDF > 0
}

// OneEdit reports whether a and b differ by one letter inserted,
// deleted or changed, or two neighbours swapped.
func OneEdit(a, b string) bool {
	if a == b {
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	switch len(b) - len(a) {
	case 0:
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		if a[i+1:] == b[i+1:] {
			return true // changed
		}
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:] // swapped
	case 1:
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		return a[i:] == b[i+1:]
	}
	return false
}

// Rank scores passages against query by BM25 over their Terms and returns
// their indices, most relevant first (ties keep their order), with the
// scores by passage.
func Rank(query string, passages []string) ([]int, []float64) {
	docs := make([][]string, len(passages))
	for i, p := range passages {
		docs[i] = Terms(p)
	}
	scores := NewBM25(docs).Score(Terms(query))
	idx := make([]int, len(passages))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	return idx, scores
}
