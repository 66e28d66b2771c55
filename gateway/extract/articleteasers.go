package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A news page's recirculation module ("More stories", "Other opinion
// columns", a blog's related posts) is a run of teasers: each one a
// heading that is a link to another story, and a line or two of its
// lead. An article's own sections have headings that are not links, and
// more to say under them. Readability's and trafilatura's link-density
// rules miss these boxes because the leads are prose outside the links;
// the linked headings give them away, whatever the box is named.

// teaserProse is the most prose (letters outside links) one teaser holds:
// a lead of two or three sentences.
const teaserProse = 300

// isTeaserList reports a block whose children are mostly teasers, two at
// least.
func isTeaserList(n *html.Node, memo map[*html.Node]metrics) bool {
	teasers, blocks := 0, 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || memo[c].all == 0 {
			continue
		}
		blocks++
		if isTeaser(c, memo) {
			teasers++
		}
	}
	return teasers >= 2 && teasers*3 >= blocks*2
}

// isTeaser reports a block led by a heading that is a link to another
// page (not to a section of this one), with little prose besides.
func isTeaser(n *html.Node, memo map[*html.Node]metrics) bool {
	m := memo[n]
	if m.all-m.links >= teaserProse || holdsPage(n) {
		return false
	}
	h := n
	if !isHeading(n) {
		h = findFirst(n, isHeading)
	}
	if h == nil {
		return false
	}
	links, all := linkText(h)
	if all == 0 {
		return false
	}
	if links*2 < all && linkAbove(h, n) == nil {
		return false
	}
	a := findFirst(h, func(c *html.Node) bool { return c.DataAtom == atom.A })
	if a == nil {
		a = linkAbove(h, n)
	}
	return a != nil && !strings.HasPrefix(strings.TrimSpace(attr(a, "href")), "#")
}

// linkAbove is the link that holds h below top (a card that is one
// <a>), or nil.
func linkAbove(h, top *html.Node) *html.Node {
	for p := h.Parent; p != nil && p != top.Parent; p = p.Parent {
		if p.DataAtom == atom.A {
			return p
		}
	}
	return nil
}
