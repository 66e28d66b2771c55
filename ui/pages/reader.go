package pages

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/library"
	"hark/ui/common"
	"hark/ui/markdown"
)

// readerFoot names the reader's keys under the page, wrapped at the
// width: what esc does says where it goes.
func (p *Pane) readerFoot() string {
	back := "esc list"
	switch {
	case p.rd.Jumped():
		back = "esc back to before the jump"
	case len(p.history) > 0:
		back = "esc back to the page before"
	}
	parts := []string{"j/k scroll", "/ find", "T contents", "l links", "t text", "R read aloud", "v highlight", "o browser", "e editor", back, "q close"}
	if p.change() != nil {
		parts = append(parts[:7:7], append([]string{"D the change"}, parts[7:]...)...)
	}
	if p.showChange {
		parts = []string{"j/k scroll", "/ find", "D or esc the page", "q close"}
	}
	if p.reading != nil && p.reading.Err != "" {
		// A page that failed has no text to find, list or read: what
		// can be done is to try again or go to the page elsewhere.
		parts = []string{"e extract again", "o browser", "y copy URL", back, "q close"}
	}
	if p.aloud.Active() {
		parts = []string{"space pause", "] next", "[ back", "esc stop"}
	}
	return p.c.Styles.Dim.Render(common.JoinWrapped(parts, " · ", p.width))
}

// readerKey handles a key in the reader (find, contents and links
// closed).
func (p *Pane) readerKey(msg tea.KeyPressMsg) tea.Cmd {
	if p.showChange {
		if cmd, ok := p.changeKey(msg); ok {
			return cmd
		}
	}
	if cmd, ok := p.aloud.Key(msg, p.c, &p.scroll); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, p.c.Keys().Pages.Aloud):
		return p.aloud.Start(p.c, p.reading.Content, &p.scroll)
	case key.Matches(msg, p.c.Keys().Pages.Find):
		return p.rd.StartFind(p.c.Styles)
	case key.Matches(msg, p.c.Keys().Pages.Highlight):
		return p.startMark()
	case key.Matches(msg, p.c.Keys().Pages.Changes):
		return p.changesKey()
	case key.Matches(msg, p.c.Keys().Pages.Whole):
		return p.extractWhole(p.reading.URL)
	case key.Matches(msg, p.c.Keys().Pages.NextMatch):
		p.rd.Next(&p.scroll, msg.String() == "N")
	case key.Matches(msg, p.c.Keys().Pages.TOC):
		var ok bool
		if p.reading.Plain {
			ok = p.rd.OpenTextTOC(p.reading.Content, &p.scroll)
		} else {
			ok = p.rd.OpenTOC(p.reading.Content, &p.scroll)
		}
		if !ok {
			return func() tea.Msg { return common.NoticeMsg{Text: "this page has no headings to list"} }
		}
	case key.Matches(msg, p.c.Keys().Pages.Browse):
		return common.Browse(p.reading.URL)
	case key.Matches(msg, p.c.Keys().Pages.Edit):
		if p.reading.Err != "" {
			return p.extract([]string{p.reading.URL}, true) // nothing to edit: try again
		}
		return common.Edit(p.reading.Content, library.FileName(p.reading.URL))
	case key.Matches(msg, p.c.Keys().Pages.Back):
		if p.rd.Back(&p.scroll) {
			return nil // to where the contents jumped from
		}
		if cmd, ok := p.goBack(); ok {
			return cmd
		}
		p.mode = listMode
	case key.Matches(msg, p.c.Keys().Pages.Close):
		p.aloud.Stop(&p.scroll)
		p.mode, p.history, p.restore = listMode, nil, nil
	case key.Matches(msg, p.c.Keys().Pages.Links):
		p.links = pageLinks(p.reading)
		if len(p.links) == 0 {
			text := "this page has no links"
			if p.reading.Plain && p.reading.Source == api.ToolSearch {
				text = "this page came from the search index as plain text, which keeps no links"
			}
			return func() tea.Msg { return common.NoticeMsg{Text: text} }
		}
		p.picking, p.linkAt, p.linkNum = true, 0, 0
	case key.Matches(msg, p.c.Keys().Pages.Up):
		p.toEnd = false
		p.scroll.ScrollBy(-1)
	case key.Matches(msg, p.c.Keys().Pages.Down):
		p.scroll.ScrollBy(1)
	case key.Matches(msg, p.c.Keys().Pages.PageUp):
		p.toEnd = false
		p.scroll.ScrollBy(-p.scroll.Page())
	case key.Matches(msg, p.c.Keys().Pages.PageDown):
		p.scroll.ScrollBy(p.scroll.Page())
	case msg.String() == "g" || msg.String() == "home":
		p.toEnd = false
		p.scroll.Top()
	case msg.String() == "G" || msg.String() == "end":
		// While only the top is rendered its end is not the page's:
		// the whole page, when it lands, opens at its end.
		p.toEnd = p.rendering()
		p.scroll.Bottom()
	case key.Matches(msg, p.c.Keys().Pages.Raw):
		if p.reading.Plain {
			return func() tea.Msg {
				return common.NoticeMsg{Text: "this page is plain text already: it has no markup to render"}
			}
		}
		// The same place in the other view: as far down, in proportion.
		at := float64(p.scroll.Offset()) / float64(max(1, p.scroll.Len()))
		p.reading.asText = !p.reading.asText
		p.setReader()
		p.scroll.ScrollBy(int(at*float64(p.scroll.Len())) - p.scroll.Offset())
	case key.Matches(msg, p.c.Keys().Pages.Copy):
		return common.CopyURL(p.reading.URL)
	case key.Matches(msg, p.c.Keys().Pages.Crawl):
		return p.crawlFrom(api.ToolCrawl, p.reading.URL)
	case key.Matches(msg, p.c.Keys().Pages.Export):
		return p.export([]*Page{p.reading})
	}
	return nil
}

