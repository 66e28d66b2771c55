// Package citation checks a written answer against the numbered passages
// it cites: each sentence must cite at least one passage that exists,
// every piece of code, name, number and flag in it must appear verbatim in
// a passage it cites, and enough of its content words (as gateway/text
// reads them: folded, stemmed, stop words out) must be found there.
//
// It reads text only; it knows nothing of models, pages or reports. A
// Stream checks an answer as it arrives, a sentence at a time.
package citation

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"hark/gateway/text"
)

// The two limits of the content-word check, fitted on the tuning sets of
// the scripted answers (testdata/scripted.json, split by source;
// docs/model.md): the share of a sentence's content words (and exact
// tokens) its cited passages must hold, and the run of consecutive
// content words none of them holds that marks a clause they do not say.
const (
	MinCoverage = 0.55
	MaxRun      = 3
)

// Sentence is one checked sentence of an answer.
type Sentence struct {
	Text  string // as written, citation markers removed
	Cites []int  // the passages it cites, 1-based, in order
	Start int    // byte offsets of the sentence in the answer, markers included
	End   int
	// Claim is false for what asserts nothing to check: a heading, or a
	// sentence with no content word, code, name or number ("In short:").
	Claim     bool
	Supported bool
	Reason    string // why it is not supported, for the report and --json
	Code      bool   // a code block, checked line by line
}

// Result is a checked answer.
type Result struct {
	Sentences []Sentence
}

// Check checks a whole answer against passages (passages[0] is [1]).
func Check(answer string, passages []string) Result {
	s := NewStream(passages)
	out := s.Write(answer)
	out = append(out, s.Close()...)
	return Result{Sentences: out}
}

var (
	citeMarks = text.LazyRegexp(`\[\s*\d+(?:\s*(?:[,;–-]|and)\s*\d+)*\s*\]`)
	// A run of markers, as it opens a sentence that they belong before.
	leadingMarks = text.LazyRegexp(`^(?:\s*\[\s*\d+(?:\s*(?:[,;–-]|and)\s*\d+)*\s*\])+\s*`)
	inlineCode   = text.LazyRegexp("`([^`\n]+)`")
	flagToken    = text.LazyRegexp(`(?:^|[\s(\[,])(--?[A-Za-z][A-Za-z0-9_-]*(?:=[^\s,;)\]]+)?)`)
	numberToken  = text.LazyRegexp(`\b\d+(?:[.,]\d+)*\b`)
	// Paths: from the root, the home or here (/usr/local, ./configure).
	pathToken = text.LazyRegexp(`(?:^|[\s(])((?:~|\.{1,2})?/[A-Za-z0-9_.*-]+(?:/[A-Za-z0-9_.*-]+)*/?)`)
	// Names as code writes them: dotted, snake_case, camelCase, with
	// parentheses or ::, and words in capitals.
	nameToken = text.LazyRegexp(`[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::|->)[A-Za-z_][A-Za-z0-9_]*)+(?:\(\))?|[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*(?:\(\))?|[A-Za-z0-9]*_[A-Za-z0-9_]+|\b[A-Z][A-Z0-9]{1,}\b|[A-Za-z_][A-Za-z0-9_]*\(\)`)
)

// spaceBeforeStop is the space a removed marker leaves before a full
// stop or comma that ends a clause.
var spaceBeforeStop = text.LazyRegexp(`\s+([.,;:!?])(\s|$)`)

// abbreviation is "e.g" or "i.e": dotted, but not a name.
var abbreviation = text.LazyRegexp(`^(?:[A-Za-z]\.)+[A-Za-z]?$`)

// cites reads the numbers of the markers in s.
func cites(s string) []int {
	var out []int
	seen := map[int]bool{}
	add := func(n int) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, m := range citeMarks().FindAllString(s, -1) {
		inner := strings.Trim(m, "[] ")
		inner = strings.ReplaceAll(inner, "and", ",")
		for _, part := range strings.FieldsFunc(inner, func(r rune) bool { return r == ',' || r == ';' }) {
			part = strings.TrimSpace(part)
			lo, hi, isRange := strings.Cut(strings.ReplaceAll(part, "–", "-"), "-")
			a, err := strconv.Atoi(strings.TrimSpace(lo))
			if err != nil {
				continue
			}
			if !isRange {
				add(a)
				continue
			}
			b, err := strconv.Atoi(strings.TrimSpace(hi))
			if err != nil || b < a || b-a > 50 {
				add(a)
				continue
			}
			for n := a; n <= b; n++ {
				add(n)
			}
		}
	}
	return out
}

