// Package ui is hark's terminal program: the one root model that owns the
// panes, computes the layout on every window size change, routes keys and
// messages, and draws the tabs, the status bar, the help and the command
// palette. It does no I/O in Update: the tool list and every gateway call
// run in commands. It takes everything it needs in a common.Common and
// reads no configuration or environment of its own.
package ui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/library"
	"hark/ui/common"
	"hark/ui/jobs"
	"hark/ui/libview"
	"hark/ui/pages"
	"hark/ui/research"
	"hark/ui/search"
	"hark/ui/tools"
	"hark/ui/voices"
)

// Model is the root model.
type Model struct {
	c        *common.Common
	panes    []common.Pane
	active   int
	width    int
	height   int
	help     help.Model
	showHelp bool
	// helpScroll is the help shown, scrolled when it is taller than the
	// pane (Pages' help at 80x24).
	helpScroll common.Scroll
	palette    *palette
	noColor    bool

	lastCall *api.CallInfo
	problem  *common.Problem
	notice   string
	// noticeWarn: the notice is a warning ("!"), not a success ("✓").
	noticeWarn bool
	toolsErr   error
	loading    bool
	credits    *api.CallInfo // the newest credit count known (newerCredits)
	// creditsBefore is the count the session began with: what other runs
	// (the CLI, earlier sessions) used this period, which the status bar
	// tells apart from what this session spent.
	creditsBefore int64
	creditsSeen   bool
	statusAt      time.Time // when the problem or notice was set

	firstFrame sync.Once // reports the first frame to the start-up trace

	// openedFrom is the pane that sent the user to the active one (a
	// research source opened in Pages), or -1: esc there, when it has
	// nothing to close, goes back (see common.Rester).
	openedFrom int

	// jobs reattaches to the gateway's running jobs (ui/jobs).
	jobs *jobs.Follower
	// watchesChanged is how many watched pages changed since looked at,
	// watchesChecked when one was last read; watchPoll when to ask
	// again, watchGen the schedule in force.
	watchesChanged int
	watchesChecked time.Time
	watchPoll      watchPoll
	watchGen       int
}

// New builds the root with its panes: Search, Pages, Research, Voices,
// Tools and Library.
func New(c *common.Common) *Model {
	panes := []common.Pane{search.New(c), pages.New(c), research.New(c), voices.New(c), tools.New(c), libview.New(c)}
	m := &Model{c: c, panes: panes, help: help.New(), noColor: c.Styles.NoColor, loading: true, openedFrom: -1, jobs: jobs.New(c), watchPoll: defaultWatchPoll()}
	m.applyStyles()
	return m
}

// Panes returns the panes in tab order.
func (m *Model) Panes() []common.Pane { return m.panes }

// Active returns the index of the active pane.
func (m *Model) Active() int { return m.active }

// loadTools fetches the runtime tool list in a command.
func loadTools(c *api.Client) tea.Cmd {
	return func() tea.Msg {
		if c == nil {
			return common.ToolsMsg{Err: fmt.Errorf("no gateway client")}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ts, err := c.Tools(ctx)
		return common.ToolsMsg{Tools: ts, Err: err}
	}
}

func connect(c *common.Common) tea.Cmd {
	if c.Client != nil || c.Connect == nil {
		return loadTools(c.Client)
	}
	fn := c.Connect
	return func() tea.Msg {
		cl, err := fn(context.Background())
		return common.ConnectedMsg{Client: cl, Err: err}
	}
}

func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, connect(m.c)}
	if m.c.Client != nil {
		cmds = append(cmds, m.initPanes(), m.jobs.Start())
	}
	return tea.Batch(cmds...)
}

// initPanes runs the panes' Init once a client exists, since some (the
// voice list) call the gateway at once.
func (m *Model) initPanes() tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(m.panes))
	for _, p := range m.panes {
		cmds = append(cmds, p.Init())
	}
	return tea.Batch(cmds...)
}

