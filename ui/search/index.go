package search

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/ui/common"
)

// The local search index, filled from the TUI (embedded gateway only,
// through Common.Index): a prompt for a folder, URL or sitemap with live
// progress and cancel, the list of indexed sources (remove, re-index),
// and the empty-index hint.

type indexer struct {
	c         *common.Common
	input     textinput.Model
	prompting bool
	running   bool
	cancel    context.CancelFunc
	target    string
	pages     int
	current   string
	started   time.Time
	listing   bool
	sources   []common.IndexSource
	cursor    int
	offset    int // first source drawn
	confirm   string
	count     int // pages in the index; -1 until known
	note      string
}

type (
	indexCountMsg    struct{ n int }
	indexProgressMsg struct {
		pages int
		url   string
	}
	indexDoneMsg struct {
		target string
		n      int
		err    error
	}
	sourcesMsg struct {
		sources []common.IndexSource
		err     error
	}
	removedMsg struct {
		source string
		n      int
	}
)

func newIndexer(c *common.Common) indexer {
	in := common.NewInput(c.Styles)
	in.Prompt = "index: "
	in.Placeholder = "a folder, a file, a site URL or a sitemap URL"
	return indexer{c: c, input: in, count: -1}
}

// active reports that the index prompt or the source list has the keys.
func (x *indexer) active() bool { return x.prompting || x.listing }

// typing reports that the index line has the cursor: every key goes to
// it. The source list is not a text line: there the root's keys (the
// palette on :, the digits, q) work as everywhere.
func (x *indexer) typing() bool { return x.prompting }

// countCmd asks the index how many pages it holds.
func (x *indexer) countCmd() tea.Cmd {
	ix := x.c.Index
	if ix == nil {
		return nil
	}
	return func() tea.Msg {
		n, err := ix.Pages(context.Background())
		if err != nil {
			return nil
		}
		return indexCountMsg{n}
	}
}

func (x *indexer) sourcesCmd() tea.Cmd {
	ix := x.c.Index
	return func() tea.Msg {
		s, err := ix.Sources(context.Background())
		return sourcesMsg{sources: s, err: err}
	}
}

// open shows the prompt, or the list of sources.
func (x *indexer) open(sources bool) tea.Cmd {
	if x.c.Index == nil {
		return func() tea.Msg {
			return common.ErrorMsg{Err: fmt.Errorf("index: this gateway keeps its own index; hark fills only the embedded gateway's")}
		}
	}
	if sources {
		x.listing, x.prompting = true, false
		return x.sourcesCmd()
	}
	x.listing, x.prompting = false, true
	return x.input.Focus()
}

