package lexicon

import (
	"slices"
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
// name an act, a state or an event, as a verb's nominalisation does
// ("speech", "explanation"), not a person or a thing ("speaker",
// "converter"): only those are read as their verb.
var abstractNoun = map[int]bool{
	4: true, 7: true, 9: true, 10: true, 11: true, 12: true, 16: true, // act attribute cognition communication event feeling motive
	19: true, 21: true, 22: true, 23: true, 24: true, 26: true, 28: true, // phenomenon possession process quantity relation state time
}

// irregularStems maps the stem of each irregular form in WordNet's
// exception lists to its base form's stem ("spoke" → "speak", "mice" →
// "mouse"). A form that is a lemma of its own in that part of speech
// ("saw", "found"), that a regular ending explains ("bases"), or that is
// a noun of its own with senses attested in WordNet's tagged corpus
// ("bit", "left", "thought") is left alone, and so is one whose stem
// another lemma has ("rang" stems as "range" does).
func irregularStems(w *WordNet) map[string]string {
	m := map[string]string{}
	for _, pos := range []POS{Noun, Verb, Adj} {
		for infl, bases := range w.exc[pos] {
			base := bases[0]
			if strings.ContainsAny(infl+base, "_-'") || w.regular(infl, pos) || w.tagged(infl, Noun) >= 2 {
				continue
			}
			from, ok1 := text.TermUncached(infl)
			to, ok2 := text.TermUncached(base)
			if !ok1 || !ok2 || from == to || w.stemTaken(from, infl, base) {
				continue
			}
			if _, dup := m[from]; !dup {
				m[from] = to
			}
		}
	}
	return m
}

// stemTaken reports whether stem is the stem of a lemma other than the
// words given: itself, or itself with the "e" the stemmer takes off
// ("rang" of "range", "remot" of "remote"). Mapping it would move that
// word too.
func (w *WordNet) stemTaken(stem string, words ...string) bool {
	for _, l := range []string{stem, stem + "e"} {
		if slices.Contains(words, l) {
			continue
		}
		for pos := Noun; pos <= Adv; pos++ {
			if w.Has(l, pos) {
				return true
			}
		}
	}
	return false
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
// from a verb (its "+" pointers) to the verb's stem: "speech" →
// "speak", "explanation" → "explain", "failure" → "fail". Nouns of
// acts, states, events and the like only (abstractNoun), not agents
// (agent); the verb must be shorter than the noun and share its first
// two letters (a derivation, not a paraphrase); a noun whose stem
// another lemma has is left alone ("processing" stems to "process",
// "conversion" as "converse" does): the map would move that word too.
// Of several verbs a noun comes from, the one sharing most of its
// spelling wins, then the shortest.
func derivedStems(w *WordNet) (map[string]string, error) {
	nouns, err := w.dataFile(Noun)
	if err != nil {
		return nil, err
	}
	type cand struct {
		to           string
		common, size int
	}
	best := map[string]cand{}
	parsed := map[int64]synset{}
	err = w.eachSynset(Verb, " + ", func(_ int64, s synset) {
		for _, p := range s.ptrs {
			if p.symbol != "+" || p.pos != Noun || p.src < 1 || p.src > len(s.words) || p.tgt < 1 {
				continue
			}
			n, ok := parsed[p.offset]
			if !ok {
				var err error
				if n, err = parseSynset(lineAt(nouns, p.offset)); err != nil {
					continue
				}
				parsed[p.offset] = n
			}
			if p.tgt > len(n.words) || !abstractNoun[n.lexFile] {
				continue
			}
			noun, verb := n.words[p.tgt-1], s.words[p.src-1]
			if strings.ContainsAny(noun+verb, "_-'") || commonPrefix(noun, verb) < 2 || len(verb) >= len(noun) || agent(noun) {
				continue
			}
			from, ok1 := text.TermUncached(noun)
			to, ok2 := text.TermUncached(verb)
			if !ok1 || !ok2 || from == to || w.stemTaken(from, noun, verb) {
				continue
			}
			c := cand{to, commonPrefix(from, to), len(verb)}
			if b, ok := best[from]; !ok || c.common > b.common || c.common == b.common && c.size < b.size {
				best[from] = c
			}
		}
	})
	if err != nil {
		return nil, err
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