func (m *Model) applyStyles() {
	hs := help.DefaultStyles(m.c.Styles.Dark)
	if m.noColor {
		hs = help.Styles{}
	}
	m.help.Styles = hs
}

func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	shown := m.active
	_, cmd := m.update(msg)
	if m.active != shown {
		if s, ok := m.panes[m.active].(common.Shower); ok {
			cmd = tea.Batch(cmd, s.Shown())
		}
		cmd = tea.Batch(cmd, countWatches(m.c))
	}
	return m, cmd
}

// setNotice shows a notice in the status bar in place of the last error.
func (m *Model) setNotice(n common.NoticeMsg) {
	m.notice, m.noticeWarn, m.problem, m.statusAt = n.Text, n.Warn, nil, m.c.Now()
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if jobs.Handles(msg) {
		cmd, notice := m.jobs.Update(msg)
		if notice.Text != "" {
			m.setNotice(notice)
		}
		return m, cmd
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, m.broadcast(msg)
	case tea.BackgroundColorMsg:
		*m.c.Styles = *common.NewStyles(msg.IsDark(), m.noColor)
		m.applyStyles()
		return m, m.broadcast(common.StylesChangedMsg{})
	case common.ConnectedMsg:
		if msg.Err != nil {
			m.loading = false
			m.toolsErr = msg.Err
			p := common.Explain(fmt.Errorf("gateway: %w", msg.Err))
			m.problem = &p
			return m, m.broadcast(common.ToolsMsg{Err: msg.Err})
		}
		m.c.Client = msg.Client
		m.c.TracePhase("gateway connected")
		return m, tea.Batch(loadTools(msg.Client), m.initPanes(), m.broadcast(msg), m.jobs.Start(), countWatches(m.c))
	case common.WatchesMsg:
		var cmd tea.Cmd
		if msg.Err == nil && (msg.Changed != m.watchesChanged || !msg.Checked.Equal(m.watchesChecked)) {
			// A check ran (in the background too) or a change was looked
			// at: the Library's watched pages show it.
			m.watchesChanged, m.watchesChecked = msg.Changed, msg.Checked
			cmd = m.broadcast(common.WatchesChangedMsg{})
		}
		return m, tea.Batch(cmd, m.scheduleWatches(msg))
	case watchTickMsg:
		if msg.gen != m.watchGen {
			return m, nil // a later count scheduled its own
		}
		return m, countWatches(m.c)
	case common.WatchesChangedMsg:
		return m, tea.Batch(m.broadcast(msg), countWatches(m.c))
	case common.ToolsMsg:
		m.c.TracePhase("tool list loaded")
		m.loading = false
		m.c.Tools, m.toolsErr = msg.Tools, msg.Err
		if msg.Err != nil {
			p := common.Explain(common.ToolListError(msg.Err))
			m.problem = &p
		}
		cmd := m.broadcast(msg)
		if q := m.c.StartQuery; q != "" && msg.Err == nil {
			m.c.StartQuery = ""
			if t := m.c.Tool(api.ToolSearch); t != nil {
				run := common.RunToolMsg{Tool: *t, Inputs: map[string]any{"query": q}}
				cmd = tea.Batch(cmd, func() tea.Msg { return run })
			}
		}
		return m, cmd
	case common.CallMsg:
		ci := api.CallInfo(msg)
		if strings.HasPrefix(ci.Path, api.PathJobs) && (ci.Method != http.MethodPost || ci.Path != api.PathJobs) {
			// Following a job (ui/jobs in the background, a research's
			// events) is not the user's call; submitting one is: it is
			// the research the user asked for, its trace and its charge.
			return m, nil
		}
		m.lastCall = &ci
		if ci.HasCredits && !m.creditsSeen {
			m.creditsSeen, m.creditsBefore = true, max(0, ci.CreditsUsed-ci.CreditsCharged)
		}
		if ci.HasCredits && newerCredits(ci, m.credits) {
			m.credits = &ci
			if ci.CreditsUsed < m.creditsBefore {
				m.creditsBefore = 0 // a new quota period began
			}
		}
		if ci.Err == nil && ci.Status < 400 && ci.Method != http.MethodDelete && !m.c.Now().Add(-ci.Latency).Before(m.statusAt) {
			// A call made since the last error or notice, that worked,
			// supersedes it; one already under way then (the voice list
			// a start began) says nothing about it, and neither does a
			// cancel's own DELETE, which may end after "cancelled" shows.
			m.problem, m.notice = nil, ""
		}
		return m, nil
	case common.ErrorMsg:
		p := common.Explain(msg.Err)
		m.statusAt = m.c.Now()
		if p.Message == "cancelled" {
			m.setNotice(common.NoticeMsg{Text: "cancelled"})
			return m, nil
		}
		m.problem, m.notice = &p, ""
		return m, m.toolFailed(msg.Err)
	case common.NoticeMsg:
		m.setNotice(msg)
		return m, nil
	case common.OpenPagesMsg, common.OpenChangeMsg:
		return m, m.routeTo(func(p common.Pane) bool { return p.Title() == "Pages" }, msg)
	case common.IndexMsg:
		return m, m.routeTo(func(p common.Pane) bool { return p.Title() == "Search" }, msg)
	case common.ShowKeptMsg:
		// A kept item opens where its kind is shown: a report in
		// Research, a search in Search, pages, crawls and maps in Pages.
		title := map[string]string{library.KindResearch: "Research", library.KindSearch: "Search"}[msg.Item.Kind]
		if title == "" {
			title = "Pages"
		}
		return m, m.routeTo(func(p common.Pane) bool { return p.Title() == title }, msg)
	case common.RunToolMsg:
		return m, m.routeTo(func(p common.Pane) bool {
			r, ok := p.(common.ToolRunner)
			return ok && r.Handles(msg.Tool.Slug)
		}, msg)
	case common.EditToolMsg:
		return m, m.routeTo(func(p common.Pane) bool { return p.Title() == "Tools" }, msg)
	case inspectMsg:
		msg(m)
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		if m.palette != nil {
			return m, m.palette.update(msg)
		}
		return m, m.toActive(msg)
	case tea.MouseClickMsg:
		return m, m.click(msg)
	case tea.MouseWheelMsg:
		if m.showHelp {
			switch msg.Button {
			case tea.MouseWheelUp:
				m.helpScroll.ScrollBy(-3)
			case tea.MouseWheelDown:
				m.helpScroll.ScrollBy(3)
			}
			return m, nil
		}
		if m.palette != nil {
			return m, nil
		}
		mm := msg
		mm.Y--
		return m, m.toActive(mm)
	}
	return m, m.broadcast(msg)
}

