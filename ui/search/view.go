package search

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/ui/common"
)

// View draws the query line, the options, then the answer, results and
// images, with the preview at the right on wide terminals.
func (p *Pane) View() string {
	s := p.c.Styles
	if p.form != nil {
		head := s.Title.Render("Search · all options") + s.Dim.Render("  enter runs · esc closes")
		return common.Fit(head+"\n\n"+p.form.View(), p.width, p.height)
	}
	var top []string
	top = append(top, p.query.View())
	if p.editDom {
		top = append(top, p.domains.View())
	} else {
		top = append(top, p.optionsLine())
	}
	if p.progress.Active {
		top = append(top, p.progress.View(s, p.c.Now())+s.Dim.Render("  "+p.cancelKey()+" cancels"))
	}
	top = append(top, p.ix.lines(s, p.c.Now(), p.width, p.cancelKey())...)
	if p.dict.Active() {
		top = append(top, s.Warn.Render("● listening")+s.Dim.Render(" · speak the query · ctrl+r stops · enter searches"))
	}
	if p.err != nil {
		top = append(top, common.ErrorView(s, p.err, p.width))
	}
	header := strings.Join(top, "\n")
	hh := strings.Count(header, "\n") + 1
	bodyH := max(0, p.height-hh)
	p.listTop = hh
	if p.ix.listing {
		p.rowOf = nil
		return common.Fit(header+"\n"+p.ix.listView(s, p.width, bodyH), p.width, p.height)
	}
	if p.out == nil {
		p.rowOf = nil
		// The keys named are the ones that work in the focus shown.
		text := "/ (or i) puts the cursor in the query line. d t r +/- a D set options, f shows all. : runs any tool, ? lists every key."
		switch {
		case p.query.Focused():
			text = "Type a query and press enter; on the empty line the digits go to a pane. esc leaves the line; then d t r +/- a D set options, f shows all. : runs any tool, ? lists every key."
		case p.typing():
			text = "esc leaves the line; then / (or i) puts the cursor in the query line, d t r +/- a D set options, f shows all."
		}
		hint := s.Dim.Render(common.Wrap(text, p.width))
		if empty := p.ix.emptyHint(); empty != "" {
			hint = s.Warn.Render(common.Wrap(empty, p.width)) + "\n\n" + hint
		}
		return common.Fit(header+"\n\n"+hint, p.width, p.height)
	}
	wide := p.width >= 110
	listW := p.width
	if wide {
		listW = p.width * 55 / 100
	}
	if p.preview && !wide {
		p.rowOf = nil
		return common.Fit(header+"\n"+p.previewView(p.width, bodyH), p.width, p.height)
	}
	var answer []string
	if p.out.Answer != "" {
		lines := strings.Split(common.Wrap(p.out.Answer, max(10, listW-2)), "\n")
		maxA := max(2, bodyH/3)
		if len(lines) > maxA {
			lines = append(lines[:maxA-1], lines[maxA-1]+" …(p previews)")
		}
		answer = append(answer, s.Title.Render("Answer"))
		for _, l := range lines {
			answer = append(answer, s.Text.Render(l))
		}
		answer = append(answer, "")
	}
	p.listTop = hh + len(answer)
	list := p.listView(listW, max(0, bodyH-len(answer)))
	body := strings.Join(append(answer, list), "\n")
	if wide {
		body = common.JoinColumns(common.PadRight(common.Fit(body, listW, bodyH), listW), s.Dim.Render(" │ "), p.previewView(p.width-listW-3, bodyH))
	}
	return common.Fit(header+"\n"+body, p.width, p.height)
}

// snippetLines is a result's snippet wrapped to width on at most rows
// lines, the last cut with "…" when there is more.
func snippetLines(content string, width, rows int) []string {
	text := common.OneLine(content)
	if rows <= 1 {
		return []string{common.Truncate(text, width)}
	}
	lines := strings.Split(common.Wrap(text, width), "\n")
	if len(lines) > rows {
		rest := strings.Join(lines[rows-1:], " ")
		lines = append(lines[:rows-1], common.Truncate(rest, width))
	}
	return lines
}

// listView draws the results, three or four lines each (two for the
// snippet where the pane has room for all of them), then the images.
func (p *Pane) listView(w, h int) string {
	s := p.c.Styles
	res := p.out.Results
	var lines []string
	var rowOf []int
	selStart, selEnd := 0, 0
	head := common.Count(len(res), "result")
	if p.out.ResponseTime > 0 {
		head += " in " + took(p.out.ResponseTime)
	}
	lines, rowOf = append(lines, s.Dim.Render(head)), append(rowOf, -1)
	// Snippets get two lines when every result still fits with them, as
	// a search engine's page shows them; one when the pane is short.
	snippetRows := 1
	if h >= 1+len(res)*4 {
		snippetRows = 2
	}
	lo, hi := scoreRange(res)
	for i, r := range res {
		if i == p.cursor {
			selStart = len(lines)
		}
		bar := "  "
		ts := s.Text.Bold(true)
		if i == p.cursor {
			bar, ts = s.Key.Render("▌ "), s.Selected
		}
		title := r.Title
		if title == "" {
			title = r.URL
		}
		lines = append(lines, bar+common.Link(ts.Render(common.Truncate(common.OneLine(title), w-2)), r.URL))
		date := ""
		if r.PublishedDate != "" {
			date = " · " + shortDate(r.PublishedDate)
		}
		// The score is never pushed off the row: the place gives way,
		// cut at its left so that a file's name stays.
		score := scoreBar(s, r.Score, lo, hi)
		room := max(4, w-2-ansi.StringWidth(date)-1-ansi.StringWidth(score))
		meta := s.Dim.Render(cutLeft(domain(r.URL), room)+date) + " " + score
		lines = append(lines, bar+meta)
		for _, l := range snippetLines(r.Content, w-2, snippetRows) {
			lines, rowOf = append(lines, bar+s.Text.Render(l)), append(rowOf, i)
		}
		rowOf = append(rowOf, i, i)
		if i == p.cursor {
			selEnd = len(lines)
		}
	}
	if len(res) == 0 {
		for _, l := range strings.Split(common.Wrap(p.noResults(), w), "\n") {
			lines, rowOf = append(lines, s.Dim.Render(l)), append(rowOf, -1)
		}
	}
	if n := len(p.out.Images); n > 0 {
		lines, rowOf = append(lines, "", s.Title.Render(fmt.Sprintf("Images (%d)", n))), append(rowOf, -1, -1)
		for _, im := range p.out.Images {
			d := im.Description
			if d == "" {
				d = path(im.URL)
			}
			lines = append(lines, "  "+common.Link(s.Text.Render(common.Truncate(common.OneLine(d), w-4)), im.URL))
			rowOf = append(rowOf, -1)
		}
	}
	if selEnd-p.offset > h {
		p.offset = selEnd - h
	}
	if selStart < p.offset {
		p.offset = max(0, selStart-1)
	}
	p.offset = max(0, min(p.offset, len(lines)-1))
	end := min(len(lines), p.offset+h)
	p.rowOf = rowOf[p.offset:end]
	return strings.Join(lines[p.offset:end], "\n")
}

