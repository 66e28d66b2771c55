// Package score measures an HTML extraction against a hand-checked main
// text: word-shingle precision, recall and F1, and how much of the page's
// structure (spacing at inline markup, headings, code lines, list items,
// links) it keeps. hark's extraction tests and bench/extract (which scores
// go-trafilatura beside hark) share it.
package score

import (
	"bytes"
	"net/url"
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"hark/gateway/text"
)

// Page is one page of a test set.
type Page struct {
	Name  string
	URL   string // what links resolve against
	HTML  []byte
	Truth []byte // the main text, one block per line
}

// Text compares the word 3-shingles (lower-cased runs of letters and
// digits) of got with those of want.
func Text(got, want string) (p, r, f float64) {
	g, w := text.Shingles(got, 3), text.Shingles(want, 3)
	inter := 0
	for k := range g {
		if _, ok := w[k]; ok {
			inter++
		}
	}
	if len(g) > 0 {
		p = float64(inter) / float64(len(g))
	}
	if len(w) > 0 {
		r = float64(inter) / float64(len(w))
	}
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	return
}

// Snippets scores text the way trafilatura's evaluation does: each
// snippet of with that text holds is a true positive (else a false
// negative), each snippet of without it holds a false positive.
// Whitespace is collapsed on both sides before matching.
func Snippets(text string, with, without []string) (tp, fn, fp int) {
	t := strings.Join(strings.Fields(text), " ")
	in := func(s string) bool { return strings.Contains(t, strings.Join(strings.Fields(s), " ")) }
	for _, s := range with {
		if in(s) {
			tp++
		} else {
			fn++
		}
	}
	for _, s := range without {
		if in(s) {
			fp++
		}
	}
	return
}

// Shingles4 scores got against want the way the Scrapinghub article
// extraction benchmark scores articleBody: word 4-shingles (runs of
// letters, digits and underscores, case kept) counted with their
// repeats; true positives, false positives and false negatives
// normalised to sum to one, so that a long page weighs no more than a
// short one. Its precision and recall are the means of tp/(tp+fp) and
// tp/(tp+fn) over a set's pages (see Mean4).
func Shingles4(got, want string) (tp, fp, fn float64) {
	g, w := shingleCounts(got, 4), shingleCounts(want, 4)
	for k, gc := range g {
		wc := w[k]
		tp += float64(min(gc, wc))
		fp += float64(max(0, gc-wc))
	}
	for k, wc := range w {
		fn += float64(max(0, wc-g[k]))
	}
	if s := tp + fp + fn; s > 0 {
		tp, fp, fn = tp/s, fp/s, fn/s
	}
	return
}

// Mean4 is a set's precision, recall and F1 from its pages' Shingles4
// figures, as the Scrapinghub benchmark computes them: the means of each
// page's precision and recall (a page with nothing predicted and nothing
// true scores one), and F1 of the two means.
func Mean4(pages [][3]float64) (p, r, f float64) {
	var np, nr int
	for _, x := range pages {
		tp, fp, fn := x[0], x[1], x[2]
		if tp+fp > 0 {
			np++
			if fp == 0 && fn == 0 {
				p++
			} else {
				p += tp / (tp + fp)
			}
		}
		if tp+fn > 0 {
			nr++
			if fp == 0 && fn == 0 {
				r++
			} else {
				r += tp / (tp + fn)
			}
		}
	}
	p, r = p/float64(max(np, 1)), r/float64(max(nr, 1))
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	return
}

// wordRun is Python's \w+ with re.UNICODE, as both benchmarks tokenize: Go's \w is ASCII only.
var wordRun = regexp.MustCompile(`[\p{L}\p{N}_]+`)

func shingleCounts(s string, n int) map[string]int {
	toks := wordRun.FindAllString(s, -1)
	out := map[string]int{}
	for i := 0; i < max(1, len(toks)-n+1); i++ {
		k := strings.Join(toks[i:min(len(toks), i+n)], "\x00")
		if k != "" {
			out[k]++
		}
	}
	return out
}

