package web

import (
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Lexical relevance shared by extract's query re-ranking, the crawl and map
// instruction filter, search's best chunks and extractive answers, and
// research's sentence picking. It is plain Okapi BM25 (k1=1.2, b=0.75)
// over lower-cased word tokens with English stop words removed and a light
// suffix stemmer, the corpus being the set of passages compared.

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because been
before being below between both but by can could did do does doing down during each few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself just me more most my myself
no nor not now of off on once only or other our ours ourselves out over own same she should so some such than that
the their theirs them themselves then there these they this those through to too under until up very was we were
what when where which while who whom why will with would you your yours yourself yourselves also get got may might
must shall us via vs etc per please tell show find give want need know page pages site only relevant
`) {
		m[w] = true
	}
	return m
}()

// tokens splits text into lower-case terms, dropping stop words and
// one-letter tokens (except digits), and stems each term.
func tokens(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if stopWords[f] || (len(f) == 1 && !unicode.IsDigit(rune(f[0]))) {
			continue
		}
		out = append(out, stem(f))
	}
	return out
}

// stem strips a few common English suffixes so "crawling", "crawled" and
// "crawls" meet. It is deliberately conservative.
func stem(w string) string {
	if strings.HasSuffix(w, "ss") {
		return w // "suppress", "class", "access": no plural to strip
	}
	if len(w) <= 4 {
		return strings.TrimSuffix(w, "s")
	}
	for _, suf := range []string{"ational", "ization", "ingly", "ments", "ement", "ness", "ings", "ing", "edly", "ions", "ion", "ies", "ied", "ed", "ly", "es", "s"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			base := w[:len(w)-len(suf)]
			switch suf {
			case "ion", "ions":
				// "detection" meets "detect", "suppressions" "suppress".
				if !strings.HasSuffix(base, "t") && !strings.HasSuffix(base, "s") {
					continue
				}
			case "ies", "ied":
				return base + "y"
			case "es":
				if strings.HasSuffix(base, "s") || strings.HasSuffix(base, "x") || strings.HasSuffix(base, "ch") || strings.HasSuffix(base, "sh") {
					return base
				}
				return base + "e"
			}
			return base
		}
	}
	return w
}

// bm25 scores docs (already tokenized) against query terms.
func bm25(query []string, docs [][]string) []float64 {
	const k1, b = 1.2, 0.75
	n := float64(len(docs))
	scores := make([]float64, len(docs))
	if len(docs) == 0 || len(query) == 0 {
		return scores
	}
	var total float64
	tfs := make([]map[string]int, len(docs))
	df := map[string]int{}
	for i, d := range docs {
		total += float64(len(d))
		tf := map[string]int{}
		for _, t := range d {
			tf[t]++
		}
		for t := range tf {
			df[t]++
		}
		tfs[i] = tf
	}
	avg := total / n
	if avg == 0 {
		avg = 1
	}
	uniq := map[string]bool{}
	for _, q := range query {
		uniq[q] = true
	}
	for q := range uniq {
		if df[q] == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(df[q])+0.5)/(float64(df[q])+0.5))
		for i, tf := range tfs {
			f := float64(tf[q])
			if f == 0 {
				continue
			}
			dl := float64(len(docs[i]))
			scores[i] += idf * f * (k1 + 1) / (f + k1*(1-b+b*dl/avg))
		}
	}
	return scores
}

// coverageOf is coverage(query, tokens(text)) without tokenizing all of
// a long text: it stops once every term is found.
func coverageOf(query []string, text string) float64 {
	want := map[string]bool{}
	for _, q := range query {
		want[q] = true
	}
	if len(want) == 0 {
		return 0
	}
	found := 0
	var word []rune
	check := func() bool {
		if len(word) == 0 {
			return false
		}
		w := string(word)
		word = word[:0]
		if stopWords[w] || len([]rune(w)) == 1 && !unicode.IsDigit([]rune(w)[0]) {
			return false
		}
		if t := stem(w); want[t] {
			delete(want, t)
			found++
			return len(want) == 0
		}
		return false
	}
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			word = append(word, unicode.ToLower(r))
			continue
		}
		if check() {
			break
		}
	}
	check()
	return float64(found) / float64(found+len(want))
}

// coverage is the fraction of distinct query terms present in doc.
func coverage(query []string, doc []string) float64 {
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

// chunks splits markdown or text into passages of roughly size runes at
// paragraph boundaries, never splitting a fenced code block or table.
func chunks(s string, size int) []string {
	var blocks []string
	var cur strings.Builder
	inFence := false
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") {
			inFence = !inFence
		}
		if t == "" && !inFence {
			if cur.Len() > 0 {
				blocks = append(blocks, strings.TrimSpace(cur.String()))
				cur.Reset()
			}
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
	}
	if cur.Len() > 0 {
		blocks = append(blocks, strings.TrimSpace(cur.String()))
	}
	var out []string
	var acc strings.Builder
	for _, bl := range blocks {
		if acc.Len() > 0 && acc.Len()+len(bl) > size {
			out = append(out, acc.String())
			acc.Reset()
		}
		if acc.Len() > 0 {
			acc.WriteString("\n\n")
		}
		acc.WriteString(bl)
		// A heading belongs with what follows it.
		if strings.HasPrefix(bl, "#") && !strings.Contains(bl, "\n") {
			continue
		}
	}
	if acc.Len() > 0 {
		out = append(out, acc.String())
	}
	return out
}

// rankOrder scores passages by BM25 relevance to query and returns their
// indices, most relevant first (ties keep their order), and the scores by
// passage.
func rankOrder(query string, passages []string) ([]int, []float64) {
	q := tokens(query)
	docs := make([][]string, len(passages))
	for i, p := range passages {
		docs[i] = tokens(p)
	}
	scores := bm25(q, docs)
	idx := make([]int, len(passages))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	return idx, scores
}

// rankChunks orders passages by BM25 relevance to query, most relevant
// first; passages of equal score keep their order.
func rankChunks(query string, passages []string) ([]string, []float64) {
	idx, scores := rankOrder(query, passages)
	out := make([]string, len(idx))
	outScores := make([]float64, len(idx))
	for i, j := range idx {
		out[i] = passages[j]
		outScores[i] = scores[j]
	}
	return out, outScores
}

// isAnswerSentence reports whether s, of min to max words, can answer:
// headings, captions, table rows and the fragment before a code block
// ("It can be loaded with:") cannot, so s must end in sentence
// punctuation.
func isAnswerSentence(s string, min, max int) bool {
	n := len(strings.Fields(s))
	if n < min || n > max {
		return false
	}
	s = strings.TrimSpace(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	return strings.ContainsRune(".!?。！？", last) && startsSentence(s)
}

// startsSentence reports whether s opens like a sentence rather than the
// tail of one cut off at a line break ("leak reports will be produced,
// but ..."): anything but a lower-case letter first, or a first word that is
// code (a name with _ . ( - / : or a digit in it).
func startsSentence(s string) bool {
	if first, _ := utf8.DecodeRuneInString(s); !unicode.IsLower(first) {
		return true
	}
	word, _, _ := strings.Cut(s, " ")
	return strings.ContainsAny(word, "_.()-0123456789/:")
}

// sentences splits text into sentences at ., ! and ? followed by space,
// and at paragraph and list-item breaks.
//
// Code is never cut into sentences: lines indented by four spaces or a
// tab (how extracted text holds code blocks) and fenced blocks of
// markdown read as paragraph breaks. Neither are markdown headings.
func sentences(text string) []string {
	var out []string
	for _, line := range unwrapLines(withoutCode(text)) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "*-•+ "))
		if line == "" {
			continue
		}
		start := 0
		rs := []rune(line)
		for i := 0; i < len(rs); i++ {
			r := rs[i]
			if (r == '.' || r == '!' || r == '?' || r == '。') && (i+1 == len(rs) || unicode.IsSpace(rs[i+1])) {
				// Skip abbreviations like "e.g." and initials.
				if r == '.' && i+1 < len(rs) && abbreviation(rs[start:i+1]) {
					continue
				}
				if s := strings.TrimSpace(string(rs[start : i+1])); s != "" {
					out = append(out, s)
				}
				start = i + 1
			}
		}
		if s := strings.TrimSpace(string(rs[start:])); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// withoutCode blanks the code lines of text (see sentences).
func withoutCode(text string) string {
	lines := strings.Split(text, "\n")
	fenced := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fenced = !fenced
			lines[i] = ""
		case fenced || strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t"):
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

var abbreviations = map[string]bool{"e.g": true, "i.e": true, "etc": true, "vs": true, "cf": true, "fig": true,
	"no": true, "mr": true, "mrs": true, "dr": true, "prof": true, "inc": true, "approx": true, "resp": true, "st": true,
	"jr": true, "sr": true, "al": true, "ch": true, "sec": true, "vol": true, "pp": true, "ed": true}

// abbreviation reports whether the period that ends rs ends an
// abbreviation ("e.g.", "Dr.", an initial "J.") or a list number ("3."
// opening the line), not a sentence. A short word is not enough: "it."
// and "on." end sentences.
func abbreviation(rs []rune) bool {
	word := strings.ToLower(strings.TrimLeft(lastWord(rs), "(["))
	w := []rune(word)
	switch {
	case abbreviations[word], initials(word):
		return true
	case len(w) == 1 && unicode.IsLetter(w[0]):
		return true
	}
	return strings.TrimLeft(strings.TrimSpace(string(rs)), "0123456789") == "."
}

// initials reports whether word is dotted letters ("e.g", "u.s", "a.m"),
// not a file name ("tc14.c").
func initials(word string) bool {
	parts := strings.Split(word, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if r := []rune(p); len(r) != 1 || !unicode.IsLetter(r[0]) {
			return false
		}
	}
	return true
}

func lastWord(rs []rune) string {
	s := strings.TrimSpace(string(rs))
	if i := strings.LastIndexFunc(s, unicode.IsSpace); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimRight(s, ".")
}

// shingles returns the set of word n-grams of text, for near-duplicate
// checks and the extraction-quality benchmark.
func shingles(text string, n int) map[string]int {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := map[string]int{}
	for i := 0; i+n <= len(words); i++ {
		out[strings.Join(words[i:i+n], " ")]++
	}
	if len(words) < n && len(words) > 0 {
		out[strings.Join(words, " ")]++
	}
	return out
}

func jaccard(a, b map[string]int) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := 0
	for k := range a {
		if _, ok := b[k]; ok {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// unwrapLines joins hard-wrapped lines (plain-text files wrap at ~72
// columns) into one line per paragraph or list item.
func unwrapLines(text string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if t == "" {
			flush()
			continue
		}
		if listItem(t) || strings.HasPrefix(t, "#") || cur.Len() > 0 && lineOfItsOwn(lines[i-1], t) {
			flush()
		}
		first := cur.Len() == 0
		if !first {
			cur.WriteByte(' ')
		}
		cur.WriteString(t)
		next := ""
		if i+1 < len(lines) {
			next = strings.TrimSpace(lines[i+1])
		}
		if strings.HasPrefix(t, "#") || first && titleLine(t, next) {
			flush()
		}
	}
	flush()
	return out
}

// lineOfItsOwn reports whether prev, the line before t, ends a unit of
// its own rather than wrapping into t: it is short (wrapping breaks only
// full lines) and t opens with a capital or a digit. The extractor's
// text writes each list item on a line of its own ("A regular install",
// "An editable install"); wrapped plain text breaks long lines.
func lineOfItsOwn(prev, t string) bool {
	if utf8.RuneCountInString(strings.TrimSpace(prev)) >= 50 {
		return false
	}
	first, _ := utf8.DecodeRuneInString(t)
	return unicode.IsUpper(first) || unicode.IsDigit(first)
}

// titleLine reports whether t, the first line of a block of plain text,
// is a heading of its own rather than the start of a wrapped paragraph:
// a few words, no closing punctuation, capitalised or numbered ("4.
// Interpreting Memcheck's output"), and much shorter than the line after
// it. Plain text has no other mark of a heading.
func titleLine(t, next string) bool {
	if next == "" || len(strings.Fields(t)) > 8 || 2*len(t) > len(next) {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(t)
	if strings.ContainsRune(".!?:;,", last) {
		return false
	}
	first, _ := utf8.DecodeRuneInString(t)
	return unicode.IsUpper(first) || unicode.IsDigit(first)
}

func listItem(t string) bool {
	if strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "• ") || strings.HasPrefix(t, "+ ") {
		return true
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i < len(t)-1 && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}

// placed is a sentence with the heading of the section it sits in. lead
// marks a section's first sentence; code is the code block that follows
// the sentence, if the sentence closes its paragraph and the block is
// short ("You can select a voice from the command line" and the command).
type placed struct {
	text, heading string
	lead          bool
	code          string
	// beforeCode: a code block follows the sentence (code holds it when
	// it is short enough to quote).
	beforeCode bool
}

// maxQuotedCode is the most lines of a code block a sentence carries.
const maxQuotedCode = 12

// sentencesUnder splits text as sentences does and gives each sentence the
// heading above it: a markdown heading, or in plain text a line of a few
// words standing as a block of its own, or opening one (how the extractor
// writes headings in text format). Code never holds a heading or a
// sentence: a fenced block, or lines indented by four spaces or a tab.
func sentencesUnder(text string) []placed {
	var out []placed
	heading, lead := "", false
	var prose, code []string
	fenced := false
	illustrates := -1 // the sentence a code block starting now would follow
	flushProse := func() {
		if len(prose) == 0 {
			return
		}
		first, rest := strings.TrimSpace(prose[0]), prose[1:]
		next := ""
		if len(rest) > 0 {
			next = strings.TrimSpace(rest[0])
		}
		switch {
		case strings.HasPrefix(first, "#"):
			heading, lead = strings.TrimSpace(strings.TrimLeft(first, "#")), true
		case len(rest) == 0 && headingLine(first), titleLine(first, next):
			heading, lead = first, true
		default:
			rest = prose
		}
		illustrates = -1
		for _, s := range sentences(strings.Join(rest, "\n")) {
			out = append(out, placed{text: s, heading: heading, lead: lead})
			lead = false
			illustrates = len(out) - 1
		}
		prose = prose[:0]
	}
	flushCode := func() {
		for len(code) > 0 && strings.TrimSpace(code[len(code)-1]) == "" {
			code = code[:len(code)-1]
		}
		if len(code) > 0 && illustrates >= 0 {
			out[illustrates].beforeCode = true
			if len(code) <= maxQuotedCode {
				out[illustrates].code = dedent(code)
			}
		}
		code, illustrates = code[:0], -1
	}
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			if fenced {
				flushCode()
			} else {
				flushProse()
			}
			fenced = !fenced
		case fenced:
			code = append(code, l)
		case t == "":
			flushProse()
			if len(code) > 0 {
				code = append(code, "") // a blank line inside indented code
			}
		case strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t"):
			flushProse()
			code = append(code, l)
		default:
			if len(code) > 0 {
				flushCode()
			}
			if strings.HasPrefix(t, "#") {
				flushProse() // a markdown heading is a block of its own
			}
			prose = append(prose, l)
		}
	}
	flushProse()
	flushCode()
	return out
}

// dedent joins lines less the indentation they all share.
func dedent(lines []string) string {
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			l = l[indent:]
		}
		out[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(out, "\n")
}

// headingLine reports whether t, a line standing alone, reads as a
// heading: a few words, capitalised or numbered, with no closing
// punctuation and not a list item.
func headingLine(t string) bool {
	if len(strings.Fields(t)) > 10 || listItem(t) {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(t)
	if strings.ContainsRune(".!?:;,", last) {
		return false
	}
	first, _ := utf8.DecodeRuneInString(t)
	return unicode.IsUpper(first) || unicode.IsDigit(first)
}

// lazyRegexp compiles pattern on first use. Patterns compiled as package
// variables would cost every start of hark, a research or markdown file
// read or not (docs/startup.md).
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