// toolFailed gives a failed tool call to the Tools pane, whose forms
// (the palette's) keep what they sent: the form that sent it comes back
// with its values whichever pane showed the error.
func (m *Model) toolFailed(err error) tea.Cmd {
	var te *common.ToolError
	if !errors.As(err, &te) {
		return nil
	}
	for i, p := range m.panes {
		if p.Title() == "Tools" {
			np, cmd := p.Update(common.ToolFailedMsg{Err: te})
			m.panes[i] = np
			return cmd
		}
	}
	return nil
}

// inspectMsg runs a function on the model inside Update, so tests can
// observe a running program without racing it.
type inspectMsg func(*Model)

// routeTo shows the first pane matching want and hands it msg; with no
// match, the Tools pane takes it (it shows any tool's output).
func (m *Model) routeTo(want func(common.Pane) bool, msg tea.Msg) tea.Cmd {
	idx := -1
	for i, p := range m.panes {
		if want(p) {
			idx = i
			break
		}
	}
	for i, p := range m.panes {
		if idx < 0 && p.Title() == "Tools" {
			idx = i
		}
	}
	if idx != m.active {
		m.openedFrom = m.active
	}
	m.active, m.showHelp, m.palette = idx, false, nil
	return m.toActive(msg)
}

// goTo shows pane i at the user's own request: no way back is offered.
func (m *Model) goTo(i int) {
	m.active, m.openedFrom = i, -1
}

