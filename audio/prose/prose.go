// Package prose turns a markdown document into the sentences a voice reads
// aloud: markup is dropped, links are read by their text, and code
// blocks, tables, images and bare URLs are announced rather than spelled
// out. Each sentence keeps the line of the document it starts on, so a
// reader can follow along.
package prose

import (
	"fmt"
	"net/url"
	"strings"

	"hark/gateway/text"
)

// Sentence is one thing to say.
type Sentence struct {
	Text string // as spoken
	Line int    // the document line it starts on (0-based)
	// Heading marks a heading, said as a sentence so a voice announces
	// the section; a reader selecting sentences steps over it.
	Heading bool
}

var (
	fence    = text.LazyRegexp("^\\s*(```|~~~)")
	heading  = text.LazyRegexp(`^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	listItem = text.LazyRegexp(`^\s*([-*+•]|\d+[.)])\s+`)
	image    = text.LazyRegexp(`!\[([^\]]*)\]\([^)]*\)`)
	link     = text.LazyRegexp(`\[([^\]]+)\]\([^)]*\)`)
	autolink = text.LazyRegexp(`<(https?://[^>\s]+)>`)
	bareURL  = text.LazyRegexp(`https?://[^\s)\]>]*[^\s)\]>.,;:!?]`)
	// citation is a run of numbered references: [1], [3,4], [2-5], or
	// several of them with commas between.
	citation = text.LazyRegexp(`\s?\[\d+(?:\s*[,–-]\s*\d+)*\](?:\s*,\s*\[\d+(?:\s*[,–-]\s*\d+)*\])*`)
	// emptyAside is what a parenthesis of references leaves: "(see)".
	emptyAside  = text.LazyRegexp(`\s*\(\s*(?:(?:see|cf\.?|e\.g\.)\s*)?[,;]?\s*\)`)
	footnoteRef = text.LazyRegexp(`\[\^[^\]\s]+\]`)
	footnoteDef = text.LazyRegexp(`^\s{0,3}\[\^[^\]\s]+\]:`)
	codeSpan    = text.LazyRegexp("``([^`]+)``|`([^`]+)`")
	escaped     = text.LazyRegexp(`\\[!-/:-@\[-` + "`" + `{-~]`)
	stars       = text.LazyRegexp(`\*{1,3}|~~`)
	// Underscores are emphasis only at a word's edge: build_flite keeps
	// its own.
	underOpen   = text.LazyRegexp(`(^|[^\pL\pN_])_{1,3}`)
	underClose  = text.LazyRegexp(`_{1,3}([^\pL\pN_]|$)`)
	htmlTag     = text.LazyRegexp(`</?[a-zA-Z][^>]*>`)
	htmlComment = text.LazyRegexp(`(?s)<!--.*?-->`)
	spaces      = text.LazyRegexp(`\s+`)
	quoteMark   = text.LazyRegexp(`^\s*>\s?`)
	indented    = text.LazyRegexp(`^(?: {4}|\t)`)
	// tableRule is a table's header rule; thematicBreak a --- line.
	tableRule     = text.LazyRegexp(`^[|:\-\s]+$`)
	thematicBreak = text.LazyRegexp(`^([-*_]\s*){3,}$`)
)