// openRow reads the page under the cursor (extracting it first when only
// its URL is known), or folds a host or path group.
func (p *Pane) openRow() tea.Cmd {
	if p.cursor >= len(p.rows) {
		return nil
	}
	r := p.rows[p.cursor]
	if r.page == nil {
		p.folded[r.key] = !p.folded[r.key]
		p.rebuild()
		return nil
	}
	if r.page.Content == "" && r.page.Err == "" {
		return p.extract([]string{r.page.URL}, true)
	}
	return p.read(r.page)
}

// setReader shows the reader's text, finding the last find again in it.
func (p *Pane) setReader() {
	p.scroll.SetContent(p.readerText())
	p.rd.Refresh(&p.scroll)
	p.mark.Refresh(&p.scroll)
}

func (p *Pane) read(pg *Page) tea.Cmd {
	if p.reading != pg {
		p.aloud.Stop(&p.scroll)
	}
	p.err = nil // the page read is not what the last error was about
	p.findJump, p.toEnd, p.restore = false, false, nil
	if p.section != nil && p.section.url != pg.URL {
		p.section = nil
	}
	p.mode, p.reading, p.showChange = readMode, pg, false
	// The list's cursor follows the page read, so that esc to the list
	// finds it there (back from a followed link, it was on the link's).
	for i, r := range p.rows {
		if r.page == pg {
			p.cursor = i
		}
	}
	p.rd.Reset()
	p.mark.Reset(&p.scroll)
	p.setReader()
	p.scroll.Top()
	if pg.Err != "" || pg.Content == "" {
		return p.render(pg)
	}
	return tea.Batch(p.render(pg), common.LoadHighlights(p.c.Library, p.highlightSource(pg)), p.loadChange(pg))
}

