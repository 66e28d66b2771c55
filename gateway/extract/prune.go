package extract

import (
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The furniture pass: what Main removes before it looks for the content,
// the elements never read as text, navigation by role and by name, and
// blocks of links, kept aside so that a page whose content is links can
// have them back.

// dropped are elements whose content is never read as text.
var dropped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Svg: true,
	atom.Canvas: true, atom.Nav: true, atom.Aside: true, atom.Dialog: true, atom.Button: true,
	atom.Input: true, atom.Select: true, atom.Textarea: true, atom.Iframe: true, atom.Object: true,
	atom.Embed: true, atom.Video: true, atom.Audio: true, atom.Head: true, atom.Title: true,
}

// isDropped reports an element whose content is never read as text: one
// of dropped, except an <aside> that holds the page's <main> or its <h1>
// (a news site sets its whole article, headline and all, in one), which is a
// tag misused, as a <header> left open is (holdsMain).
func isDropped(n *html.Node) bool {
	if n.DataAtom == atom.Aside {
		return !holdsPage(n)
	}
	return dropped[n.DataAtom]
}

// navRoles are ARIA roles of page furniture.
var navRoles = map[string]bool{"navigation": true, "banner": true, "contentinfo": true, "complementary": true,
	"search": true, "menu": true, "menubar": true, "toolbar": true, "dialog": true, "alert": true}

// navWords in a class or id mark navigation when the element is mostly
// links or holds little prose.
var navWords = map[string]bool{"menu": true, "sidebar": true, "breadcrumb": true, "breadcrumbs": true,
	"toc": true, "pager": true, "pagination": true, "skip": true, "share": true, "social": true,
	"header": true, "footer": true, "masthead": true, "banner": true, "cookie": true, "consent": true,
	"related": true, "picker": true, "versions": true, "edit": true, "feedback": true, "subscribe": true,
	"categories": true, "category": true, "tags": true, "topics": true}

// pruner removes furniture from a tree: dropped elements, hidden ones,
// comments, navigation by role, <header> and <footer> outside articles,
// and link-dense blocks: elements named as navigation that are mostly
// links, and table cells that are columns of links.
type pruner struct {
	// lenient keeps link-dense blocks that read as content: a table cell
	// that holds headings (an API index's column), a list right under a
	// heading.
	lenient bool
	// linkDense are the blocks removed after the rest of the furniture,
	// in document order, for restore: link-dense blocks, and blocks named
	// as furniture.
	linkDense  []removed
	namedProse int // the most prose in one of those
	// keepNamed keeps the blocks that only their names mark as furniture.
	keepNamed bool
	// contents are the tables of contents kept as content.
	contents []*html.Node
	// article: the page says it is an article, so blocks that
	// Readability finds unlikely to hold one go whatever their links.
	article bool
	w       *Weights
	// fieldBoxes are the boxes of fields outside a form (fieldBoxes).
	fieldBoxes map[*html.Node]bool
}

type removed struct{ n, parent, next *html.Node }

func (p *pruner) prune(n *html.Node, inContent bool) {
	if p.fieldBoxes == nil {
		p.fieldBoxes = fieldBoxes(n)
	}
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch c.Type {
		case html.CommentNode:
			n.RemoveChild(c)
		case html.ElementNode:
			if isFurniture(c, inContent) || p.fieldBoxes[c] {
				n.RemoveChild(c)
			} else if c.DataAtom == atom.Pre {
				pruneCode(c)
			} else if !p.keepNamed && (p.article && (isUnlikely(c) || isSlideshow(c, p.w) && !holdsPage(c)) || isSidebar(c) && !holdsProse(c) && !holdsPage(c)) {
				p.linkDense = append(p.linkDense, removed{n: c})
				p.namedProse = max(p.namedProse, proseLen(c, map[*html.Node]int{}))
			} else if p.isLinkDense(c) {
				p.linkDense = append(p.linkDense, removed{n: c})
			} else {
				p.prune(c, inContent || c.DataAtom == atom.Article || c.DataAtom == atom.Main || strings.EqualFold(attr(c, "role"), "main"))
			}
		}
		c = next
	}
}

// pruneCode removes from a code listing only what is never text (its
// copy button, a script) and what is hidden. Its spans' class names are
// a highlighter's, not the page's: highlight.js marks C's "#include"
// lines "hljs-meta", which names a byline elsewhere.
func pruneCode(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch {
		case c.Type == html.CommentNode:
			n.RemoveChild(c)
		case c.Type != html.ElementNode:
		case isDropped(c) || isHidden(c):
			n.RemoveChild(c)
		default:
			pruneCode(c)
		}
		c = next
	}
}

