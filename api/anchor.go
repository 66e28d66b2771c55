package api

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Anchor is where a passage sits in a text, as a citation's quote does:
// the quoted words, a few words either side of them (which tell two equal
// quotes apart), and its byte offsets in the text it was taken from. It
// survives the text being extracted again: Verify finds the quote by its
// words wherever it went. Highlights and report quotes share it.
type Anchor struct {
	Quote  string `json:"quote"`
	Prefix string `json:"prefix,omitempty"` // the words just before the quote
	Suffix string `json:"suffix,omitempty"` // the words just after it
	Start  int    `json:"start"`            // byte offsets of the quote in the text
	End    int    `json:"end"`
}

// contextWords is how many words either side of a quote an anchor keeps.
const contextWords = 8

// AnchorAt is the anchor of text[start:end], trimmed to its words: the
// quote (on one line) and the words around it.
func AnchorAt(text string, start, end int) Anchor {
	start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))
	if end < start {
		start, end = end, start
	}
	// The span runs from the quote's first letter or digit to its last,
	// as Locate finds it, so that Verify finds it standing.
	for start < end {
		r, n := utf8.DecodeRuneInString(text[start:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			break
		}
		start += n
	}
	for end > start {
		if k := destinationBefore(text, end); k > start {
			end = k // a link's destination is no words of the quote
			continue
		}
		r, n := utf8.DecodeLastRuneInString(text[:end])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			break
		}
		end -= n
	}
	// A span that ends on a link's text ("… check out the [official
	// docs") is quoted with its link whole, which QuoteText leaves out:
	// cut at its text, the quote kept the bracket, and cut in its
	// destination it kept "](https://…/std".
	quoteEnd := end
	if strings.HasPrefix(text[end:], "](") && strings.Count(text[start:end], "[") > strings.Count(text[start:end], "]") {
		if n := linkDestination(text[end+1:]); n > 0 {
			quoteEnd = end + 1 + n
		}
	}
	before := strings.Fields(text[:start])
	after := strings.Fields(text[end:])
	return Anchor{
		Quote:  QuoteText(text[start:quoteEnd]),
		Prefix: strings.Join(before[max(0, len(before)-contextWords):], " "),
		Suffix: strings.Join(after[:min(contextWords, len(after))], " "),
		Start:  start,
		End:    end,
	}
}

// destinationBefore is where the "](…)" of a link that text[:end] ends
// with opens (the "]"), or -1.
func destinationBefore(text string, end int) int {
	if end == 0 || text[end-1] != ')' {
		return -1
	}
	k := strings.LastIndex(text[:end], "](")
	if k < 0 || linkDestination(text[k+1:]) != end-k-1 {
		return -1
	}
	return k
}

// Verify says whether the anchor's quote still stands in page (the
// source's text read again), moved, or is gone, and where it is now. A
// quote found more than once is taken where its context matches best,
// then nearest its old place.
func (a Anchor) Verify(page string) (state string, start, end int) {
	if a.Start >= 0 && a.End <= len(page) && a.Start < a.End {
		if s, e, ok := Locate(page[a.Start:a.End], a.Quote, 0); ok && s == 0 && e == a.End-a.Start {
			return PassageStands, a.Start, a.End
		}
	}
	if a.Prefix == "" && a.Suffix == "" {
		if s, e, ok := Locate(page, a.Quote, max(a.Start, 0)); ok {
			return PassageMoved, s, e
		}
		return PassageGone, -1, -1
	}
	q, _ := skeleton(a.Quote)
	if q == "" {
		return PassageGone, -1, -1
	}
	p, at := skeleton(page)
	pre, _ := skeleton(a.Prefix)
	suf, _ := skeleton(a.Suffix)
	best, bestScore, bestDist := -1, -1, 0
	for i := 0; ; {
		j := strings.Index(p[i:], q)
		if j < 0 {
			break
		}
		k := i + j
		score := commonSuffix(p[:k], pre) + commonPrefix(p[k+len(q):], suf)
		dist := abs(at[k] - a.Start)
		if score > bestScore || score == bestScore && dist < bestDist {
			best, bestScore, bestDist = k, score, dist
		}
		i = k + 1
	}
	if best < 0 {
		return PassageGone, -1, -1
	}
	last := best + len(q) - 1
	_, n := utf8.DecodeRuneInString(page[at[last]:])
	s, e := at[best], at[last]+n
	if s == a.Start && e == a.End {
		return PassageStands, s, e
	}
	return PassageMoved, s, e
}

func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// QuoteText is a passage of markdown as a quote reads: on one line, a
// link as its text ("[Rust](https://www.rust-lang.org/) is" reads "Rust
// is"; a passage that begins inside a link's text, "Rust](…) is", too).
// Other marks stay as they are written; Locate finds the quote either
// way.
func QuoteText(s string) string {
	drop := make([]bool, len(s))
	code := false // in a code span: a[i](x) is code, not a link
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			code = !code
		}
		if code || s[i] != ']' || !strings.HasPrefix(s[i+1:], "(") {
			continue
		}
		n := linkDestination(s[i+1:])
		if n == 0 {
			continue
		}
		for k := i; k <= i+n; k++ {
			drop[k] = true
		}
		for k := i - 1; k >= 0 && s[k] != '\n' && s[k] != ']'; k-- {
			if s[k] == '[' {
				drop[k] = true
				if k > 0 && s[k-1] == '!' && (k < 2 || s[k-2] != '\\') {
					drop[k-1] = true // an image's mark; an escaped one is a "!" before a link
				}
				break
			}
		}
		i += n
	}
	var b strings.Builder
	for i := range len(s) {
		if !drop[i] {
			b.WriteByte(s[i])
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