// backKey reports that esc should go back to the pane that sent the user
// here: the pane shown has nothing to close.
func (m *Model) backKey() bool {
	if m.openedFrom < 0 || m.openedFrom == m.active || m.openedFrom >= len(m.panes) {
		return false
	}
	r, ok := m.panes[m.active].(common.Rester)
	return ok && r.Resting()
}

func (m *Model) toActive(msg tea.Msg) tea.Cmd {
	p, cmd := m.panes[m.active].Update(msg)
	m.panes[m.active] = p
	return cmd
}

// broadcast fans a message out to every pane and joins their commands.
func (m *Model) broadcast(msg tea.Msg) tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(m.panes))
	for i, p := range m.panes {
		np, cmd := p.Update(msg)
		m.panes[i] = np
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, m.c.Keys().Root.ForceQuit) {
		return tea.Quit
	}
	if m.palette != nil {
		return m.palette.update(msg)
	}
	if m.showHelp {
		if !m.scrollHelp(msg.String()) {
			m.showHelp = false
		}
		return nil
	}
	if t, ok := m.panes[m.active].(common.TextAreaPane); ok && t.OwnsKeys() {
		return m.toActive(msg)
	}
	// ctrl+k opens the palette even while a text line has focus: it is
	// the one way to every tool, and no one-line field here needs it.
	if msg.String() == "ctrl+k" {
		m.palette = newPalette(m)
		return m.palette.focus()
	}
	if msg.String() == "esc" && m.backKey() {
		m.goTo(m.openedFrom)
		return nil
	}
	if m.panes[m.active].Capturing() && !m.emptyLineShortcut(msg) {
		return m.toActive(msg)
	}
	if c, ok := m.panes[m.active].(common.KeyClaimer); ok && c.Claims(msg) {
		return m.toActive(msg)
	}
	switch {
	case key.Matches(msg, m.c.Keys().Root.Quit):
		if d, ok := m.panes[m.active].(common.DocumentShower); ok && d.ShowingDocument() {
			return m.toActive(msg) // q closes the reader
		}
		return tea.Quit
	case key.Matches(msg, m.c.Keys().Root.Help):
		m.showHelp = true
		m.helpScroll = common.Scroll{}
		m.layoutHelp()
		return nil
	case key.Matches(msg, m.c.Keys().Root.Palette):
		m.palette = newPalette(m)
		return m.palette.focus()
	case key.Matches(msg, m.c.Keys().Root.Next):
		m.goTo((m.active + 1) % len(m.panes))
		return nil
	case key.Matches(msg, m.c.Keys().Root.Prev):
		m.goTo((m.active - 1 + len(m.panes)) % len(m.panes))
		return nil
	case key.Matches(msg, m.c.Keys().Root.Pane):
		if i := int(msg.String()[0] - '1'); i < len(m.panes) {
			m.goTo(i)
		}
		return nil
	}
	return m.toActive(msg)
}

// emptyLineShortcut reports that msg is ":" or "?" typed on an empty text
// line, which the root takes as the palette or the help.
func (m *Model) emptyLineShortcut(msg tea.KeyPressMsg) bool {
	e, ok := m.panes[m.active].(common.LineEmptier)
	if !ok || !e.LineEmpty() {
		return false
	}
	switch k := msg.String(); {
	case k == ":" || k == "?":
		return true
	case len(k) == 1 && k[0] >= '1' && int(k[0]-'0') <= len(m.panes):
		// The tab bar and the help advertise the digits: until something
		// is typed on the line they switch panes.
		return true
	}
	return false
}

