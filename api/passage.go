package api

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Passage states, as verifying a report against its sources finds them.
const (
	PassageStands = "stands" // the quote is where the report says
	PassageMoved  = "moved"  // the quote is in the page, elsewhere
	PassageGone   = "gone"   // the page no longer holds the quote
)

// Verify says whether the passage's quote still stands in page, the
// source's kept text read again, and where it is now (see Anchor.Verify).
func (p ResearchPassage) Verify(page string) (state string, start, end int) {
	return p.Anchor().Verify(page)
}

// Anchor is the passage's place as an anchor: its quote and offsets.
func (p ResearchPassage) Anchor() Anchor { return Anchor{Quote: p.Quote, Start: p.Start, End: p.End} }

// Locate finds quote in page by its words alone (letters and digits,
// case folded): the quote a report renders from markdown ("`ffi_call`",
// “smart quotes”, a list's bullet dropped) is found in the page's kept
// text whatever its markup, spacing and punctuation. start and end are
// byte offsets in page, from the quote's first word character to its
// last. It searches from byte offset from, then from the start.
func Locate(page, quote string, from int) (start, end int, ok bool) {
	q, _ := skeleton(quote)
	if q == "" {
		return 0, 0, false
	}
	p, at := skeleton(page)
	i := -1
	if from > 0 && from < len(page) {
		// the first skeleton index at or after from
		k := lowerBound(at, from)
		if j := strings.Index(p[k:], q); j >= 0 {
			i = k + j
		}
	}
	if i < 0 {
		i = strings.Index(p, q)
	}
	if i < 0 {
		return 0, 0, false
	}
	last := i + len(q) - 1
	_, n := utf8.DecodeRuneInString(page[at[last]:])
	return at[i], at[last] + n, true
}

// skeleton is s's letters and digits, lower-cased, one byte of the
// result per byte of input rune kept, with the offset in s of each.
func skeleton(s string) (string, []int) {
	var b strings.Builder
	at := make([]int, 0, len(s))
	for i, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			continue
		}
		r = unicode.ToLower(r)
		n := b.Len()
		b.WriteRune(r)
		for k := n; k < b.Len(); k++ {
			at = append(at, i)
		}
	}
	return b.String(), at
}

func lowerBound(at []int, off int) int {
	lo, hi := 0, len(at)
	for lo < hi {
		m := (lo + hi) / 2
		if at[m] < off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
