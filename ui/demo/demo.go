// Package demo is the stage a demo deck is performed on: the caption
// large, the line's words under it, where the show is, and the keys a
// presenter needs (space pauses, n next line, r replay, q stop; w saves
// the performance as one WAV). The Voices pane opens it (D) and `hark
// demo DECK.toml` runs it alone. The deck itself (reading, checking,
// fetching, playing) is hark/deck's; Update does no I/O.
package demo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/audio"
	"hark/deck"
	"hark/ui/common"
)

// State is where the show is.
type State int

const (
	Idle    State = iota // no deck
	Loading              // reading and checking the deck
	Playing
	Paused
	Stopped // q stopped it; r or n start again
	Ended   // the last line has played
	Failed  // the deck could not be read, or a line failed
)

// Keys are the stage's bindings.
type Keys struct {
	Pause, Next, Replay, Stop, Save, CopyPath key.Binding
}

// DefaultKeys are space, n, r, q (and esc), w and y.
func DefaultKeys() Keys {
	b := func(keys []string, k, help string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, help))
	}
	return Keys{
		Pause:    b([]string{"space"}, "space", "pause/resume"),
		Next:     b([]string{"n", "right"}, "n", "next line"),
		Replay:   b([]string{"r"}, "r", "replay the line"),
		Stop:     b([]string{"q", "esc"}, "q", "stop"),
		Save:     b([]string{"w"}, "w", "save the performance as one WAV"),
		CopyPath: b([]string{"y"}, "y", "copy the audio file's path"),
	}
}

func (k Keys) ShortHelp() []key.Binding {
	return []key.Binding{k.Pause, k.Next, k.Replay, k.Stop, k.Save}
}

func (k Keys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Pause, k.Next, k.Replay, k.Stop}, {k.Save, k.CopyPath}}
}

// Model is the stage.
type Model struct {
	c    *common.Common
	keys Keys

	width, height int

	path  string
	deck  *deck.Deck
	names map[string]string // voice display names by VoiceRef
	show  *deck.Show
	state State
	at    int // the line on stage; -1 before the first
	err   error

	// The run playing: its number (messages of older runs are dropped),
	// the run itself once started, and its stream of messages.
	seq  int
	runs map[int]context.CancelFunc
	run  *deck.Run
	out  outInfo

	saving  bool
	saved   string
	saveErr error
}

// outInfo is where a run's audio went when no sound device played it.
type outInfo struct {
	kind, reason, savedTo string
}

// New makes an empty stage over c.
func New(c *common.Common) *Model {
	return &Model{c: c, keys: DefaultKeys(), at: -1, runs: map[int]context.CancelFunc{}}
}

// Messages of the stage.
type (
	loadedMsg struct {
		path  string
		deck  *deck.Deck
		names map[string]string
		err   error
	}
	startedMsg struct {
		id  int
		s   *common.Stream
		run *deck.Run
		out outInfo
	}
	eventMsg struct {
		id      int
		s       *common.Stream
		ev      deck.Event
		savedTo string // the file sink's WAV, once it is written to
	}
	endedMsg struct {
		id      int
		err     error
		stopped bool
		savedTo string
	}
	renderedMsg struct {
		path string
		err  error
	}
)

// ClosedMsg says the stage was closed (q on a stopped or ended show):
// its host goes back to what it showed before, or quits.
type ClosedMsg struct{}

// State is where the show is.
func (m *Model) State() State { return m.state }

// Line is the index of the line on stage (-1 before the first).
func (m *Model) Line() int { return m.at }

// Deck is the deck on stage (nil before one is read).
func (m *Model) Deck() *deck.Deck { return m.deck }

// Active reports that a deck is on stage: the stage then takes every key
// (q stops the show rather than quitting hark).
func (m *Model) Active() bool { return m.state != Idle }

// KeyMap is the stage's bindings, for help.
func (m *Model) KeyMap() Keys { return m.keys }

// SetSize sets the stage's area.
func (m *Model) SetSize(w, h int) { m.width, m.height = max(0, w), max(0, h) }

