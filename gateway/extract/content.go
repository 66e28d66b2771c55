// Package extract reads the main content of an HTML page and renders it as
// markdown and as plain text. It keeps what technical pages say: the
// spaces around inline markup, every line of a code block, headings at
// their level, lists (lists of links too), definition lists, tables and
// body links resolved against the page. Navigation, banners and page
// furniture stay out.
//
// It works on a parsed tree and never fetches anything.
package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Main finds the element that holds doc's main content. It reads a
// <noscript> that holds an article as markup (unwrapNoscripts), then removes
// navigation and furniture from doc (so pass a tree you may change), then
// takes <main> (or role=main), else the page's only <article>, else the
// smallest element that holds most of the page's prose, and trims link
// bars off its edges. It returns doc's body (or doc) when nothing better
// stands out.
//
// When that leaves next to nothing (an API index, a contents page: the
// content is all links), the link-dense blocks are put back and judged
// again: a table cell that holds headings, and a list under a heading,
// are the page's content, not its menu. When an element inside holds
// most of the content and bears a name publishing systems give a post's
// body, what follows it goes (cutToBody). On an article page, when a block
// set aside by its class or id alone held the article, the page is read
// again with such blocks kept.
func Main(doc *html.Node) *html.Node {
	return MainWith(doc, DefaultWeights)
}

// MainWith is Main with other weights: the benchmark's fitting tries
// them.
func MainWith(doc *html.Node, w Weights) *html.Node {
	unwrapNoscripts(doc)
	unwrapNamedAnchors(doc)
	revealStreamed(doc)
	dropMasthead(doc)
	article := isArticlePage(doc) || w.ProseParagraphs > 0 && readsAsArticle(doc, w.ProseParagraphs, w.DatedParagraphs)
	var counts map[string]int
	if article {
		counts = pageBlocks(doc, &w)
	}
	var title *html.Node
	if article {
		title = Title(doc)
	}
	p := &pruner{article: article, w: &w}
	p.prune(doc, false)
	p.detach()
	root, prose := pick(doc, p.contents)
	// Readability's second try: when next to nothing is left of a page
	// (an article or not) and a block set aside by its name alone held an
	// article's worth of prose (Readability's 500 characters), it held the
	// content (a layout may name the column holding a blog "sidebar").
	if prose[root] < sparseProse && p.namedProse >= articleMin {
		p.restore()
		p = &pruner{article: article, keepNamed: true, w: &w}
		p.prune(doc, false)
		p.detach()
		root, prose = pick(doc, p.contents)
	}
	if prose[root] < sparseProse && len(p.linkDense) > 0 {
		p.restore()
		again := &pruner{lenient: true, article: article, keepNamed: p.keepNamed, w: &w}
		again.prune(doc, false)
		again.detach()
		root, prose = pick(doc, again.contents)
	}
	narrowToArticle(doc, root, p.contents, article, title, &w)
	cutToBody(root)
	if article {
		dropHeaderPictures(root)
		dropStructures(root, counts, &w)
		cleanArticle(root, &w)
		trimTrailingLabels(root)
		trimDatelines(root, &w)
		keepStandfirst(root, title)
	}
	trimEdges(root, prose)
	trimClosingNotice(root)
	return root
}

// trimClosingNotice removes the page's closing notice wherever the
// content's last words sit: the largest box that holds them and nothing
// else, when it is a notice (isNotice). trimEdges reaches a notice at
// the end of a wrapper; a page laid out in tables sets it in the last
// row's cell, beside a logo, where no edge is.
func trimClosingNotice(root *html.Node) {
	for range 2 {
		last := lastText(root)
		if last == nil {
			return
		}
		// The largest box that holds these words and nothing else and
		// reads as a notice.
		var notice *html.Node
		for b := last.Parent; b != nil && b != root; b = b.Parent {
			if isPreformatted(b) {
				return
			}
			if !isBlockBox(b) {
				continue // a link or a span in the notice's line
			}
			if isNotice(b) {
				notice = b
			}
			if b.Parent == root || !soleText(b.Parent, b) {
				break
			}
		}
		if notice == nil {
			return
		}
		b := notice
		b.Parent.RemoveChild(b)
	}
}

// lastText is the last text node under n that shows a letter or a digit,
// outside what is never read.
func lastText(n *html.Node) *html.Node {
	for c := n.LastChild; c != nil; c = c.PrevSibling {
		switch c.Type {
		case html.TextNode:
			if letters(c.Data) > 0 {
				return c
			}
		case html.ElementNode:
			if dropped[c.DataAtom] {
				continue
			}
			if t := lastText(c); t != nil {
				return t
			}
		}
	}
	return nil
}

