package research

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"hark/library"
	"hark/ui/common"
)

// A report's highlights: H selects a passage by sentence, enter keeps it
// with a note (common.Marker), against the report kept in the library.

func (p *Pane) highlightSource(s *Session) common.HighlightSource {
	return common.HighlightSource{Kind: library.KindResearch, Question: s.Question, Title: s.Question, Body: s.Out.Content}
}

// loadHighlights underlines the highlights kept in s's report.
func (p *Pane) loadHighlights(s *Session) tea.Cmd {
	if s == nil || s.Out == nil {
		return nil
	}
	return common.LoadHighlights(p.c.Library, p.highlightSource(s))
}

func (p *Pane) startMark() tea.Cmd {
	s := p.current
	if s == nil || s.Out == nil || s.rendered == "" {
		return func() tea.Msg { return common.NoticeMsg{Text: "highlight: wait for the report to be shown"} }
	}
	p.aloud.Stop(&p.scroll)
	if !p.mark.Start(s.Out.Content, &p.scroll) {
		return func() tea.Msg { return common.NoticeMsg{Text: "this report has no sentence to highlight"} }
	}
	return nil
}

func (p *Pane) markKey(msg tea.KeyPressMsg) tea.Cmd {
	ps, cmd := p.mark.Key(msg, p.c.Styles, &p.scroll)
	if ps == nil || p.current == nil || p.current.Out == nil {
		return cmd
	}
	return common.SaveHighlight(p.c.Library, p.highlightSource(p.current), *ps)
}

func (p *Pane) highlights(msg common.HighlightsMsg) tea.Cmd {
	if msg.Err != nil {
		err := msg.Err
		return func() tea.Msg { return common.ErrorMsg{Err: err} }
	}
	if p.current != nil && p.current.Question == msg.Key {
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

// goToHighlight opens the report at the highlight it was opened for,
// once it is rendered.
func (p *Pane) goToHighlight() {
	if p.openAt == "" || p.current == nil || p.current.rendered == "" {
		return
	}
	p.rd.Find(common.OpeningWords(p.openAt), &p.scroll)
	p.openAt = ""
}