// Open reads and checks the deck at path, then plays it from the first
// line.
func (m *Model) Open(path string) tea.Cmd {
	m.stop()
	if m.show != nil {
		m.show.Close()
		m.show = nil
	}
	m.path, m.deck, m.state, m.at, m.err, m.saved, m.saveErr, m.out = path, nil, Loading, -1, nil, "", nil, outInfo{}
	cl, provider := m.c.Client, m.c.Provider
	return func() tea.Msg {
		d, err := deck.Load(path)
		if err != nil {
			return loadedMsg{path: path, err: err}
		}
		if cl == nil {
			return loadedMsg{path: path, err: common.ErrNotConnected}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		names, err := d.Check(ctx, cl, provider)
		if err != nil {
			return loadedMsg{path: path, err: fmt.Errorf("%s: %w", path, err)}
		}
		return loadedMsg{path: path, deck: d, names: names}
	}
}

func (m *Model) calls() common.Calls { return common.NewCalls(&m.seq, m.runs, nil) }

// play starts a run from line from, stopping the one under way and any
// other playback (one at a time, in every pane).
func (m *Model) play(from int) tea.Cmd {
	if m.show == nil || from < 0 || from >= len(m.deck.Lines) {
		return nil
	}
	m.stop()
	id, ctx, s := m.calls().Stream(m.c.Send)
	m.c.ClaimSound(s.Cancel)
	m.state, m.err, m.at = Playing, nil, from
	show, open := m.show, m.c.Audio
	return s.Start(func() {
		if open == nil {
			s.Finish(endedMsg{id: id, err: errors.New("demo: no sound output")})
			return
		}
		out, err := open()
		if err != nil {
			s.Finish(endedMsg{id: id, err: fmt.Errorf("demo: %w", err)})
			return
		}
		run := show.NewRun(out, from)
		info := outInfo{}
		if out.Kind() != audio.SinkDevice {
			info = outInfo{kind: out.Kind(), reason: out.Reason()}
		}
		s.Emit(startedMsg{id: id, s: s, run: run, out: info})
		err = run.Play(ctx, func(ev deck.Event) { s.Emit(eventMsg{id: id, s: s, ev: ev, savedTo: run.SavedTo()}) })
		s.Finish(endedMsg{id: id, err: err, stopped: ctx.Err() != nil, savedTo: run.SavedTo()})
	})
}

// stop ends the run under way, if any.
func (m *Model) stop() {
	m.calls().Cancel()
	m.run = nil
}

// Close takes the deck off the stage.
func (m *Model) Close() {
	m.stop()
	if m.show != nil {
		m.show.Close()
	}
	*m = Model{c: m.c, keys: m.keys, width: m.width, height: m.height, at: -1, runs: map[int]context.CancelFunc{}, seq: m.seq}
}

// Update takes the stage's keys and messages.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return m.key(msg)
	case loadedMsg:
		if msg.path != m.path || m.state != Loading {
			return nil
		}
		if msg.err != nil {
			m.state, m.err = Failed, msg.err
			return nil
		}
		m.deck, m.names = msg.deck, msg.names
		m.show = deck.NewShow(msg.deck, m.c.Client, m.c.Provider)
		return m.play(0)
	case startedMsg:
		if m.calls().Current(msg.id) {
			m.run, m.out = msg.run, msg.out
		}
		return msg.s.Next()
	case eventMsg:
		if m.calls().Current(msg.id) {
			if msg.ev.Playing {
				m.at = msg.ev.Line
			}
			if msg.savedTo != "" {
				m.out.savedTo = msg.savedTo
			}
		}
		return msg.s.Next()
	case endedMsg:
		if !m.calls().Done(msg.id) {
			return nil
		}
		m.run = nil
		if msg.savedTo != "" {
			m.out.savedTo = msg.savedTo
		}
		switch {
		case msg.err != nil:
			m.state, m.err = Failed, msg.err
		case msg.stopped:
			m.state = Stopped
		default:
			m.state, m.at = Ended, len(m.deck.Lines)-1
		}
		return nil
	case renderedMsg:
		m.saving = false
		m.saved, m.saveErr = msg.path, msg.err
		return nil
	}
	return nil
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Stop):
		switch m.state {
		case Playing, Paused, Loading:
			m.stop()
			if m.state == Loading {
				m.Close()
				return func() tea.Msg { return ClosedMsg{} }
			}
			m.state = Stopped
			return nil
		}
		m.Close()
		return func() tea.Msg { return ClosedMsg{} }
	case m.deck == nil:
		return nil
	case key.Matches(msg, k.Pause):
		switch {
		case m.state == Playing && m.run != nil:
			m.run.Pause()
			m.state = Paused
		case m.state == Paused && m.run != nil:
			m.run.Resume()
			m.state = Playing
		case m.state == Stopped || m.state == Ended || m.state == Failed:
			return m.play(max(0, m.at)) // space on a stopped show plays on from its line
		}
	case key.Matches(msg, k.Next):
		if m.at+1 < len(m.deck.Lines) {
			return m.play(m.at + 1)
		}
		// n on the last line ends the show: the run's own end, a stop,
		// is no longer wanted.
		m.stop()
		m.calls().Drop()
		m.state = Ended
	case key.Matches(msg, k.Replay):
		return m.play(max(0, m.at))
	case key.Matches(msg, k.Save):
		return m.save()
	case key.Matches(msg, k.CopyPath):
		if p := m.filePath(); p != "" {
			return common.CopyURL(p)
		}
	}
	return nil
}