// click switches tabs on the tab line and passes other clicks to the pane
// with coordinates relative to it.
func (m *Model) click(msg tea.MouseClickMsg) tea.Cmd {
	if m.palette != nil {
		return m.palette.click(msg)
	}
	if msg.Y == 0 {
		for i, r := range m.tabRanges() {
			if msg.X >= r[0] && msg.X < r[1] {
				m.goTo(i)
				m.showHelp = false
			}
		}
		return nil
	}
	if msg.Y >= m.height-1 || m.showHelp {
		return nil
	}
	mm := msg
	mm.Y--
	return m.toActive(mm)
}

func (m *Model) paneHeight() int { return max(0, m.height-2) }

func (m *Model) layout() {
	for _, p := range m.panes {
		p.SetSize(m.width, m.paneHeight())
	}
	m.help.SetWidth(m.width)
	if m.showHelp {
		m.layoutHelp()
	}
}

// layoutHelp lays the help out at the width, in the pane's height less a
// line for the way to scroll it when it does not fit.
func (m *Model) layoutHelp() {
	m.helpScroll.SetContent(m.helpView())
	h := m.paneHeight()
	if m.helpScroll.Len() > h {
		h--
	}
	m.helpScroll.SetHeight(h)
}

// scrollHelp scrolls the help with the reader's keys; false for any
// other key, which closes it.
func (m *Model) scrollHelp(k string) bool {
	s := &m.helpScroll
	switch k {
	case "j", "down":
		s.ScrollBy(1)
	case "k", "up":
		s.ScrollBy(-1)
	case "pgdown", "space", " ", "f":
		s.ScrollBy(s.Page())
	case "pgup", "b":
		s.ScrollBy(-s.Page())
	case "g", "home":
		s.Top()
	case "G", "end":
		s.Bottom()
	default:
		return false
	}
	return true
}

// helpBody is the help as shown: the lines that fit, and under them, when
// it does not fit, where the rest is and how to reach it.
func (m *Model) helpBody() string {
	s := &m.helpScroll
	body := s.View()
	if s.Len() <= m.paneHeight() {
		return body
	}
	more := fmt.Sprintf("%d%% · j/k ↑/↓ pgup/pgdn scroll · any other key closes", s.Percent())
	return common.Fit(body, m.width, m.paneHeight()-1) + "\n" + m.c.Styles.Dim.Render(common.Truncate(more, m.width))
}

func (m *Model) tabLabel(i int) string {
	return fmt.Sprintf("%d %s", i+1, m.panes[i].Title())
}

// tabRanges are the screen columns of each tab, for clicks.
func (m *Model) tabRanges() [][2]int {
	var out [][2]int
	x := 1
	for i := range m.panes {
		w := ansi.StringWidth(m.tabLabel(i)) + 2 // TabActive and TabIdle pad one cell each side
		out = append(out, [2]int{x, x + w})
		x += w
	}
	return out
}

func (m *Model) tabsView() string {
	s := m.c.Styles
	var b strings.Builder
	b.WriteString(s.Title.Render("◆"))
	for i := range m.panes {
		if i == m.active {
			b.WriteString(s.TabActive.Render(m.tabLabel(i)))
		} else {
			b.WriteString(s.TabIdle.Render(m.tabLabel(i)))
		}
	}
	right := s.Dim.Render("? help · : tools")
	left := b.String()
	gap := m.width - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap >= 2 {
		return left + strings.Repeat(" ", gap) + right
	}
	return common.Truncate(left, m.width)
}

