package pages

// A watched page's last change in the reader: a page read is looked up
// among the watches; one that changed says so in the reader's title
// line, and D shows the passages that changed as a word diff (deleted
// words red in [-…-], inserted ones green in {+…+}), the highlights and
// report quotes the change touches flagged above them. D or esc goes
// back to the page where it was. The Library's watched pages (W) open a
// page here with its change shown (common.OpenChangeMsg).

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"hark/ui/common"
)

// change is the last change of the page read, or nil.
func (p *Pane) change() *common.Change {
	if p.reading == nil {
		return nil
	}
	return p.changes[p.reading.URL]
}

// loadChange asks whether the page is watched and changed (only web
// pages are watched).
func (p *Pane) loadChange(pg *Page) tea.Cmd {
	if pg == nil || pg.Err != "" || !strings.HasPrefix(pg.URL, "http://") && !strings.HasPrefix(pg.URL, "https://") {
		return nil
	}
	return common.LoadChange(p.c, pg.URL)
}

// openChange reads the watched page at url with its change shown, once
// the change is here (see changeMsg).
func (p *Pane) openChange(url string) tea.Cmd {
	p.changeFor = url
	return common.LoadChange(p.c, url)
}

// changeMsg takes a page's change; the one the Library asked to open is
// read with it shown, from the watch's text unless the pane holds the
// page as read since the change.
func (p *Pane) changeMsg(msg common.ChangeMsg) tea.Cmd {
	if msg.Err != nil {
		if p.changeFor == msg.URL {
			p.changeFor = ""
		}
		err := msg.Err
		return func() tea.Msg { return common.ErrorMsg{Err: err} }
	}
	if msg.Change == nil {
		delete(p.changes, msg.URL)
	} else {
		p.changes[msg.URL] = msg.Change
	}
	if p.changeFor != msg.URL {
		if p.showChange && p.reading != nil && p.reading.URL == msg.URL {
			if msg.Change == nil {
				p.leaveChange()
			} else {
				p.setReader()
			}
		}
		return nil
	}
	p.changeFor = ""
	if msg.Change == nil {
		text := msg.URL + " has not changed since it was first read"
		return func() tea.Msg { return common.NoticeMsg{Text: text} }
	}
	var cmd tea.Cmd
	pg := p.byURL[msg.URL]
	if pg == nil || pg.Content == "" || pg.readAt.Before(msg.Change.ChangedAt) {
		// Not read in this session, or read before it changed: the page
		// as the watch last read it.
		cmd = p.add(doneMsg{slug: "watch", base: msg.URL, pages: []*Page{{URL: msg.URL, Content: msg.Change.Current, Plain: true, Source: "watch"}}})
	} else {
		cmd = p.read(pg)
	}
	return tea.Batch(cmd, p.enterChange())
}

// enterChange shows the change of the page read, and says it was looked at.
func (p *Pane) enterChange() tea.Cmd {
	ch := p.change()
	if ch == nil {
		return nil
	}
	if !p.showChange {
		p.pageAt = p.scroll.Offset()
	}
	p.aloud.Stop(&p.scroll)
	p.showChange = true
	p.setReader()
	p.scroll.Top()
	return common.SeeChange(p.c, ch)
}

// leaveChange goes back to the page, where it was.
func (p *Pane) leaveChange() {
	p.showChange = false
	p.setReader()
	p.scroll.Top()
	p.scroll.ScrollBy(p.pageAt)
}

// changeKey handles a key while the change is shown; false lets the
// reader have it (scrolling, find, close).
func (p *Pane) changeKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := p.c.Keys().Pages
	switch {
	case key.Matches(msg, k.Changes), key.Matches(msg, k.Back):
		p.leaveChange()
		return nil, true
	case key.Matches(msg, k.Aloud), key.Matches(msg, k.Highlight), key.Matches(msg, k.TOC), key.Matches(msg, k.Raw),
		key.Matches(msg, k.Links), key.Matches(msg, k.Edit):
		return func() tea.Msg {
			return common.NoticeMsg{Text: "this is the page's change, not the page: D goes back to the page"}
		}, true
	}
	return nil, false
}

// changesKey is D in the reader: the change, or why there is none.
func (p *Pane) changesKey() tea.Cmd {
	if p.change() == nil {
		text := "this page is not watched, or has not changed since it was first read (w in the Library watches a page)"
		return func() tea.Msg { return common.NoticeMsg{Text: text} }
	}
	if p.rendering() && !p.reading.Plain {
		return func() tea.Msg { return common.NoticeMsg{Text: "the change: wait for the page to be shown whole"} }
	}
	return p.enterChange()
}

// changeTitle is the reader's title line's word on the change.
func (p *Pane) changeTitle() string {
	ch, s := p.change(), p.c.Styles
	switch {
	case ch == nil:
		return ""
	case p.showChange:
		return s.Warn.Render(" · the change")
	case ch.Unseen:
		return s.Warn.Render(fmt.Sprintf(" · changed %s (D)", ch.ChangedAt.Local().Format("Jan 02")))
	}
	return s.Dim.Render(fmt.Sprintf(" · changed %s (D)", ch.ChangedAt.Local().Format("Jan 02")))
}

// changeText is the change as the reader shows it.
func (p *Pane) changeText() string {
	return common.ChangeText(p.c.Styles, p.change(), max(10, p.width-2))
}
