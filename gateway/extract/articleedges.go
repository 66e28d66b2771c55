package extract

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The edges of an article: what it must not end on, datelines, and which
// of several stories on a page is its own.

// trimTrailingLabels drops what ends an article without saying anything
// of its own: trafilatura never lets an extract end on a heading or a
// link (NOT_AT_THE_END, here a short block that is half links or more), and a
// short line that ends in a colon or a question mark ("Read next:",
// "Schon gelesen?") is the label of a box that cleaning took away.
//
// Only the last one goes: the line before it is most often the article's
// own (going on took a tuning page's last paragraphs).
func trimTrailingLabels(root *html.Node) {
	leaf := lastLeaf(root)
	if leaf == nil || leaf == root || !isTrailingLabel(leaf) {
		return
	}
	p := leaf.Parent
	p.RemoveChild(leaf)
	for p != root && p.Parent != nil && isBlank(p) {
		gp := p.Parent
		gp.RemoveChild(p)
		p = gp
	}
}

// lastLeaf is the last block under n that shows something.
func lastLeaf(n *html.Node) *html.Node {
	for c := n.LastChild; c != nil; c = c.PrevSibling {
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return n
		}
		// A break or a rule after the last block shows no text of its own.
		if c.Type != html.ElementNode || isBlank(c) || c.DataAtom == atom.Br || c.DataAtom == atom.Hr {
			continue
		}
		if !hasBlockChild(c) {
			return c
		}
		return lastLeaf(c)
	}
	return n
}

func isTrailingLabel(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Pre, atom.Table, atom.Img, atom.Picture, atom.Figure, atom.Li, atom.Ul, atom.Ol, atom.Dl, atom.Blockquote, atom.Hr:
		return false
	}
	if hasImage(n) {
		return false
	}
	if isHeading(n) {
		return true
	}
	// A short line that is half links or more is a tag line, a category
	// line or a pointer elsewhere ("Filed under <a>News</a>, <a>Local</a>",
	// "Tags: <a>Uncategorized</a>"), not the article's last sentence.
	if links, all := linkText(n); all > 0 && all < 150 && links*2 >= all {
		return true
	}
	t := strings.TrimSpace(textOf(n))
	letters := 0
	for _, r := range t {
		if !unicode.IsSpace(r) {
			letters++
		}
	}
	if letters == 0 || letters > 60 {
		return false
	}
	return strings.HasSuffix(t, ":") || strings.HasSuffix(t, "?")
}

// isDateline reports a block that is a date and little else: four fifths
// of its text is a <time> element ("12.12.2022, 08:30 Uhr"). A date
// inside a sentence is part of the sentence and stays.
func isDateline(n *html.Node, memo map[*html.Node]metrics) bool {
	t := findFirst(n, func(c *html.Node) bool { return c.DataAtom == atom.Time })
	return t != nil && memo[t].all*5 >= memo[n].all*4
}

// titledArticle picks, on a page that holds several articles one after
// another (a news site's endless scroll), the one under the page's own
// title heading when the best-scoring container is another: a container
// that holds the title and not the best, scoring at least a third of it,
// with sparseProse letters outside links (a box around the site's banner
// heading, named "content", scores by its name alone).
func titledArticle(art, title *html.Node, scores map[*html.Node]float64) *html.Node {
	if art == nil || title == nil || contains(art, title) {
		return art
	}
	var best *html.Node
	for n := title.Parent; n != nil; n = n.Parent {
		s, ok := scores[n]
		if ok && !contains(n, art) && s >= scores[art]/3 && (best == nil || s > scores[best]) && holdsSomeProse(n) {
			best = n
		}
	}
	if best == nil {
		return art
	}
	return best
}

// holdsSomeProse reports an element with sparseProse letters outside links.
func holdsSomeProse(n *html.Node) bool {
	links, all := linkText(n)
	return all-links >= sparseProse
}
