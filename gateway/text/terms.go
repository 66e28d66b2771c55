// Package text is the gateway's one text toolkit: the words of a text as
// the index reads them (tokenizer and Porter stemmer, the same as SQLite
// FTS5's "porter unicode61" that the index uses), the stop words ranking
// ignores, BM25, and the sentence splitter with its one list of
// abbreviations. The index's ranking, search snippets, extractive answers
// and research all read text through it, so that a page search finds is a
// page research can quote.
//
// It does no I/O and keeps no state beyond lazily built tables.
package text

import (
	_ "embed"
	"strings"
	"unicode"
	"unicode/utf8"
)

// stopWords are English function words and the words of a request
// ("please tell me", "find pages") that carry no topic, read from
// stopwords.txt.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, ln := range strings.Split(stopWordsFile, "\n") {
		if w, _, _ := strings.Cut(ln, "#"); strings.TrimSpace(w) != "" {
			m[strings.TrimSpace(w)] = true
		}
	}
	return m
}()

//go:embed stopwords.txt
var stopWordsFile string

// StopWord reports whether w (lower case) carries no topic.
func StopWord(w string) bool { return stopWords[w] }

// wordRune: FTS5's unicode61 keeps letters and digits as token characters
// and treats everything else as a separator.
func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// Words splits s into lower-case words as the index's tokenizer does,
// before stemming, diacritics removed.
func Words(s string) []string {
	return strings.FieldsFunc(fold(s), func(r rune) bool { return !wordRune(r) })
}

// NameParts are the terms of the words inside the camel-case names in s:
// "append" and "file" of "fs.appendFile(path, data[, options], callback)".
// Terms reads "appendFile" as one word, as the index does; a heading
// that names an API entry says what the entry is for in the name's parts.
func NameParts(s string) []string {
	var out []string
	for _, m := range camelName().FindAllString(s, -1) {
		var b strings.Builder
		for i, r := range m {
			if i > 0 && unicode.IsUpper(r) {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
		}
		out = append(out, Terms(b.String())...)
	}
	return out
}

var camelName = LazyRegexp(`\b[a-z]+(?:[A-Z][a-z]+)+\b`)

// Terms are the words of s that rank: lower case, stemmed as the index
// stems, without stop words and one-letter words (digits stay).
//
// A word of letters then digits ("sha256", "utf8", "mp3") also yields
// its two parts, so that it meets the same name written with a hyphen
// ("SHA-256", which the tokenizer reads as "sha" and "256").
func Terms(s string) []string {
	var out []string
	for _, f := range Words(s) {
		if t, ok := Term(f); ok {
			out = append(out, t)
		}
		if a, b, ok := lettersDigits(f); ok {
			for _, p := range []string{a, b} {
				if t, ok := Term(p); ok {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// lettersDigits splits a word of letters followed by digits.
func lettersDigits(w string) (string, string, bool) {
	i := strings.IndexFunc(w, unicode.IsDigit)
	if i <= 0 || strings.IndexFunc(w[i:], func(r rune) bool { return !unicode.IsDigit(r) }) >= 0 {
		return "", "", false
	}
	return w[:i], w[i:], true
}

// Term is the ranking term of one lower-case word, and false for a stop
// word or a single letter.
func Term(w string) (string, bool) {
	if stopWords[w] {
		return "", false
	}
	if r, n := utf8.DecodeRuneInString(w); n == len(w) && !unicode.IsDigit(r) {
		return "", false
	}
	return Stem(w), true
}

// TermUncached is Term without keeping the stem in Stem's cache: for
// reading a dictionary once (gateway/text/lexicon), whose hundred
// thousand words would fill the cache the pages' words are kept in.
func TermUncached(w string) (string, bool) {
	if stopWords[w] {
		return "", false
	}
	if r, n := utf8.DecodeRuneInString(w); n == len(w) && !unicode.IsDigit(r) {
		return "", false
	}
	if len(w) < 3 || len(w) > 64 {
		return w, true
	}
	if s, ok := stems.Load(w); ok {
		return s.(string), true
	}
	return stem(w), true
}

// fold lower-cases s and removes the diacritics of Latin letters
// (remove_diacritics 2): "Café" is "cafe".
func fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	return strings.Map(func(r rune) rune {
		r = unicode.ToLower(r)
		if b, ok := latinBase[r]; ok {
			return b
		}
		return r
	}, s)
}

// latinBase maps accented Latin letters to the letter they carry.
var latinBase = func() map[rune]rune {
	m := map[rune]rune{}
	for base, accented := range map[rune]string{
		'a': "àáâãäåāăą", 'c': "çćĉċč", 'd': "ďđ", 'e': "èéêëēĕėęě", 'g': "ĝğġģ", 'h': "ĥħ",
		'i': "ìíîïĩīĭįı", 'j': "ĵ", 'k': "ķ", 'l': "ĺļľŀł", 'n': "ñńņňŉ", 'o': "òóôõöøōŏő",
		'r': "ŕŗř", 's': "śŝşš", 't': "ţťŧ", 'u': "ùúûüũūŭůűų", 'w': "ŵ", 'y': "ýÿŷ", 'z': "źżž",
	} {
		for _, r := range accented {
			m[r] = base
		}
	}
	return m
}()

// Coverage is the fraction of the distinct query terms present in doc.
func Coverage(query, doc []string) float64 {
	uniq := map[string]bool{}
	for _, q := range query {
		uniq[q] = true
	}
	if len(uniq) == 0 {
		return 0
	}
	have := map[string]bool{}
	for _, t := range doc {
		if uniq[t] {
			have[t] = true
		}
	}
	return float64(len(have)) / float64(len(uniq))
}

// CoverageOf is Coverage(query, Terms(s)) without reading all of a long
// text: it stops once every query term is found.
func CoverageOf(query []string, s string) float64 {
	uniq := map[string]bool{}
	for _, q := range query {
		uniq[q] = true
	}
	if len(uniq) == 0 {
		return 0
	}
	return float64(len(Present(query, s))) / float64(len(uniq))
}

// Present is the set of query terms s holds, read until all are found.
func Present(query []string, s string) map[string]bool {
	want := map[string]bool{}
	for _, q := range query {
		want[q] = true
	}
	found := map[string]bool{}
	if len(want) == 0 {
		return found
	}
	// A stem opens with its word's first letter (Porter only rewrites
	// endings, and always leaves a letter), so a word whose first letter
	// opens no wanted term is not stemmed at all: most of a page's words.
	var firsts [128]bool
	for q := range want {
		if q != "" && q[0] < utf8.RuneSelf {
			firsts[q[0]] = true
		} else {
			firsts = [128]bool{}
			for i := range firsts {
				firsts[i] = true
			}
			break
		}
	}
	start := -1
	check := func(w string) bool {
		if c := w[0]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if !firsts[c] {
				return false
			}
		}
		if t, ok := Term(fold(w)); ok && want[t] {
			delete(want, t)
			found[t] = true
			return len(want) == 0
		}
		return false
	}
	for i, r := range s {
		if wordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			if check(s[start:i]) {
				return found
			}
			start = -1
		}
	}
	if start >= 0 {
		check(s[start:])
	}
	return found
}

// TermSet is every term Present can find in s: the distinct Term of each
// of its words, in the order first met. A store that keeps it beside a
// long text answers Present on that text without reading it again.
func TermSet(s string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		if t, ok := Term(fold(w)); ok && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	start := -1
	for i, r := range s {
		if wordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			add(s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		add(s[start:])
	}
	return out
}