// filePath is the file the last audio went to: the saved performance, or
// the file sink's WAV.
func (m *Model) filePath() string {
	if m.saved != "" {
		return m.saved
	}
	return m.out.savedTo
}

// save renders the whole performance, every line in order with its
// pauses, to one WAV in the output directory.
func (m *Model) save() tea.Cmd {
	if m.saving || m.show == nil {
		return nil
	}
	m.saving, m.saved, m.saveErr = true, "", nil
	dir := m.c.OutputDir
	if dir == "" {
		dir = "."
	}
	path := filepath.Join(dir, fmt.Sprintf("demo-%s-%s.wav", fileSafe(m.deck.Name), m.c.Now().Format("20060102-150405")))
	show := m.show
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return renderedMsg{err: fmt.Errorf("save the performance: %w", err)}
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return renderedMsg{err: fmt.Errorf("save the performance: %w", err)}
		}
		_, err = show.Render(ctx, f, nil)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
			return renderedMsg{err: fmt.Errorf("save the performance: %w", err)}
		}
		return renderedMsg{path: path}
	}
}

// fileSafe makes a name a file name part.
func fileSafe(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.':
			return r
		}
		return '_'
	}, s)
	if s == "" {
		return "deck"
	}
	return s
}

// View draws the stage in exactly the size set.
func (m *Model) View() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	st := m.c.Styles
	var head, foot []string

	// The head: the deck, where the show is, and the line's caption in
	// plain words too (for the presenter, and for a screen reader).
	title := "Demo"
	if m.deck != nil && m.deck.Title != "" {
		title += " · " + m.deck.Title
	}
	state := map[State]string{Idle: "no deck", Loading: "reading the deck…", Playing: "▶ playing", Paused: "❚❚ paused",
		Stopped: "■ stopped", Ended: "✓ the end", Failed: "✗ failed"}[m.state]
	head = append(head, st.Title.Render(trunc(title, w)))
	if m.deck != nil {
		pos := "line –"
		if m.at >= 0 {
			pos = fmt.Sprintf("line %d of %d", m.at+1, len(m.deck.Lines))
		}
		head = append(head, trunc(pos+" · "+state, w))
		if l, ok := m.line(); ok {
			if l.IsPause() {
				head = append(head, st.Dim.Render(trunc(fmt.Sprintf("pause · %s", l.Pause), w)))
			} else {
				about := l.VoiceRef()
				if n := m.names[l.VoiceRef()]; n != "" {
					about = n + " (" + about + ")"
				}
				if l.Speed != 0 {
					about += fmt.Sprintf(" · speed %+d", l.Speed)
				}
				head = append(head, trunc("caption: "+l.Caption, w), st.Dim.Render(trunc(about, w)))
			}
		}
	} else {
		head = append(head, trunc(state, w))
	}

	// The foot: what went wrong, where the audio went, and the keys.
	if m.err != nil {
		foot = append(foot, wrapLines(st.Err.Render(trunc(m.err.Error(), 4*w)), w)...)
	}
	if n := m.outNotice(w); n != "" {
		foot = append(foot, strings.Split(n, "\n")...)
	}
	switch {
	case m.saving:
		foot = append(foot, st.Dim.Render(trunc("saving the performance as one WAV…", w)))
	case m.saveErr != nil:
		foot = append(foot, st.Err.Render(trunc(m.saveErr.Error(), w)))
	case m.saved != "":
		foot = append(foot, trunc("performance saved to", w), m.saved)
	}
	if m.deck != nil {
		foot = append(foot, st.Dim.Render(trunc(m.strip(), w)))
	}
	hints := "space pause · n next · r replay · w save WAV · q stop"
	switch {
	case m.deck == nil:
		hints = "q close"
	case m.state == Stopped || m.state == Ended || m.state == Failed:
		hints = "space play on · n next · r replay · w save WAV · q close"
	}
	foot = append(foot, st.Dim.Render(trunc(hints, w)))

	// The middle: the caption, large, centred; the words under it.
	room := max(0, h-len(head)-len(foot)-1)
	var mid []string
	if l, ok := m.line(); ok && !l.IsPause() {
		big, fits := bigText(l.Caption, w, max(0, room-2))
		if !fits {
			big = wrapLines(l.Caption, w)
			for i := range big {
				big[i] = st.Title.Render(big[i])
			}
		}
		mid = append(mid, big...)
		if l.Caption != l.Text && len(mid)+2 <= room {
			mid = append(mid, "")
			for _, s := range wrapLines(l.Text, w) {
				mid = append(mid, st.Dim.Render(s))
			}
		}
	} else if ok && l.IsPause() {
		mid = append(mid, st.Dim.Render("…"))
	}
	if len(mid) > room {
		mid = mid[:room]
	}
	for i, s := range mid {
		mid[i] = lipgloss.PlaceHorizontal(w, lipgloss.Center, s)
	}
	top := (room - len(mid)) / 2
	lines := append([]string{}, head...)
	lines = append(lines, make([]string, 1+top)...)
	lines = append(lines, mid...)
	for len(lines) < h-len(foot) {
		lines = append(lines, "")
	}
	lines = append(lines, foot...)
	if len(lines) > h {
		lines = append(lines[:h-len(foot)], foot...)[:h]
	}
	for i, s := range lines {
		lines[i] = ansi.Truncate(s, w, "")
	}
	return lipgloss.NewStyle().Width(w).Height(h).MaxHeight(h).Render(strings.Join(lines, "\n"))
}

