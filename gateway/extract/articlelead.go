package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// An article's standfirst (the lead under its headline, "p.lead",
// "h2.subheadline") is set in the article's header beside the headline,
// and a header is often left out of the content: the headline is put
// back above the content by Render, and the standfirst must come with it.
// trafilatura's labels and the committed truths count it as the
// article's text.

// standfirstMin and standfirstMax bound a standfirst, in letters: under
// jusText's 70 a line is a dateline, a byline or a kicker; over 600 the
// block is more than a lead.
const (
	standfirstMin = 70
	standfirstMax = 600
)

// keepStandfirst moves into root, first, the standfirst that follows the
// title heading outside root: the first block after the title, within
// its parent and up to two levels above, that holds 70 to 600 letters
// with few links and no picture. Shorter blocks before it (a dateline, a
// byline) are passed over; a block that holds root ends the search.
func keepStandfirst(root, title *html.Node) {
	if title == nil || contains(root, title) || contains(title, root) || openingH1(root) != nil {
		return
	}
	n := title
	for level := 0; level < 3 && n != nil && n.Type == html.ElementNode; level++ {
		if contains(n, root) {
			return
		}
		for c := n.NextSibling; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || !hasText(c) {
				continue
			}
			if contains(c, root) {
				return
			}
			lead, stop := standfirstIn(c)
			if lead != nil {
				lead.Parent.RemoveChild(lead)
				root.InsertBefore(lead, root.FirstChild)
				return
			}
			if stop {
				return
			}
		}
		n = n.Parent
	}
}

// standfirstIn finds the standfirst at the start of c: c itself, or the
// first block inside it that holds text. stop reports a block that ends
// the search: too long to be a lead, mostly links, or a picture.
func standfirstIn(c *html.Node) (lead *html.Node, stop bool) {
	links, all := linkText(c)
	switch {
	case all < standfirstMin:
		return nil, false
	case links*4 > all || hasImage(c):
		return nil, true
	case all <= standfirstMax && !hasBlockChild(c):
		return c, false
	}
	for k := c.FirstChild; k != nil; k = k.NextSibling {
		if k.Type == html.ElementNode && hasText(k) {
			return standfirstIn(k)
		}
	}
	return nil, true
}

// isStandfirst reports a heading that is a standfirst set as a heading
// ("h2.subheadline", "h2.article-lead"): a sentence of 70 letters or more
// where headings are a few words. It heads nothing, and stays; but not
// in the site's banner, where it is the site's motto under its name.
func isStandfirst(h *html.Node) bool {
	if h.DataAtom == atom.H1 {
		return false
	}
	links, all := linkText(h)
	if all < standfirstMin || all > standfirstMax || links*4 > all {
		return false
	}
	for p := h.Parent; p != nil; p = p.Parent {
		if p.DataAtom == atom.Article || p.DataAtom == atom.Main {
			return true
		}
		if strings.EqualFold(attr(p, "role"), "banner") {
			return false
		}
		for _, w := range classWords(p) {
			if w == "banner" || w == "masthead" {
				return false
			}
		}
	}
	return true
}