// Sentences is what md says, in order.
func Sentences(md string) []Sentence {
	var out []Sentence
	md = strings.ReplaceAll(md, "\r\n", "\n")
	// HTML comments are never spoken; their lines stay, so sentences keep
	// their line numbers.
	md = htmlComment().ReplaceAllStringFunc(md, func(c string) string { return strings.Repeat("\n", strings.Count(c, "\n")) })
	lines := strings.Split(md, "\n")
	var para []string
	paraLine := 0
	inList := false // an indented line after a list item continues it
	flush := func() {
		if len(para) > 0 {
			for _, s := range split(inline(strings.Join(para, " "))) {
				out = append(out, Sentence{Text: s, Line: paraLine})
			}
			para = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		switch {
		case fence().MatchString(l):
			flush()
			inList = false
			n := 0
			for i++; i < len(lines) && !fence().MatchString(lines[i]); i++ {
				n++
			}
			out = append(out, Sentence{Text: fmt.Sprintf("A code block of %s.", count(n, "line")), Line: i - n - 1})
		case strings.HasPrefix(t, "|"):
			flush()
			start, rows := i, 0
			for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
				if !tableRule().MatchString(strings.TrimSpace(lines[i])) {
					rows++
				}
			}
			i--
			out = append(out, Sentence{Text: fmt.Sprintf("A table of %s.", count(max(0, rows-1), "row")), Line: start})
		case t == "" || thematicBreak().MatchString(t):
			flush()
		case len(para) == 0 && !inList && indented().MatchString(l):
			// An indented code block: announced, like a fenced one.
			start, n := i, 0
			for ; i < len(lines) && (indented().MatchString(lines[i]) || strings.TrimSpace(lines[i]) == ""); i++ {
				if strings.TrimSpace(lines[i]) != "" {
					n = i - start + 1
				}
			}
			i = start + n - 1
			out = append(out, Sentence{Text: fmt.Sprintf("A code block of %s.", count(n, "line")), Line: start})
		case footnoteDef().MatchString(l):
			// A footnote's text is an aside: skipped with its
			// continuation lines.
			flush()
			for i+1 < len(lines) && indented().MatchString(lines[i+1]) {
				i++
			}
		case heading().MatchString(l) && reportMethod(lines, i):
			// A hark report's "Method" says how it was made (the model,
			// the rounds, BM25): boilerplate no one wants read aloud.
			flush()
			for i+1 < len(lines) && !heading().MatchString(lines[i+1]) {
				i++
			}
		case heading().MatchString(l):
			flush()
			if h := inline(heading().FindStringSubmatch(l)[1]); h != "" {
				out = append(out, Sentence{Text: endWith(h), Line: i, Heading: true})
			}
		case listItem().MatchString(l):
			flush()
			para, paraLine = []string{listItem().ReplaceAllString(l, "")}, i
			flush()
			inList = true
		default:
			if !indented().MatchString(l) {
				inList = false
			}
			if len(para) == 0 {
				paraLine = i
			}
			para = append(para, quoteMark().ReplaceAllString(l, ""))
		}
	}
	flush()
	return out
}

// reportMethod reports that line i opens the "Method" section of a
// report hark's research wrote: "## Method", then "Model `…`".
func reportMethod(lines []string, i int) bool {
	if strings.TrimSpace(heading().FindStringSubmatch(lines[i])[1]) != "Method" {
		return false
	}
	for _, l := range lines[i+1:] {
		if t := strings.TrimSpace(l); t != "" {
			return strings.HasPrefix(t, "Model `")
		}
	}
	return false
}

// inline is a line of markdown as words to say.
func inline(s string) string {
	// Code spans are said as they are written (build_flite, <stdio.h>):
	// set aside while the markup around them goes; so are escaped
	// characters, said as the character alone ("\~" is a tilde, never
	// "backslash tilde", and "\*" no emphasis).
	var spans []string
	s = codeSpan().ReplaceAllStringFunc(s, func(m string) string {
		spans = append(spans, spokenURLs(strings.Trim(m, "`")))
		return fmt.Sprintf("\x00%d\x00", len(spans)-1)
	})
	s = escaped().ReplaceAllStringFunc(s, func(m string) string {
		spans = append(spans, m[1:])
		return fmt.Sprintf("\x00%d\x00", len(spans)-1)
	})
	s = footnoteRef().ReplaceAllString(s, "")
	s = image().ReplaceAllStringFunc(s, func(m string) string {
		if alt := image().FindStringSubmatch(m)[1]; alt != "" {
			return "(image: " + alt + ")"
		}
		return "(an image)"
	})
	s = link().ReplaceAllString(s, "$1")
	s = autolink().ReplaceAllString(s, "$1")
	s = spokenURLs(s)
	s = citation().ReplaceAllString(s, "")
	s = emptyAside().ReplaceAllString(s, "")
	s = htmlTag().ReplaceAllString(s, "")
	s = stars().ReplaceAllString(s, "")
	s = underOpen().ReplaceAllString(s, "$1")
	s = underClose().ReplaceAllString(s, "$1")
	for i, sp := range spans {
		s = strings.Replace(s, fmt.Sprintf("\x00%d\x00", i), sp, 1)
	}
	return strings.TrimSpace(spaces().ReplaceAllString(s, " "))
}

// spokenURLs announces bare URLs by their host.
func spokenURLs(s string) string {
	return bareURL().ReplaceAllStringFunc(s, func(u string) string {
		if pu, err := url.Parse(u); err == nil && pu.Host != "" {
			return "a link to " + strings.TrimPrefix(pu.Hostname(), "www.")
		}
		return "a link"
	})
}

// split cuts text into sentences with the gateway's one splitter, the
// last given closing punctuation.
func split(s string) []string {
	out := text.Split(s)
	if n := len(out); n > 0 {
		out[n-1] = endWith(out[n-1])
	}
	return out
}

// endWith gives s closing punctuation, so a voice pauses after it.
func endWith(s string) string {
	if s == "" || strings.ContainsRune(".!?:;", rune(s[len(s)-1])) {
		return s
	}
	return s + "."
}

func count(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
