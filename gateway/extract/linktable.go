package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Tables of links are content in any extraction depth: an index (texinfo's
// printindex writes one row per entry: the term, linked to where it is
// defined, and the section it is in) is what its page says, and
// dropping it with the data tables left libffi's Index.html as "## Index /
// Jump to: / Jump to:". A bar of links to the page's own anchors (the
// index's "Jump to: A C F") only repeats what follows, and goes.

// isJumpBar reports a table whose links all lead into the page itself,
// with little text beside them.
func isJumpBar(t *html.Node) bool {
	links, inPage := 0, 0
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.DataAtom == atom.A && attr(c, "href") != "" {
				links++
				if strings.HasPrefix(strings.TrimSpace(attr(c, "href")), "#") {
					inPage++
				}
				continue
			}
			walk(c)
		}
	}
	walk(t)
	l, all := linkText(t)
	if links == 0 && len(tableRows(t)) == 1 {
		// Its label, once pruning took its links for a menu column.
		label := strings.TrimSpace(textOf(t))
		return strings.HasSuffix(label, ":") && all < 40
	}
	return links >= 2 && inPage == links && all-l < 40
}

// isIndexTable reports a table whose rows are entries of links: three or
// more rows hold a link, each in its first cell that shows anything (the
// entry), and links are most of its text. A table whose rows open with
// something else (a standings table's place, a date) is data, whatever
// its links.
func isIndexTable(rows []*html.Node) bool {
	withLinks, links, all := 0, 0, 0
	for _, tr := range rows {
		l, a := linkText(tr)
		if l > 0 {
			withLinks++
			if !opensWithLink(tr) {
				return false
			}
		}
		links, all = links+l, all+a
	}
	return withLinks >= 3 && links*10 >= all*6
}

// opensWithLink reports a row whose first cell that shows text holds a
// link.
func opensWithLink(tr *html.Node) bool {
	for _, c := range rowCells(tr) {
		if !hasText(c) {
			continue
		}
		return findFirst(c, func(n *html.Node) bool { return n.DataAtom == atom.A && attr(n, "href") != "" }) != nil
	}
	return false
}

// indexTable renders each row that holds a link as a list item: its
// first cell, the entry ("ABI:", linked to where the term is defined).
// The cells after it name the section the link already leads to; written
// out, every section's name would stand in the index once per entry and
// make the index outrank the sections themselves in search. Rows without
// a link (the column headings, a letter's heading row, rules) carry
// nothing an entry does not.
func (r *renderer) indexTable(rows []*html.Node) {
	r.flush()
	for _, tr := range rows {
		if l, _ := linkText(tr); l == 0 {
			continue
		}
		var md, tx []string
		for c := tr.FirstChild; c != nil; c = c.NextSibling {
			if c.DataAtom != atom.Td && c.DataAtom != atom.Th {
				continue
			}
			inner := r.sub(c)
			m := strings.TrimSpace(strings.ReplaceAll(inner.md.String(), "\\\n", " "))
			t := strings.TrimSpace(strings.ReplaceAll(inner.tx.String(), "\n", " "))
			if t == "" {
				continue
			}
			md, tx = append(md, m), append(tx, t)
			break
		}
		if len(tx) > 0 {
			r.add(Block{Kind: Item, Marker: "-", Markdown: strings.Join(md, " "), Text: strings.Join(tx, " ")})
		}
	}
}
