package extract

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// isDataTable is Readability's test for a table of data, which its
// conditional cleaning never removes, however many links its cells hold
// (a table of apps with each name linked to its store page): a table
// that says so (a summary, a caption, a header row or cells), or that is
// large enough (ten rows or more, more than four columns, or more than
// ten cells), and holds no table of its own. A table set out as
// presentation, or that arranges blocks (isLayoutTable), is layout.
func isDataTable(t *html.Node) bool {
	if strings.EqualFold(attr(t, "datatable"), "0") {
		return false
	}
	rows := tableRows(t)
	if isLayoutTable(t, rows) {
		return false
	}
	if attr(t, "summary") != "" || findFirst(t, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.Caption, atom.Thead, atom.Tfoot, atom.Colgroup, atom.Th:
			return true
		}
		return false
	}) != nil {
		return true
	}
	cols := 0
	for _, tr := range rows {
		k := 0
		for _, c := range rowCells(tr) {
			span, _ := strconv.Atoi(attr(c, "colspan"))
			k += max(1, min(span, 100))
		}
		cols = max(cols, k)
	}
	return len(rows) >= 10 || cols > 4 || len(rows)*cols > 10
}
