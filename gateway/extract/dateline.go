package extract

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Datelines and bylines at an article's edges, told by what they say
// rather than by a site's class names: before the article's first
// paragraph of prose or after its last, a short line that holds a date
// or a time ("by Jeff Foust Monday, November 18, 2019", "sexta-feira,
// 22 de outubro de 2010 às 20:13", "기사입력 :[ 2018-08-25 15:24 ]",
// "Updated at 1:23 p.m.") is the page's record of the story, not the
// story. The same line between two paragraphs is left alone: there it
// may be a dated entry of the article's own.

// dateRE finds a date or a time written with digits in any language: a
// numeric date (2018-08-25, 05/10/2018, 2016.12.01), a clock time
// (20:13), or a year beside a day of the month ("November 18, 2019",
// "22 de outubro de 2010", "11 октября 2018").
var dateRE = regexp.MustCompile(`\b(\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4}|\d{1,2}:\d{2})\b|` +
	`\b\d{1,2}\b[^\d]{1,25}\b(19|20)\d{2}\b|\b(19|20)\d{2}\b[^\d]{1,25}\b\d{1,2}\b`)

// trimDatelines removes the short dated lines before the first and
// after the last paragraph of prose of root (DatelineWords words or
// fewer; 0 turns it off).
func trimDatelines(root *html.Node, w *Weights) {
	if w.DatelineWords == 0 {
		return
	}
	var leaves []*html.Node
	first, last := -1, -1
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Pre, atom.Table, atom.Ul, atom.Ol, atom.Dl, atom.Figure, atom.Blockquote, atom.Img, atom.Picture:
				leaves = append(leaves, nil) // content that is not a line: it stands between the edges
				continue
			}
			if isHeading(c) {
				continue
			}
			if hasBlockChild(c) {
				walk(c)
				continue
			}
			if c.DataAtom == atom.P {
				links, all := linkText(c)
				if all-links >= 80 && links*10 < all*3 {
					if first < 0 {
						first = len(leaves)
					}
					last = len(leaves)
				}
			}
			leaves = append(leaves, c)
		}
	}
	walk(root)
	if first < 0 {
		return
	}
	for i, n := range leaves {
		if n == nil || i >= first && i <= last || n.Parent == nil || !isDatedLine(n, w.DatelineWords) {
			continue
		}
		p := n.Parent
		p.RemoveChild(n)
		for p != root && p.Parent != nil && isBlank(p) {
			gp := p.Parent
			gp.RemoveChild(p)
			p = gp
		}
	}
}

// isDatedLine reports a line of at most max words that holds a date or
// a time and is not a sentence (it does not end as one, unless with a
// clock time's "p.m.").
func isDatedLine(n *html.Node, max int) bool {
	if hasImage(n) {
		return false
	}
	t := strings.TrimSpace(textOf(n))
	if t == "" || len(strings.Fields(t)) > max || !dateRE.MatchString(t) {
		return false
	}
	low := strings.ToLower(t)
	if strings.HasSuffix(low, "a.m.") || strings.HasSuffix(low, "p.m.") {
		return true
	}
	return !strings.HasSuffix(t, ".") && !strings.HasSuffix(t, "!") && !strings.HasSuffix(t, "?")
}
