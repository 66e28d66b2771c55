package research

import (
	"hark/gateway/research/doc"
	"hark/gateway/text"
	"hark/gateway/text/lexicon"
)

// expansions are the terms the words of question q expand to, from each
// lexical source apart (lexicon.Synonym, Derived, Spelling), each a term
// as terms reads it with its source's prior weight, so that the ranker
// can weigh each source with its own fitted weight. Terms q holds
// already are left out, and a term two words expand to keeps its first
// and heaviest weight per source. Feedback from the index is
// lexicon.RM3 over the first retrieval's passages.
func expansions(q string) []lexicon.Expansion {
	lx := lexicon.Default()
	own := map[string]bool{}
	for _, t := range doc.Terms(q) {
		own[t] = true
	}
	type key struct {
		term string
		src  lexicon.Source
	}
	at := map[key]int{}
	var out []lexicon.Expansion
	for _, w := range text.Words(q) {
		if _, ok := text.Term(w); !ok {
			continue
		}
		for _, src := range []lexicon.Source{lexicon.Synonym, lexicon.Derived, lexicon.Spelling} {
			for _, e := range lx.Expand(w, src) {
				if own[e.Term] {
					continue
				}
				k := key{e.Term, src}
				if i, ok := at[k]; ok {
					out[i].Weight = max(out[i].Weight, e.Weight)
					continue
				}
				at[k] = len(out)
				out = append(out, e)
			}
		}
	}
	return out
}
