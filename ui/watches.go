package ui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/ui/common"
)

// countWatches asks the gateway how many watched pages changed since
// looked at, for the status bar: at start, at each switch of pane, after
// a pane checked or looked at one, and when the next watch falls due
// (see watchPoll), so that a change a background check finds (the
// embedded gateway's loop, a team gateway's periodic job) shows without
// a key pressed. A gateway without watches (one that is not hark's)
// answers nothing the bar shows.
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
		msg := common.WatchesMsg{Changed: l.Changed, Watched: len(l.Watches)}
		for _, w := range l.Watches {
			if msg.Next.IsZero() || w.NextAt.Before(msg.Next) {
				msg.Next = w.NextAt
			}
			if w.CheckedAt != nil && w.CheckedAt.After(msg.Checked) {
				msg.Checked = *w.CheckedAt
			}
		}
		return msg
	}
}

// watchPoll bounds how long the status bar's count waits before it is
// asked again: Settle after the next watch falls due (a check takes a
// moment), at least Min and at most Max while pages are watched (a
// check under way holds its watch for minutes); Idle when none is, or
// the gateway did not answer (a watch may be added from another
// terminal). Tests shorten them.
type watchPoll struct {
	Min, Max, Idle, Settle time.Duration
}

func defaultWatchPoll() watchPoll {
	return watchPoll{Min: 15 * time.Second, Max: time.Minute, Idle: 5 * time.Minute, Settle: 3 * time.Second}
}

// watchTickMsg asks for the count again; gen tells the newest schedule
// from those a later count replaced.
type watchTickMsg struct{ gen int }

// after is how long to wait, at now, before asking again.
func (p watchPoll) after(msg common.WatchesMsg, now time.Time) time.Duration {
	if msg.Err != nil || msg.Watched == 0 || msg.Next.IsZero() {
		return p.Idle
	}
	return min(p.Max, max(p.Min, msg.Next.Sub(now)+p.Settle))
}

// scheduleWatches schedules the next count after msg: one schedule at a
// time, the newest.
func (m *Model) scheduleWatches(msg common.WatchesMsg) tea.Cmd {
	if m.c.Client == nil {
		return nil
	}
	m.watchGen++
	gen := m.watchGen
	return tea.Tick(m.watchPoll.after(msg, time.Now()), func(time.Time) tea.Msg { return watchTickMsg{gen: gen} })
}

// watchesPart is the status bar's word on changed watched pages.
func (m *Model) watchesPart() string {
	if m.watchesChanged == 0 {
		return ""
	}
	s := m.c.Styles
	return s.Warn.Render(fmt.Sprintf("◉ %d watched changed", m.watchesChanged)) + s.Dim.Render(" (Library W)")
}
