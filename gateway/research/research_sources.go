package research

// Which sources a report may quote, and what it says when none answers.

import (
	"strings"

	"hark/gateway/research/doc"
)

// markOffTopic marks the sources that lack a word of the question most
// sources name in their titles: asked "how do I define a structure type
// in libffi?", a Memcheck page on MPI's "structured types" shares two
// words but not "libffi", which the other sources' titles all hold.
func markOffTopic(docs []*rdoc, want []string) {
	if len(docs) < 3 {
		return
	}
	inTitle := make([]map[string]bool, len(docs))
	has := make([]map[string]bool, len(docs))
	for i, d := range docs {
		inTitle[i], has[i] = map[string]bool{}, map[string]bool{}
		for _, t := range doc.Terms(d.Title) {
			inTitle[i][t], has[i][t] = true, true
		}
		for _, s := range d.Sents {
			for _, t := range s.Toks {
				has[i][t] = true
			}
		}
	}
	for _, t := range want {
		n := 0
		for i := range docs {
			if inTitle[i][t] {
				n++
			}
		}
		if 2*n <= len(docs) {
			continue
		}
		for i, d := range docs {
			if !has[i][t] {
				d.offTopic = true
			}
		}
	}
}

// docMatches is how many of want a source holds anywhere.
func docMatches(d *rdoc, want []string) int {
	has := map[string]bool{}
	for _, t := range doc.Terms(d.Title) {
		has[t] = true
	}
	for _, s := range d.Sents {
		for _, t := range s.Toks {
			has[t] = true
		}
	}
	n := 0
	for _, t := range want {
		if has[t] {
			n++
		}
	}
	return n
}

// lookedFor names the words of the question an answer must hold, as the
// question writes them: "the words “SSML”, “tags” and “espeak-ng”".
func lookedFor(input string) string {
	var words []string
	seen := map[string]bool{}
	for _, w := range strings.Fields(input) {
		w = strings.Trim(w, "?!.,;:()\"'")
		t := doc.Terms(w)
		if len(t) == 0 || askWords[t[0]] || seen[strings.ToLower(w)] {
			continue
		}
		seen[strings.ToLower(w)] = true
		words = append(words, "“"+escapeWithin(w)+"”")
	}
	switch len(words) {
	case 0:
		return "the question's words"
	case 1:
		return "the word " + words[0]
	}
	return "the words " + strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