func (p *Pane) previewView(w, h int) string {
	s := p.c.Styles
	r := p.current()
	if r == nil {
		return ""
	}
	var b []string
	b = append(b, s.Title.Render(common.Wrap(common.OneLine(r.Title), w)))
	b = append(b, common.Link(s.Dim.Render(common.Truncate(r.URL, w)), r.URL))
	meta := []string{fmt.Sprintf("score %.2f", r.Score)}
	if r.PublishedDate != "" {
		meta = append(meta, r.PublishedDate)
	}
	b = append(b, s.Dim.Render(strings.Join(meta, " · ")), "")
	if p.out.Answer != "" && !(p.width >= 110) {
		b = append(b, s.Title.Render("Answer"), common.Wrap(p.out.Answer, w), "")
	}
	b = append(b, common.Wrap(common.OneLine(r.Content), w))
	if r.RawContent != "" {
		// Only what fits is wrapped: a page body can be large, and View
		// runs on every frame.
		text := r.RawContent
		if limit := max(1, w*h); len(text) > limit {
			text = text[:limit]
		}
		b = append(b, "", s.Dim.Render("— page text (enter reads it all in Pages) —"), common.Wrap(text, w))
	}
	b = append(b, "", s.Dim.Render("enter opens in Pages · y copies the URL"))
	return common.Fit(strings.Join(b, "\n"), w, h)
}

// scoreBar draws a 0..1 relevance score as ten cells.
// scoreBar draws a result's score as a bar that compares it with the
// other results of the search (the best the longest, the lowest a fifth,
// in eighths of a cell: 1.00, 0.98, 0.97 and 0.95 differ), and the score
// itself beside it.
func scoreBar(s *common.Styles, score, lo, hi float64) string {
	const cells = 10
	frac := 1.0
	if hi-lo > 1e-9 {
		frac = 0.2 + 0.8*(max(lo, min(hi, score))-lo)/(hi-lo)
	}
	eighths := int(frac*cells*8 + 0.5)
	full, part := eighths/8, eighths%8
	bar := strings.Repeat("█", full)
	empty := cells - full
	if part > 0 {
		bar += string([]rune("▏▎▍▌▋▊▉")[part-1])
		empty--
	}
	return s.OK.Render(bar) + s.Dim.Render(strings.Repeat("·", empty)) + s.Dim.Render(fmt.Sprintf(" %.2f", score))
}

// scoreRange is the lowest and highest score of the results.
func scoreRange(res []api.SearchResult) (lo, hi float64) {
	for i, r := range res {
		if i == 0 || r.Score < lo {
			lo = r.Score
		}
		if i == 0 || r.Score > hi {
			hi = r.Score
		}
	}
	return lo, hi
}

// cutLeft shortens s to w cells from its left, "…" in front, so that the
// end (a file's name) stays.
func cutLeft(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	rs := []rune(s)
	for len(rs) > 0 && ansi.StringWidth(string(rs)) > w-1 {
		rs = rs[1:]
	}
	return "…" + string(rs)
}

func domain(u string) string {
	pu, err := url.Parse(u)
	if err == nil && pu.Scheme == "file" {
		return pu.Path // a page of `hark index DIR`: its path
	}
	if err != nil || pu.Host == "" {
		return u
	}
	return strings.TrimPrefix(pu.Host, "www.")
}

func path(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return u
	}
	return pu.Host + pu.Path
}

// shortDate shows a date as YYYY-MM-DD when it parses, else as sent.
func shortDate(d string) string {
	for _, layout := range []string{time.RFC3339, time.RFC1123, time.RFC1123Z, "2006-01-02", "Mon, 2 Jan 2006 15:04:05 MST"} {
		if t, err := time.Parse(layout, d); err == nil {
			return t.Format("2006-01-02")
		}
	}
	return d
}

// took formats a response time given in seconds: milliseconds under a
// second, as a local index answers in a few and "0.00s" would say
// nothing, and seconds with two decimals above.
func took(seconds float64) string {
	if seconds < 0.9995 {
		return fmt.Sprintf("%.0f ms", seconds*1000)
	}
	return fmt.Sprintf("%.2fs", seconds)
}
