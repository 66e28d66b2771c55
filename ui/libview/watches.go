package libview

// Watched pages (W): each with how often it is read again and whether it
// changed; enter reads the page in Pages with its last change shown as a
// word diff, the highlights and report quotes it touches flagged
// (common.Change); c reads the page again now; d d stops watching. w
// watches the item under the cursor (a page, or a report's sources), as
// often as its line asks (watch_every.go).

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
	p.watching, p.notes = !p.watching, false
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

// watchURLs are the item's web pages to watch: a page's URL, a report's
// sources.
func watchURLs(it library.Item) []string {
	if it.Kind != library.KindPage && it.Kind != library.KindResearch {
		return nil
	}
	var urls []string
	for _, s := range library.Sources(it) {
		if strings.HasPrefix(s.URL, "http") {
			urls = append(urls, s.URL)
		}
	}
	return urls
}

// askEvery opens w's line for the item, or says at once why it cannot
// be watched: asking how often first was a question for nothing.
func (p *Pane) askEvery(it library.Item) tea.Cmd {
	if len(watchURLs(it)) == 0 {
		return func() tea.Msg {
			return common.ErrorMsg{Err: fmt.Errorf("watch: item %d has no web page to watch (a page, or a report's sources)", it.ID)}
		}
	}
	return p.every.open(it, p.c.Styles)
}

// watchItem watches the item's web pages (watchURLs), each read again
// every so often (30m, 1d: api.ParseEvery).
func (p *Pane) watchItem(it library.Item, every string) tea.Cmd {
	cl, private := p.c.Client, p.c.AllowPrivate
	urls := watchURLs(it)
	return func() tea.Msg {
		if cl == nil {
			return common.ErrorMsg{Err: common.ErrNotConnected}
		}
		if len(urls) == 0 {
			return common.ErrorMsg{Err: fmt.Errorf("watch: item %d has no web page to watch (a page, or a report's sources)", it.ID)}
		}
		for _, u := range urls {
			if _, err := cl.AddWatch(context.Background(), api.WatchAdd{URL: u, Every: every, Label: api.WatchLabel(it.Title), AllowPrivate: private}); err != nil {
				return common.ErrorMsg{Err: fmt.Errorf("watch %s: %w", u, err)}
			}
		}
		return common.NoticeMsg{Text: fmt.Sprintf("watching %s, every %s (W lists them)", common.Count(len(urls), "page"), every)}
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
	case common.WatchesChangedMsg:
		if p.watching {
			return p.load(), true
		}
		return nil, true
	}
	return nil, false
}

// noChange says why a watch has no change to show: its page was never
// read (failing, or not checked yet), or has stayed as first read.
func noChange(w api.Watch) common.NoticeMsg {
	// The watch is under the cursor, its URL and error on the screen:
	// the notice says why in words that fit at 80 columns.
	text := "no change to show: " + w.NoChange("the page")
	if w.Checks == 0 || w.CheckedAt == nil {
		text += " (c reads it now)"
	}
	return common.NoticeMsg{Text: text, Warn: w.Error != "" && w.Checks <= w.Failures}
}

// watchesKey handles the keys of the watched pages and of a diff.
func (p *Pane) watchesKey(msg tea.KeyPressMsg, confirm int64) (tea.Cmd, bool) {
	k := p.c.Keys().Library
	w, ok := p.selectedWatch()
	switch {
	case key.Matches(msg, k.Watches), msg.String() == "esc":
		return p.toggleWatches(), true
	case key.Matches(msg, k.Open):
		if !ok {
			return nil, true
		}
		if w.ChangedAt == nil {
			// No change to read: say why here, rather than open an
			// empty Pages with a notice that a page never read "has
			// not changed since it was first read".
			n := noChange(w)
			return func() tea.Msg { return n }, true
		}
		u := w.URL
		return func() tea.Msg { return common.OpenChangeMsg{URL: u} }, true
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
	if len(p.ws) == 0 {
		return []string{st.Dim.Render(common.Wrap("No watched pages. w on a page or a report watches it (a report: its sources); hark watch add URL does too.", p.width))}
	}
	start, end := p.list().Window(max(1, h/2))
	var lines []string
	for i := start; i < end; i++ {
		w := p.ws[i]
		head := fmt.Sprintf("%-12s %s", w.State(), w.URL)
		line := "  " + common.Truncate(head, max(1, p.width-2))
		second := w.Label
		if w.EverySeconds > 0 {
			second = strings.TrimSuffix("every "+api.EveryText(w.Every())+" · "+w.Label, " · ")
		}
		if w.Error != "" {
			// When it will be tried again, as hark watch list says: a
			// site that asked to wait is not asked before then.
			second = fmt.Sprintf("%s (next try %s; c tries now)", w.Error, w.NextAt.Local().Format("15:04"))
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

func (p *Pane) watchesFooter() string {
	hint := "enter the change · c check · d d stop · W back"
	changed := 0
	for _, w := range p.ws {
		if w.Changed {
			changed++
		}
	}
	return common.Truncate(p.c.Styles.Dim.Render(fmt.Sprintf("%s, %d changed · %s", common.Count(len(p.ws), "watched page"), changed, hint)), p.width)
}
