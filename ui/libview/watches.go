package libview

// Watched pages (W): each with how often it is read again and whether it
// changed; enter shows the last change as a word diff, with the
// highlights and report quotes it touches flagged; c reads the page
// again now; d d stops watching. w watches the item under the cursor (a
// page, or a report's sources).

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/library"
	"hark/ui/common"
)

type watchesLoadedMsg struct {
	seq  int
	list *api.WatchList
	err  error
}

type watchDiffMsg struct {
	title string
	lines []string
	err   error
}

// watchView is the diff being read.
type watchView struct {
	title string
	lines []string
	top   int
}

func (p *Pane) loadWatches() tea.Cmd {
	cl := p.c.Client
	if cl == nil {
		return func() tea.Msg { return watchesLoadedMsg{err: common.ErrNotConnected} }
	}
	return p.calls().Run(func(ctx context.Context, seq int) tea.Msg {
		l, err := cl.Watches(ctx)
		return watchesLoadedMsg{seq: seq, list: l, err: err}
	})
}

func (p *Pane) toggleWatches() tea.Cmd {
	p.watching, p.notes, p.diff = !p.watching, false, nil
	p.loaded = false
	p.list().Reset()
	return p.load()
}

func (p *Pane) selectedWatch() (api.Watch, bool) {
	if p.cursor < 0 || p.cursor >= len(p.ws) {
		return api.Watch{}, false
	}
	return p.ws[p.cursor], true
}

// watchItem watches the item: a page's URL, a report's sources.
func (p *Pane) watchItem(it library.Item) tea.Cmd {
	cl, private := p.c.Client, p.c.AllowPrivate
	return func() tea.Msg {
		if cl == nil {
			return common.ErrorMsg{Err: common.ErrNotConnected}
		}
		var urls []string
		for _, s := range library.Sources(it) {
			if strings.HasPrefix(s.URL, "http") && (it.Kind == library.KindPage || it.Kind == library.KindResearch) {
				urls = append(urls, s.URL)
			}
		}
		if len(urls) == 0 {
			return common.ErrorMsg{Err: fmt.Errorf("watch: item %d has no web page to watch (a page, or a report's sources)", it.ID)}
		}
		for _, u := range urls {
			if _, err := cl.AddWatch(context.Background(), api.WatchAdd{URL: u, Label: it.Title, AllowPrivate: private}); err != nil {
				return common.ErrorMsg{Err: fmt.Errorf("watch %s: %w", u, err)}
			}
		}
		return common.NoticeMsg{Text: fmt.Sprintf("watching %s, every day (W lists them)", common.Count(len(urls), "page"))}
	}
}

// showDiff loads a watch's texts, diffs them and flags what the change
// touches, and says the change was looked at.
func (p *Pane) showDiff(w api.Watch) tea.Cmd {
	cl, open, width := p.c.Client, p.c.Library, max(20, p.width-2)
	return func() tea.Msg {
		ctx := context.Background()
		t, err := cl.WatchTexts(ctx, w.ID)
		if err != nil {
			return watchDiffMsg{err: err}
		}
		title := t.URL
		if t.ChangedAt == nil {
			return watchDiffMsg{title: title, lines: []string{"No change since it was first read."}}
		}
		ops := library.WordDiff(t.Previous, t.Current)
		var lines []string
		if open != nil {
			if s, err := open(); err == nil {
				flags, _ := s.Touched(ctx, t.URL, t.Previous, t.Current, ops)
				for _, f := range flags {
					what := fmt.Sprintf("report %d's quote", f.Report)
					if f.Highlight != nil {
						what = fmt.Sprintf("highlight %d", f.Highlight.ID)
					}
					lines = append(lines, fmt.Sprintf("! %s (%s): “%s”", what, f.State, library.Wrapped(f.Quote)))
				}
			}
		}
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, fmt.Sprintf("changed %s:", t.ChangedAt.Local().Format("Jan 02 15:04")), "")
		lines = append(lines, library.DiffLines(ops, 8, width)...)
		err = cl.SeenWatch(ctx, w.ID)
		return watchDiffMsg{title: title, lines: lines, err: err}
	}
}

func (p *Pane) checkWatch(w api.Watch) tea.Cmd {
	cl := p.c.Client
	return func() tea.Msg {
		if _, err := cl.CheckWatch(context.Background(), w.ID); err != nil {
			return common.ErrorMsg{Err: err}
		}
		return common.WatchesChangedMsg{}
	}
}

func (p *Pane) watchesMsg(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case watchesLoadedMsg:
		if msg.seq != 0 && !p.calls().Done(msg.seq) {
			return nil, true
		}
		p.loaded, p.err = true, msg.err
		if msg.err == nil {
			p.ws = msg.list.Watches
		}
		p.list().Clamp()
		return nil, true
	case watchDiffMsg:
		if msg.err != nil && msg.lines == nil {
			return errCmd(msg.err), true
		}
		p.diff = &watchView{title: msg.title, lines: msg.lines}
		return func() tea.Msg { return common.WatchesChangedMsg{} }, true
	case common.WatchesChangedMsg:
		if p.watching {
			return p.load(), true
		}
		return nil, true
	}
	return nil, false
}