// Words scores got against want the way WCXB (the Web Content
// eXtraction Benchmark) does: bags of lower-cased word tokens (runs of
// letters, digits and underscores), their overlap counted with repeats.
// An empty want scores one when got is empty too.
func Words(got, want string) (p, r, f float64) {
	g, w := map[string]int{}, map[string]int{}
	ng, nw := 0, 0
	for _, t := range wordRun.FindAllString(strings.ToLower(got), -1) {
		g[t]++
		ng++
	}
	for _, t := range wordRun.FindAllString(strings.ToLower(want), -1) {
		w[t]++
		nw++
	}
	if nw == 0 {
		if ng == 0 {
			return 1, 1, 1
		}
		return 0, 0, 0
	}
	if ng == 0 {
		return 0, 0, 0
	}
	inter := 0
	for k, c := range g {
		inter += min(c, w[k])
	}
	p, r = float64(inter)/float64(ng), float64(inter)/float64(nw)
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	return
}

// Structures measure how much of a page's structure an extraction keeps. Each score is the share of the
// page's items, among those in its main text (the truth file), that the
// extraction keeps:
//
//   - spacing: word boundaries at the edges of inline elements (code, tt,
//     em, a, ...): "value <code>x</code> y" must read "value x y" in text
//     and in markdown with its markup taken out, and "f(<code>x</code>)"
//     must stay "f(x)";
//   - headings: h1-h3 as markdown headings at their level, without
//     permalink glyphs;
//   - code: every line of every multi-line <pre>, in order, in markdown
//     and indented in text;
//   - lists: every list item as a markdown list item;
//   - links: every body link, resolved against the page URL.
type Structures struct {
	Spacing, Headings, Code, Lists, Links Count
}

// Count is how many of a kind of item were kept, of all measured.
type Count struct{ Kept, All int }

// Value is the share kept; 1 when nothing was measured.
func (s Count) Value() float64 {
	if s.All == 0 {
		return 1
	}
	return float64(s.Kept) / float64(s.All)
}

func (s *Count) count(kept bool) {
	s.All++
	if kept {
		s.Kept++
	}
}

// Add adds o's counts to s.
func (s *Count) Add(o Count) { s.Kept += o.Kept; s.All += o.All }

// Add adds o's counts to s, kind by kind.
func (s *Structures) Add(o Structures) {
	s.Spacing.Add(o.Spacing)
	s.Headings.Add(o.Headings)
	s.Code.Add(o.Code)
	s.Lists.Add(o.Lists)
	s.Links.Add(o.Links)
}

