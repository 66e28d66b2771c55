package pages

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/library"
	"hark/ui/common"
)

// The reader's highlights: v selects a passage by sentence, enter keeps
// it with a note (common.Marker); kept ones are underlined.

// highlightSource is the page as a highlight is kept against it.
func (p *Pane) highlightSource(pg *Page) common.HighlightSource {
	return common.HighlightSource{Kind: library.KindPage, URL: pg.URL, Title: library.PageTitle(api.PageContent{URL: pg.URL, RawContent: pg.Content}), Body: pg.Content, Tool: pg.Source, Gateway: p.c.Gateway}
}

// startMark starts selecting in the page read, once it is rendered.
func (p *Pane) startMark() tea.Cmd {
	pg := p.reading
	if pg == nil || pg.Err != "" || pg.Content == "" || p.rendering() {
		return func() tea.Msg { return common.NoticeMsg{Text: "highlight: wait for the page to be shown whole"} }
	}
	p.aloud.Stop(&p.scroll)
	if !p.mark.Start(pg.Content, &p.scroll) {
		return func() tea.Msg { return common.NoticeMsg{Text: "this page has no sentence to highlight"} }
	}
	return nil
}

// markKey handles a key while selecting or writing the note.
func (p *Pane) markKey(msg tea.KeyPressMsg) tea.Cmd {
	ps, cmd := p.mark.Key(msg, p.c.Styles, &p.scroll)
	if ps == nil || p.reading == nil {
		return cmd
	}
	return common.SaveHighlight(p.c.Library, p.highlightSource(p.reading), *ps)
}

// highlights takes the highlights of a page, or what keeping one did.
func (p *Pane) highlights(msg common.HighlightsMsg) tea.Cmd {
	if msg.Err != nil {
		err := msg.Err
		return func() tea.Msg { return common.ErrorMsg{Err: err} }
	}
	if p.reading != nil && p.reading.URL == msg.Key {
		p.mark.SetKept(msg.Quotes, &p.scroll)
	}
	if msg.Saved == nil {
		return nil
	}
	text := fmt.Sprintf("highlight %d kept", msg.Saved.ID)
	if len(msg.Saved.Tags) > 0 {
		text += " · #" + strings.Join(msg.Saved.Tags, " #")
	}
	return tea.Batch(func() tea.Msg { return common.NoticeMsg{Text: text} }, func() tea.Msg { return common.LibraryChangedMsg{} })
}