// detach removes the link-dense blocks prune found. It runs after the
// rest of the furniture is gone, so each block's next sibling stays in
// the tree or is a link-dense block itself.
func (p *pruner) detach() {
	for i := range p.linkDense {
		r := &p.linkDense[i]
		r.parent, r.next = r.n.Parent, r.n.NextSibling
		r.parent.RemoveChild(r.n)
	}
}

// restore puts the link-dense blocks back where they were, last first so
// that each one's next sibling is in place again.
func (p *pruner) restore() {
	for i := len(p.linkDense) - 1; i >= 0; i-- {
		r := p.linkDense[i]
		r.parent.InsertBefore(r.n, r.next)
	}
	p.linkDense = nil
}

// isFurniture reports what is never content, whatever else the page holds.
func isFurniture(n *html.Node, inContent bool) bool {
	if isDropped(n) {
		return true
	}
	switch n.DataAtom {
	case atom.Header, atom.Footer:
		if (!inContent || n.DataAtom == atom.Footer && !inArticle(n)) && !holdsMain(n) {
			return true
		}
	case atom.Html, atom.Body, atom.Main, atom.Article:
		return false
	}
	// Doxygen's tooltips (div.ttc) are hidden by its stylesheet.
	if isHidden(n) || navRoles[strings.ToLower(attr(n, "role"))] && !holdsMain(n) || hasClass(n, "ttc") {
		return true
	}
	return (isComments(n) || isPromo(n) && !holdsProse(n)) && !holdsPage(n) || isByline(n) || isSignUp(n)
}

// isSidebar reports a column beside the page's content, named so
// (trafilatura discards every block whose class or id says sidebar),
// unless its name also says it holds the article, as Readability reads
// such names ("l-sidebar-fixed l-article-body-segment").
func isSidebar(n *html.Node) bool {
	if n.DataAtom == atom.Body || n.DataAtom == atom.Html || !slices.Contains(classWords(n), "sidebar") {
		return false
	}
	return !containsAny(strings.ToLower(attr(n, "class")+" "+attr(n, "id")), maybeNames)
}

// holdsMain reports a header, a footer or a banner that holds the page's
// <main> or an <article>: a tag left open (a news site's whole page is
// in its <header role=banner>), not furniture.
func holdsMain(n *html.Node) bool {
	return findFirst(n, func(c *html.Node) bool {
		return c.DataAtom == atom.Main || c.DataAtom == atom.Article || strings.EqualFold(attr(c, "role"), "main")
	}) != nil
}

func inArticle(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.DataAtom == atom.Article {
			return true
		}
	}
	return false
}

// isLinkDense reports a menu: a column of links in a page laid out with
// tables, or an element named as navigation that is mostly links. A
// table of contents that lists other documents (a contents page, a
// texinfo node's list of sections) is what the page says; one that lists
// the page's own sections only repeats its headings.
func (p *pruner) isLinkDense(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Html, atom.Body, atom.Main, atom.Article:
		return false
	}
	if n.DataAtom == atom.Td && isLinkColumn(n) {
		return !p.lenient || findFirst(n, isHeading) == nil
	}
	if !namedNav(n) {
		return false
	}
	// A heading or a code block named oddly is still content, and so is
	// what a heading holds: mdBook sets each heading's words in a link
	// to itself named "header" (<h1><a class="header" href="#hello">),
	// which went as a named bar and left every heading empty.
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Pre, atom.Code:
		return false
	}
	for a := n.Parent; a != nil; a = a.Parent {
		if isHeading(a) {
			return false
		}
	}
	links, all := linkText(n)
	if !(all == 0 || links*2 > all || links > 0 && all-links < 40) {
		return false
	}
	// A wrapper named for a layout ("l-sidebar-fixed l-article-body")
	// that holds a thousand letters of prose besides its links holds the
	// page: menus are not written in paragraphs.
	if all-links >= 1000 {
		return false
	}
	if all > 0 && isContentsList(n) {
		p.contents = append(p.contents, n)
		return false
	}
	return !p.lenient || !underHeading(n)
}

// isContentsList reports a table of contents (class or id "toc") whose
// links lead to other documents: to two documents or more, or to a whole
// document (no #section). One that lists the page's own sections links
// to "#section" or "page.html#section" only.
func isContentsList(n *html.Node) bool {
	toc := false
	for _, w := range classWords(n) {
		toc = toc || w == "toc"
	}
	if !toc {
		return false
	}
	docs := map[string]bool{}
	whole := false
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && !whole && len(docs) < 2; c = c.NextSibling {
			if c.DataAtom == atom.A {
				href := strings.TrimSpace(attr(c, "href"))
				doc, _, frag := strings.Cut(href, "#")
				doc, _, _ = strings.Cut(doc, "?")
				if doc != "" && !strings.HasPrefix(strings.ToLower(doc), "javascript:") {
					docs[doc] = true
					whole = whole || !frag
				}
			}
			walk(c)
		}
	}
	walk(n)
	return whole || len(docs) >= 2
}