// start indexes target in a command, reporting progress as it goes.
func (x *indexer) start(target string) tea.Cmd {
	if x.running {
		return func() tea.Msg {
			return common.ErrorMsg{Err: fmt.Errorf("index: %s is still being indexed (x, or ctrl+x while typing, cancels it)", x.target)}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	x.running, x.cancel, x.target, x.pages, x.current, x.started, x.note = true, cancel, target, 0, "", x.c.Now(), ""
	ix, send := x.c.Index, x.c.Send
	return func() tea.Msg {
		defer cancel()
		var mu sync.Mutex
		last := time.Time{}
		n, err := ix.Index(ctx, target, func(pages int, url string) {
			// At most ten updates a second reach the screen.
			mu.Lock()
			defer mu.Unlock()
			if send != nil && time.Since(last) >= 100*time.Millisecond {
				last = time.Now()
				send(indexProgressMsg{pages, url})
			}
		})
		return indexDoneMsg{target: target, n: n, err: err}
	}
}

func (x *indexer) update(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case indexCountMsg:
		x.count = msg.n
	case indexProgressMsg:
		if x.running {
			x.pages, x.current = max(x.pages, msg.pages), msg.url
		}
	case indexDoneMsg:
		x.running, x.cancel = false, nil
		cmds := []tea.Cmd{x.countCmd()}
		if x.listing {
			cmds = append(cmds, x.sourcesCmd())
		}
		switch {
		case errors.Is(msg.err, context.Canceled):
			// Said in the status bar too, replacing what the last run said.
			note := fmt.Sprintf("cancelled indexing %s: kept %s", msg.target, common.Count(msg.n, "page"))
			x.note = note
			cmds = append(cmds, func() tea.Msg { return common.NoticeMsg{Text: note} })
		case msg.err != nil && msg.n > 0:
			x.note = fmt.Sprintf("indexed %s from %s, then stopped: %v", common.Count(msg.n, "page"), msg.target, msg.err)
			err := fmt.Errorf("index %s: stopped after %s: %w", msg.target, common.Count(msg.n, "page"), msg.err)
			cmds = append(cmds, func() tea.Msg { return common.ErrorMsg{Err: err} })
		case msg.err != nil:
			err := fmt.Errorf("index %s: %w", msg.target, msg.err)
			cmds = append(cmds, func() tea.Msg { return common.ErrorMsg{Err: err} })
		default:
			note := fmt.Sprintf("indexed %s from %s", common.Count(msg.n, "page"), msg.target)
			x.note = note
			cmds = append(cmds, func() tea.Msg { return common.NoticeMsg{Text: note} })
		}
		return tea.Batch(cmds...), true
	case removedMsg:
		x.note = fmt.Sprintf("removed %s of %s from the index", common.Count(msg.n, "page"), msg.source)
		return tea.Batch(x.countCmd(), x.sourcesCmd()), true
	case sourcesMsg:
		if msg.err != nil {
			return func() tea.Msg { return common.ErrorMsg{Err: fmt.Errorf("index sources: %w", msg.err)} }, true
		}
		x.sources = msg.sources
		x.list().Clamp()
	default:
		return nil, false
	}
	return nil, true
}

// list is the cursor over the sources listed.
func (x *indexer) list() common.List { return common.NewList(&x.cursor, &x.offset, len(x.sources)) }

func (x *indexer) key(msg tea.KeyPressMsg) tea.Cmd {
	if x.prompting {
		switch msg.String() {
		case "esc":
			x.prompting = false
			x.input.Blur()
			return nil
		case "enter":
			target := strings.TrimSpace(x.input.Value())
			if target == "" {
				return nil
			}
			x.prompting = false
			x.input.Blur()
			x.input.SetValue("")
			return x.start(common.ExpandHome(target))
		}
		var cmd tea.Cmd
		x.input, cmd = x.input.Update(msg)
		return cmd
	}
	confirm := x.confirm
	x.confirm = ""
	switch msg.String() {
	case "esc":
		x.listing = false
	case "up", "k":
		x.list().Move(-1)
	case "down", "j":
		x.list().Move(1)
	case "a", "i":
		// The prompt opens over the list, which stays to show the result.
		x.prompting = true
		return x.input.Focus()
	case "x":
		if x.running {
			x.cancel()
		}
	case "r", "enter":
		if x.cursor < len(x.sources) {
			return x.start(x.sources[x.cursor].Source)
		}
	case "d":
		if x.cursor >= len(x.sources) {
			return nil
		}
		src := x.sources[x.cursor].Source
		if confirm != src {
			x.confirm = src
			return nil
		}
		ix := x.c.Index
		return func() tea.Msg {
			n, err := ix.Remove(context.Background(), src)
			if err != nil {
				return common.ErrorMsg{Err: fmt.Errorf("remove %s: %w", src, err)}
			}
			return removedMsg{source: src, n: n}
		}
	}
	return nil
}

// lines are what the pane shows under its query line: the prompt, or the
// progress of a run (with what the last one did). cancelKey is the key
// that cancels now.
func (x *indexer) lines(st *common.Styles, now time.Time, w int, cancelKey string) []string {
	var out []string
	if x.prompting {
		out = append(out, x.input.View(), st.Dim.Render(common.Truncate("enter indexes · esc cancels · a folder (.html .md .txt), a site URL, or a sitemap URL", w)))
	}
	if x.running {
		tail := "  " + cancelKey + " cancels"
		line := fmt.Sprintf("indexing %s: %s · %s", x.target, common.Count(x.pages, "page"), common.Elapsed(now.Sub(x.started)))
		out = append(out, common.Truncate(st.Warn.Render("… ")+line, w-len(tail))+st.Dim.Render(tail))
		if x.current != "" {
			// A line of its own, cut at the start: the end of a URL is
			// what differs from page to page.
			out = append(out, st.Dim.Render("  reading "+keepEnd(x.current, max(8, w-10))))
		}
	}
	return out
}

// listView draws the indexed sources in w×h.
func (x *indexer) listView(st *common.Styles, w, h int) string {
	head := st.Title.Render(fmt.Sprintf("Index sources (%d)", len(x.sources))) + st.Dim.Render("  r re-index · d d remove · a add · esc back")
	lines := []string{common.Truncate(head, w)}
	if x.count >= 0 {
		lines = append(lines, st.Dim.Render(fmt.Sprintf("The index holds %s in all (pages read by extract and crawl count too).", common.Count(x.count, "page"))))
	}
	if x.note != "" {
		lines = append(lines, st.OK.Render(common.Truncate(x.note, w)))
	}
	if len(x.sources) == 0 {
		lines = append(lines, "", st.Dim.Render(common.Wrap("Nothing indexed yet: press a to index a folder, a site or a sitemap.", w)))
	}
	start, end := x.list().Pin(h - len(lines))
	for i := start; i < end; i++ {
		s := x.sources[i]
		row := fmt.Sprintf("%6s  %s  %s", common.Count(s.Pages, "page"), s.Indexed.Local().Format("Jan 02 15:04"), s.Source)
		switch {
		case i == x.cursor && x.confirm == s.Source:
			lines = append(lines, st.Warn.Render(common.Truncate("> d again removes these pages from the index: "+s.Source, w)))
		case i == x.cursor:
			lines = append(lines, st.Selected.Render(common.PadRight(common.Truncate("> "+row, w), w)))
		default:
			lines = append(lines, common.Truncate("  "+row, w))
		}
	}
	return strings.Join(lines, "\n")
}

// emptyHint says the index is empty and how to fill it ("" when it is
// not, or when the gateway is not the embedded one).
func (x *indexer) emptyHint() string {
	if x.c.Index == nil || x.count != 0 || x.running {
		return ""
	}
	return "The local search index is empty: search finds only pages hark has read. Index a folder, a site or a sitemap: press : and choose “index a folder, URL or sitemap”, or run hark index DIR|URL|SITEMAP in a shell. Pages you extract or crawl are added too."
}

// keepEnd shortens s to w cells by cutting its start: "…/html/mc-manual.html".
func keepEnd(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && ansi.StringWidth(string(r))+1 > w {
		r = r[1:]
	}
	return "…" + string(r)
}
