package lexicon

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"

	"hark/gateway/text"
)

// Spellings pairs British and American spellings of one word, found by
// matching two word lists (Debian's wbritish and wamerican): a British
// word and an American word are one word spelt two ways when one
// becomes the other by one of the systematic differences below and at
// least one of the two is missing from the other list (or WordNet keeps
// both in one synset, as it does "licence" and "license").
type Spellings struct {
	american map[string]string       // British word → American word
	british  map[string]string       // American word → British word
	stemMap  map[string]string       // British stem → American stem
	rules    map[string][]endingRule // by the British ending's last two letters
	known    map[string]bool         // the lists' stems that end as a rule's British ending does
}

// differences are the ways British spelling differs from American, as
// one substitution in a word: "-ise" and "-isation" (is → iz),
// "analyse" (ys → yz), "colour" (our → or), "centre" and "fibre"
// (re → er), "catalogue" (ogue → og), "licence" (ence → ense),
// "travelled" (ll → l), "anaemia" and "oestrogen" (ae, oe → e),
// "programme" (mme → m), "judgement" (dge → dg before "ment").
var differences = [][2]string{
	{"is", "iz"}, {"ys", "yz"}, {"our", "or"}, {"re", "er"}, {"ogue", "og"}, {"ence", "ense"},
	{"ll", "l"}, {"ae", "e"}, {"oe", "e"}, {"mme", "m"}, {"dgement", "dgment"},
}

// LoadSpelling pairs the words of the British list with those of the
// American one (one word a line, as /usr/share/dict's lists are). wn,
// when not nil, accepts a pair both lists hold whose words share a
// synset.
func LoadSpelling(britishList, americanList string, wn *WordNet) (*Spellings, error) {
	brit, err := readWords(britishList)
	if err != nil {
		return nil, err
	}
	amer, err := readWords(americanList)
	if err != nil {
		return nil, err
	}
	s := &Spellings{american: map[string]string{}, british: map[string]string{}}
	for b := range brit {
		for _, d := range differences {
			for i := strings.Index(b, d[0]); i >= 0; {
				a := b[:i] + d[1] + b[i+len(d[0]):]
				if a != b && amer[a] && (!amer[b] || !brit[a] || wn != nil && wn.SameSynset(b, a)) {
					if _, dup := s.american[b]; !dup {
						s.american[b] = a
						s.british[a] = b
					}
				}
				j := strings.Index(b[i+1:], d[0])
				if j < 0 {
					break
				}
				i += 1 + j
			}
		}
	}
	s.stemMap = s.stems(brit, amer)
	s.learnEndings(brit, amer)
	return s, nil
}

// endingRule is a British stem's ending and the American word's ending
// that takes its place, learnt from the pairs: "is" → "ize" of
// "optimis" (the stem of "optimise") and "optimize".
type endingRule struct {
	british, american string
}

// Learnt rules must hold for this many pairs, and for at least this
// share of the lists' stems that end so.
const (
	ruleSupport   = 5
	rulePrecision = 0.5
)

// learnEndings learns, from the word pairs, the endings at which a
// British stem differs from its American word ("is" → "ize", "our" →
// "or", "tr" → "ter"), from the letter before the change on, so that a
// word no list holds ("vectorised", "deserialise", "tokenisation") is
// read the American way too. A rule is kept when it holds for at least
// five pairs and for at least half of the lists' stems that end so
// (the others, "promis" of "promise", are words of their own and stay
// as they are: known).
func (s *Spellings) learnEndings(brit, amer map[string]bool) {
	support := map[endingRule]int{}
	for b, a := range s.american {
		from, ok1 := text.TermUncached(b)
		to, ok2 := text.TermUncached(a)
		cp := commonPrefix(b, a)
		if !ok1 || !ok2 || from == to || cp < 4 || !strings.HasPrefix(from, b[:cp]) {
			continue
		}
		r := endingRule{from[cp-1:], a[cp-1:]}
		if t, _ := text.TermUncached(from[:cp-1] + r.american); t == to {
			support[r]++
		}
	}
	// Of the rules for one British ending, the one most pairs follow.
	best := map[string]endingRule{}
	for r, n := range support {
		if b, ok := best[r.british]; n >= ruleSupport && (!ok || n > support[b] || n == support[b] && r.american < b.american) {
			best[r.british] = r
		}
	}
	endings := map[string]bool{}
	for e := range best {
		endings[e] = true
	}
	// The lists' own stems that end as a rule does: a stem these are
	// stays itself.
	s.known = map[string]bool{}
	for _, list := range []map[string]bool{amer, brit} {
		for w := range list {
			if _, british := s.american[w]; british || !mayEnd(endings, w) {
				continue
			}
			if t, ok := text.TermUncached(w); ok && endsAny(endings, t) {
				s.known[t] = true
			}
		}
	}
	against := map[string]int{}
	for t := range s.known {
		for e := range endings {
			if strings.HasSuffix(t, e) {
				against[e]++
			}
		}
	}
	s.rules = map[string][]endingRule{}
	for e, r := range best {
		n := support[r]
		if float64(n)/float64(n+against[e]) < rulePrecision {
			continue
		}
		k := last2(e)
		s.rules[k] = append(s.rules[k], r)
	}
	for _, rs := range s.rules {
		// The longest ending first, then by name, so that a stem reads
		// the same on every run.
		sort.Slice(rs, func(i, j int) bool {
			if len(rs[i].british) != len(rs[j].british) {
				return len(rs[i].british) > len(rs[j].british)
			}
			return rs[i].british < rs[j].british
		})
	}
}