// withoutMarks is s with its citation markers removed.
func withoutMarks(s string) string {
	s = citeMarks().ReplaceAllString(s, "")
	s = spaceBeforeStop().ReplaceAllString(s, "$1$2")
	return text.OneLine(s)
}

// checker holds the passages as the checks read them.
type checker struct {
	minCoverage float64
	maxRun      int
	passages    []string
	words       []map[string]bool // folded words, for proper names
	terms       []map[string]bool
	squashed    []string // whitespace collapsed, for code
}

func newChecker(passages []string) *checker {
	c := &checker{passages: passages, minCoverage: MinCoverage, maxRun: MaxRun}
	for _, p := range passages {
		w := map[string]bool{}
		for _, x := range text.Words(p) {
			w[x] = true
		}
		c.words = append(c.words, w)
		m := map[string]bool{}
		for _, t := range contentTerms(p) {
			m[t] = true
		}
		c.terms = append(c.terms, m)
		c.squashed = append(c.squashed, text.OneLine(p))
	}
	return c
}

// contentTerms are text.Terms with numbers written as words read as
// digits, so "three" and "3" meet.
func contentTerms(s string) []string {
	ts := text.Terms(s)
	for i, t := range ts {
		if d, ok := numberWords[t]; ok {
			ts[i] = d
		}
	}
	return ts
}

// numberWords are the stems of the numbers a writer spells out.
var numberWords = map[string]string{
	"zero": "0", "on": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
	"seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelv": "12",
}

// check judges one sentence (or code block) in place.
func (c *checker) check(s *Sentence) {
	body := s.Text
	if s.Code {
		s.Claim = strings.TrimSpace(body) != ""
	} else {
		s.Claim = len(contentTerms(body)) > 0 || len(exactTokens(body)) > 0
	}
	if !s.Claim {
		s.Supported = true
		return
	}
	if len(s.Cites) == 0 {
		s.Reason = "cites no passage"
		return
	}
	var cited []int
	for _, n := range s.Cites {
		if n < 1 || n > len(c.passages) {
			s.Reason = fmt.Sprintf("cites passage [%d], but there are %d", n, len(c.passages))
			return
		}
		cited = append(cited, n-1)
	}
	if s.Code {
		c.checkCode(s, cited)
		return
	}
	tokens := exactTokens(body)
	for _, tok := range tokens {
		if !c.anyHolds(cited, tok) {
			s.Reason = fmt.Sprintf("%s is not in %s", quoteToken(tok), passageList(s.Cites))
			return
		}
	}
	for _, name := range properNames(body) {
		if !c.anyWord(cited, name) {
			s.Reason = fmt.Sprintf("the name %q is not in %s", name, passageList(s.Cites))
			return
		}
	}
	// The content words outside the exact tokens: how many the cited
	// passages hold, and the longest run of them that none holds (a
	// clause the passages do not say).
	uniq := map[string]bool{}
	var missing []string
	run, longest := 0, 0
	for _, segment := range exactSegments(body) {
		run = 0
		for _, w := range contentTerms(segment) {
			found := false
			for _, i := range cited {
				if c.terms[i][w] {
					found = true
					break
				}
			}
			if found {
				run = 0
			} else {
				run++
				longest = max(longest, run)
			}
			if !uniq[w] {
				uniq[w] = true
				if !found {
					missing = append(missing, w)
				}
			}
		}
	}
	// Verified tokens count as found words: they are the surest evidence.
	evidence := len(uniq) + len(tokens)
	if evidence > 0 {
		cover := 1 - float64(len(missing))/float64(evidence)
		if cover < c.minCoverage {
			s.Reason = fmt.Sprintf("%s does not say it: %d of its %d content words are missing (%s)",
				passageList(s.Cites), len(missing), len(uniq), strings.Join(originals(body, missing), ", "))
			return
		}
	}
	if longest >= c.maxRun {
		s.Reason = fmt.Sprintf("%s does not say part of it: %s", passageList(s.Cites), strings.Join(originals(body, missing), ", "))
		return
	}
	s.Supported = true
}

// checkCode wants every line of a code block in one cited passage.
func (c *checker) checkCode(s *Sentence, cited []int) {
	for _, line := range strings.Split(s.Text, "\n") {
		line = text.OneLine(line)
		if line == "" {
			continue
		}
		found := false
		for _, i := range cited {
			if strings.Contains(c.squashed[i], line) {
				found = true
				break
			}
		}
		if !found {
			s.Reason = fmt.Sprintf("the code line %q is not in %s", text.TruncateRunes(line, 60), passageList(s.Cites))
			return
		}
	}
	s.Supported = true
}