// isBlockBox reports an element that sets its text apart as a block.
func isBlockBox(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Div, atom.P, atom.Td, atom.Th, atom.Tr, atom.Table, atom.Tbody, atom.Li, atom.Ul, atom.Ol, atom.Section, atom.Footer, atom.Center, atom.Address, atom.Blockquote, atom.Dd, atom.Dl:
		return true
	}
	return false
}

// soleText reports whether p's letters are all child's: a box that holds
// nothing but that block.
func soleText(p, child *html.Node) bool {
	for c := p.FirstChild; c != nil; c = c.NextSibling {
		if c == child {
			continue
		}
		if t, short := textUpTo(c, 200); !short || letters(t) > 0 {
			return false
		}
	}
	return true
}

func isPreformatted(n *html.Node) bool {
	return n.DataAtom == atom.Pre || n.DataAtom == atom.Code
}

// leavesOut reports whether one of nodes is in root but not in next.
func leavesOut(root, next *html.Node, nodes []*html.Node) bool {
	for _, n := range nodes {
		if contains(root, n) && !contains(next, n) {
			return true
		}
	}
	return false
}

// articleMin is the prose, in letters, under which an article page's
// content is not its article (Readability's 500 characters).
const articleMin = 500

// sparseProse is the prose, in letters, under which the main content is
// next to nothing: a heading or two.
const sparseProse = 200

// pick chooses the main content of a pruned tree, with the prose of each
// element. It never leaves out one of the tables of contents that prune
// kept (contents).
func pick(doc *html.Node, contents []*html.Node) (root *html.Node, prose map[*html.Node]int) {
	body := findFirst(doc, func(n *html.Node) bool { return n.DataAtom == atom.Body })
	if body == nil {
		body = doc
	}
	prose = map[*html.Node]int{}
	total := proseLen(body, prose)
	root = body
	if m := findFirst(body, func(n *html.Node) bool {
		return n.DataAtom == atom.Main || strings.EqualFold(attr(n, "role"), "main")
	}); m != nil && prose[m]*10 >= total*3 {
		root = m
		// A <main> that holds the article and, beside it, related posts,
		// a donation box and a newsletter form: the article is the page.
		if arts := findAll(m, atom.Article); len(arts) == 1 && prose[arts[0]]*10 >= prose[m]*6 {
			root = arts[0]
		}
	} else if arts := findAll(body, atom.Article); len(arts) == 1 && prose[arts[0]]*10 >= total*3 {
		root = arts[0]
	} else {
		// Walk down while one child holds 80% of the prose and every
		// section heading: what is left beside it is furniture.
		for {
			var next *html.Node
			for c := root.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && prose[c]*10 >= total*8 {
					next = c
					break
				}
			}
			if next == nil || isLeafBlock(next) || headings(root) != headings(next) || leavesOut(root, next, contents) {
				break
			}
			root = next
		}
	}
	return root, prose
}

// Title finds the page's title heading, which Render puts above content
// that does not hold it (a title set apart from the article body): the
// first <h1> that the page's <title> names, else the first long <h2> it
// names, else the first <h1> (outside the site's banner when the <title>
// names something else). A blog's
// "Hi, I'm Nicolas" banner is not the title of its posts. Call it before
// Main, which may detach it.
func Title(doc *html.Node) *html.Node {
	h1s := findAll(doc, atom.H1)
	var named string
	if t := findFirst(doc, func(n *html.Node) bool { return n.DataAtom == atom.Title }); t != nil {
		named = strings.ToLower(strings.Join(strings.Fields(textOf(t)), " "))
	}
	// Of the <h1>s that the <title> names, the longest: "Masse des
	// Quaders | Prismen" names the site's banner <h1> too.
	var best *html.Node
	bestLen := 0
	for _, h := range h1s {
		text := strings.ToLower(strings.Join(strings.Fields(textOf(h)), " "))
		if text != "" && named != "" && strings.Contains(named, text) {
			if len(text) > bestLen {
				best, bestLen = h, len(text)
			}
		}
	}
	if best != nil {
		return best
	}
	// A post titled by an <h2> under the site's <h1> (Global Voices):
	// the <title> names it, and it is long enough not to be a section's.
	if named != "" {
		for _, h := range findAll(doc, atom.H2) {
			text := strings.ToLower(strings.Join(strings.Fields(textOf(h)), " "))
			if utf8.RuneCountInString(text) >= 20 && strings.Contains(named, text) {
				return h
			}
		}
	}
	for _, h := range h1s {
		if strings.TrimSpace(textOf(h)) != "" && (named == "" || !inBanner(h)) {
			return h
		}
	}
	if len(h1s) == 0 && named != "" {
		// Doxygen titles its pages with <div class="title">.
		return findFirst(doc, func(n *html.Node) bool {
			if n.DataAtom != atom.Div || !hasClass(n, "title") {
				return false
			}
			text := strings.ToLower(textOf(n))
			return text != "" && strings.Contains(named, text)
		})
	}
	return nil
}

