package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentences, and where they sit. One splitter serves search snippets,
// extractive answers and research: it ends a sentence at ., !, ? or 。
// followed by space, never after an abbreviation or an initial, inside
// parentheses, or inside inline code held between CodeOpen and CodeClose.

// Inline code in marked text is kept between these two bytes, so that a
// quote can render it as code and no period in it ends a sentence.
const (
	CodeOpen  = '\x01'
	CodeClose = '\x02'
)

// Unmark is marked text as plain text.
func Unmark(s string) string {
	if strings.IndexByte(s, CodeOpen) < 0 && strings.IndexByte(s, CodeClose) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == CodeOpen || r == CodeClose {
			return -1
		}
		return r
	}, s)
}

// Split splits one line (a paragraph or list item, unwrapped) into
// sentences.
func Split(line string) []string {
	var out []string
	rs := []rune(line)
	start, inCode, parens := 0, false, 0
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == CodeOpen:
			inCode = true
			continue
		case r == CodeClose:
			inCode = false
			continue
		case inCode:
			continue
		case r == '(':
			parens++
			continue
		case r == ')':
			parens = max(parens-1, 0)
			continue
		case parens > 0:
			continue // "(Actually, it merges …. The option lets you …)" is one aside
		}
		if r != '.' && r != '!' && r != '?' && r != '。' {
			continue
		}
		j := i + 1
		if j < len(rs) && !unicode.IsSpace(rs[j]) {
			continue
		}
		if r == '.' && j < len(rs) && abbreviation([]rune(Unmark(string(rs[start:i+1])))) {
			continue
		}
		if s := strings.TrimSpace(string(rs[start:j])); Unmark(s) != "" {
			out = append(out, s)
		}
		start, parens = j, 0
		i = j - 1
	}
	if s := strings.TrimSpace(string(rs[start:])); Unmark(s) != "" {
		out = append(out, s)
	}
	return out
}

// IsAnswerSentence reports whether s, of min to max words, can answer:
// headings, captions, table rows and the fragment before a code block
// ("It can be loaded with:") cannot, so s must end in sentence
// punctuation.
func IsAnswerSentence(s string, min, max int) bool {
	n := len(strings.Fields(s))
	if n < min || n > max {
		return false
	}
	s = strings.TrimSpace(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	return strings.ContainsRune(".!?。！？", last) && StartsSentence(s)
}

// StartsSentence reports whether s opens like a sentence rather than the
// tail of one cut off at a line break ("leak reports will be produced,
// but ..."): anything but a lower-case letter first, or a first word that is
// code (a name with _ . ( - / : or a digit in it).
func StartsSentence(s string) bool {
	if first, _ := utf8.DecodeRuneInString(s); !unicode.IsLower(first) {
		return true
	}
	word, _, _ := strings.Cut(s, " ")
	return strings.ContainsAny(word, "_.()-0123456789/:")
}

// Sentences splits text into sentences at ., ! and ? followed by space,
// and at paragraph and list-item breaks.
//
// Code is never cut into sentences: lines indented by four spaces or a
// tab (how extracted text holds code blocks) and fenced blocks of
// markdown read as paragraph breaks. Neither are markdown headings.
func Sentences(text string) []string {
	var out []string
	for _, line := range UnwrapLines(WithoutCode(text)) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "*-•+ "))
		if line == "" {
			continue
		}
		out = append(out, Split(line)...)
	}
	return out
}

// WithoutCode blanks the code lines of text (see Sentences).
func WithoutCode(text string) string {
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

// UnwrapLines joins hard-wrapped lines (plain-text files wrap at ~72
// columns) into one line per paragraph or list item.
func UnwrapLines(text string) []string {
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
		if ListItem(t) || strings.HasPrefix(t, "#") || cur.Len() > 0 && lineOfItsOwn(lines[i-1], t) {
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
		if strings.HasPrefix(t, "#") || first && TitleLine(t, next) {
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

// TitleLine reports whether t, the first line of a block of plain text,
// is a heading of its own rather than the start of a wrapped paragraph:
// a few words, no closing punctuation, capitalised or numbered ("4.
// Interpreting Memcheck's output"), and much shorter than the line after
// it. Plain text has no other mark of a heading.
func TitleLine(t, next string) bool {
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

func ListItem(t string) bool {
	if strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "• ") || strings.HasPrefix(t, "+ ") {
		return true
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i < len(t)-1 && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}

// Placed is a sentence with the heading of the section it sits in. Lead
// marks a section's first sentence; Code is the code block that follows
// the sentence, if the sentence closes its paragraph and the block is
// short ("You can select a voice from the command line" and the command).
type Placed struct {
	Text, Heading string
	Lead          bool
	Code          string
	// BeforeCode: a code block follows the sentence (Code holds it when
	// it is short enough to quote).
	BeforeCode bool
}

// MaxQuotedCode is the most lines of a code block a sentence carries.
const MaxQuotedCode = 12

// SentencesUnder splits text as Sentences does and gives each sentence the
// heading above it: a markdown heading, or in plain text a line of a few
// words standing as a block of its own, or opening one (how the extractor
// writes headings in text format). Code never holds a heading or a
// sentence: a fenced block, or lines indented by four spaces or a tab.
func SentencesUnder(text string) []Placed {
	var out []Placed
	heading, lead := "", false
	illustrates := -1 // the sentence a code block starting now would follow
	prose := func(lines []string) {
		if h, level, rest := BlockHeading(lines); level > 0 {
			heading, lead, lines = h, true, rest
		}
		illustrates = -1
		for _, s := range Sentences(strings.Join(lines, "\n")) {
			out = append(out, Placed{Text: s, Heading: heading, Lead: lead})
			lead = false
			illustrates = len(out) - 1
		}
	}
	code := func(lines []string) {
		if len(lines) > 0 && illustrates >= 0 {
			out[illustrates].BeforeCode = true
			if len(lines) <= MaxQuotedCode {
				out[illustrates].Code = Dedent(lines)
			}
		}
		illustrates = -1
	}
	Blocks(text, prose, code)
	return out
}

// Dedent joins lines less the indentation they all share.
func Dedent(lines []string) string {
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

// HeadingLine reports whether t, a line standing alone, reads as a
// heading: a few words, capitalised or numbered, with no closing
// punctuation and not a list item.
func HeadingLine(t string) bool {
	if len(strings.Fields(t)) > 10 || ListItem(t) {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(t)
	if strings.ContainsRune(".!?:;,", last) {
		return false
	}
	first, _ := utf8.DecodeRuneInString(t)
	return unicode.IsUpper(first) || unicode.IsDigit(first)
}
