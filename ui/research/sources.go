package research

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/ui/common"
)

// The report's sources (s): each opens in Pages, in $BROWSER, or has its
// address copied.

// sourceList is the list of the shown report's sources.
func (p *Pane) sourceList() common.List {
	return common.NewList(&p.srcCursor, &p.srcOff, len(p.current.Out.Sources))
}

func (p *Pane) sourceKey(msg tea.KeyPressMsg) tea.Cmd {
	src := p.current.Out.Sources
	switch {
	case key.Matches(msg, p.keys().Up):
		p.sourceList().Move(-1)
	case key.Matches(msg, p.keys().Down):
		p.sourceList().Move(1)
	case key.Matches(msg, p.keys().Run):
		if p.srcCursor < len(src) {
			// A web page is extracted; a file:// page of an indexed
			// folder shows the text the index holds.
			sc, q := src[p.srcCursor], p.current.Question
			find := sc.Title
			if find == "" {
				find = q
			}
			// It opens where the report first quotes it, the quote
			// highlighted.
			var at string
			for _, pa := range p.current.Out.Passages {
				if pa.Source == p.srcCursor+1 && !pa.Code {
					at = pa.Quote
					break
				}
			}
			return common.OpeningAt(common.OpenResult(p.c, sc.URL, sc.Title, map[string]any{"query": find}, q), at)
		}
	case key.Matches(msg, p.keys().OpenSource):
		if p.srcCursor < len(src) {
			return common.Browse(src[p.srcCursor].URL)
		}
	case msg.String() == "y":
		if p.srcCursor < len(src) {
			return common.CopyURL(src[p.srcCursor].URL)
		}
	}
	return nil
}

func (p *Pane) sourcesView(h int) string {
	st := p.c.Styles
	src := p.current.Out.Sources
	lines := []string{st.Title.Render(fmt.Sprintf("Sources (%d)", len(src))) + st.Dim.Render("  enter opens in Pages · o in $BROWSER · y copies · s back")}
	// The heading takes a row; the cursor sits on the last row at most.
	start, end := p.sourceList().Pin(h - 1)
	for i := start; i < end; i++ {
		t := src[i].Title
		if t == "" {
			t = src[i].URL
		}
		cur, ts := "  ", st.Text
		if i == p.srcCursor {
			cur, ts = st.Key.Render("▌ "), st.Selected
		}
		lead := cur + fmt.Sprintf("%d. ", i+1)
		title, u := sourceColumns(common.OneLine(t), src[i].URL, p.width-ansi.StringWidth(lead)-2)
		lines = append(lines, common.Truncate(lead+common.Link(ts.Render(title), src[i].URL)+st.Dim.Render("  "+u), p.width))
	}
	return strings.Join(lines, "\n")
}

// sourceColumns fits a source's title and URL in room columns: where
// both do not fit (80 columns, manuals' long titles) the URL keeps at
// least about half, cut in its middle so that its file name stays, and
// the title gives way, rather than the URL cut to "file:///usr/share/…".
func sourceColumns(title, u string, room int) (string, string) {
	tw, uw := ansi.StringWidth(title), ansi.StringWidth(u)
	if tw+uw <= room || room < 20 {
		return title, u
	}
	urlW := min(uw, max(room-tw, room*55/100))
	return common.Truncate(title, room-urlW), common.TruncateURL(u, urlW)
}
