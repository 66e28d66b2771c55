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
