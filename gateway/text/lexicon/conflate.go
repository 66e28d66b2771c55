package lexicon

import (
	"strings"

	"hark/gateway/text"
)

// Irregular forms and derived nouns, read as one term with their word.
// The Porter stemmer conflates a word's regular forms ("converts",
// "converted") but leaves apart the forms English makes otherwise:
// "spoke" and "speak", "children" and "child", "conversion" and
// "convert", "height" and "high". These maps join them, stem to stem, so
// that every regular form of either side meets the other.

// abstractNoun are the lexicographer files (lexnames(5WN)) of nouns that
// name an act, a state or a quality, as a verb's or an adjective's
// nominalisation does ("conversion", "speech", "height"), not a person
// or a thing ("speaker", "converter"): only those are read as their
// verb or adjective.
var abstractNoun = map[int]bool{
	4: true, 7: true, 9: true, 10: true, 11: true, 12: true, 16: true, // act attribute cognition communication event feeling motive
	19: true, 21: true, 22: true, 23: true, 24: true, 26: true, 28: true, // phenomenon possession process quantity relation state time
}

// irregularStems maps the stem of each irregular form in WordNet's
// exception lists to its base form's stem ("spoke" → "speak", "mice" →
// "mouse"). A form that is a lemma of its own in that part of speech
// ("saw", "found", "bases") or that a regular ending explains is left
// alone: it is a word, not only a form.
func irregularStems(w *WordNet) map[string]string {
	m := map[string]string{}
	for _, pos := range []POS{Noun, Verb, Adj} {
		for infl, bases := range w.exc[pos] {
			if strings.ContainsAny(infl, "_-'") || w.regular(infl, pos) {
				continue
			}
			from, ok1 := text.TermUncached(infl)
			to, ok2 := text.TermUncached(strings.ReplaceAll(bases[0], "_", " "))
			if ok1 && ok2 && from != to && !strings.Contains(bases[0], "_") {
				if _, dup := m[from]; !dup {
					m[from] = to
				}
			}
		}
	}
	return m
}

// regular reports whether word is a lemma of pos, or one by a regular
// ending.
func (w *WordNet) regular(word string, pos POS) bool {
	if w.Has(word, pos) {
		return true
	}
	for _, r := range detachments[pos] {
		if strings.HasSuffix(word, r[0]) && len(word) > len(r[0]) && w.Has(word[:len(word)-len(r[0])]+r[1], pos) {
			return true
		}
	}
	return false
}

// derivedStems maps the stem of each abstract noun that WordNet derives
// from a verb or an adjective to that word's stem: "conversion" →
// "convert", "speech" → "speak", "height" → "high". The two must open
// with one letter (a derivation, not a paraphrase), and the verb or
// adjective be shorter than the noun: "deathly", "noisy" and
// "complexify" come from their nouns, not the nouns from them. A noun
// whose stem is an adjective or a verb of its own ("complexity" stems
// to "complex") is left alone: the map would move that word too. Of several words a noun
// comes from, the one sharing most of its spelling wins, then the
// shortest ("flight" is "fly"'s, not "flee"'s).
func derivedStems(w *WordNet) (map[string]string, error) {
	var data [4][]byte
	for _, pos := range []POS{Noun, Verb, Adj} {
		var err error
		if data[pos], err = w.dataFile(pos); err != nil {
			return nil, err
		}
	}
	type cand struct {
		to           string
		common, size int
	}
	best := map[string]cand{}
	// consider reads noun (of lexicographer file lex) as coming from src,
	// a verb or an adjective.
	consider := func(noun string, lex int, src string) {
		if !abstractNoun[lex] || strings.ContainsAny(noun+src, "_-'") || noun[0] != src[0] || len(src) >= len(noun) || agent(noun) {
			return
		}
		from, ok1 := text.TermUncached(noun)
		to, ok2 := text.TermUncached(src)
		if !ok1 || !ok2 || from == to || w.Has(from, Adj) {
			return
		}
		c := cand{to, commonPrefix(from, to), len(src)}
		if b, ok := best[from]; !ok || c.common > b.common || c.common == b.common && c.size < b.size {
			best[from] = c
		}
	}
	type at struct {
		pos POS
		off int64
	}
	parsed := map[at]synset{}
	target := func(p pointer) (synset, error) {
		if s, ok := parsed[at{p.pos, p.offset}]; ok {
			return s, nil
		}
		s, err := parseSynset(lineAt(data[p.pos], p.offset))
		if err == nil {
			parsed[at{p.pos, p.offset}] = s
		}
		return s, err
	}
	word := func(s synset, n int) string {
		if n < 1 || n > len(s.words) {
			return ""
		}
		return s.words[n-1]
	}
	for _, pos := range []POS{Verb, Adj} {
		err := w.eachSynset(pos, "", func(_ int64, s synset) {
			for _, p := range s.ptrs {
				// "+" links two words of two synsets (a derivation), "="
				// a noun of attribute and its adjectives' synsets.
				if p.symbol != "+" && p.symbol != "=" || (pos == Noun) == (p.pos == Noun) || p.pos == Adv {
					continue
				}
				t, err := target(p)
				if err != nil {
					continue
				}
				n, o := s, t // the noun and the other
				ni, oi := p.src, p.tgt
				if pos != Noun {
					n, o, ni, oi = t, s, p.tgt, p.src
				}
				if p.symbol == "+" {
					if a, b := word(n, ni), word(o, oi); a != "" && b != "" {
						consider(a, n.lexFile, b)
					}
					continue
				}
				for _, a := range n.words {
					for _, b := range o.words {
						consider(a, n.lexFile, b)
					}
				}
			}
		})
		if err != nil {
			return nil, err
		}
	}
	m := make(map[string]string, len(best))
	for k, c := range best {
		m[k] = c.to
	}
	return m, nil
}

// agent reports whether a noun ends as an agent or an instrument does
// ("browser", "converter", "editor"), whichever sense WordNet's link is
// from: a program's "browser" is not its "browse".
func agent(noun string) bool {
	return strings.HasSuffix(noun, "er") || strings.HasSuffix(noun, "or")
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// resolve follows each key of m to the end of its chain ("analys" →
// "analyz" → …), so that one lookup gives the family's term; a cycle
// stops where it closes.
func resolve(m map[string]string) {
	for k := range m {
		v, seen := m[k], map[string]bool{k: true}
		for {
			next, ok := m[v]
			if !ok || seen[v] {
				break
			}
			seen[v] = true
			v = next
		}
		if v == k {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
}
