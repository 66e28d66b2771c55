package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Some pages render their article with a script and hold it, for readers
// without scripts, in a <noscript> (a blog platform keeps the post in a
// script template and again in a <noscript>). A parser that runs
// scripts, as html.Parse assumes, reads a <noscript> as one text node of
// raw markup, so the article would be lost with the script. A <noscript>
// whose markup holds an article's worth of prose in paragraphs is read
// as the page a reader without scripts sees: its markup replaces it.
func unwrapNoscripts(doc *html.Node) {
	for _, n := range findAll(doc, atom.Noscript) {
		raw := n.FirstChild
		if raw == nil || raw.Type != html.TextNode || raw.NextSibling != nil || !strings.Contains(raw.Data, "<p") {
			continue
		}
		ctx := n.Parent
		if ctx == nil || ctx.Type != html.ElementNode {
			continue
		}
		nodes, err := html.ParseFragment(strings.NewReader(raw.Data), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
		if err != nil {
			continue
		}
		prose := 0
		for _, c := range nodes {
			prose += proseLen(c, map[*html.Node]int{})
		}
		if prose < articleMin {
			continue
		}
		for _, c := range nodes {
			ctx.InsertBefore(c, n)
		}
		ctx.RemoveChild(n)
	}
}

// Pages rendered by streaming (React's server rendering sends each part
// of the page as it is ready) put a finished part in a hidden element at
// the end of <body> and leave a <template> where it goes, for a script
// to move it there: a hidden child of <body> whose id ends as a
// <template>'s does ("S:7" and "B:7") is moved to it and shown, whatever
// it holds (a part may hold the slot of another). A hidden child of
// <body> with no such slot that holds an article's worth of prose in
// paragraphs is shown where it is; a hidden menu or dialog holds none.
func revealStreamed(doc *html.Node) {
	body := findFirst(doc, func(n *html.Node) bool { return n.DataAtom == atom.Body })
	if body == nil {
		return
	}
	var slots map[string]*html.Node
	for c := body.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type != html.ElementNode || !hasAttr(c, "hidden") {
			c = next
			continue
		}
		if id := attr(c, "id"); len(id) > 2 && id[1] == ':' {
			if slots == nil {
				slots = map[string]*html.Node{}
				for _, t := range findAll(body, atom.Template) {
					if tid := attr(t, "id"); len(tid) > 2 && tid[1] == ':' {
						slots[tid[2:]] = t
					}
				}
			}
			if slot := slots[id[2:]]; slot != nil && slot.Parent != nil && !contains(c, slot) {
				removeAttr(c, "hidden")
				body.RemoveChild(c)
				slot.Parent.InsertBefore(c, slot)
				c = next
				continue
			}
		}
		if paragraphProse(c) >= articleMin {
			removeAttr(c, "hidden")
		}
		c = next
	}
}

// paragraphProse is the prose of n's paragraphs, in letters.
func paragraphProse(n *html.Node) int {
	k := 0
	for _, p := range findAll(n, atom.P) {
		links, all := linkText(p)
		k += all - links
	}
	return k
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if strings.EqualFold(a.Key, key) {
			return true
		}
	}
	return false
}

func removeAttr(n *html.Node, key string) {
	out := make([]html.Attribute, 0, len(n.Attr))
	for _, a := range n.Attr {
		if !strings.EqualFold(a.Key, key) {
			out = append(out, a)
		}
	}
	n.Attr = out
}

// unwrapNamedAnchors takes out the anchors that are a place to link to,
// not a link: <a name="top"> with no href. Written as HTML 4 allowed, or
// as <a name="top"/>, which HTML does not close, such an anchor holds the
// rest of the page, and the parser opens it again in each block after
// it, so every letter of the page read as a link's. Its text stays where
// it is.
func unwrapNamedAnchors(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode {
			unwrapNamedAnchors(c)
			if c.DataAtom == atom.A && hasAttr(c, "name") && !hasAttr(c, "href") {
				if c.FirstChild != nil {
					next = c.FirstChild
				}
				for g := c.FirstChild; g != nil; {
					gn := g.NextSibling
					c.RemoveChild(g)
					n.InsertBefore(g, c)
					g = gn
				}
				n.RemoveChild(c)
			}
		}
		c = next
	}
}
