package research

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/library"
	"hark/ui/common"
)

// The history (h): this session's research and the reports kept in the
// library, each read when it is opened.

// Init lists earlier research from the library, so history (h)
// survives restarts. Only what the history shows is read (question and
// time); a report is read when it is opened (see load), so that a long
// history costs the start nothing.
func (p *Pane) Init() tea.Cmd {
	open := p.c.Library
	if open == nil {
		return nil
	}
	return func() tea.Msg {
		s, err := open()
		if err != nil {
			return keptMsg{err: err}
		}
		items, err := s.List(context.Background(), library.KindResearch, historyKept)
		return keptMsg{items: items, err: err}
	}
}

// Shown lists the kept reports again: what another hark process kept
// since shows in the history, as it does in the Library pane.
func (p *Pane) Shown() tea.Cmd { return p.Init() }

// mergeKept adds the kept reports history does not hold yet, and keeps
// the history in time order, the cursor on the session it was on. A
// report this session ran and the client kept is the same session, not
// a second one.
func (p *Pane) mergeKept(items []library.Item) {
	var under *Session
	if n := len(p.sessions); n > 0 && p.histCur < n {
		under = p.sessions[n-1-p.histCur]
	}
	for i := len(items) - 1; i >= 0; i-- {
		if s := p.keptSession(items[i]); !slices.Contains(p.sessions, s) {
			p.sessions = append(p.sessions, s)
		}
	}
	slices.SortStableFunc(p.sessions, func(a, b *Session) int { return a.Started.Compare(b.Started) })
	if i := slices.Index(p.sessions, under); i >= 0 {
		p.histCur = len(p.sessions) - 1 - i
	}
}

// historyKept is how many earlier reports history loads from the library.
const historyKept = 50

// keptMsg carries earlier research from the library, newest first, as
// listed (without reports).
type keptMsg struct {
	items []library.Item
	err   error
}

// loadedMsg is a kept report read from the library and decoded.
type loadedMsg struct {
	id    int
	out   *api.ResearchOutput
	model string
	err   error
}

// keptSession is the session of a kept report: the one history already
// has, or a new one whose report is read when it is opened.
func (p *Pane) keptSession(it library.Item) *Session {
	for _, s := range p.sessions {
		if s.Kept == it.ID || s.keptAs == it.ID {
			return s
		}
	}
	for _, s := range p.sessions {
		// This session's research, kept as it finished.
		if s.Kept == 0 && s.keptAs == 0 && !s.Running && s.Out != nil && s.Question == it.Query &&
			s.Finished.Sub(it.Created).Abs() < 2*time.Minute {
			s.keptAs = it.ID
			return s
		}
	}
	p.nextID++
	return &Session{ID: p.nextID, Question: it.Query, Started: it.Created, Finished: it.Created, Kept: it.ID}
}

// load reads a kept session's report in a command: from item when it
// holds the output (the Library view read it whole), else from the
// library.
func (p *Pane) load(s *Session, item *library.Item) tea.Cmd {
	if s.Kept == 0 || s.Out != nil || s.loading {
		return nil
	}
	s.loading, s.Err = true, nil
	id, kept, open := s.ID, s.Kept, p.c.Library
	return func() tea.Msg {
		var it library.Item
		switch {
		case item != nil && item.Output != "":
			it = *item
		case open == nil:
			return loadedMsg{id: id, err: fmt.Errorf("library item %d: no library", kept)}
		default:
			st, err := open()
			if err == nil {
				it, err = st.Get(context.Background(), kept)
			}
			if err != nil {
				return loadedMsg{id: id, err: fmt.Errorf("library item %d: %w", kept, err)}
			}
		}
		out, err := api.DecodeResearch(json.RawMessage(it.Output))
		if err != nil {
			return loadedMsg{id: id, err: fmt.Errorf("library item %d: the kept report cannot be read: %w", kept, err)}
		}
		var in struct{ Model string }
		json.Unmarshal([]byte(it.Inputs), &in)
		return loadedMsg{id: id, out: out, model: in.Model}
	}
}

// historyList is the history's cursor and window, newest first.
func (p *Pane) historyList() common.List {
	return common.NewList(&p.histCur, &p.histOff, len(p.sessions))
}

func (p *Pane) historyKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, p.keys().Up):
		p.historyList().Move(-1)
	case key.Matches(msg, p.keys().Down):
		p.historyList().Move(1)
	case key.Matches(msg, p.keys().Run):
		// History lists newest first.
		s := p.sessions[len(p.sessions)-1-p.histCur]
		p.show(s)
		p.focus = focusReport
		return tea.Batch(p.load(s, nil), p.render(s))
	}
	return nil
}

func (p *Pane) historyView(h int) string {
	st := p.c.Styles
	lines := []string{st.Title.Render("History") + st.Dim.Render("  enter shows · h back")}
	// The window follows the cursor: 50 kept reports fill more rows than
	// a terminal has.
	start, end := p.historyList().Window(h - 1)
	for i := start; i < end; i++ {
		s := p.sessions[len(p.sessions)-1-i]
		state := st.OK.Render("✓")
		switch {
		case s.Running:
			state = st.Warn.Render("…")
		case s.Err != nil:
			state = st.Err.Render("✗")
		}
		cur, ts := "  ", st.Text
		if i == p.histCur {
			cur, ts = st.Key.Render("▌ "), st.Selected
		}
		when := s.Started.Format("15:04")
		if y, m, d := s.Started.Date(); y != p.c.Now().Year() || m != p.c.Now().Month() || d != p.c.Now().Day() {
			when = s.Started.Format("Jan 02")
		}
		lines = append(lines, common.Truncate(cur+state+" "+st.Dim.Render(when+" ")+ts.Render(common.OneLine(s.Question)), p.width))
	}
	return strings.Join(lines, "\n")
}