// watchesKey handles the keys of the watched pages and of a diff.
func (p *Pane) watchesKey(msg tea.KeyPressMsg, confirm int64) (tea.Cmd, bool) {
	k := p.c.Keys().Library
	if p.diff != nil {
		switch msg.String() {
		case "esc", "q", "enter":
			p.diff = nil
		case "j", "down":
			p.diff.top = min(max(0, len(p.diff.lines)-1), p.diff.top+1)
		case "k", "up":
			p.diff.top = max(0, p.diff.top-1)
		}
		return nil, true
	}
	w, ok := p.selectedWatch()
	switch {
	case key.Matches(msg, k.Watches), msg.String() == "esc":
		return p.toggleWatches(), true
	case key.Matches(msg, k.Open):
		if ok {
			return p.showDiff(w), true
		}
		return nil, true
	case key.Matches(msg, k.Check):
		if ok {
			return p.checkWatch(w), true
		}
		return nil, true
	case key.Matches(msg, k.Delete):
		if !ok {
			return nil, true
		}
		if confirm != watchKey(w) {
			p.confirm = watchKey(w)
			return nil, true
		}
		cl := p.c.Client
		return func() tea.Msg {
			if err := cl.RemoveWatch(context.Background(), w.ID); err != nil {
				return common.ErrorMsg{Err: err}
			}
			return common.WatchesChangedMsg{}
		}, true
	case key.Matches(msg, k.Search), key.Matches(msg, k.Up), key.Matches(msg, k.Down):
		return nil, false
	}
	return nil, true
}

// watchKey stands for a watch in p.confirm (item IDs are positive).
func watchKey(w api.Watch) int64 {
	var h int64
	for _, c := range w.ID {
		h = h*31 + int64(c)
	}
	return -(h&0x7fffffffffff + 1)
}

func (p *Pane) watchesBody(h int) []string {
	st := p.c.Styles
	if p.diff != nil {
		lines := []string{st.Title.Render(common.Truncate(p.diff.title, p.width))}
		for _, l := range p.diff.lines[min(p.diff.top, len(p.diff.lines)):] {
			lines = append(lines, diffLine(st, l, p.width))
		}
		return lines[:min(len(lines), h)]
	}
	if len(p.ws) == 0 {
		return []string{st.Dim.Render(common.Wrap("No watched pages. w on a page or a report watches it (a report: its sources); hark watch add URL does too.", p.width))}
	}
	start, end := p.list().Window(max(1, h/2), false)
	var lines []string
	for i := start; i < end; i++ {
		w := p.ws[i]
		state := "unchanged"
		switch {
		case w.Error != "":
			state = fmt.Sprintf("failing ×%d", w.Failures)
		case w.Changed:
			state = "CHANGED"
		case w.Checks == 0:
			state = "not read yet"
		}
		head := fmt.Sprintf("%-12s %s", state, w.URL)
		line := "  " + common.Truncate(head, max(1, p.width-2))
		second := w.Label
		if w.Error != "" {
			second = w.Error
		}
		second = "    " + common.Truncate(second, max(1, p.width-4))
		if i == p.cursor {
			line = st.Selected.Render(common.PadRight(common.Truncate("> "+head, p.width), p.width))
			if p.confirm == watchKey(w) {
				second = st.Warn.Render(common.Truncate("    d again stops watching it; any other key keeps it", p.width))
			}
		}
		lines = append(lines, line, st.Dim.Render(second))
	}
	return lines
}

// diffLine colours a diff line: deleted words red, inserted ones green,
// a flag in warning colour.
func diffLine(st *common.Styles, l string, w int) string {
	if strings.HasPrefix(l, "! ") {
		return st.Warn.Render(common.Truncate(l, w))
	}
	l = common.Truncate(l, w)
	var b strings.Builder
	for len(l) > 0 {
		i := strings.IndexAny(l, "[{")
		if i < 0 || i+1 >= len(l) || (l[i] == '[' && l[i+1] != '-') || (l[i] == '{' && l[i+1] != '+') {
			b.WriteString(l)
			break
		}
		end := "-]"
		style := st.Err
		if l[i] == '{' {
			end, style = "+}", st.OK
		}
		j := strings.Index(l[i:], end)
		if j < 0 {
			b.WriteString(l)
			break
		}
		b.WriteString(l[:i])
		b.WriteString(style.Render(l[i : i+j+2]))
		l = l[i+j+2:]
	}
	return b.String()
}

func (p *Pane) watchesFooter() string {
	hint := "enter the change · c check now · d d stop · W back"
	if p.diff != nil {
		hint = "j/k scroll · esc back"
	}
	changed := 0
	for _, w := range p.ws {
		if w.Changed {
			changed++
		}
	}
	return common.Truncate(p.c.Styles.Dim.Render(fmt.Sprintf("%s, %d changed · %s", common.Count(len(p.ws), "watched page"), changed, hint)), p.width)
}