// statusView is the gateway, the last error or notice, running background
// work, the last call's trace_id and latency, the credits when known and
// the audio state. When they do not fit, the least useful part goes first
// so a notice or an error is read whole even at 80 columns: audio, then the gateway (which the user chose
// and rarely needs reminding of), then credits, then the trace.
func (m *Model) statusView() string {
	s := m.c.Styles
	type part struct {
		text    string
		drop    int    // 0 never dropped; higher numbers go first
		session string // the credits spent this session, dropped first
	}
	var parts []part
	// notice is the part that says the notice, which is cut in the
	// middle when even alone it does not fit: a path keeps its end, the
	// file's name and extension.
	notice, noticeText, noticeStyle := -1, "", s.OK
	gw := m.c.Gateway
	if gw == "" {
		gw = "gateway"
	}
	parts = append(parts, part{text: s.Label.Render("⇄ ") + s.Text.Render(gw), drop: 3})
	switch {
	case m.problem != nil:
		parts = append(parts, part{text: s.Err.Render("✗ " + common.OneLine(m.problem.StatusText())), drop: 0})
	case m.notice != "" && m.noticeWarn:
		notice, noticeText, noticeStyle = len(parts), "! "+m.notice, s.Warn
		parts = append(parts, part{text: s.Warn.Render(noticeText), drop: 0})
	case m.notice != "":
		notice, noticeText = len(parts), "✓ "+m.notice
		parts = append(parts, part{text: s.OK.Render(noticeText), drop: 0})
	case m.loading:
		parts = append(parts, part{text: s.Dim.Render("loading tools…"), drop: 0})
	}
	if w := m.watchesPart(); w != "" {
		parts = append(parts, part{text: w, drop: 1})
	}
	if m.backKey() {
		parts = append(parts, part{text: s.Key.Render("esc") + s.Dim.Render(" back to "+m.panes[m.openedFrom].Title()), drop: backDrop(m.notice != "")})
	}
	for i, p := range m.panes {
		if b, ok := p.(common.Backgrounder); ok && i != m.active {
			if line := b.Background(); line != "" {
				parts = append(parts, part{text: s.Warn.Render("⟳ " + line), drop: 0})
			}
		}
	}
	if c := m.lastCall; c != nil {
		t := c.TraceID
		if t == "" {
			t = "-"
		}
		parts = append(parts, part{text: s.Label.Render("trace ") + s.Text.Render(t) + s.Dim.Render(" "+latency(c.Latency)), drop: 1})
	}
	if c := m.credits; c != nil {
		parts = append(parts, part{text: s.Label.Render("credits ") + s.Text.Render(creditsText(*c)), drop: 2})
		if m.creditsBefore > 0 {
			// Not all of it is this session's: a TUI opened after the
			// README's CLI steps has not spent 5 credits doing nothing.
			// Said first, given up first (level 5) when it does not fit.
			parts[len(parts)-1].session = s.Dim.Render(fmt.Sprintf(" (%d this session)", c.CreditsUsed-m.creditsBefore))
		}
	}
	if m.c.AudioState != nil {
		parts = append(parts, part{text: s.Label.Render("♪ ") + s.Text.Render(m.c.AudioState()), drop: 4})
	}
	join := func() string {
		texts := make([]string, len(parts))
		for i, p := range parts {
			texts[i] = p.text + p.session
		}
		return strings.Join(texts, s.Dim.Render(" │ "))
	}
	if ansi.StringWidth(join()) > m.width {
		for i := range parts {
			parts[i].session = ""
		}
	}
	for level := 4; level > 0 && ansi.StringWidth(join()) > m.width; level-- {
		kept := parts[:0]
		for _, p := range parts {
			if p.drop != level {
				kept = append(kept, p)
			}
		}
		parts = kept
	}
	if over := ansi.StringWidth(join()) - m.width; over > 0 && notice >= 0 {
		for i := range parts {
			if strings.Contains(parts[i].text, noticeText) {
				parts[i].text = noticeStyle.Render(common.TruncateMiddle(noticeText, max(8, ansi.StringWidth(noticeText)-over)))
			}
		}
	}
	return common.Truncate(join(), m.width)
}

// backDrop is when "esc back to …" gives way: never, but to a notice,
// which is read whole first and clears soon (it then shows again).
func backDrop(notice bool) int {
	if notice {
		return 1
	}
	return 0
}

