package api

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Passage states, as verifying a report against its sources finds them.
const (
	PassageStands = "stands" // the quote is where the report says
	PassageMoved  = "moved"  // the quote is in the page, elsewhere
	PassageGone   = "gone"   // the page no longer holds the quote, or no longer exists
	// PassageUnchecked is a quote whose source could not be read now (the
	// site or the gateway unreachable, an address refused): nothing is
	// known of it, and nothing kept is changed.
	PassageUnchecked = "unchecked"
)

// ErrSourceGone is a source that answers that it no longer exists (HTTP
// 404 or 410, a file deleted): its quotes are gone, not unchecked.
var ErrSourceGone = errors.New("the source no longer exists")

// PassageCheck is one quote of a report as a verification found it.
type PassageCheck struct {
	ResearchPassage
	State string `json:"state"`
	Now   int    `json:"now_start"`       // where the quote is now, -1 when gone or unchecked
	Error string `json:"error,omitempty"` // why the source could not be read
}

// CheckPassages reads each passage's source once with read (the source's
// text now) and checks its quotes. A source read fails for is gone when
// the error is ErrSourceGone, and unchecked otherwise.
func CheckPassages(ps []ResearchPassage, read func(url string) (string, error)) []PassageCheck {
	texts := map[string]string{}
	errs := map[string]error{}
	for _, p := range ps {
		if _, ok := texts[p.URL]; ok || errs[p.URL] != nil {
			continue
		}
		t, err := read(p.URL)
		if err != nil {
			errs[p.URL] = err
		} else {
			texts[p.URL] = t
		}
	}
	out := make([]PassageCheck, len(ps))
	for i, p := range ps {
		c := PassageCheck{ResearchPassage: p, Now: -1}
		if err := errs[p.URL]; err != nil {
			c.State, c.Error = PassageUnchecked, err.Error()
			if errors.Is(err, ErrSourceGone) {
				c.State = PassageGone
			}
		} else {
			c.State, c.Now, _ = p.Verify(texts[p.URL])
		}
		out[i] = c
	}
	return out
}

// CheckSummary says what a verification found: "17 quotes: 15 stand, 0
// moved, 0 gone, 2 not checked (connection refused)", with each distinct
// reason a source could not be read.
func CheckSummary(checks []PassageCheck) string {
	n := map[string]int{}
	reasons := UncheckedReasons(checks)
	for _, c := range checks {
		n[c.State]++
	}
	quotes := "quotes"
	if len(checks) == 1 {
		quotes = "quote"
	}
	s := fmt.Sprintf("%d %s: %d stand, %d moved, %d gone", len(checks), quotes, n[PassageStands], n[PassageMoved], n[PassageGone])
	if k := n[PassageUnchecked]; k > 0 {
		s += fmt.Sprintf(", %d not checked (%s)", k, strings.Join(reasons, "; "))
	}
	return s
}

// UncheckedReasons are the distinct reasons sources could not be read,
// each without the source's URL it opens with ("connection refused by
// 127.0.0.1:8743" for every page of one site that is down).
func UncheckedReasons(checks []PassageCheck) []string {
	var reasons []string
	for _, c := range checks {
		if c.State != PassageUnchecked {
			continue
		}
		r := strings.TrimPrefix(c.Error, c.URL+": ")
		if !slices.Contains(reasons, r) {
			reasons = append(reasons, r)
		}
	}
	return reasons
}

// goneStatus is how a page's failure says it no longer exists.
var goneStatus = regexp.MustCompile(`\b(?:status|code) (?:404|410)\b|\b(?:404|410) (?:Not Found|Gone)\b`)

// SourceGone reports whether reason, why a page could not be read, says
// that it no longer exists (HTTP 404 or 410).
func SourceGone(reason string) bool { return goneStatus.MatchString(reason) }

// Extract depths a page is read again at.
const (
	DepthBasic    = "basic"
	DepthAdvanced = "advanced"
)

// ReportDepth is the extract depth a report's sources are read again at
// when the user asks for none: the depth it was made with. A pro report
// ("deep, comprehensive") read its sources deep, so they are read again
// at advanced depth, which keeps data tables and embedded content and
// costs more on a paid vendor; mini and auto at basic.
func ReportDepth(model string) string {
	if model == "pro" {
		return DepthAdvanced
	}
	return DepthBasic
}

// PageText is a page's text now, read with the gateway's extract as text
// at depth (not kept: a check is not a result the user asked for). Basic
// depth leaves out a page's data tables, which the index a report was
// written from keeps: a quote of a table's row is found again only at
// advanced depth. A page that answers 404 or 410 is ErrSourceGone; any
// other failure is the reason it could not be read.
func (c *Client) PageText(ctx context.Context, u, depth string) (string, error) {
	res, err := c.Extract(Unkept(ctx), ExtractInput{URLs: URLList{u}, Format: "text", ExtractDepth: depth})
	if err != nil {
		return "", err
	}
	for _, f := range res.FailedResults {
		if SourceGone(f.Error) {
			return "", fmt.Errorf("%s: %s: %w", f.URL, f.Error, ErrSourceGone)
		}
		return "", fmt.Errorf("%s: %s", f.URL, f.Error)
	}
	if len(res.Results) == 0 {
		return "", fmt.Errorf("%s: the gateway returned no page", u)
	}
	return res.Results[0].RawContent, nil
}

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
// result per byte of input rune kept, with the offset in s of each. A
// markdown link's destination ("[Rust](https://www.rust-lang.org/) is")
// is left out, as its text leaves it out once rendered ("Rust is"): a
// sentence holding a link is found by its words.
func skeleton(s string) (string, []int) {
	var b strings.Builder
	at := make([]int, 0, len(s))
	skipTo, code := -1, false
	for i, r := range s {
		if i < skipTo {
			continue
		}
		if r == '`' {
			code = !code // in a code span, a[i](x) is code, not a link
		}
		if r == ']' && !code && strings.HasPrefix(s[i+1:], "(") {
			if n := linkDestination(s[i+1:]); n > 0 {
				skipTo = i + 1 + n
				continue
			}
		}
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

// linkDestination is the length of the "(…)" that opens s, a link's
// destination, with parentheses nested inside it balanced; 0 when s
// does not open one on its line.
func linkDestination(s string) int {
	depth, inTitle := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\n':
			return 0
		case inTitle:
			inTitle = c != '"'
		case c == '"' && i > 0 && s[i-1] == ' ':
			inTitle = true
		case c == ' ':
			if !strings.HasPrefix(s[i+1:], "\"") {
				return 0 // a destination has no spaces, save before its "title"
			}
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return 0
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
