package library

import (
	"regexp"
	"strings"
	"unicode"
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