func (m *Model) line() (deck.Line, bool) {
	if m.deck == nil || m.at < 0 || m.at >= len(m.deck.Lines) {
		return deck.Line{}, false
	}
	return m.deck.Lines[m.at], true
}

// strip is the lines at a glance: ✓ played, ▶ on stage, · to come.
func (m *Model) strip() string {
	var b strings.Builder
	for i, l := range m.deck.Lines {
		mark := "·"
		switch {
		case i < m.at:
			mark = "✓"
		case i == m.at:
			mark = "▶"
		}
		if l.IsPause() {
			fmt.Fprintf(&b, "%s pause  ", mark)
			continue
		}
		fmt.Fprintf(&b, "%s %d  ", mark, l.Number)
	}
	return strings.TrimSpace(b.String())
}

// outNotice says where the audio goes when no sound device plays it.
func (m *Model) outNotice(w int) string {
	return common.SoundNotice(m.c.Styles, m.out.kind, m.out.reason, m.filePathOfRun(), w)
}

func (m *Model) filePathOfRun() string { return m.out.savedTo }

func trunc(s string, w int) string { return ansi.Truncate(s, w, "…") }

// wrapLines wraps s to w columns.
func wrapLines(s string, w int) []string {
	return strings.Split(ansi.Wordwrap(s, max(1, w), ""), "\n")
}