// mayEnd reports whether word w could have a stem with one of endings:
// the stemmer takes at most a few letters off a word's end, so the
// ending stands within its last eight.
func mayEnd(endings map[string]bool, w string) bool {
	tail := w[max(0, len(w)-8):]
	for e := range endings {
		if strings.Contains(tail, e) {
			return true
		}
	}
	return false
}

func endsAny(endings map[string]bool, t string) bool {
	for k := 2; k <= min(len(t), 5); k++ {
		if endings[t[len(t)-k:]] {
			return true
		}
	}
	return false
}

func last2(s string) string { return s[max(0, len(s)-2):] }

// americanStem is the American stem of a British stem no list holds, by
// the learnt endings ("vectoris" → "vectorize" → "vector"), and false
// for a stem the lists hold or no rule matches.
func (s *Spellings) americanStem(stem string) (string, bool) {
	if len(stem) < 5 {
		return "", false
	}
	rs := s.rules[last2(stem)]
	if len(rs) == 0 || s.known[stem] {
		return "", false
	}
	for _, r := range rs {
		if strings.HasSuffix(stem, r.british) && len(stem)-len(r.british) >= 3 {
			return text.Term(stem[:len(stem)-len(r.british)] + r.american)
		}
	}
	return "", false
}

// prefix is what a word shares with a stem at least: the stemmer
// rewrites a word's last letters only (up to five kept here).
func prefix(stem string) string { return stem[:min(len(stem)-1, 5)] }

// opensAny reports whether w opens with a prefix in opens.
func opensAny(opens map[string]bool, w string) bool {
	for k := 1; k <= min(len(w), 5); k++ {
		if opens[w[:k]] {
			return true
		}
	}
	return false
}

// readWords reads a word list, lower case, leaving out possessives
// ("colour's") and capitalised names.
func readWords(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("spelling: %w", err)
	}
	defer f.Close()
	m := make(map[string]bool, 1<<17) // Debian's lists hold about 100,000 words
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := sc.Text()
		if w == "" || strings.ContainsAny(w, "' ") || w != strings.ToLower(w) {
			continue
		}
		m[w] = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("spelling: %s: %w", path, err)
	}
	return m, nil
}

// American is the American spelling of the British word w, and false
// when the lists pair w with none.
func (s *Spellings) American(w string) (string, bool) {
	a, ok := s.american[strings.ToLower(w)]
	return a, ok
}

// Variants are the other spellings of w: its American spelling if it
// is British, its British one if it is American.
func (s *Spellings) Variants(w string) []string {
	w = strings.ToLower(w)
	var out []string
	if a, ok := s.american[w]; ok {
		out = append(out, a)
	}
	if b, ok := s.british[w]; ok {
		out = append(out, b)
	}
	return out
}

// Len is the number of pairs.
func (s *Spellings) Len() int { return len(s.american) }

// stems maps the stem of each British spelling to its American
// spelling's stem ("optimis" → "optim", "colour" → "color"), so that
// every form of the word meets, listed or not; a stem whose words go
// to several American stems goes to the one most of them do. A British
// stem that an American-only word (not itself a British spelling) also
// has is left alone.
func (s *Spellings) stems(brit, amer map[string]bool) map[string]string {
	votes := map[string]map[string]int{}
	for b, a := range s.american {
		from, ok1 := text.TermUncached(b)
		to, ok2 := text.TermUncached(a)
		if ok1 && ok2 && from != to {
			if votes[from] == nil {
				votes[from] = map[string]int{}
			}
			votes[from][to]++
		}
	}
	m := map[string]string{}
	opens := map[string]bool{} // only words opening as a British stem does can take one
	for from, v := range votes {
		best, n := "", 0
		for to, c := range v {
			if c > n || c == n && to < best {
				best, n = to, c
			}
		}
		m[from] = best
		opens[prefix(from)] = true
	}
	for a := range amer {
		if _, british := s.american[a]; british || brit[a] || !opensAny(opens, a) {
			continue
		}
		if t, ok := text.TermUncached(a); ok {
			delete(m, t)
		}
	}
	return m
}
