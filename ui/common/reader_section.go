package common

import (
	"net/url"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// Where a followed link's #fragment points inside its page: extraction
// keeps no ids, so the heading or the term it was on is found again by
// its words.

// GoToSection scrolls to the heading that a link's #fragment points at:
// the heading whose id (its text as a slug, "#detected-errors") the
// fragment is, else the heading that shares the most words with the
// fragment and the link's text, for pages whose ids extraction dropped
// ("#hg-manual.api-checks", "Misuses of the POSIX pthreads API" →
// "7.2. Detected errors: Misuses of the POSIX pthreads API"). doc is the
// page's markdown, or with plain its text; pageURL's own words
// (hg-manual) say nothing of the section. It reports false, and stays,
// when no heading fits.
func GoToSection(doc string, plain bool, pageURL, fragment, linkText string, s *Scroll) bool {
	toc := markdownHeadings(doc)
	if plain {
		toc = textHeadings(doc)
	}
	locate(toc, s)
	best := sectionFor(toc, pageURL, fragment, linkText)
	line := -1
	switch {
	case best >= 0 && slug(toc[best].Text) == normalFragment(fragment):
		line = toc[best].Line
	case anchoredLine(s.lines, fragment, linkText) >= 0:
		// An anchor on a term, not a heading ("#opt.log-file" on
		// "--log-file=<filename>"): extraction keeps no ids, so the line
		// that opens with the link's text stands for it.
		line = anchoredLine(s.lines, fragment, linkText)
	case best >= 0:
		line = toc[best].Line
	default:
		return false
	}
	s.offset = line
	s.clamp()
	return true
}

// normalFragment is a #fragment as heading ids are compared with it.
func normalFragment(fragment string) string {
	if f, err := url.PathUnescape(fragment); err == nil {
		fragment = f
	}
	return strings.ToLower(strings.TrimPrefix(fragment, "#"))
}

// anchoredLine is the first of lines that opens a paragraph with the text of a link
// whose words are the fragment's ("--log-file" for "#opt.log-file"): the
// term or the entry the anchor was on; -1 when none does, or when the
// link's text does not name the fragment (its words could open any line).
func anchoredLine(lines []string, fragment, linkText string) int {
	fw := map[string]bool{}
	for _, w := range words(normalFragment(fragment)) {
		fw[w] = true
	}
	needle := termText(linkText)
	tw := words(needle)
	if len(tw) == 0 || len([]rune(needle)) < 3 {
		return -1
	}
	for _, w := range tw {
		if !fw[w] {
			return -1
		}
	}
	needle = strings.ToLower(needle)
	for i, l := range lines {
		t := strings.ToLower(termText(ansi.Strip(l)))
		if !strings.HasPrefix(t, needle) {
			continue
		}
		if i > 0 && strings.TrimSpace(ansi.Strip(lines[i-1])) != "" {
			continue // prose wrapped so that the link's text opens a line
		}
		if rest := []rune(t[len(needle):]); len(rest) == 0 || !isWordRune(rest[0]) {
			return i
		}
	}
	return -1
}

// termText is a line's or a link's text without its markup and leading
// dashes, for comparing one with the other: "• **`--log-file=<f>`**" is
// "log-file=<f>".
func termText(s string) string {
	s = strings.NewReplacer("`", "", "**", "", "\\", "").Replace(s)
	// Glamour pads a code span with no-break spaces: any space goes.
	return strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("•*>│-–", r) })
}

// sectionFor is the index of the heading a fragment and a link's text
// point at, -1 for none; headings not found in the lines are passed over.
func sectionFor(toc []Heading, pageURL, fragment, linkText string) int {
	if f, err := url.PathUnescape(fragment); err == nil {
		fragment = f
	}
	fragment = strings.ToLower(strings.TrimPrefix(fragment, "#"))
	if fragment == "" {
		return -1
	}
	for i, h := range toc {
		if h.Line >= 0 && slug(h.Text) == fragment {
			return i
		}
	}
	known := map[string]bool{}
	for _, w := range words(pageURL) {
		known[w] = true
	}
	var want []string
	for _, w := range append(words(fragment), words(linkText)...) {
		if !known[w] && !commonWords[w] && len([]rune(w)) > 1 {
			known[w] = true
			want = append(want, w)
		}
	}
	best, bestN, bestShare := -1, 0, 0.0
	for i, h := range toc {
		if h.Line < 0 {
			continue
		}
		hw := words(h.Text)
		squashed := strings.Join(hw, "")
		n := 0
		for _, w := range want {
			if len(w) >= 6 && strings.Contains(squashed, w) {
				n++
				continue
			}
			for _, x := range hw {
				if sameWord(w, x) {
					n++
					break
				}
			}
		}
		share := float64(n) / float64(max(1, len(hw)))
		if n > bestN || n == bestN && n > 0 && share > bestShare {
			best, bestN, bestShare = i, n, share
		}
	}
	return best
}

// sameWord is true of equal words and of the forms of one word: one the
// other's start but for a short ending (race, races; order, orders,
// orderings).
func sameWord(a, b string) bool {
	if a == b {
		return true
	}
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n >= 4 && n >= min(len(a), len(b))-2
}

// words are the lower-case runs of letters and digits of s.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !isWordRune(r) })
}

// slug is a heading's id as markdown renderers make it: lower case,
// blanks to hyphens, other punctuation dropped ("7.2. Detected errors" →
// "72-detected-errors").
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		switch {
		case isWordRune(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case unicode.IsSpace(r):
			b.WriteByte('-')
		}
	}
	return b.String()
}