// newerCredits says whether ci's credit count supersedes shown's. A call
// begun after shown's count arrived was counted after it, so its count
// stands even when lower (a refund, a new quota period). Of two calls
// that overlapped, either may have been counted last (a slow voice list
// begun before a search can report after it, with the count from before
// it): the larger count is the later, as a period's count only grows.
func newerCredits(ci api.CallInfo, shown *api.CallInfo) bool {
	if shown == nil || !ci.Started.Before(shown.CreditsAt) {
		return true
	}
	return ci.CreditsUsed >= shown.CreditsUsed
}

// creditsText is the credits the gateway reported: used, or used/limit
// when the workspace has a limit.
func creditsText(c api.CallInfo) string {
	if c.CreditsLimit > 0 {
		return fmt.Sprintf("%d/%d", c.CreditsUsed, c.CreditsLimit)
	}
	return fmt.Sprint(c.CreditsUsed)
}

func latency(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

func (m *Model) helpView() string {
	s := m.c.Styles
	p := m.panes[m.active]
	var b strings.Builder
	b.WriteString(s.Title.Render(p.Title()+" keys") + s.Dim.Render("  (j/k scroll · any other key closes)") + "\n\n")
	b.WriteString(m.fullHelp(p.KeyMap().FullHelp()))
	b.WriteString("\n\n" + s.Title.Render("Everywhere") + "\n")
	h := m.help
	h.SetWidth(0)
	pane := m.c.Keys().Root.Pane
	pane.SetHelp(fmt.Sprintf("1-%d", len(m.panes)), "go to pane")
	global := h.ShortHelpView([]key.Binding{m.c.Keys().Root.Next, m.c.Keys().Root.Prev, pane, m.c.Keys().Root.Palette, m.c.Keys().Root.Help, m.c.Keys().Root.Quit, m.c.Keys().Root.ForceQuit})
	b.WriteString(common.Wrap(global, m.width))
	rule := fmt.Sprintf("A line with a cursor takes what you type; esc (or tab) leaves it, then single keys are commands. On an empty line the digits 1-%d, : and ? still act. ctrl+k and ctrl+c work everywhere. Mouse: click tabs and rows.", len(m.panes))
	b.WriteString("\n" + s.Dim.Render(common.Wrap(rule, m.width)))
	return b.String()
}

// fullHelp lays the binding groups out as columns, starting a new row of
// columns when the next would not fit the width, so nothing is cut at 80.
func (m *Model) fullHelp(groups [][]key.Binding) string {
	h := m.help
	h.SetWidth(0) // measure untruncated
	var rows []string
	var cur [][]key.Binding
	for _, g := range groups {
		try := append(append([][]key.Binding(nil), cur...), g)
		if len(cur) > 0 && ansi.StringWidth(widestLine(h.FullHelpView(try))) > m.width {
			rows = append(rows, h.FullHelpView(cur))
			cur = [][]key.Binding{g}
			continue
		}
		cur = try
	}
	if len(cur) > 0 {
		rows = append(rows, h.FullHelpView(cur))
	}
	return strings.Join(rows, "\n\n")
}

func widestLine(s string) string {
	widest := ""
	for _, l := range strings.Split(s, "\n") {
		if ansi.StringWidth(l) > ansi.StringWidth(widest) {
			widest = l
		}
	}
	return widest
}

// View composes the tab line, the active pane (or the help or palette) and
// the status bar. It is the only View returning a tea.View.
func (m *Model) View() tea.View {
	if m.width > 0 {
		m.firstFrame.Do(func() { m.c.TracePhase("first frame") })
	}
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "hark"
	return v
}

// Render is the screen as a string (what View shows), for tests.
func (m *Model) Render() string {
	if m.width == 0 || m.height == 0 {
		return ""
	}
	var body string
	switch {
	case m.palette != nil:
		body = m.palette.view(m.width, m.paneHeight())
	case m.showHelp:
		body = m.helpBody()
	default:
		body = m.panes[m.active].View()
	}
	return m.tabsView() + "\n" + common.Fit(body, m.width, m.paneHeight()) + "\n" + m.statusView()
}
