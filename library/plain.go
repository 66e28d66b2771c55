package library

import (
	"regexp"
	"strings"
	"unicode"

	"hark/api"
)

var (
	mdLink     = regexp.MustCompile(`!?\[((?:[^\[\]\\]|\\.)*)\]\([^)\s]*(?:\s+"[^"]*")?\)`)
	mdAutoLink = regexp.MustCompile(`<((?:https?|file|mailto|ftp):[^>\s]+)>`)
	mdHeading  = regexp.MustCompile(`^#{1,6}\s+`)
	mdFence    = regexp.MustCompile("^(```|~~~)")
	mdBullet   = regexp.MustCompile(`^[-*+]\s+`)
	mdRule     = regexp.MustCompile(`^(?:[-*_=]\s*){3,}$`)
	mdTableSep = regexp.MustCompile(`^\|?\s*:?-{3,}`)
)

// PlainText is markdown as words to read on one line, in a snippet, a
// list's preview or a title: links and images as their text, autolinks
// as their URL, no heading, quote, list or emphasis marks, no code
// fences, rules or table bars, and no escapes ("ffi_cif \*cif" reads
// "ffi_cif *cif"; "Tilde \~" reads "Tilde ~"). An underscore or a star
// inside a word (snake_case, a*b) is text.
func PlainText(md string) string {
	var words []string
	for _, l := range strings.Split(md, "\n") {
		l = strings.TrimSpace(l)
		for strings.HasPrefix(l, ">") {
			l = strings.TrimSpace(l[1:])
		}
		if l == "" || mdFence.MatchString(l) || mdRule.MatchString(l) || mdTableSep.MatchString(l) || strings.HasPrefix(l, "<!--") {
			continue
		}
		l = mdHeading.ReplaceAllString(l, "")
		l = mdBullet.ReplaceAllString(l, "")
		l = mdLink.ReplaceAllString(l, "$1")
		l = mdAutoLink.ReplaceAllString(l, "$1")
		l = unescapeInline(l)
		for _, w := range strings.Fields(l) {
			if w != "|" {
				words = append(words, w)
			}
		}
	}
	return strings.Join(words, " ")
}

// unescapeInline drops markdown's inline marks from one line: backslash
// escapes become the character, and code-span backticks and emphasis
// stars and underscores at a word's edge go.
func unescapeInline(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\' && i+1 < len(rs) && (unicode.IsPunct(rs[i+1]) || unicode.IsSymbol(rs[i+1])):
			i++
			b.WriteRune(rs[i])
		case r == '`':
		case r == '*' || r == '_':
			inWord := i > 0 && i+1 < len(rs) && isWordRune(rs[i-1]) && isWordRune(rs[i+1])
			if inWord || r == '*' && i+1 < len(rs) && rs[i+1] == ' ' && (i == 0 || rs[i-1] == ' ') {
				b.WriteRune(r) // snake_case, a*b, a lone star
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// PlainQuote is a highlight's quote as the page reads, for the exports
// that hold plain text (BibTeX's annote, CSL-JSON's note, a Zotero
// note): a quote is kept as the page's markdown on one line ("the
// `git worktree` command", "**not**"), which the library's own markdown
// view and an Obsidian note render, but in a citation manager the
// backticks and stars are noise. Code spans lose their backticks and
// keep what they hold as written (`**kwargs` stays **kwargs); elsewhere
// links read as their text, and emphasis marks and escapes go, as in
// PlainText. Only marks go: the words stay, so api.Locate finds the
// plain quote in the page as it finds the kept one.
func PlainQuote(q string) string {
	q = api.QuoteText(q)
	var b strings.Builder
	for q != "" {
		open := strings.IndexByte(q, '`')
		if open < 0 {
			b.WriteString(plainInline(q))
			break
		}
		n := open
		for n < len(q) && q[n] == '`' {
			n++
		}
		fence := q[open:n]
		end := closingTicks(q[n:], fence)
		if end < 0 {
			// No closing run. Against a word it is a span the quote cut
			// (a quote ends at its last word: "for `--force"): it goes;
			// between blanks it is a backtick in the text.
			b.WriteString(plainInline(q[:open]))
			if (open == 0 || q[open-1] == ' ') && (n == len(q) || q[n] == ' ') {
				b.WriteString(fence)
			}
			q = q[n:]
			continue
		}
		b.WriteString(plainInline(q[:open]))
		b.WriteString(q[n : n+end]) // its blanks stay: "`` `x` ``" is " `x` ", words apart
		q = q[n+end+len(fence):]
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// closingTicks is where in s a run of exactly fence's backticks is, -1
// when none is.
func closingTicks(s, fence string) int {
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], fence)
		if j < 0 {
			return -1
		}
		at := i + j
		end := at + len(fence)
		if end < len(s) && s[end] == '`' {
			for end < len(s) && s[end] == '`' {
				end++
			}
			i = end // a longer run closes another span
			continue
		}
		return at
	}
	return -1
}

// plainInline is a stretch of a quote outside code spans without its
// marks: autolinks as their URL, escapes as the character, no emphasis.
func plainInline(s string) string {
	s = mdLink.ReplaceAllString(s, "$1")
	s = mdAutoLink.ReplaceAllString(s, "$1")
	return unescapeInline(s)
}