// Unmark takes markdown's markup out of the inline markdown extraction
// writes: escapes, code spans, emphasis, links and images. (Extraction
// escapes every literal '*', '[' and ']', so the bare ones are markup.)
func Unmark(md string) string {
	var b strings.Builder
	for i := 0; i < len(md); {
		c := md[i]
		switch {
		case c == '\\' && i+1 < len(md) && md[i+1] == '\n': // a hard line break
			b.WriteByte('\n')
			i += 2
		case c == '\\' && i+1 < len(md) && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", md[i+1]) >= 0:
			b.WriteByte(md[i+1])
			i += 2
		case c == '`':
			n := 0
			for i+n < len(md) && md[i+n] == '`' {
				n++
			}
			fence := md[i : i+n]
			end := strings.Index(md[i+n:], fence)
			if end < 0 {
				b.WriteString(fence)
				i += n
				continue
			}
			inner := md[i+n : i+n+end]
			if len(inner) > 1 && inner[0] == ' ' && inner[len(inner)-1] == ' ' {
				inner = inner[1 : len(inner)-1]
			}
			b.WriteString(inner)
			i += 2*n + end
		case c == '*' || c == '~' || c == '[':
			i++
		case c == '!' && i+1 < len(md) && md[i+1] == '[':
			i++
		case c == ']' && i+1 < len(md) && md[i+1] == '(':
			depth := 0
			j := i + 1
			for ; j < len(md); j++ {
				if md[j] == '(' {
					depth++
				} else if md[j] == ')' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			i = j + 1
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

func squash(s string) string { return " " + strings.Join(strings.Fields(s), " ") + " " }

// Structure scores an extraction (markdown and text) of pg. miss, when
// not nil, is told each item the extraction lost.
func Structure(pg Page, markdown, text string, miss func(kind, what string)) Structures {
	body, truthBytes, pageURL := pg.HTML, pg.Truth, pg.URL
	truth := squash(string(truthBytes))
	truthLines := map[string]bool{}
	for _, l := range strings.Split(string(truthBytes), "\n") {
		truthLines[strings.Join(strings.Fields(l), " ")] = true
	}
	textSq, md := squash(text), squash(Unmark(markdown))
	mdLines := map[string]bool{}
	for _, l := range strings.Split(markdown, "\n") {
		mdLines[strings.TrimSpace(l)] = true
	}
	doc, _ := html.Parse(bytes.NewReader(body))
	base, _ := url.Parse(pageURL)
	var s Structures
	note := func(kind string, kept bool, what string) bool {
		if !kept && miss != nil {
			miss(kind, what)
		}
		return kept
	}

	// Text in document order, to read what comes before and after an
	// inline element.
	var texts []*html.Node
	var collect func(*html.Node)
	collect = func(n *html.Node) {
		if n.Type == html.TextNode {
			texts = append(texts, n)
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style) {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			collect(c)
		}
	}
	collect(doc)
	index := map[*html.Node]int{}
	for i, n := range texts {
		index[n] = i
	}
	firstText := func(n *html.Node) (*html.Node, bool) {
		var out *html.Node
		var walk func(*html.Node)
		walk = func(n *html.Node) {
			if out != nil {
				return
			}
			if n.Type == html.TextNode {
				out = n
				return
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(n)
		return out, out != nil
	}
	lastText := func(n *html.Node) (*html.Node, bool) {
		var out *html.Node
		var walk func(*html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.TextNode {
				out = n
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(n)
		return out, out != nil
	}
	// boundary checks the join of two texts: "a b" when whitespace
	// separates them, "ab" when none does.
	boundary := func(before, after string) {
		bt, at := strings.TrimRightFunc(before, unicode.IsSpace), strings.TrimLeftFunc(after, unicode.IsSpace)
		if bt == "" || at == "" {
			return
		}
		bw, aw := strings.Fields(bt), strings.Fields(at)
		w1, w2 := bw[len(bw)-1], aw[0]
		sep := ""
		if len(bt) < len(before) || len(at) < len(after) {
			sep = " "
		}
		pair := " " + w1 + sep + w2 + " "
		if sep == "" {
			pair = w1 + w2
		}
		if strings.ContainsAny(pair, "¶§#") {
			return // permalink glyphs are meant to go
		}
		if !strings.Contains(truth, pair) {
			return // not main text, or not written down as one line
		}
		s.Spacing.count(note("spacing (text)", strings.Contains(textSq, pair), pair))
		s.Spacing.count(note("spacing (markdown)", strings.Contains(md, pair), pair))
	}

	// Table-of-contents entries repeat headings; they are navigation.
	headingTexts := map[string]bool{}
	var heads func(*html.Node)
	heads = func(n *html.Node) {
		switch {
		case n.DataAtom == atom.H1, n.DataAtom == atom.H2, n.DataAtom == atom.H3, n.DataAtom == atom.H4, n.DataAtom == atom.H5, n.DataAtom == atom.H6,
			n.DataAtom == atom.Div && attr(n, "class") == "title": // Doxygen's page title
			headingTexts[strings.Join(strings.Fields(strings.Trim(nodeText(n), glyphs)), " ")] = true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			heads(c)
		}
	}
	heads(doc)
	isTOCEntry := func(item string) bool {
		for h := range headingTexts {
			if h != "" && strings.HasSuffix(h, item) {
				return true
			}
		}
		return false
	}

	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Code, atom.Tt, atom.Em, atom.I, atom.B, atom.Strong, atom.A, atom.Var, atom.Kbd, atom.Samp, atom.Span:
				if f, ok := firstText(n); ok && index[f] > 0 {
					boundary(texts[index[f]-1].Data, f.Data)
				}
				if l, ok := lastText(n); ok && index[l]+1 < len(texts) {
					boundary(l.Data, texts[index[l]+1].Data)
				}
			case atom.H1, atom.H2, atom.H3:
				h := strings.Join(strings.Fields(strings.Trim(nodeText(n), glyphs)), " ")
				if h != "" && truthLines[h] {
					prefix := strings.Repeat("#", int(n.Data[1]-'0')) + " "
					kept := false
					for l := range mdLines {
						if strings.HasPrefix(l, prefix) && strings.Join(strings.Fields(Unmark(strings.TrimPrefix(l, prefix))), " ") == h {
							kept = true
						}
					}
					s.Headings.count(note("heading", kept, h))
				}
			case atom.Pre, atom.Div:
				var lines []string
				if n.DataAtom == atom.Pre {
					raw := strings.TrimPrefix(preText(n), "\n")
					for _, l := range strings.Split(strings.TrimRight(raw, "\n "), "\n") {
						lines = append(lines, strings.TrimRight(l, " \t"))
					}
				} else if lines = listingLines(n); lines == nil {
					break
				}
				if first := strings.Join(strings.Fields(lines[0]), " "); len(lines) >= 2 && first != "" && truthLines[first] {
					s.Code.count(note("code (markdown)", fencedIn(markdown, lines), lines[0]))
					indented := "    " + strings.Join(lines, "\n    ")
					indented = regexp.MustCompile(`(?m)^ +$`).ReplaceAllString(indented, "")
					s.Code.count(note("code (text)", strings.Contains(text, indented), lines[0]))
				}
				return
			case atom.Li:
				item := strings.Join(strings.Fields(nodeText(n)), " ")
				if first := strings.SplitN(nodeText(n), "\n", 2)[0]; item != "" && truthLines[first] && !isTOCEntry(first) {
					kept := false
					for l := range mdLines {
						rest := strings.TrimLeft(l, "0123456789")
						if strings.HasPrefix(l, "- ") || rest != l && strings.HasPrefix(rest, ". ") {
							body := strings.TrimPrefix(strings.TrimPrefix(rest, ". "), "- ")
							if strings.HasPrefix(squash(Unmark(body)), squash(first)[:min(len(squash(first)), 30)]) {
								kept = true
							}
						}
					}
					s.Lists.count(note("list item", kept, first))
				}
			}
			if n.DataAtom == atom.A {
				href := strings.TrimSpace(attr(n, "href"))
				anchor := strings.Join(strings.Fields(nodeText(n)), " ")
				block := strings.Join(strings.Fields(nodeText(blockOf(n))), " ")
				inText := truthLines[block] || len(block) >= 40 && strings.Contains(truth, squash(block))
				if href != "" && !strings.HasPrefix(href, "#") && anchor != "" && inText && !isTOCEntry(block) {
					if ref, err := url.Parse(href); err == nil {
						abs := base.ResolveReference(ref).String()
						// A destination may carry its spaces and parentheses
						// percent-encoded, as markdown needs.
						dest := strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29").Replace(abs)
						s.Links.count(note("link", strings.Contains(markdown, "]("+abs+")") || strings.Contains(markdown, "]("+dest+")"), abs))
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return s
}

// fencedIn reports whether md holds lines as a fenced code block, at any
// indentation (a code block in a list item is indented).
func fencedIn(md string, lines []string) bool {
	if len(lines) == 0 || lines[0] == "" {
		return false
	}
	for i := strings.Index(md, lines[0]); i >= 0; {
		start := strings.LastIndexByte(md[:i], '\n') + 1
		pad := md[start:i]
		if strings.TrimSpace(pad) == "" {
			var b strings.Builder
			for _, l := range lines {
				if l != "" {
					b.WriteString(pad)
				}
				b.WriteString(l + "\n")
			}
			if strings.HasPrefix(md[start:], b.String()+pad+"```") {
				return true
			}
		}
		next := strings.Index(md[i+1:], lines[0])
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

// glyphs are the permalink marks pages put beside headings (Doxygen's
// "◆ dict_init()"), which extraction drops.
const glyphs = " #¶§◆\u00a0"

// listingLines are the lines of a code listing written as one
// <div class="line"> per line (Doxygen's div.fragment), without their
// line numbers; nil when n is no such listing.
func listingLines(n *html.Node) []string {
	if !strings.Contains(" "+attr(n, "class")+" ", " fragment ") {
		return nil
	}
	var lines []string
	var walk func(*html.Node, *strings.Builder)
	walk = func(n *html.Node, b *strings.Builder) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			cls := " " + attr(c, "class") + " "
			switch {
			case c.Type == html.TextNode && b != nil:
				b.WriteString(strings.ReplaceAll(c.Data, "\u00a0", " "))
			case strings.Contains(cls, " lineno ") || strings.Contains(cls, " ttc "):
			case c.DataAtom == atom.Div && strings.Contains(cls, " line ") && b == nil:
				var lb strings.Builder
				walk(c, &lb)
				lines = append(lines, strings.TrimRight(lb.String(), " \t"))
			default:
				walk(c, b)
			}
		}
	}
	walk(n, nil)
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) < 2 {
		return nil
	}
	return lines
}

// blockOf is the paragraph, list item or cell that holds n.
func blockOf(n *html.Node) *html.Node {
	for p := n.Parent; p != nil; p = p.Parent {
		switch p.DataAtom {
		case atom.P, atom.Li, atom.Dd, atom.Dt, atom.Td, atom.Th, atom.Div, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			return p
		}
	}
	return n
}

// PreText is a listing's text as the page shows it: its text with <br>
// as a line break, its buttons (copy) left out.
func PreText(n *html.Node) string { return preText(n) }

func preText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.DataAtom == atom.Br {
			b.WriteByte('\n')
		}
		if n.DataAtom == atom.Button {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// NodeText is an element's visible text, one block per line: how the
// truth of a page is dumped, and how an extractor that returns a tree
// (Readability's expected output, go-readability's result) is read.
func NodeText(n *html.Node) string { return nodeText(n) }

// nodeText renders an element's text with a line break at each block.
func nodeText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(strings.ReplaceAll(n.Data, "\n", " "))
			return
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Script, atom.Style, atom.Noscript, atom.Template:
				return
			}
		}
		block := n.Type == html.ElementNode && blocks[n.DataAtom]
		if block {
			b.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if block {
			b.WriteByte('\n')
		}
	}
	walk(n)
	var out []string
	for _, l := range strings.Split(b.String(), "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Br: true, atom.Li: true, atom.H1: true, atom.H2: true, atom.H3: true,
	atom.H4: true, atom.H5: true, atom.H6: true, atom.Tr: true, atom.Pre: true, atom.Blockquote: true,
	atom.Section: true, atom.Article: true, atom.Table: true, atom.Ul: true, atom.Ol: true, atom.Dt: true, atom.Dd: true,
	atom.Td: true, atom.Th: true, atom.Caption: true, atom.Figure: true, atom.Figcaption: true, atom.Main: true,
	atom.Header: true, atom.Footer: true, atom.Hr: true,
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if strings.EqualFold(a.Key, key) {
			return a.Val
		}
	}
	return ""
}