// anyHolds reports whether a cited passage holds tok verbatim, not as a
// part of a longer word or number.
func (c *checker) anyHolds(cited []int, tok string) bool {
	for _, i := range cited {
		if holds(c.passages[i], tok) || holds(c.squashed[i], text.OneLine(tok)) {
			return true
		}
	}
	return false
}

func holds(p, tok string) bool {
	for from := 0; ; {
		i := strings.Index(p[from:], tok)
		if i < 0 {
			return false
		}
		i += from
		j := i + len(tok)
		// "18" is not in "18.5", nor /usr in /usr/local; a module's
		// name is in its function's (child_process.spawn).
		numeric := tok[0] == '/' || '0' <= tok[0] && tok[0] <= '9'
		longer := numeric && j+1 < len(p) && (p[j] == '.' || p[j] == '/') && joins(p[j+1], 'a')
		if (i == 0 || !joins(p[i-1], tok[0])) && (j == len(p) || !joins(p[j], tok[len(tok)-1])) && !longer {
			return true
		}
		from = i + 1
	}
}

// joins reports whether byte b next to the token's edge byte e makes one
// longer word or number of them.
func joins(b, e byte) bool {
	word := func(x byte) bool {
		return x == '_' || '0' <= x && x <= '9' || 'a' <= x && x <= 'z' || 'A' <= x && x <= 'Z'
	}
	return word(b) && word(e)
}

// exactTokens are what must appear verbatim: inline code, flags,
// numbers, names.
func exactTokens(s string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(t string) {
		t = strings.TrimRight(t, ".,;:")
		if t != "" && !seen[t] && !abbreviation().MatchString(t) {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, m := range inlineCode().FindAllStringSubmatch(s, -1) {
		add(m[1])
	}
	rest := inlineCode().ReplaceAllString(s, " ")
	for _, m := range flagToken().FindAllStringSubmatch(rest, -1) {
		add(m[1])
	}
	rest = flagToken().ReplaceAllString(rest, " ")
	for _, m := range pathToken().FindAllStringSubmatch(rest, -1) {
		add(m[1])
	}
	rest = pathToken().ReplaceAllString(rest, " ")
	for _, m := range nameToken().FindAllString(rest, -1) {
		add(m)
	}
	rest = nameToken().ReplaceAllString(rest, " ")
	for _, m := range numberToken().FindAllString(rest, -1) {
		add(m)
	}
	return out
}

// anyWord reports whether a cited passage holds the word, folded.
func (c *checker) anyWord(cited []int, name string) bool {
	for _, i := range cited {
		all := true
		for _, w := range text.Words(name) {
			if !c.words[i][w] {
				all = false
			}
		}
		if all {
			return true
		}
	}
	return false
}

// properNames are the capitalised words of s after its first word, stop
// words aside: "Foreign Function Interface" names something, and a
// writer who changes one of its words changes what it names.
func properNames(s string) []string {
	var out []string
	first := true
	for _, f := range strings.Fields(stripExact(s)) {
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if w == "" {
			continue
		}
		if first {
			first = false
			continue
		}
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsUpper(r) || text.StopWord(strings.ToLower(w)) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// exactSegments are the stretches of s between its exact tokens.
func exactSegments(s string) []string {
	s = inlineCode().ReplaceAllString(s, "\x00")
	s = flagToken().ReplaceAllString(s, " \x00")
	s = pathToken().ReplaceAllString(s, " \x00")
	s = nameToken().ReplaceAllString(s, "\x00")
	s = numberToken().ReplaceAllString(s, "\x00")
	return strings.Split(s, "\x00")
}

// stripExact is s without its exact tokens, whose words are checked
// verbatim already.
func stripExact(s string) string {
	s = inlineCode().ReplaceAllString(s, " ")
	s = flagToken().ReplaceAllString(s, " ")
	s = pathToken().ReplaceAllString(s, " ")
	s = nameToken().ReplaceAllString(s, " ")
	return numberToken().ReplaceAllString(s, " ")
}

// originals are the words of s whose terms are listed, as written.
func originals(s string, terms []string) []string {
	want := map[string]bool{}
	for _, t := range terms {
		want[t] = true
	}
	var out []string
	for _, w := range text.Words(s) {
		if t, ok := text.Term(w); ok {
			if d, isNum := numberWords[t]; isNum {
				t = d
			}
			if want[t] {
				out = append(out, w)
				delete(want, t)
			}
		}
	}
	return out
}

func quoteToken(t string) string { return "`" + t + "`" }

func passageList(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprintf("[%d]", n)
	}
	if len(ns) == 1 {
		return "passage " + parts[0]
	}
	return "passages " + strings.Join(parts, "")
}