// inBanner reports whether n sits in a page's banner: a <header> outside
// any article, or role=banner.
func inBanner(n *html.Node) bool {
	banner := false
	for p := n.Parent; p != nil; p = p.Parent {
		switch {
		case p.DataAtom == atom.Article || p.DataAtom == atom.Main:
			return false
		case p.DataAtom == atom.Header || strings.EqualFold(attr(p, "role"), "banner"):
			banner = true
		}
	}
	return banner
}

func isHeading(n *html.Node) bool {
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

// headings counts the h1-h3 headings in n.
func headings(n *html.Node) int {
	k := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.H1, atom.H2, atom.H3:
			k++
		default:
			k += headings(c)
		}
	}
	return k
}

// isLeafBlock reports elements Main must not descend into: a paragraph,
// a code block or a table cell holds content, it does not frame it.
func isLeafBlock(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Pre, atom.Td, atom.Th, atom.Li, atom.Dd, atom.Blockquote, atom.Table, atom.Ul, atom.Ol, atom.Dl:
		return true
	}
	return isLineListing(n)
}

// underHeading reports an element that comes right after a heading, as
// a section's list of links does.
func underHeading(n *html.Node) bool {
	for c := n.PrevSibling; c != nil; c = c.PrevSibling {
		if c.Type == html.ElementNode {
			return isHeading(c)
		}
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return false
		}
	}
	return false
}

// holdsPage reports a wrapper of the page itself, whatever its class
// says ("single no-comments", "sharing-enabled"): it holds the <main>
// element or the page's <h1>.
func holdsPage(n *html.Node) bool {
	return findFirst(n, func(c *html.Node) bool {
		return c != n && (c.DataAtom == atom.Main || c.DataAtom == atom.H1 || strings.EqualFold(attr(c, "role"), "main"))
	}) != nil
}

// holdsProse reports a block of a thousand letters or more outside links
// that are at least four fifths of its text: a wrapper of the article
// whatever its class says ("documentContent__sharingContainer"), as a
// list of related posts or of comments is mostly links or short.
func holdsProse(n *html.Node) bool {
	links, all := linkText(n)
	return all-links >= 1000 && links*5 <= all
}

// trimEdges removes link bars at the start and end of root and of its
// first and last wrappers: "Next: … Previous: … Up: …" lines, breadcrumbs,
// rules. Lists and headings stay: a closing "See also" list is content.
func trimEdges(root *html.Node, prose map[*html.Node]int) {
	if isLineListing(root) {
		return
	}
	for _, first := range []bool{true, false} {
		n := root
		for depth := 0; n != nil && depth < 4; depth++ {
			var edge *html.Node
			for {
				edge = edgeElement(n, first)
				if edge == nil || !isEdgeBar(edge) && (first || !isNotice(edge)) {
					break
				}
				n.RemoveChild(edge)
			}
			if edge == nil || !isWrapper(edge) || isLineListing(edge) {
				break // a listing's last line "} dict_t;" is code, not a bar
			}
			n = edge
		}
	}
}

func edgeElement(n *html.Node, first bool) *html.Node {
	c := n.FirstChild
	if !first {
		c = n.LastChild
	}
	for c != nil {
		if c.Type == html.ElementNode {
			return c
		}
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return nil
		}
		if first {
			c = c.NextSibling
		} else {
			c = c.PrevSibling
		}
	}
	return nil
}

func isWrapper(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Div, atom.Section, atom.Article, atom.Main, atom.Header, atom.Footer, atom.Span, atom.Center, atom.Font:
		return true
	}
	return false
}

func isEdgeBar(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Hr, atom.Br:
		return true
	case atom.Ul, atom.Ol, atom.Dl, atom.Pre, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return false
	}
	if findFirst(n, isHeading) != nil {
		return false // an article's <header>: its title is a link to itself
	}
	links, all := linkText(n)
	if all == 0 {
		// Only images (DocBook's arrow bars) or nothing at all.
		return findFirst(n, func(c *html.Node) bool { return c.DataAtom == atom.A }) != nil || !hasImage(n)
	}
	// A bar is a line or two: a block of a hundred links is an index.
	return links > 0 && links*2 >= all && all <= 300 && onlyBarWords(n)
}

