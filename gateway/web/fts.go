package web

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"hark/gateway/text"
)

// What FTS5 does to text and queries, for the store that is not SQLite:
// its "porter unicode61 remove_diacritics 2" tokens (gateway/text's
// words and stemmer), phrase instances, and its snippet function, so that
// PostgreSQL's index ranks and quotes pages as gateway.db's does.

// match is a search's query: the FTS5 MATCH expression, and the same
// phrases as the tokens the index holds (an OR of one-word phrases, or
// one phrase of every word for exact_match).
type match struct {
	expr    string
	phrases [][]string
}

// newMatch is ftsQuery's expression with its phrases tokenized, and the
// query's terms; nil when the query has no words.
func newMatch(q string, exact bool) (*match, []string) {
	expr, terms := ftsQuery(q, exact)
	if expr == "" {
		return nil, nil
	}
	m := &match{expr: expr}
	for _, ph := range strings.Split(expr, " OR ") {
		toks := ftsTerms(strings.Trim(ph, `"`))
		if len(toks) > 0 {
			m.phrases = append(m.phrases, toks)
		}
	}
	return m, terms
}

// ftsTerms are the tokens FTS5 indexes for s, in order.
func ftsTerms(s string) []string {
	words := text.Words(s)
	for i, w := range words {
		words[i] = text.Stem(w)
	}
	return words
}

// ftsToken is one token of a text with its byte span.
type ftsToken struct {
	term       string
	start, end int
}

// ftsTokenize is ftsTerms with each token's byte offsets in s, as FTS5's
// tokenizer reports them to snippet.
func ftsTokenize(s string) []ftsToken {
	var out []ftsToken
	start := -1
	flush := func(end int) {
		if start >= 0 {
			if w := text.Words(s[start:end]); len(w) == 1 {
				out = append(out, ftsToken{text.Stem(w[0]), start, end})
			}
			start = -1
		}
	}
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(s))
	return out
}

// phraseInstance is where one phrase of a query occurs in a column.
type phraseInstance struct{ pos, phrase, size int }

// phraseInstances lists every instance of phrases in toks in the order
// FTS5's xInst gives them: by position, then by phrase.
func phraseInstances(toks []ftsToken, phrases [][]string) []phraseInstance {
	var out []phraseInstance
	for i := range toks {
		for p, ph := range phrases {
			if i+len(ph) > len(toks) {
				continue
			}
			ok := true
			for j, t := range ph {
				if toks[i+j].term != t {
					ok = false
					break
				}
			}
			if ok {
				out = append(out, phraseInstance{i, p, len(ph)})
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].pos < out[b].pos })
	return out
}

// countPhrase is how often phrase occurs in toks.
func countPhrase(toks []string, phrase []string) int {
	n := 0
	for i := 0; i+len(phrase) <= len(toks); i++ {
		ok := true
		for j, t := range phrase {
			if toks[i+j] != t {
				ok = false
				break
			}
		}
		if ok {
			n++
		}
	}
	return n
}

// ftsSnippet is FTS5's snippet(…, ”, ”, ellipsis, nToken) of one
// column's text doc for phrases (fts5_aux.c's fts5SnippetFunction): the
// window of nToken tokens that holds the most distinct phrases, centred on
// them, or one that starts a sentence when that scores as well.
func ftsSnippet(doc string, phrases [][]string, ellipsis string, nToken int) string {
	toks := ftsTokenize(doc)
	insts := phraseInstances(toks, phrases)
	n := len(toks)
	// The tokens that start a sentence: the first, and those after a "."
	// or ":" and white space.
	var first []int
	for i, t := range toks {
		if i == 0 {
			first = append(first, 0)
			continue
		}
		j := t.start - 1
		var c byte
		for ; j >= 0; j-- {
			c = doc[j]
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				break
			}
		}
		if j != t.start-1 && (c == '.' || c == ':') {
			first = append(first, i)
		}
	}
	// score is fts5SnippetScore: 1000 for each phrase first seen in the
	// window from pos, 1 for each repeat; and the window's start moved to
	// centre what it holds.
	seen := make([]bool, len(phrases))
	score := func(pos int) (int, int) {
		clear(seen)
		s, iFirst, iLast := 0, -1, 0
		for _, in := range insts {
			if in.pos >= pos && in.pos < pos+nToken {
				if seen[in.phrase] {
					s++
				} else {
					s += 1000
				}
				seen[in.phrase] = true
				if iFirst < 0 {
					iFirst = in.pos
				}
				iLast = in.pos + in.size
			}
		}
		adj := iFirst - (nToken-(iLast-iFirst))/2
		if adj+nToken > n {
			adj = n - nToken
		}
		return s, max(adj, 0)
	}
	bestScore, bestStart := 0, 0
	for _, in := range insts {
		s, adj := score(in.pos)
		if s > bestScore {
			bestScore, bestStart = s, adj
		}
		if len(first) > 0 && n > nToken {
			jj := 0
			for ; jj < len(first)-1; jj++ {
				if first[jj+1] > in.pos {
					break
				}
			}
			if first[jj] < in.pos {
				s, _ := score(first[jj])
				if first[jj] == 0 {
					s += 120
				} else {
					s += 100
				}
				if s > bestScore {
					bestScore, bestStart = s, first[jj]
				}
			}
		}
	}
	var b strings.Builder
	from := 0
	if bestStart > 0 {
		b.WriteString(ellipsis)
		if bestStart < n {
			from = toks[bestStart].start
		}
	}
	end := bestStart + nToken - 1
	if end >= n-1 {
		b.WriteString(doc[from:])
	} else {
		b.WriteString(doc[from:toks[end].end])
		b.WriteString(ellipsis)
	}
	return b.String()
}

// pgText is s as PostgreSQL's text keeps it: valid UTF-8 without NUL
// bytes, which SQLite stores and PostgreSQL refuses.
func pgText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	return s
}
