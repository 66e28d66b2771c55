package research

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"hark/ui/common"
)

// key routes a key press: dictation, the save-as line and the question
// line first, then the reader's find and contents, then the pane's keys
// for what has the focus.
func (p *Pane) key(msg tea.KeyPressMsg) tea.Cmd {
	if msg.String() == "ctrl+r" && !p.saveAs.Active() && !p.rd.Finding() {
		// Dictation: the words heard fill the question line, live.
		p.focus = focusQuestion
		cmd := p.dict.Toggle(p.c, p.question.Value())
		return tea.Batch(cmd, p.question.Focus())
	}
	if p.saveAs.Active() {
		path, cmd := p.saveAs.Key(msg)
		if path != "" {
			return p.save(p.current, path)
		}
		return cmd
	}
	if p.question.Focused() {
		switch {
		case key.Matches(msg, p.keys().Run):
			q := strings.TrimSpace(p.question.Value())
			if q == "" {
				return nil
			}
			p.question.Blur()
			return p.start(q, p.modelValue(), nil)
		case key.Matches(msg, p.keys().Leave):
			p.question.Blur()
			p.focus = focusReport
			return nil
		case msg.String() == "ctrl+o":
			p.cycleModel()
			return nil
		case msg.String() == "ctrl+x":
			p.cancelCurrent()
			return nil
		case key.Matches(msg, p.keys().Save):
			return p.offerSave()
		}
		var cmd tea.Cmd
		p.question, cmd = p.question.Update(msg)
		return cmd
	}
	if p.rd.Finding() {
		return p.rd.FindKey(msg, &p.scroll)
	}
	if p.rd.TOCOpen() {
		p.rd.TOCKey(msg, &p.scroll)
		return nil
	}
	if p.mark.Selecting() {
		return p.markKey(msg)
	}
	if msg.String() == "q" && p.ShowingDocument() {
		p.close()
		return nil
	}
	if p.focus == focusSource {
		// The source's text has the keys: scrolling, n/N, esc back.
		switch {
		case msg.String() == "esc" || key.Matches(msg, p.keys().Citations):
			p.focus = focusCitations
		case key.Matches(msg, p.keys().Highlight):
			// The source's text here is the index's copy, not a kept
			// page: say where a passage of it is highlighted, rather
			// than let H go to the pane before.
			return func() tea.Msg {
				return common.NoticeMsg{Text: "H highlights in the report, or in the page: s, then enter reads it in Pages"}
			}
		default:
			p.sourceTextKey(msg)
		}
		return nil
	}
	reading := p.focus == focusReport && p.current != nil && p.current.Out != nil
	if cmd, ok := p.aloud.Key(msg, p.c, &p.scroll); ok {
		return cmd
	}
	switch {
	case reading && key.Matches(msg, p.keys().Aloud):
		return p.aloud.Start(p.c, p.current.Out.Content, &p.scroll)
	case reading && key.Matches(msg, p.keys().Find):
		return p.rd.StartFind(p.c.Styles)
	case reading && key.Matches(msg, p.keys().Highlight):
		return p.startMark()
	case reading && key.Matches(msg, p.keys().NextMatch) && p.rd.Status() != "":
		p.rd.Next(&p.scroll, msg.String() == "N")
	case reading && key.Matches(msg, p.keys().TOC):
		if !p.rd.OpenTOC(p.current.Out.Content, &p.scroll) {
			return func() tea.Msg { return common.NoticeMsg{Text: "this report has no headings"} }
		}
	case reading && key.Matches(msg, p.keys().Edit):
		return common.Edit(Markdown(p.current), reportName(p.current))
	case key.Matches(msg, p.keys().Ask):
		return p.Focus()
	case key.Matches(msg, p.keys().Model):
		p.cycleModel()
	case key.Matches(msg, p.keys().Cancel):
		p.cancelCurrent()
	case key.Matches(msg, p.keys().Sources):
		if p.focus == focusSources {
			p.focus = focusReport
		} else if p.current != nil && p.current.Out != nil && len(p.current.Out.Sources) > 0 {
			p.focus = focusSources
		}
	case key.Matches(msg, p.keys().Citations):
		if p.focus == focusCitations {
			p.focus = focusReport
		} else if p.current != nil && p.current.Out != nil && len(p.current.Out.Passages) > 0 {
			p.focus = focusCitations
			p.citeList().Clamp()
		} else {
			return func() tea.Msg { return common.NoticeMsg{Text: "this report records no citations"} }
		}
	case key.Matches(msg, p.keys().Verify) && p.current != nil && !p.current.verifying:
		return p.verify(p.current)
	case key.Matches(msg, p.keys().History):
		if p.focus == focusHistory {
			p.focus = focusReport
		} else if len(p.sessions) > 0 {
			p.focus = focusHistory
		}
	case key.Matches(msg, p.keys().Save):
		return p.offerSave()
	case msg.String() == "esc":
		if p.focus == focusReport && p.rd.Back(&p.scroll) {
			return nil // to where the contents jumped from
		}
		p.focus = focusReport
	default:
		switch p.focus {
		case focusCitations:
			return p.citationsKey(msg)
		case focusSources:
			return p.sourceKey(msg)
		case focusHistory:
			return p.historyKey(msg)
		}
		p.scrollKey(msg)
	}
	return nil
}
