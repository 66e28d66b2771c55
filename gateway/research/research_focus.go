package research

import (
	"slices"

	"hark/gateway/research/doc"
	"hark/gateway/text"
)

// What a question is about, as the sources read show it: research_rank.go's
// scores lowers a sentence that holds none of it.

// focusWeight is what a sentence counts that holds none of its
// question's focus. Measured on the tuning part (with the focus by page
// count alone): 0.4, 0.5 and 0.8 answered fewer.
const focusWeight = 0.6

// focus is what a question of three or more terms is about, as the
// sources read show it: of its terms that at most half the sources
// hold, the one the fewest sentences hold ("libffi" of "which calling
// conventions does libffi support on x86?", when five of the eight
// sources read are Valgrind's, whose sentences on x86 share "x86",
// "support" and "default" with it; "aes" of "how do I encrypt data with
// AES in Node.js?", not "encrypt", which many of crypto's sentences
// hold). None when each term is in more than half the sources: the
// sources read were found by the question's rare words, so among them
// the page count alone does not tell what the question is about.
func (c *rcorpus) focus(query []string, action string) []string {
	uniq := map[string]bool{}
	for _, t := range query {
		uniq[t] = true
	}
	if len(uniq) < 3 {
		return nil
	}
	df := map[string]int{}
	for _, d := range c.docs {
		has := map[string]bool{}
		for _, t := range doc.Terms(d.Title) {
			has[t] = true
		}
		for i := range d.Sents {
			for _, t := range d.Sents[i].Toks {
				if uniq[t] {
					has[t] = true
				}
			}
		}
		for t := range uniq {
			if has[t] {
				df[t]++
			}
		}
	}
	// "define" of "how do I define a structure type" is what to do with
	// the thing asked about, which its answer may say in other words
	// ("describe the structure"); unless one source alone holds it, when
	// it names that source's topic ("spawn" of "how do I spawn a
	// command", Node's child_process page).
	if df[action] > 1 {
		delete(uniq, action)
	}
	var out []string
	best := 0.0
	for t := range uniq {
		if df[t] == 0 || 2*df[t] > len(c.docs) {
			continue // in no source, or in too many to tell them apart
		}
		switch w := c.sIdx.IDF(t); {
		case w > best:
			best, out = w, []string{t}
		case w == best:
			out = append(out, t)
		}
	}
	return out
}

// howAction is the action a how-to question asks to do, as a term: the
// verb after "how do I", "how can I", "how to" ("define" of "How do I
// define a structure type in libffi?"), or "".
func howAction(q string) string {
	m := howVerb().FindStringSubmatch(q)
	if m == nil {
		return ""
	}
	t := doc.Terms(m[1])
	if len(t) != 1 {
		return ""
	}
	return t[0]
}

var howVerb = text.LazyRegexp(`(?i)^\s*how\s+(?:(?:do|can|could|should|would|may|might)\s+(?:i|we|you|one)|to)\s+([a-z]+)\b`)

// holdsAny reports whether any of the docs holds one of terms.
func holdsAny(terms []string, docs ...[]string) bool {
	for _, doc := range docs {
		for _, t := range doc {
			if slices.Contains(terms, t) {
				return true
			}
		}
	}
	return false
}
