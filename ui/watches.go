package ui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"hark/ui/common"
)

// countWatches asks the gateway how many watched pages changed since
// looked at, for the status bar: at start, at each switch of pane, and
// after a pane checked or looked at one. A gateway without watches (one
// that is not hark's) answers nothing the bar shows.
func countWatches(c *common.Common) tea.Cmd {
	cl := c.Client
	if cl == nil {
		return nil
	}
	return func() tea.Msg {
		l, err := cl.Watches(context.Background())
		if err != nil {
			return common.WatchesMsg{Err: err}
		}
		return common.WatchesMsg{Changed: l.Changed}
	}
}

// watchesPart is the status bar's word on changed watched pages.
func (m *Model) watchesPart() string {
	if m.watchesChanged == 0 {
		return ""
	}
	s := m.c.Styles
	return s.Warn.Render(fmt.Sprintf("◉ %d watched changed", m.watchesChanged)) + s.Dim.Render(" (Library W)")
}
