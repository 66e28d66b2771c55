package pages

import (
	tea "charm.land/bubbletea/v2"

	"hark/ui/common"
)

// visit is a page left by following a link, as it was left: esc comes
// back to the same place in it, with the same find.
type visit struct {
	page  *Page
	place int // words above the top line (common.Scroll.Place)
	find  common.FindState
}

// leave remembers the page being read before a link is followed.
func (p *Pane) leave() {
	if p.reading == nil {
		return
	}
	p.history = append(p.history, visit{page: p.reading, place: p.scroll.Place(), find: p.rd.FindState()})
}

// goBack reads the page left last, at its place and with its find; it
// reports false when no followed link led here.
func (p *Pane) goBack() (tea.Cmd, bool) {
	n := len(p.history)
	if n == 0 {
		return nil, false
	}
	v := p.history[n-1]
	p.history = p.history[:n-1]
	cmd := p.read(v.page)
	p.restore = &v
	if !p.rendering() {
		// Rendered already at this width: the place is known now.
		p.restorePlace()
	}
	return cmd, true
}

// restorePlace puts the reader back where a page was left, once the page
// it was left on is shown whole.
func (p *Pane) restorePlace() {
	v := p.restore
	if v == nil || v.page != p.reading {
		return
	}
	p.restore = nil
	p.scroll.SetPlace(v.place)
	p.rd.Restore(v.find, &p.scroll)
}
