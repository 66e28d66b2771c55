package ui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/api/apitest"
	"hark/library"
	"hark/ui/common"
	"hark/ui/internal/uitest"
	"hark/ui/pages"
	"hark/ui/research"
	"hark/ui/search"
	"hark/ui/tools"
	"hark/ui/voices"
)

func newModel(t *testing.T, srv *apitest.Server, w, h int) *Model {
	c, _ := uitest.Common(t, srv)
	m := New(c)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(common.ToolsMsg{Tools: c.Tools})
	return m
}

func TestGoldenShell(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 30}} {
		m := newModel(t, nil, sz[0], sz[1])
		name := func(s string) string { return s + "_" + itoa(sz[0]) + "x" + itoa(sz[1]) }
		m.Update(common.CallMsg{Method: "POST", Path: "/x", TraceID: "trace-abc", Status: 200, Latency: 123 * time.Millisecond})
		uitest.Golden(t, name("search"), m.Render())
		for i, title := range []string{"pages", "research", "voices", "tools"} {
			m.active = i + 1
			if title == "voices" {
				continue // the voice studio has its own goldens (ui/voices)
			}
			uitest.Golden(t, name(title), m.Render())
		}
		m.active = 4
		m.Update(uitest.Press("?"))
		uitest.Golden(t, name("help"), m.Render())
		m.Update(uitest.Press("q")) // any key closes help
		m.Update(uitest.Press(":"))
		uitest.Golden(t, name("palette"), m.Render())
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestKeysSwitchPanesUnlessTyping(t *testing.T) {
	m := newModel(t, nil, 80, 24)
	// The search line has focus at start, empty: the digits the tab bar
	// advertises switch panes (a new user's first keys).
	m.Update(uitest.Press("2"))
	if m.Active() != 1 {
		t.Fatalf("2 on the empty query line went to pane %d, want Pages", m.Active())
	}
	m.Update(uitest.Press("1"))
	// Once something is typed, digits are part of the query.
	m.Update(uitest.Press("x"))
	m.Update(uitest.Press("2"))
	if m.Active() != 0 || m.panes[0].(*search.Pane).Query() != "x2" {
		t.Fatalf("a digit typed after x: pane %d, query %q", m.Active(), m.panes[0].(*search.Pane).Query())
	}
	m.Update(uitest.Press("ctrl+k"))
	if m.palette == nil {
		t.Fatal("ctrl+k did not open the palette while typing")
	}
	m.Update(uitest.Press("esc"))
	m.Update(uitest.Press("esc"))
	m.Update(uitest.Press("3"))
	if m.Active() != 2 {
		t.Errorf("3 went to pane %d", m.Active())
	}
	// Research arrives with its empty question focused: a digit switches
	// too, and comes back.
	m.Update(uitest.Press("4"))
	if m.Active() != 3 {
		t.Fatalf("4 on the empty research question went to pane %d", m.Active())
	}
	m.Update(uitest.Press("3"))
	m.Update(uitest.Press("esc"))
	m.Update(uitest.Press("tab"))
	if m.Active() != 3 {
		t.Errorf("tab went to pane %d", m.Active())
	}
	m.Update(uitest.Press("shift+tab"))
	if m.Active() != 2 {
		t.Errorf("shift+tab went to pane %d", m.Active())
	}
	_, cmd := m.Update(uitest.Press("q"))
	if cmd == nil {
		t.Fatal("q does not quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("q does not quit")
	}
}

func TestMouseClickOnTab(t *testing.T) {
	m := newModel(t, nil, 80, 24)
	r := m.tabRanges()[4]
	m.Update(tea.MouseClickMsg{X: r[0] + 1, Y: 0, Button: tea.MouseLeft})
	if m.Active() != 4 {
		t.Errorf("click on Tools tab went to %d", m.Active())
	}
	line := uitest.Plain(m.tabsView())
	if !strings.HasPrefix(line[strings.Index(line, "5 Tools")-1:], " 5 Tools") {
		t.Errorf("tab ranges do not match the drawing: %q", line)
	}
}

func TestRoutingAndStatus(t *testing.T) {
	m := newModel(t, nil, 80, 24)
	m.Update(common.OpenPagesMsg{URLs: []string{"https://a.test"}})
	if m.panes[m.Active()].Title() != "Pages" {
		t.Errorf("OpenPagesMsg showed %s", m.panes[m.Active()].Title())
	}
	m.Update(common.RunToolMsg{Tool: *m.c.Tool(api.ToolResearch), Inputs: map[string]any{"input": "q"}})
	if m.panes[m.Active()].Title() != "Research" {
		t.Errorf("research went to %s", m.panes[m.Active()].Title())
	}
	m.Update(common.RunToolMsg{Tool: api.Tool{Slug: "brand_new"}, Inputs: map[string]any{}})
	if m.panes[m.Active()].Title() != "Tools" {
		t.Errorf("unknown tool went to %s", m.panes[m.Active()].Title())
	}
	m.Update(common.ErrorMsg{Err: &api.Error{Message: "vendor API request failed: dial tcp", TraceID: "tr-9", Vendor: &api.VendorFailure{Vendor: "vendor"}}})
	st := uitest.Plain(m.statusView())
	if !strings.Contains(st, "vendor API request failed") || !strings.Contains(st, "tr-9") {
		t.Errorf("status lacks the error and trace: %s", st)
	}
	// A call already under way when the error came (it began 1.5 s ago,
	// as the voice list a start began) says nothing about it.
	m.Update(common.CallMsg{TraceID: "tr-10", Status: 200, Latency: 1500 * time.Millisecond})
	st = uitest.Plain(m.statusView())
	if !strings.Contains(st, "✗ vendor API request failed") {
		t.Errorf("status after a call begun before the error: %s", st)
	}
	// One made since, that worked, supersedes it.
	m.Update(common.CallMsg{TraceID: "tr-11", Status: 200})
	st = uitest.Plain(m.statusView())
	if strings.Contains(st, "✗") || !strings.Contains(st, "trace tr-11") {
		t.Errorf("status after success: %s", st)
	}
}

func TestCreditsWhenKnown(t *testing.T) {
	m := newModel(t, nil, 120, 24)
	m.Update(common.CallMsg{TraceID: "t0", Status: 200})
	if strings.Contains(uitest.Plain(m.statusView()), "credits") {
		t.Error("credits shown though unknown")
	}
	m.Update(common.CallMsg{TraceID: "t1", Status: 200, HasCredits: true, CreditsUsed: 12, CreditsCharged: 2})
	if st := uitest.Plain(m.statusView()); !strings.Contains(st, "credits 12") {
		t.Errorf("no limit: status %q, want credits 12", st)
	}
	m.Update(common.CallMsg{TraceID: "t2", Status: 200, HasCredits: true, CreditsUsed: 14, CreditsLimit: 1000})
	// A later call without the headers (a WebSocket handshake, another
	// gateway path) keeps the last figure known.
	m.Update(common.CallMsg{TraceID: "t3", Status: 200})
	if st := uitest.Plain(m.statusView()); !strings.Contains(st, "credits 14/1000") || !strings.Contains(st, "trace t3") {
		t.Errorf("with limit: status %q, want credits 14/1000 and trace t3", st)
	}
	// A slow call begun before a search, whose count it read before the
	// search was charged, reports after it, even with headers that
	// arrived later: its older figure does not replace the newer one.
	now := time.Now()
	m.Update(common.CallMsg{TraceID: "t4", Status: 200, HasCredits: true, CreditsUsed: 16, Started: now.Add(-20 * time.Millisecond), CreditsAt: now})
	m.Update(common.CallMsg{TraceID: "t5", Status: 200, HasCredits: true, CreditsUsed: 15, Started: now.Add(-150 * time.Millisecond), CreditsAt: now.Add(5 * time.Millisecond)})
	if st := uitest.Plain(m.statusView()); !strings.Contains(st, "credits 16") || !strings.Contains(st, "trace t5") {
		t.Errorf("a late report: status %q, want credits 16 and trace t5", st)
	}
	// A call begun after that count arrived was counted after it: a lower
	// count (a refund, a new period) stands.
	m.Update(common.CallMsg{TraceID: "t6", Status: 200, HasCredits: true, CreditsUsed: 3, Started: now.Add(10 * time.Millisecond), CreditsAt: now.Add(20 * time.Millisecond)})
	if st := uitest.Plain(m.statusView()); !strings.Contains(st, "credits 3") {
		t.Errorf("a count from after the shown one: status %q, want credits 3", st)
	}
}

// At 80 columns the audio state goes first, then the gateway, so that a
// notice is read whole.
func TestStatusDropsLeastUsefulFirst(t *testing.T) {
	m := newModel(t, nil, 80, 24)
	m.c.Gateway = "https://gw.example.com"
	m.c.AudioState = func() string { return "audio auto, idle" }
	m.Update(common.CallMsg{TraceID: "4cd7f2c174cee335", Status: 200, HasCredits: true, CreditsUsed: 7})
	st := uitest.Plain(m.statusView())
	for _, want := range []string{"gw.example.com", "trace 4cd7f2c174cee335", "credits 7"} {
		if !strings.Contains(st, want) {
			t.Errorf("status %q lacks %q", st, want)
		}
	}
	if strings.Contains(st, "♪") {
		t.Errorf("audio kept though the rest did not fit: %q", st)
	}
	m.Update(common.NoticeMsg{Text: "saved /home/someone/research/research-20260102-150405.md"})
	st = uitest.Plain(m.statusView())
	if !strings.Contains(st, "research-20260102-150405.md") || strings.Contains(st, "gw.example") {
		t.Errorf("notice cut, or the gateway kept before it: %q", st)
	}
	m.Update(common.CallMsg{TraceID: "5", Status: 200})
	if st = uitest.Plain(m.statusView()); strings.Contains(st, "saved") || !strings.Contains(st, "gw.example.com") {
		t.Errorf("a later call left the old notice or did not bring the gateway back: %q", st)
	}
	m.width = 200
	if st = uitest.Plain(m.statusView()); !strings.Contains(st, "♪ audio auto, idle") {
		t.Errorf("audio hidden though it fits: %q", st)
	}
}

func TestBackgroundColorRestyles(t *testing.T) {
	m := newModel(t, nil, 80, 24)
	m.Update(tea.BackgroundColorMsg{Color: lightColor{}})
	if m.c.Styles.Dark {
		t.Error("light background kept dark styles")
	}
}

type lightColor struct{}

func (lightColor) RGBA() (r, g, b, a uint32) { return 0xffff, 0xffff, 0xffff, 0xffff }

func TestNoColorHasNoColours(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	c.Styles = common.NewStyles(true, true)
	m := New(c)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(common.ToolsMsg{Tools: c.Tools})
	m.Update(tea.BackgroundColorMsg{Color: lightColor{}})
	out := m.Render()
	for _, sgr := range []string{"38;", "48;"} {
		if strings.Contains(out, sgr) {
			t.Fatalf("NO_COLOR output has colour %q: %q", sgr, out)
		}
	}
}

// --- end to end, in a real tea.Program ---

type running struct {
	t *testing.T
	p *tea.Program
}

func start(t *testing.T, srv *apitest.Server, w, h int) *running {
	return startAt(t, srv.URL, apitest.Key, w, h)
}

// startAt runs the TUI in a real tea.Program against the gateway at base.
func startAt(t *testing.T, base, key string, w, h int) *running {
	t.Helper()
	return startWith(t, base, key, w, h, nil)
}

// startWith is startAt with a chance to set up the Common first (audio,
// a Send that watches messages).
func startWith(t *testing.T, base, key string, w, h int, setup func(c *common.Common)) *running {
	t.Helper()
	return startTuned(t, base, key, w, h, setup, nil)
}

// startTuned is startWith whose root model tune changes first (its test
// hooks: the watches' poll).
func startTuned(t *testing.T, base, key string, w, h int, setup func(c *common.Common), tune func(m *Model)) *running {
	t.Helper()
	c, _ := uitest.Common(t, nil)
	c.Clock = nil
	var prog *tea.Program
	cl, err := api.New(api.Options{BaseURL: base, APIKey: key, OnCall: func(ci api.CallInfo) {
		if prog != nil {
			prog.Send(common.CallMsg(ci))
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	c.Client, c.Tools = nil, nil
	c.Connect = func(context.Context) (*api.Client, error) { return cl, nil }
	m := New(c)
	if tune != nil {
		tune(m)
	}
	prog = tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(discard{}), tea.WithWindowSize(w, h), tea.WithoutSignals())
	c.Send = prog.Send
	if setup != nil {
		setup(c)
	}
	done := make(chan error, 1)
	go func() { _, err := prog.Run(); done <- err }()
	t.Cleanup(func() {
		prog.Quit()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			prog.Kill()
		}
	})
	r := &running{t: t, p: prog}
	r.waitFor("tool list", func(m *Model) bool { return len(m.c.Tools) > 0 })
	return r
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

func (r *running) keys(ks ...string) {
	for _, k := range ks {
		r.p.Send(uitest.Press(k))
	}
}

func (r *running) typeText(s string) {
	for _, k := range uitest.Type(s) {
		r.p.Send(k)
	}
}

// waitFor polls the model inside Update until cond holds.
func (r *running) waitFor(what string, cond func(*Model) bool) *Model {
	r.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ch := make(chan bool, 1)
		r.p.Send(inspectMsg(func(m *Model) { ch <- cond(m) }))
		select {
		case ok := <-ch:
			if ok {
				return nil
			}
		case <-time.After(2 * time.Second):
		}
		time.Sleep(20 * time.Millisecond)
	}
	var screen string
	ch := make(chan string, 1)
	r.p.Send(inspectMsg(func(m *Model) { ch <- uitest.Plain(m.Render()) }))
	select {
	case screen = <-ch:
	case <-time.After(time.Second):
	}
	r.t.Fatalf("timed out waiting for %s; screen:\n%s", what, screen)
	return nil
}

func screenHas(s string) func(*Model) bool {
	return func(m *Model) bool { return strings.Contains(uitest.Plain(m.Render()), s) }
}

func TestE2ESearchOpenExtractBack(t *testing.T) {
	srv := apitest.New(t)
	r := start(t, srv, 100, 30)
	r.typeText("charm tui")
	r.keys("enter")
	r.waitFor("results", func(m *Model) bool {
		res := m.panes[0].(*search.Pane).Result()
		return res != nil && len(res.Results) == 2
	})
	r.waitFor("trace in status bar", func(m *Model) bool { return strings.Contains(uitest.Plain(m.statusView()), "trace trace-") })
	r.keys("j", "enter")
	r.waitFor("page read in Pages", func(m *Model) bool {
		pg := m.panes[1].(*pages.Pane).Reading()
		return m.Active() == 1 && pg != nil && pg.URL == "https://example.com/2" && screenHas("Page https://example.com/2")(m)
	})
	var body api.InvokeRequest
	if err := json.Unmarshal(srv.Last(apitest.InvokePath(api.ToolExtract)).Body, &body); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(body.Inputs["urls"]); string(b) != `["https://example.com/2"]` {
		t.Errorf("extract sent urls %s", b)
	}
	r.keys("esc")
	r.waitFor("back to the page list", screenHas("example.com (1)"))
	r.keys("1")
	r.waitFor("search results kept", func(m *Model) bool {
		return m.Active() == 0 && screenHas("Result 2 for charm tui")(m)
	})
}

func TestE2EResearchSlowThenCancel(t *testing.T) {
	srv := apitest.New(t)
	srv.Script(apitest.InvokePath(api.ToolResearch), apitest.Slow(time.Minute, apitest.OK(nil)))
	r := start(t, srv, 80, 24)
	r.keys("esc", "3")
	r.typeText("a slow question")
	r.keys("enter")
	r.waitFor("research running", screenHas("researching “a slow question”"))
	// Other panes stay usable while it runs.
	r.keys("1", "/")
	r.waitFor("research shown in the status bar", func(m *Model) bool {
		return strings.Contains(uitest.Plain(m.statusView()), "⟳ research ")
	})
	r.typeText("meanwhile")
	r.keys("enter")
	r.waitFor("search done meanwhile", screenHas("Result 1 for meanwhile"))
	r.keys("3")
	r.waitFor("still running", screenHas("x cancels"))
	r.keys("x")
	r.waitFor("cancelled", func(m *Model) bool {
		s := m.panes[2].(*research.Pane).Current()
		return s != nil && !s.Running && s.Err != nil && strings.Contains(uitest.Plain(m.statusView()), "cancelled")
	})
}

func TestE2EUnknownToolGeneratedForm(t *testing.T) {
	srv := apitest.New(t)
	srv.SetToolList(`{"tools": [{"slug": "acme_weather", "name": "Weather", "description": "Forecast for a city",
	  "input_schema": {"type": "object", "required": ["city"], "properties": {
	    "city": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "maximum": 7, "default": 3},
	    "units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric"}}}}]}`)
	srv.Script(apitest.InvokePath("acme_weather"), apitest.OK(map[string]any{"service": "vendor_search", "tool": "acme_weather",
		"output": map[string]any{"city": "Oslo", "forecast": []any{map[string]any{"day": 1, "high": -2}}}}))
	r := start(t, srv, 80, 24)
	r.keys("esc", ":")
	r.typeText("weath")
	r.waitFor("palette lists the tool", screenHas("acme_weather"))
	r.keys("enter")
	r.waitFor("generated form", func(m *Model) bool {
		f := m.panes[4].(*tools.Pane).Form()
		return f != nil && f.Tool.Slug == "acme_weather" && screenHas("units")(m)
	})
	r.keys("tab", "backspace")
	r.typeText("9")
	r.waitFor("inline range error", screenHas("days must be between 1 and 7"))
	r.keys("enter")
	if srv.Count(apitest.InvokePath("acme_weather")) != 0 {
		t.Fatal("an invalid form was sent")
	}
	r.waitFor("required error", screenHas("city is required"))
	// The first invalid field (city) now has focus.
	r.typeText("Oslo")
	r.keys("tab", "backspace")
	r.typeText("2")
	r.keys("enter")
	r.waitFor("output tree", func(m *Model) bool {
		return m.panes[4].(*tools.Pane).Tree() != nil && screenHas(`city: "Oslo"`)(m)
	})
	var body api.InvokeRequest
	if err := json.Unmarshal(srv.Last(apitest.InvokePath("acme_weather")).Body, &body); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(body.Inputs); string(b) != `{"city":"Oslo","days":2}` {
		t.Errorf("sent %s", b)
	}
}

// ":" and "?" on the empty query line (where a new user starts) open the
// palette and the help; once something is typed they are text.
func TestColonAndQuestionOnEmptyLine(t *testing.T) {
	m := newModel(t, nil, 80, 24)
	m.Update(uitest.Press(":"))
	if m.palette == nil {
		t.Fatal(": on the empty query line did not open the palette")
	}
	m.Update(uitest.Press("esc"))
	m.Update(uitest.Press("?"))
	if !m.showHelp {
		t.Fatal("? on the empty query line did not show the help")
	}
	m.Update(uitest.Press("x")) // closes the help
	for _, k := range uitest.Type("a:b?") {
		m.Update(k)
	}
	if m.palette != nil || m.showHelp {
		t.Fatal(": or ? after text left the query line")
	}
	if screen := uitest.Plain(m.Render()); !strings.Contains(screen, "› a:b?") {
		t.Errorf("query line is not a:b?:\n%s", screen)
	}
}

// A palette query matching nothing says which tools exist and how to go
// on, instead of an empty list.
func TestPaletteUnknownToolExplains(t *testing.T) {
	m := newModel(t, nil, 80, 24)
	m.Update(uitest.Press("ctrl+k"))
	for _, k := range uitest.Type("frobnicate") {
		m.Update(k)
	}
	m.Update(uitest.Press("enter"))
	if m.palette == nil {
		t.Fatal("enter on no match closed the palette")
	}
	screen := uitest.Plain(m.Render())
	for _, want := range []string{`no tool matching "frobnicate"`, api.ToolSearch, "esc closes"} {
		if !strings.Contains(screen, want) {
			t.Errorf("palette lacks %q:\n%s", want, screen)
		}
	}
}

// Items whose name matches come before those matched by their
// description alone: "index" offers the index's entry first, not the
// search tool that reads "the pages this gateway has indexed".
func TestPaletteNameMatchesFirst(t *testing.T) {
	m := newModel(t, nil, 80, 24)
	m.c.Index = listIndex{}
	for i := range m.c.Tools {
		if m.c.Tools[i].Slug == api.ToolSearch {
			m.c.Tools[i].Description = "Keyword search of the pages this gateway has indexed."
		}
	}
	m.Update(uitest.Press("ctrl+k"))
	for _, k := range uitest.Type("index") {
		m.Update(k)
	}
	var labels []string
	for _, it := range m.palette.items {
		labels = append(labels, it.label)
	}
	if len(labels) != 3 || labels[0] != "index a folder, URL or sitemap" || labels[1] != "index sources" || labels[2] != api.ToolSearch {
		t.Errorf("palette for \"index\": %q", labels)
	}
}

// Clicks on a scrolled palette choose the row drawn under the pointer.
func TestPaletteClickWhenScrolled(t *testing.T) {
	m := newModel(t, nil, 80, 10) // 8 rows for the palette: 5 items shown
	m.Update(uitest.Press("ctrl+k"))
	for range 7 {
		m.Update(uitest.Press("down"))
	}
	want := m.palette.items[m.palette.cursor].label
	screen := strings.Split(uitest.Plain(m.Render()), "\n")
	row := -1
	for y, l := range screen {
		if strings.Contains(l, "▌ "+want) {
			row = y
		}
	}
	if row < 0 {
		t.Fatalf("selected item %q not drawn:\n%s", want, strings.Join(screen, "\n"))
	}
	before := m.palette.cursor
	m.Update(tea.MouseClickMsg{X: 5, Y: row, Button: tea.MouseLeft})
	if m.palette == nil {
		return // a second click on the selected row chose it: right
	}
	t.Errorf("click on the drawn row of item %d (%q) moved the cursor to %d", before, want, m.palette.cursor)
}

// hark --search QUERY opens on Search with the query's results, run as
// soon as the tool list arrives.
func TestStartQueryShowsResults(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	c.StartQuery = "charm tui"
	m := New(c)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	_, cmd := m.Update(common.ToolsMsg{Tools: c.Tools})
	uitest.Settle(func(msg tea.Msg) tea.Cmd { _, c := m.Update(msg); return c }, cmd)
	if m.Active() != 0 || !screenHas("Result 1 for charm tui")(m) {
		t.Errorf("the start query's results are not shown:\n%s", uitest.Plain(m.View().Content))
	}
	if c.StartQuery != "" {
		t.Error("the start query would run again on the next tool list")
	}
}

// A text area owns its keys: ctrl+k in the Speak text deletes to the end
// of the line, as text areas do, and opens no palette.
func TestSpeakTextAreaOwnsCtrlK(t *testing.T) {
	m := newModel(t, nil, 100, 30)
	m.Update(uitest.Press("esc"))
	m.Update(uitest.Press("4"))
	if m.Active() != 3 {
		t.Fatalf("4 went to pane %d", m.Active())
	}
	for i := 0; i < 10 && m.panes[3].(*voices.Pane).Section() != voices.SectionSpeak; i++ {
		m.Update(uitest.Press("]"))
	}
	m.Update(uitest.Press("e"))
	if !m.panes[3].Capturing() {
		t.Fatal("e did not start editing the Speak text")
	}
	m.Update(uitest.Press("ctrl+k"))
	if m.palette != nil {
		t.Fatal("ctrl+k in the Speak text area opened the palette")
	}
	m.Update(uitest.Press("esc"))
	m.Update(uitest.Press("ctrl+k"))
	if m.palette == nil {
		t.Error("ctrl+k out of the text area does not open the palette")
	}
}

// A kept item opens where its kind is shown, from what was kept, with no
// gateway at all.
func TestKeptItemsOpenByKind(t *testing.T) {
	m := newModel(t, nil, 100, 30)
	out := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	for _, tc := range []struct {
		item library.Item
		pane string
		want string
	}{
		{library.Item{ID: 1, Kind: library.KindSearch, Tool: api.ToolSearch, Query: "zebra", Inputs: `{"query":"zebra"}`,
			Output: out(api.SearchOutput{Query: "zebra", Results: []api.SearchResult{{Title: "Zebra crossing rules", URL: "https://en.example/zebra"}}})},
			"Search", "Zebra crossing rules"},
		{library.Item{ID: 2, Kind: library.KindResearch, Tool: api.ToolResearch, Query: "why stripes?",
			Output: out(api.ResearchOutput{RequestID: "r", Status: api.ResearchCompleted, Content: "Stripes confuse flies."})},
			"Research", "from the library"},
		{library.Item{ID: 3, Kind: library.KindPage, Tool: api.ToolExtract, URL: "https://docs.example/okapi", Body: "The okapi is a giraffid."},
			"Pages", "docs.example/okapi"},
		{library.Item{ID: 4, Kind: library.KindCrawl, Tool: api.ToolCrawl, URL: "https://site.example/",
			Output: out(api.CrawlOutput{BaseURL: "https://site.example/", Results: []api.PageContent{{URL: "https://site.example/quagga", RawContent: "Quagga."}}})},
			"Pages", "quagga"},
	} {
		_, cmd := m.Update(common.ShowKeptMsg{Item: tc.item})
		uitest.Settle(func(msg tea.Msg) tea.Cmd { _, c := m.Update(msg); return c }, cmd)
		if got := m.panes[m.Active()].Title(); got != tc.pane {
			t.Errorf("%s opened in %s, want %s", tc.item.Kind, got, tc.pane)
		}
		if v := uitest.Plain(m.View().Content); !strings.Contains(v, tc.want) {
			t.Errorf("%s: screen lacks %q:\n%s", tc.item.Kind, tc.want, v)
		}
	}
}

type listIndex struct{}

func (listIndex) Index(context.Context, string, func(int, string)) (int, error) { return 0, nil }
func (listIndex) Sources(context.Context) ([]common.IndexSource, error) {
	return []common.IndexSource{{Source: "/usr/share/doc/valgrind/html", Pages: 41, Indexed: uitest.Epoch}}, nil
}
func (listIndex) Remove(context.Context, string) (int, error) { return 0, nil }
func (listIndex) Pages(context.Context) (int, error)          { return 41, nil }

// The index sources list is a list, not a text line: : opens the
// palette there and the digits switch panes, as everywhere.
func TestIndexSourcesListLeavesRootKeys(t *testing.T) {
	m := newModel(t, nil, 80, 24)
	m.c.Index = listIndex{}
	_, cmd := m.Update(common.IndexMsg{Sources: true})
	uitest.Settle(func(msg tea.Msg) tea.Cmd { _, c := m.Update(msg); return c }, cmd)
	if !strings.Contains(uitest.Plain(m.Render()), "Index sources (1)") {
		t.Fatalf("no source list:\n%s", uitest.Plain(m.Render()))
	}
	m.Update(uitest.Press(":"))
	if m.palette == nil {
		t.Fatal(": in the source list opened no palette")
	}
	m.Update(uitest.Press("esc"))
	m.Update(uitest.Press("3"))
	if m.Active() != 2 {
		t.Errorf("3 in the source list went to pane %d", m.Active())
	}
}

// fileIndex holds the text of indexed file:// pages.
type fileIndex struct{ listIndex }

func (fileIndex) IndexedPage(_ context.Context, u string) (string, string, bool, error) {
	return "Memcheck manual", "Memcheck is a memory error detector. It finds leaks.", false, nil
}

// A research source from an indexed folder opens in Pages with the text
// the index holds, and esc, once Pages has nothing to close, goes back to
// Research, as the status bar says.
func TestResearchFileSourceOpensAndEscGoesBack(t *testing.T) {
	m := newModel(t, nil, 100, 30)
	m.c.Index = fileIndex{}
	drive := func(msg tea.Msg) tea.Cmd { _, c := m.Update(msg); return c }
	out, _ := json.Marshal(api.ResearchOutput{RequestID: "r", Status: api.ResearchCompleted, Content: "Memcheck finds leaks [1].",
		Sources: []api.ResearchSource{{Title: "Memcheck manual", URL: "file:///usr/share/doc/valgrind/html/mc-manual.html"}}})
	uitest.Settle(drive, drive(common.ShowKeptMsg{Item: library.Item{ID: 9, Kind: library.KindResearch, Tool: api.ToolResearch, Query: "how are leaks found?", Output: string(out)}}))
	m.Update(uitest.Press("s"))
	uitest.Settle(drive, drive(uitest.Press("enter")))
	if m.Active() != 1 || !strings.Contains(uitest.Plain(m.Render()), "memory error detector") {
		t.Fatalf("the source did not open in Pages:\n%s", uitest.Plain(m.Render()))
	}
	m.Update(uitest.Press("esc")) // the reader back to the list
	if m.Active() != 1 {
		t.Fatalf("esc in the reader left Pages for pane %d", m.Active())
	}
	if v := uitest.Plain(m.statusView()); !strings.Contains(v, "esc back to Research") {
		t.Errorf("the status bar does not offer the way back: %s", v)
	}
	m.Update(uitest.Press("esc"))
	if m.Active() != 2 || !strings.Contains(uitest.Plain(m.Render()), "Sources (1)") {
		t.Errorf("esc in the page list went to pane %d:\n%s", m.Active(), uitest.Plain(m.Render()))
	}
	// Chosen by the user, a pane offers no way back.
	m.Update(uitest.Press("2"))
	m.Update(uitest.Press("esc"))
	if m.Active() != 1 {
		t.Errorf("esc after 2 went to pane %d", m.Active())
	}
}

// A crawl's pages are counted once: "1 page from vendor_crawl".
func TestPagesCountedOnce(t *testing.T) {
	m := newModel(t, nil, 100, 30)
	out, _ := json.Marshal(api.CrawlOutput{BaseURL: "https://site.example/", Results: []api.PageContent{{URL: "https://site.example/quagga", RawContent: "Quagga."}}})
	_, cmd := m.Update(common.ShowKeptMsg{Item: library.Item{ID: 4, Kind: library.KindCrawl, Tool: api.ToolCrawl, URL: "https://site.example/", Output: string(out)}})
	uitest.Settle(func(msg tea.Msg) tea.Cmd { _, c := m.Update(msg); return c }, cmd)
	v := uitest.Plain(m.Render())
	if !strings.Contains(v, "1 page from vendor_crawl") || strings.Contains(v, "1 page · 1 page") {
		t.Errorf("the count is said twice:\n%s", v)
	}
}

// Switching to the Library tab lists what another process kept since,
// without typing in its search line.
func TestLibraryReloadsWhenShown(t *testing.T) {
	lib, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	c, _ := uitest.Common(t, nil)
	c.Library = func() (*library.Store, error) { return lib, nil }
	m := New(c)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	drive := func(msg tea.Msg) tea.Cmd { _, c := m.Update(msg); return c }
	uitest.Settle(drive, m.panes[5].Init())
	if err := lib.Add(context.Background(), &library.Item{Kind: library.KindPage, Tool: api.ToolExtract, Title: "Quagga notes",
		URL: "https://docs.example/quagga", Body: "The quagga was a zebra.", Created: uitest.Epoch}); err != nil {
		t.Fatal(err)
	}
	m.Update(uitest.Press("esc"))
	uitest.Settle(drive, drive(uitest.Press("6")))
	if v := uitest.Plain(m.Render()); !strings.Contains(v, "Quagga notes") {
		t.Errorf("the Library did not reload when shown:\n%s", v)
	}
}

// A notice that is a warning (a job that failed, a report not verified)
// shows with "!", never with the check mark of a success (issue 43:
// "✓ crawl job c916a146 failed").
func TestWarningNoticeHasNoCheckMark(t *testing.T) {
	m := newModel(t, nil, 80, 24)
	m.Update(common.NoticeMsg{Text: "crawl job c916a146 failed: address is private", Warn: true})
	st := uitest.Plain(m.statusView())
	if !strings.Contains(st, "! crawl job c916a146 failed") || strings.Contains(st, "✓") {
		t.Errorf("a warning notice: %s", st)
	}
	m.Update(common.NoticeMsg{Text: "saved ~/r.md"})
	if st := uitest.Plain(m.statusView()); !strings.Contains(st, "✓ saved ~/r.md") {
		t.Errorf("a success notice: %s", st)
	}
	// A notice too long for 80 columns keeps its end: the file's name and
	// extension (issue 43: the export notice was cut before them).
	long := "exported ~/.local/share/hark/output/how-does-memcheck-find-memory-leaks-and-report-them-2.md"
	m.Update(common.NoticeMsg{Text: long})
	st = uitest.Plain(m.statusView())
	if ansi.StringWidth(st) > 80 || !strings.HasSuffix(strings.TrimSpace(st), "report-them-2.md") || !strings.Contains(st, "✓ exported ~/") {
		t.Errorf("a long notice at 80 columns: %q", st)
	}
}

// Every pane's help can be read whole at 80x24: a help taller than the
// pane scrolls (j/k, pgdn, G), and says so under it; none is cut (issue
// 43: Pages' help ended at "M map from here", without w, x and
// "Everywhere").
func TestEveryHelpScrollsAt80x24(t *testing.T) {
	m := newModel(t, nil, 80, 24)
	for i := range m.panes {
		m.goTo(i)
		m.Update(uitest.Press("esc"))
		m.Update(uitest.Press("?"))
		if !m.showHelp {
			t.Fatalf("%s: ? did not open the help", m.panes[i].Title())
		}
		seen := uitest.Plain(m.Render())
		for range 10 {
			m.Update(uitest.Press("pgdown"))
			seen += uitest.Plain(m.Render())
		}
		if !m.showHelp {
			t.Fatalf("%s: pgdown closed the help", m.panes[i].Title())
		}
		for _, want := range []string{m.panes[i].Title() + " keys", "Everywhere", "Mouse: click tabs and rows."} {
			if !strings.Contains(seen, want) {
				t.Errorf("%s: the help at 80x24, scrolled, never shows %q:\n%s", m.panes[i].Title(), want, seen)
			}
		}
		if m.panes[i].Title() == "Pages" {
			for _, want := range []string{"w export selected", "x cancel", "100% · j/k ↑/↓ pgup/pgdn scroll"} {
				if !strings.Contains(seen, want) {
					t.Errorf("Pages' help lacks %q:\n%s", want, seen)
				}
			}
		}
		m.Update(uitest.Press("x"))
		if m.showHelp {
			t.Errorf("%s: another key did not close the help", m.panes[i].Title())
		}
	}
}

// The help states the focus rule, digits included, and fits 80×24 in
// the pane with the most keys (Research).
func TestHelpStatesTheFocusRuleAt80x24(t *testing.T) {
	m := newModel(t, nil, 80, 24)
	m.active = 2
	m.Update(uitest.Press("esc"))
	m.Update(uitest.Press("?"))
	v := uitest.Plain(m.Render())
	for _, want := range []string{"ctrl+s save as markdown", "M/ctrl+o model", "On an empty line the digits 1-6, : and ? still act", "Mouse: click tabs and rows."} {
		if !strings.Contains(v, want) {
			t.Errorf("the help at 80x24 lacks %q:\n%s", want, v)
		}
	}
}

// Research runs as a job: the submit is the user's call (its trace and
// its charge show), the polls that follow it are not.
func TestJobSubmitShowsItsTraceAndCredits(t *testing.T) {
	m := newModel(t, nil, 120, 24)
	m.Update(common.CallMsg{Method: "POST", Path: "/x", TraceID: "t-search", Status: 200, HasCredits: true, CreditsUsed: 1})
	m.Update(common.CallMsg{Method: "POST", Path: api.PathJobs, TraceID: "t-research", Status: 200, HasCredits: true, CreditsUsed: 5, CreditsCharged: 4})
	st := uitest.Plain(m.statusView())
	if !strings.Contains(st, "trace t-research") || !strings.Contains(st, "credits 5") {
		t.Errorf("after a research job's submit: status %q, want its trace and credits 5", st)
	}
	m.Update(common.CallMsg{Method: "GET", Path: api.PathJobs + "/j1/events", TraceID: "t-poll", Status: 200})
	m.Update(common.CallMsg{Method: "GET", Path: api.PathJobs + "?active=1", TraceID: "t-list", Status: 200})
	if st := uitest.Plain(m.statusView()); !strings.Contains(st, "trace t-research") {
		t.Errorf("a job's polls took the status bar: %q", st)
	}
}

// H is the root's "previous pane", and in a reader the key that selects
// a passage to highlight, as the reader's key line says: while a report
// or a page is read, H selects; elsewhere it still goes to the pane
// before. The root took it first, so H in Research's report went to
// Pages, the report's "H highlight" never worked.
func TestHighlightKeyInReadersIsNotPreviousPane(t *testing.T) {
	m := newModel(t, nil, 100, 30)
	m.c.Index = fileIndex{}
	drive := func(msg tea.Msg) tea.Cmd { _, c := m.Update(msg); return c }
	out, _ := json.Marshal(api.ResearchOutput{RequestID: "r", Status: api.ResearchCompleted, Content: "Memcheck finds leaks. It reports them at exit [1].",
		Sources: []api.ResearchSource{{Title: "Memcheck manual", URL: "file:///usr/share/doc/valgrind/html/mc-manual.html"}}})
	uitest.Settle(drive, drive(common.ShowKeptMsg{Item: library.Item{ID: 9, Kind: library.KindResearch, Tool: api.ToolResearch, Query: "how are leaks found?", Output: string(out)}}))
	m.Update(uitest.Press("H"))
	if m.Active() != 2 || !m.panes[2].Capturing() {
		t.Fatalf("H in the report: pane %d, selecting %v\n%s", m.Active(), m.panes[2].Capturing(), uitest.Plain(m.Render()))
	}
	m.Update(uitest.Press("esc"))
	// The source in the Pages reader: H selects there too.
	m.Update(uitest.Press("s"))
	uitest.Settle(drive, drive(uitest.Press("enter")))
	if m.Active() != 1 {
		t.Fatalf("the source did not open in Pages: pane %d", m.Active())
	}
	m.Update(uitest.Press("H"))
	if m.Active() != 1 || !m.panes[1].Capturing() {
		t.Fatalf("H in the Pages reader: pane %d, selecting %v\n%s", m.Active(), m.panes[1].Capturing(), uitest.Plain(m.Render()))
	}
	m.Update(uitest.Press("esc"))
	m.Update(uitest.Press("esc")) // the reader back to the list
	m.Update(uitest.Press("H"))
	if m.Active() != 0 {
		t.Errorf("H on Pages' list went to pane %d, want the pane before (Search)", m.Active())
	}
}