// isNotice reports a page's closing notice: a line or two of at most 60
// words that claims its copyright ("© 2005 Stand to Reason", "All rights
// reserved"), with no heading and no listing.
func isNotice(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Ul, atom.Ol, atom.Dl, atom.Pre, atom.Table:
		return false
	}
	t, short := textUpTo(n, 1000)
	if !short {
		return false
	}
	t = strings.ToLower(t)
	if len(strings.Fields(t)) > 60 || findFirst(n, func(c *html.Node) bool { return isHeading(c) || c.DataAtom == atom.Pre }) != nil {
		return false
	}
	return strings.Contains(t, "©") || strings.Contains(t, "copyright") || strings.Contains(t, "all rights reserved")
}

// textUpTo is n's text when it is no longer than limit bytes; short is
// false, and the walk stops, when it is longer.
func textUpTo(n *html.Node, limit int) (text string, short bool) {
	var b strings.Builder
	var walk func(*html.Node) bool
	walk = func(n *html.Node) bool {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
			return b.Len() <= limit
		}
		if n.Type == html.ElementNode && dropped[n.DataAtom] {
			return true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if !walk(c) {
				return false
			}
		}
		return true
	}
	if !walk(n) {
		return "", false
	}
	return b.String(), true
}

// barWords are what link bars say besides their links.
var barWords = map[string]bool{"next": true, "previous": true, "prev": true, "up": true, "home": true,
	"top": true, "contents": true, "index": true, "back": true, "forward": true, "toc": true}

// onlyBarWords reports whether n's text outside links is only bar words,
// separators and words of one or two letters: "Next: …, Previous: …, Up:
// … [Contents]". A sentence with links in it is not a bar.
func onlyBarWords(n *html.Node) bool {
	ok := true
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if !ok || n.DataAtom == atom.A {
			return
		}
		if n.Type == html.TextNode {
			for _, w := range strings.FieldsFunc(strings.ToLower(n.Data), func(r rune) bool { return !unicode.IsLetter(r) }) {
				if utf8.RuneCountInString(w) > 2 && !barWords[w] {
					ok = false
					return
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return ok
}

func hasImage(n *html.Node) bool {
	return findFirst(n, func(c *html.Node) bool { return c.DataAtom == atom.Img || c.DataAtom == atom.Picture }) != nil
}

// proseLen counts the letters and digits of n's text outside links, for
// n and every element below it (into memo).
func proseLen(n *html.Node, memo map[*html.Node]int) int {
	switch n.Type {
	case html.TextNode:
		k := 0
		for _, r := range n.Data {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				k++
			}
		}
		return k
	case html.ElementNode, html.DocumentNode:
	default:
		return 0
	}
	k := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom == atom.A {
			proseLen(c, memo)
			continue
		}
		k += proseLen(c, memo)
	}
	memo[n] = k
	return k
}

// linkText measures n's text inside links and in all, in runes (spaces
// excluded). An image in a link counts by its alt text: DocBook's
// "Prev", "Up", "Next" arrows are links.
func linkText(n *html.Node) (links, all int) {
	var walk func(*html.Node, bool)
	walk = func(n *html.Node, in bool) {
		if n.Type == html.TextNode || in && n.DataAtom == atom.Img {
			s := n.Data
			if n.Type != html.TextNode {
				s = attr(n, "alt")
			}
			k := nonSpaceLen(s)
			all += k
			if in {
				links += k
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, in || c.DataAtom == atom.A)
		}
	}
	walk(n, n.DataAtom == atom.A)
	return links, all
}

// nonSpaceLen counts the runes of s that are not white space.
func nonSpaceLen(s string) int {
	k := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			k++
		}
	}
	return k
}

// shortOutsideLinks reports whether n's text outside links, counted as
// linkText counts it, is under limit runes. It stops as soon as it is
// not, so a wrapper of a whole article costs one paragraph.
func shortOutsideLinks(n *html.Node, limit int) bool {
	k := 0
	var walk func(*html.Node) bool
	walk = func(n *html.Node) bool {
		if n.Type == html.TextNode {
			k += nonSpaceLen(n.Data)
			return k < limit
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.DataAtom != atom.A && !walk(c) {
				return false
			}
		}
		return true
	}
	return n.DataAtom == atom.A || walk(n)
}

func findFirst(n *html.Node, match func(*html.Node) bool) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if match(c) {
			return c
		}
		if f := findFirst(c, match); f != nil {
			return f
		}
	}
	return nil
}

func findAll(n *html.Node, a atom.Atom) []*html.Node {
	var out []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c.DataAtom == a {
			out = append(out, c)
			continue
		}
		out = append(out, findAll(c, a)...)
	}
	return out
}

func contains(root, n *html.Node) bool {
	for ; n != nil; n = n.Parent {
		if n == root {
			return true
		}
	}
	return false
}

// attr is n's attribute key, which is lower case: html.Parse lowers the
// keys it reads.
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// textOf is n's text with whitespace collapsed.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}
