package common

// A watched page's last change, for the reader: found by the page's URL
// among the gateway's watches, diffed word by word on the extracted text
// before and after, with the highlights and report quotes it touches.

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/library"
)

// Change is a watched page's last change.
type Change struct {
	WatchID   string
	URL       string
	ChangedAt time.Time
	// Unseen: not looked at since it changed (the status bar counts it).
	Unseen bool
	// Current is the page's text now, as the watch read it.
	Current string
	Ops     []library.DiffOp
	Flags   []library.Flag
}

// ChangeMsg brings the change of the page at URL: nil when the page is
// not watched or has not changed since it was first read.
type ChangeMsg struct {
	URL    string
	Change *Change
	Err    error
}

// OpenChangeMsg asks the root to show Pages, reading the watched page at
// URL with its change shown.
type OpenChangeMsg struct{ URL string }

// SameWatchedURL reports that a watch's URL and a page's are one page:
// a fragment and a trailing slash do not tell them apart.
func SameWatchedURL(a, b string) bool {
	norm := func(u string) string {
		if i := strings.IndexByte(u, '#'); i >= 0 {
			u = u[:i]
		}
		return strings.TrimSuffix(u, "/")
	}
	return norm(a) == norm(b)
}

// LoadChange finds the watch of the page at url and brings its last
// change, in a command. A page not watched, or a gateway without watches
// (one that is not hark's), brings no change and no error.
func LoadChange(c *Common, url string) tea.Cmd {
	cl, open := c.Client, c.Library
	if cl == nil || url == "" {
		return nil
	}
	return func() tea.Msg {
		ctx := context.Background()
		l, err := cl.Watches(ctx)
		if err != nil {
			return ChangeMsg{URL: url}
		}
		var w *api.Watch
		for i := range l.Watches {
			if SameWatchedURL(l.Watches[i].URL, url) {
				w = &l.Watches[i]
				break
			}
		}
		if w == nil || w.ChangedAt == nil {
			return ChangeMsg{URL: url}
		}
		t, err := cl.WatchTexts(ctx, w.ID)
		if err != nil {
			return ChangeMsg{URL: url, Err: fmt.Errorf("watch %s: %w", w.URL, err)}
		}
		if t.ChangedAt == nil {
			return ChangeMsg{URL: url}
		}
		ch := &Change{WatchID: w.ID, URL: t.URL, ChangedAt: *t.ChangedAt, Unseen: w.Changed, Current: t.Current,
			Ops: library.WordDiff(t.Previous, t.Current)}
		if open != nil {
			if s, err := open(); err == nil {
				ch.Flags, _ = s.Touched(ctx, t.URL, t.Previous, t.Current, ch.Ops)
			}
		}
		return ChangeMsg{URL: url, Change: ch}
	}
}

// SeeChange says the change was looked at, in a command: the status
// bar's count drops it.
func SeeChange(c *Common, ch *Change) tea.Cmd {
	cl := c.Client
	if cl == nil || ch == nil || !ch.Unseen {
		return nil
	}
	ch.Unseen = false
	id := ch.WatchID
	return func() tea.Msg {
		if err := cl.SeenWatch(context.Background(), id); err != nil {
			return ErrorMsg{Err: fmt.Errorf("watch: %w", err)}
		}
		return WatchesChangedMsg{}
	}
}

// ChangeText is the change as the reader shows it, wrapped at width: the
// highlights and quotes it touches flagged first, then each changed
// passage as a word diff, deleted words struck in [-…-], inserted ones
// in {+…+}.
func ChangeText(st *Styles, ch *Change, width int) string {
	width = max(10, width)
	var lines []string
	for _, f := range ch.Flags {
		what := fmt.Sprintf("report %d's quote", f.Report)
		if f.Highlight != nil {
			what = fmt.Sprintf("highlight %d", f.Highlight.ID)
		}
		lines = append(lines, st.Warn.Render(Wrap(fmt.Sprintf("! %s (%s): “%s”", what, f.State, library.Wrapped(f.Quote)), width)))
	}
	if len(lines) > 0 {
		lines = append(lines, "")
	}
	passages := library.DiffPassages(ch.Ops, 8)
	head := fmt.Sprintf("changed %s: %s", ch.ChangedAt.Local().Format("Jan 02 15:04"), Count(len(passages), "passage"))
	lines = append(lines, st.Title.Render(head), "")
	for i, p := range passages {
		if i > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, DiffColors(st, strings.Split(Wrap(p, width), "\n"))...)
	}
	return strings.Join(lines, "\n")
}

// DiffColors colours word-diff lines: deleted words red, inserted ones
// green, a run that wraps coloured on each of its lines.
func DiffColors(st *Styles, lines []string) []string {
	out := make([]string, len(lines))
	var open byte // '-' or '+' while a run goes on past a line's end
	for n, l := range lines {
		var b strings.Builder
		for l != "" {
			if open == 0 {
				i := strings.Index(l, "[-")
				j := strings.Index(l, "{+")
				switch {
				case i < 0 && j < 0:
					b.WriteString(l)
					l = ""
					continue
				case i < 0 || j >= 0 && j < i:
					b.WriteString(l[:j])
					l, open = l[j:], '+'
				default:
					b.WriteString(l[:i])
					l, open = l[i:], '-'
				}
			}
			end, style := "-]", st.Err
			if open == '+' {
				end, style = "+}", st.OK
			}
			k := strings.Index(l, end)
			if k < 0 {
				b.WriteString(style.Render(l))
				break
			}
			b.WriteString(style.Render(l[:k+2]))
			l, open = l[k+2:], 0
		}
		out[n] = b.String()
	}
	return out
}
