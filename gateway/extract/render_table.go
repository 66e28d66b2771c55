package extract

import (
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Tables: data tables as markdown tables, layout tables as the blocks
// they hold.

// table keeps a data table as rows of cells (advanced), reads a layout
// table as ordinary content, and leaves other tables out.
func (r *renderer) table(n *html.Node) {
	if hasClass(n, "memname") {
		r.declaration(n)
		return
	}
	if isJumpBar(n) {
		r.flush()
		return
	}
	rows := tableRows(n)
	if isIndexTable(rows) && !isLayoutTable(n, rows) {
		r.indexTable(rows)
		return
	}
	if isLayoutTable(n, rows) {
		r.layoutTable(n, rows)
		return
	}
	if !r.opt.Tables || r.opt.NoHistories && isHistoryTable(rows) {
		r.flush()
		return
	}
	if c := findFirst(n, func(c *html.Node) bool { return c.DataAtom == atom.Caption }); c != nil {
		r.block(c)
	}
	var cells [][]string
	var texts [][]string
	width := 0
	for _, tr := range rows {
		var mdRow, txRow []string
		for c := tr.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || c.DataAtom != atom.Td && c.DataAtom != atom.Th {
				continue
			}
			md, tx := r.cell(c)
			md = strings.TrimSpace(strings.ReplaceAll(md, "\\\n", " "))
			tx = strings.TrimSpace(strings.ReplaceAll(tx, "\n", " "))
			md = strings.ReplaceAll(md, "|", "\\|")
			span, _ := strconv.Atoi(attr(c, "colspan"))
			span = min(max(span, 1), 50)
			for i := 0; i < span; i++ {
				mdRow, txRow = append(mdRow, md), append(txRow, tx)
				md, tx = "", ""
			}
		}
		if len(mdRow) == 0 {
			continue
		}
		width = max(width, len(mdRow))
		cells, texts = append(cells, mdRow), append(texts, txRow)
	}
	if len(cells) == 0 {
		return
	}
	var md, tx strings.Builder
	for i, row := range cells {
		for len(row) < width {
			row = append(row, "")
		}
		md.WriteString("| " + strings.Join(row, " | ") + " |\n")
		if i == 0 {
			md.WriteString("|" + strings.Repeat(" --- |", width) + "\n")
		}
		var kept []string
		for _, t := range texts[i] {
			if t != "" {
				kept = append(kept, t)
			}
		}
		tx.WriteString(strings.Join(kept, " | ") + "\n")
	}
	r.add(Block{Kind: Table, Markdown: strings.TrimRight(md.String(), "\n"), Text: strings.TrimRight(tx.String(), "\n")})
}

// cell is a data table's cell in both renderings: its inline content
// and the paragraphs it holds, one after another on one line. A cell's
// <p> (Node.js's history tables hold each change in one) would
// otherwise be a block of its own before the table, and the row left
// without it.
func (r *renderer) cell(c *html.Node) (md, tx string) {
	saved, n := r.in, len(r.blocks)
	r.in = &inline{}
	r.children(c)
	r.flush()
	var mds, txs []string
	for _, b := range r.blocks[n:] {
		mds, txs = append(mds, b.Markdown), append(txs, b.Text)
	}
	r.blocks, r.in = r.blocks[:n], saved
	return strings.Join(mds, " "), strings.Join(txs, " ")
}

// isHistoryTable reports whether a table is a version history: below
// its header, every row's first cell names a release or two ("v15.8.0,
// v14.18.0").
func isHistoryTable(rows []*html.Node) bool {
	if len(rows) < 2 {
		return false
	}
	for _, tr := range rows[1:] {
		cells := rowCells(tr)
		if len(cells) < 2 || !releases.MatchString(strings.TrimSpace(textOf(cells[0]))) {
			return false
		}
	}
	return true
}

var releases = regexp.MustCompile(`^v?\d+(?:\.\d+)+(?:,\s*v?\d+(?:\.\d+)+)*$`)

// layoutTable reads a table that lays out content. A row of cells that
// hold no blocks is one line, as it shows: Doxygen's "#define" beside
// "S3DICT_INC_SZ 4096" is one declaration, not two paragraphs; a row
// whose cells hold blocks (a menu column beside the content) is read cell
// by cell.
func (r *renderer) layoutTable(n *html.Node, rows []*html.Node) {
	r.flush()
	if c := findFirst(n, func(c *html.Node) bool { return c.DataAtom == atom.Caption }); c != nil {
		r.block(c)
	}
	for _, tr := range rows {
		inline := true
		for c := tr.FirstChild; c != nil && inline; c = c.NextSibling {
			inline = c.Type != html.ElementNode || !r.hasBlock(c)
		}
		if !inline {
			r.block(tr)
			continue
		}
		for _, c := range rowCells(tr) {
			r.in.space = true
			r.children(c)
		}
		r.flush()
	}
}

func tableRows(t *html.Node) []*html.Node {
	var rows []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Tr:
				rows = append(rows, c)
			case atom.Thead, atom.Tbody, atom.Tfoot:
				walk(c)
			}
		}
	}
	walk(t)
	return rows
}

// isLayoutTable tells tables that arrange a page from tables of data: one
// column, presentation role, or cells that hold blocks (code, lists,
// headings, other tables).
func isLayoutTable(t *html.Node, rows []*html.Node) bool {
	switch strings.ToLower(attr(t, "role")) {
	case "presentation", "none":
		return true
	}
	cols := 0
	for _, tr := range rows {
		cells := rowCells(tr)
		for _, c := range cells {
			if findFirst(c, func(n *html.Node) bool {
				switch n.DataAtom {
				case atom.Table, atom.Pre, atom.Ul, atom.Ol, atom.Dl, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Blockquote:
					return true
				}
				return false
			}) != nil {
				return true
			}
		}
		cols = max(cols, len(cells))
	}
	return cols <= 1
}

// rowCells are a table row's cells, <td> and <th>.
func rowCells(tr *html.Node) []*html.Node {
	var out []*html.Node
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom == atom.Td || c.DataAtom == atom.Th {
			out = append(out, c)
		}
	}
	return out
}