// readerText is what the reader shows now: the rendered markdown, or the
// text while rendering runs or when raw text is asked for.
func (p *Pane) readerText() string {
	pg := p.reading
	if pg == nil {
		return ""
	}
	if p.showChange && p.change() != nil {
		return p.changeText()
	}
	if pg.Err != "" {
		w := max(10, p.width-2)
		t := p.c.Styles.Err.Render(common.Wrap("✗ extraction failed: "+pg.Err, w))
		if h := common.FailureHint(pg.Err, p.c.Gateway); h != "" {
			t += "\n\n" + p.c.Styles.Warn.Render(common.Wrap(h, w))
		}
		return t
	}
	switch {
	case pg.asText && pg.wrapped != "":
		return pg.wrapped
	case pg.rendered == "":
		// Rendering and wrapping run in a command; long pages would make
		// Update slow.
		return p.c.Styles.Dim.Render("rendering…")
	}
	return pg.rendered
}

// rendering reports that the reader shows less than the whole page: it
// is rendering, or only its top is rendered yet.
func (p *Pane) rendering() bool {
	pg := p.reading
	if pg == nil || pg.Err != "" || pg.asText && pg.wrapped != "" || p.showChange {
		return false
	}
	return pg.rendered == "" || pg.headShown
}

// goToSection shows the section a followed link points at, once its page
// is shown.
func (p *Pane) goToSection() {
	sec, pg := p.section, p.reading
	if sec == nil || pg == nil || sec.url != pg.URL {
		return
	}
	common.GoToSection(pg.Content, pg.Plain, pg.URL, sec.fragment, sec.text, &p.scroll)
}

// renderedNow reports that the page is rendered whole at this width and
// in these styles: render has nothing to do.
func (p *Pane) renderedNow(pg *Page) bool {
	return pg.renderedWidth == markdown.WrapWidth(p.width) && pg.renderedStyle == markdown.Style(p.c.Styles)
}

// render renders a page's markdown in a command, cached by width.
func (p *Pane) render(pg *Page) tea.Cmd {
	if pg == nil || pg.Content == "" {
		return nil
	}
	if p.renderedNow(pg) {
		return nil
	}
	style, w := markdown.Style(p.c.Styles), markdown.WrapWidth(p.width)
	md, content, plain := p.md, pg.Content, pg.Plain
	full := func() tea.Msg {
		if plain {
			wrapped := common.Wrap(content, w)
			return renderedMsg{page: pg, width: w, style: style, text: common.LinkURLs(wrapped), wrapped: wrapped}
		}
		wrapped := markdown.PlainText(content, w)
		out, err := md.Render(content, style, w)
		if err != nil {
			out = wrapped
		}
		return renderedMsg{page: pg, width: w, style: style, text: out, wrapped: wrapped}
	}
	if plain || len(content) <= headBytes {
		return full
	}
	top := markdownHead(content, headBytes)
	head := func() tea.Msg {
		out, err := md.Render(top, style, w)
		if err != nil {
			out = common.Wrap(top, w)
		}
		return renderedMsg{page: pg, width: w, style: style, text: out, head: true}
	}
	// The text view is quick to make (40 ms for 200 KB): the whole page's
	// at once, beside the top.
	asText := func() tea.Msg {
		return renderedMsg{page: pg, width: w, style: style, wrapped: markdown.PlainText(content, w), textOnly: true}
	}
	return tea.Batch(head, asText, full)
}

// markdownHead is the start of md up to about n bytes, cut at a paragraph
// break outside code fences, so that it renders as the page will.
func markdownHead(md string, n int) string {
	cut, fenced := 0, false
	for i := 0; i < len(md) && i < n; {
		j := strings.IndexByte(md[i:], '\n')
		if j < 0 {
			break
		}
		line := strings.TrimSpace(md[i : i+j])
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			fenced = !fenced
		}
		if line == "" && !fenced {
			cut = i
		}
		i += j + 1
	}
	if cut == 0 {
		cut = min(n, len(md))
	}
	return md[:cut]
}

type renderedMsg struct {
	page                 *Page
	width                int
	style, text, wrapped string
	// head marks the rendering of the page's top only, shown while the
	// whole page renders; textOnly the page's text view alone, meanwhile.
	head, textOnly bool
}

// headBytes is the size above which a page's top is rendered first: glamour
// takes about 2 s for 256 KB, and the reader shows the top at once.
const headBytes = 24 << 10
