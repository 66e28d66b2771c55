package research

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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
)

func drive(p *Pane) func(tea.Msg) tea.Cmd {
	return func(m tea.Msg) tea.Cmd { _, c := p.Update(m); return c }
}

func report() *api.ResearchOutput {
	return &api.ResearchOutput{RequestID: "req-7", Status: api.ResearchCompleted,
		Content: "# Terminal UIs\n\nThey are **fast** over SSH.\n\n## Findings\n\n- one\n- two\n",
		Sources: []api.ResearchSource{{Title: "Charm", URL: "https://charm.sh"}, {Title: "", URL: "https://example.com/b"}}}
}

// finished puts a completed session with a rendered report in the pane.
func finished(t *testing.T, p *Pane, q string) *Session {
	t.Helper()
	p.nextID++
	s := &Session{ID: p.nextID, Question: q, Model: "mini", Started: uitest.Epoch, Running: true}
	p.sessions = append(p.sessions, s)
	p.show(s)
	uitest.Settle(drive(p), func() tea.Cmd { _, c := p.Update(doneMsg{id: s.ID, out: report()}); return c }())
	return s
}

func TestGoldenViews(t *testing.T) {
	c, clk := uitest.Common(t, nil)
	for _, sz := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"120x30", 120, 30}} {
		p := New(c)
		p.SetSize(sz.w, sz.h)
		uitest.Golden(t, "empty_"+sz.name, p.View())
		// A running call with one retry, 12.5 s in.
		s := &Session{ID: 99, Question: "why are TUIs fast?", Started: uitest.Epoch, Running: true}
		p.sessions = append(p.sessions, s)
		p.show(s)
		p.progress.Start("researching", uitest.Epoch)
		p.Update(RetryMsg{ID: 99, Event: api.RetryEvent{Attempt: 1, Wait: 1500 * time.Millisecond, Err: &api.Error{HTTPStatus: 502, Message: "upstream busy"}}})
		clk.T = uitest.Epoch.Add(12500 * time.Millisecond)
		uitest.Golden(t, "running_"+sz.name, p.View())
		clk.T = uitest.Epoch
		p = New(c)
		p.SetSize(sz.w, sz.h)
		finished(t, p, "why are TUIs fast?")
		uitest.Golden(t, "report_"+sz.name, p.View())
		// Find: / word enter, the matches highlighted and counted.
		p.Update(uitest.Press("/"))
		for _, k := range uitest.Type("ssh") {
			p.Update(k)
		}
		uitest.Golden(t, "report_finding_"+sz.name, p.View())
		p.Update(uitest.Press("enter"))
		uitest.Golden(t, "report_found_"+sz.name, p.View())
		// Read aloud: R, then the second sentence playing (its message
		// fed by hand: no gateway here) is highlighted, the footer says so.
		p.aloud.Start(p.c, p.current.Out.Content, &p.scroll)
		p.Update(common.AloudMsg{Gen: p.c.ReadingRun(), Index: 1})
		uitest.Golden(t, "report_aloud_"+sz.name, p.View())
		if !strings.Contains(p.View(), "\x1b[7m  They are fast over SSH.") {
			t.Errorf("the sentence playing is not highlighted:\n%q", p.View())
		}
		p.aloud.Stop(&p.scroll)
		// The contents: T, enter jumps, and the find stays.
		p.Update(uitest.Press("T"))
		uitest.Golden(t, "report_contents_"+sz.name, p.View())
		p.Update(uitest.Press("esc"))
		p.Update(uitest.Press("s"))
		uitest.Golden(t, "sources_"+sz.name, p.View())
		p.Update(uitest.Press("h"))
		uitest.Golden(t, "history_"+sz.name, p.View())
	}
}

func TestSlowResearchRunsInBackgroundAndCancels(t *testing.T) {
	srv := apitest.New(t)
	srv.Script(apitest.InvokePath(api.ToolResearch), apitest.Slow(30*time.Second, apitest.OK(api.InvokeResult{Tool: api.ToolResearch})))
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(80, 24)
	p.Focus()
	for _, k := range uitest.Type("slow question") {
		p.Update(k)
	}
	_, cmd := p.Update(uitest.Press("enter"))
	s := p.Current()
	if s == nil || !s.Running || !strings.Contains(uitest.Plain(p.View()), "researching “slow question”") {
		t.Fatalf("not running:\n%s", uitest.Plain(p.View()))
	}
	done := make(chan []tea.Msg, 1)
	go func() { done <- uitest.Exec(cmd) }()
	time.Sleep(100 * time.Millisecond)
	p.Update(uitest.Press("x"))
	var msgs []tea.Msg
	select {
	case msgs = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("cancel did not stop the call")
	}
	for _, m := range msgs {
		if !uitest.Ticking(m) {
			p.Update(m)
		}
	}
	if s.Running || !errors.Is(s.Err, context.Canceled) {
		t.Errorf("after cancel: running=%v err=%v", s.Running, s.Err)
	}
}

func TestRetriesAreReported(t *testing.T) {
	srv := apitest.New(t)
	srv.Script(apitest.InvokePath(api.ToolResearch), apitest.HTTPError(503, "busy"))
	c, _ := uitest.Common(t, srv)
	cl, err := api.New(api.Options{BaseURL: srv.URL, APIKey: apitest.Key, Retry: api.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	c.Client = cl
	sent := make(chan tea.Msg, 10)
	c.Send = func(m tea.Msg) { sent <- m }
	p := New(c)
	p.SetSize(80, 24)
	uitest.Settle(drive(p), p.start("q", "mini", nil))
	close(sent)
	for m := range sent {
		p.Update(m)
	}
	s := p.Current()
	if s.Err != nil || s.Out == nil || len(s.Retries) != 1 {
		t.Fatalf("err=%v out=%v retries=%v", s.Err, s.Out, s.Retries)
	}
	if v := uitest.Plain(p.statusLine(s)); !strings.Contains(v, "retry 1") {
		t.Errorf("status lacks the retry: %s", v)
	}
}

func TestSourcesOpenInPagesAndSave(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	finished(t, p, "q")
	p.Update(uitest.Press("s"))
	p.Update(uitest.Press("j"))
	_, cmd := p.Update(uitest.Press("enter"))
	msgs := uitest.Exec(cmd)
	if len(msgs) != 1 || msgs[0].(common.OpenPagesMsg).URLs[0] != "https://example.com/b" || msgs[0].(common.OpenPagesMsg).At != "" {
		t.Fatalf("open source gave %v", msgs)
	}
	var saved, failed string
	save := func() {
		p.Update(uitest.Press("ctrl+s"))
		uitest.Settle(func(m tea.Msg) tea.Cmd {
			switch n := m.(type) {
			case common.NoticeMsg:
				saved = strings.TrimPrefix(n.Text, "saved ")
			case common.ErrorMsg:
				failed = n.Err.Error()
			}
			_, c := p.Update(m)
			return c
		}, func() tea.Cmd { _, c := p.Update(uitest.Press("enter")); return c }())
	}
	// ctrl+s offers a new file in the output directory; enter writes it.
	p.Update(uitest.Press("ctrl+s"))
	// The name's end is in view, however long the folder.
	if v := uitest.Plain(p.View()); !p.OwnsKeys() || !strings.HasPrefix(p.saveAs.Value(), c.OutputDir+"/research-") || !regexp.MustCompile(`research-\d{8}-\d{6}\.md`).MatchString(v) {
		t.Fatalf("w did not offer a path in %s (%q):\n%s", c.OutputDir, p.saveAs.Value(), v)
	}
	p.Update(uitest.Press("esc"))
	if p.OwnsKeys() {
		t.Fatal("esc left the save-as prompt open")
	}
	save()
	b, err := os.ReadFile(saved)
	if err != nil || filepath.Dir(saved) != c.OutputDir {
		t.Fatalf("saved %q: %v", saved, err)
	}
	// ctrl+s again offers a name not used yet: enter saves a second file and
	// the first is left as it was.
	first := saved
	saved = ""
	save()
	if saved != strings.TrimSuffix(first, ".md")+"-2.md" || failed != "" {
		t.Errorf("second save: saved %q, error %q", saved, failed)
	}
	if b2, _ := os.ReadFile(first); string(b2) != string(b) {
		t.Error("the second save changed the first file")
	}
	for _, want := range []string{"# Terminal UIs\n\n> q\n", "They are **fast** over SSH.", "1. [Charm](https://charm.sh)", "2. [https://example.com/b](https://example.com/b)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("saved markdown lacks %q:\n%s", want, b)
		}
	}
}

func TestModelsComeFromToolList(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	if p.modelValue() != "auto" {
		t.Errorf("default model %q, want the runtime default auto", p.modelValue())
	}
	p.Update(uitest.Press("esc")) // leave the question, which has the cursor on arrival
	p.Update(uitest.Press("M"))
	if p.modelValue() != "mini" {
		t.Errorf("after M: %q", p.modelValue())
	}
}

func TestReRenderOnResizeInCommand(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	s := finished(t, p, "q")
	if s.renderedWidth != 80 {
		t.Fatalf("rendered at %d", s.renderedWidth)
	}
	p.SetSize(60, 24)
	_, cmd := p.Update(tea.WindowSizeMsg{Width: 60, Height: 26})
	if cmd == nil || s.renderedWidth != 80 {
		t.Fatal("resize must re-render in a command, not in Update")
	}
	uitest.Settle(drive(p), cmd)
	if s.renderedWidth != 60 {
		t.Errorf("rendered at %d after resize", s.renderedWidth)
	}
	for _, l := range strings.Split(s.rendered, "\n") {
		if strings.HasSuffix(uitest.Plain(l), " \n") {
			t.Errorf("padding left on %q", l)
		}
	}
}

// y on a source copies its URL and says so, like y in Search and Pages.
func TestCopySourceSaysSo(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	finished(t, p, "q")
	p.Update(uitest.Press("s"))
	_, cmd := p.Update(uitest.Press("y"))
	var notice string
	for _, m := range uitest.Exec(cmd) {
		if n, ok := m.(common.NoticeMsg); ok {
			notice = n.Text
		}
	}
	if notice != "copied https://charm.sh" {
		t.Errorf("notice %q, want copied https://charm.sh", notice)
	}
}

// A question run from the palette replaces what the line held.
func TestPaletteQuestionReplacesTheLine(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(80, 24)
	for _, k := range uitest.Type("an old question") {
		p.Update(k)
	}
	tool := c.Tool(api.ToolResearch)
	_, cmd := p.Update(common.RunToolMsg{Tool: *tool, Inputs: map[string]any{"input": "a question from the palette"}})
	uitest.Settle(drive(p), cmd)
	v := uitest.Plain(p.View())
	if strings.Contains(v, "an old question") || p.question.Value() != "a question from the palette" {
		t.Errorf("the line holds %q:\n%s", p.question.Value(), v)
	}
}

// Research kept in the library is history after a restart (h), and a
// report reopened from the Library shows without calling the gateway.
func TestHistoryFromTheLibrary(t *testing.T) {
	lib, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	for i, q := range []string{"why are TUIs fast?", "what is glamour?"} {
		b, _ := json.Marshal(api.ResearchOutput{RequestID: "r", Status: api.ResearchCompleted, Content: "Answer to " + q,
			Sources: []api.ResearchSource{{Title: "Charm", URL: "https://charm.sh"}}})
		it := &library.Item{Kind: library.KindResearch, Tool: Slug, Title: q, Query: q, Inputs: `{"input":"q","model":"pro"}`, Output: string(b),
			Body: "# " + q, Created: uitest.Epoch.Add(time.Duration(i-2) * 24 * time.Hour)}
		if err := lib.Add(context.Background(), it); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := uitest.Common(t, nil) // no gateway at all
	c.Library = func() (*library.Store, error) { return lib, nil }
	p := New(c)
	p.SetSize(80, 24)
	uitest.Settle(drive(p), p.Init())
	// The start reads what history lists, not the reports.
	if len(p.sessions) != 2 || p.sessions[1].Question != "what is glamour?" || p.sessions[0].Out != nil || p.sessions[1].Out != nil {
		t.Fatalf("history: %+v", p.sessions)
	}
	p.Update(uitest.Press("esc"))
	p.Update(uitest.Press("h"))
	v := uitest.Plain(p.View())
	if !strings.Contains(v, "Nov 21 what is glamour?") || !strings.Contains(v, "Nov 20 why are TUIs fast?") {
		t.Errorf("history view:\n%s", v)
	}
	// Opening one reads its report, in a command.
	_, cmd := p.Update(uitest.Press("enter"))
	if v := uitest.Plain(p.View()); !strings.Contains(v, "reading the report from the library") {
		t.Errorf("while reading:\n%s", v)
	}
	uitest.Settle(drive(p), cmd)
	if s := p.Current(); s != p.sessions[1] || s.Out == nil || s.Model != "pro" || !strings.Contains(uitest.Plain(p.View()), "Answer to what is glamour?") {
		t.Fatalf("opened from history: %+v\n%s", s, uitest.Plain(p.View()))
	}
	p.sessions[1].Out = nil // as at start: reopening from the Library reads it again
	// Reopened from the Library: the same session, shown, not a copy.
	items, _ := lib.List(context.Background(), library.KindResearch, 0)
	full, _ := lib.Get(context.Background(), items[0].ID)
	uitest.Settle(drive(p), func() tea.Cmd { _, c := p.Update(common.ShowKeptMsg{Item: full}); return c }())
	if len(p.sessions) != 2 || p.Current() != p.sessions[1] {
		t.Fatalf("reopen made %d sessions, current %+v", len(p.sessions), p.Current())
	}
	v = uitest.Plain(p.View())
	if !strings.Contains(v, "Answer to what is glamour?") || !strings.Contains(v, "from the library, kept Nov 21") {
		t.Errorf("reopened report:\n%s", v)
	}
}

// A report another hark process keeps while this one runs shows in the
// history once the pane is shown again, as it does in the Library pane
// (issue 43: "history (3)" while four were kept); a report this session
// ran, which the client kept, stays one entry.
func TestHistoryReadsTheLibraryAgain(t *testing.T) {
	lib, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	keep := func(q string, at time.Time) {
		t.Helper()
		b, _ := json.Marshal(api.ResearchOutput{RequestID: "r", Status: api.ResearchCompleted, Content: "Answer to " + q,
			Sources: []api.ResearchSource{{Title: "Charm", URL: "https://charm.sh"}}})
		if err := lib.Add(context.Background(), &library.Item{Kind: library.KindResearch, Tool: Slug, Title: q, Query: q,
			Inputs: `{"input":"q"}`, Output: string(b), Body: "# " + q, Created: at}); err != nil {
			t.Fatal(err)
		}
	}
	keep("an old question", uitest.Epoch.Add(-time.Hour))
	c, _ := uitest.Common(t, nil)
	c.Library = func() (*library.Store, error) { return lib, nil }
	p := New(c)
	p.SetSize(80, 24)
	uitest.Settle(drive(p), p.Init())
	finished(t, p, "why are TUIs fast?") // this session's, kept by the client as it finished
	keep("why are TUIs fast?", uitest.Epoch)
	keep("kept by another hark", uitest.Epoch.Add(time.Minute))
	uitest.Settle(drive(p), p.Shown())
	p.Update(uitest.Press("esc"))
	p.Update(uitest.Press("h"))
	v := uitest.Plain(p.View())
	if !strings.Contains(v, "history (3)") || !strings.Contains(v, "kept by another hark") || strings.Count(v, "why are TUIs fast?") != 2 {
		// The question shows in the status line and once in the history.
		t.Errorf("history after another process kept a report:\n%s", v)
	}
	lines := strings.Split(v, "\n")
	for i, l := range lines {
		if strings.Contains(l, "History") {
			if i+1 >= len(lines) || !strings.Contains(lines[i+1], "kept by another hark") {
				t.Errorf("the newest report is not first:\n%s", v)
			}
			break
		}
	}
}

// On arriving, the question has the cursor: h and M type, and the line
// under it names the keys that work while typing (ctrl+o, esc then h),
// not M and h. Leaving the line (esc) makes M and h act, and says so.
func TestFirstKeysDoWhatTheScreenSays(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	for i := range 4 {
		p.sessions = append(p.sessions, &Session{ID: i + 1, Question: fmt.Sprintf("kept question %d", i+1), Started: uitest.Epoch, Finished: uitest.Epoch, Out: report(), Kept: int64(i + 1)})
	}
	p.nextID = 4
	uitest.Golden(t, "launch_history_80x24", p.View())
	v := uitest.Plain(p.View())
	if !strings.Contains(v, "ctrl+o model auto") || !strings.Contains(v, "esc, then h history (4)") || strings.Contains(v, "M model") {
		t.Errorf("while typing, the hints name keys that type:\n%s", v)
	}
	for _, k := range []string{"M", "h"} {
		p.Update(uitest.Press(k))
	}
	if p.question.Value() != "Mh" || p.focus == focusHistory {
		t.Errorf("M h on the focused question: %q, focus %v", p.question.Value(), p.focus)
	}
	p.Update(uitest.Press("ctrl+o"))
	if p.modelValue() != "mini" {
		t.Errorf("ctrl+o while typing: model %q", p.modelValue())
	}
	p.question.SetValue("")
	p.Update(uitest.Press("esc"))
	v = uitest.Plain(p.View())
	if !strings.Contains(v, "M model mini") || !strings.Contains(v, "h history (4)") || strings.Contains(v, "esc, then") {
		t.Errorf("after esc, the hints do not name M and h:\n%s", v)
	}
	p.Update(uitest.Press("M"))
	p.Update(uitest.Press("h"))
	if p.modelValue() != "pro" || p.focus != focusHistory {
		t.Errorf("M h after esc: model %q, focus %v", p.modelValue(), p.focus)
	}
}

// Typing a question while a report is shown (keys are commands there)
// may open lists, but no run of ordinary typing ends in a written file:
// saving is ctrl+s, which typing never makes.
func TestTypingNeverWritesAFile(t *testing.T) {
	t.Setenv("BROWSER", "true")
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("EDITOR", "true")
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	s := finished(t, p, "q")
	for _, q := range []string{
		"how does memcheck detect leaks?", "what is new in valgrind", "show me how", "draw",
		"why", "save this as notes.md", "write it down", "where is it saved", "Which tool, and how?",
	} {
		p.show(s)
		p.focus = focusReport
		keys := append(uitest.Type(q), uitest.Press("enter"))
		for _, k := range keys {
			uitest.Settle(func(m tea.Msg) tea.Cmd {
				if _, ok := m.(common.OpenPagesMsg); ok {
					return nil
				}
				_, c := p.Update(m)
				return c
			}, func() tea.Cmd { _, c := p.Update(k); return c }())
		}
		if p.saveAs.Active() {
			p.Update(uitest.Press("esc"))
		}
	}
	if files, _ := os.ReadDir(c.OutputDir); len(files) > 0 {
		t.Errorf("typing wrote %s", files[0].Name())
	}
}

// fileIndex is a local index holding the text of file:// pages.
type fileIndex struct{}

func (fileIndex) Index(context.Context, string, func(int, string)) (int, error) { return 0, nil }
func (fileIndex) Sources(context.Context) ([]common.IndexSource, error)         { return nil, nil }
func (fileIndex) Remove(context.Context, string) (int, error)                   { return 0, nil }
func (fileIndex) Pages(context.Context) (int, error)                            { return 1, nil }
func (fileIndex) IndexedPage(_ context.Context, u string) (string, string, bool, error) {
	return "Memcheck", "Memcheck is a memory error detector.", false, nil
}

// A source from an indexed folder (file://) opens with the text the
// index holds; extract would refuse its URL.
func TestFileSourceOpensFromTheIndex(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	c.Index = fileIndex{}
	p := New(c)
	p.SetSize(80, 24)
	s := finished(t, p, "how does memcheck find leaks?")
	s.Out.Sources = []api.ResearchSource{{Title: "Memcheck", URL: "file:///usr/share/doc/valgrind/html/mc-manual.html"}}
	p.Update(uitest.Press("s"))
	msgs := uitest.Exec(func() tea.Cmd { _, c := p.Update(uitest.Press("enter")); return c }())
	if len(msgs) != 1 {
		t.Fatalf("enter on the source gave %v", msgs)
	}
	open, ok := msgs[0].(common.OpenPagesMsg)
	if !ok || len(open.URLs) != 0 || len(open.Read) != 1 || open.Read[0].RawContent != "Memcheck is a memory error detector." {
		t.Fatalf("open: %#v", msgs[0])
	}
}

// A source opens in Pages where the report first quotes it: the quote
// goes with it, for Pages to find and highlight (code is not a quote to
// find in a rendered page).
func TestSourceOpensAtItsQuote(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	s := finished(t, p, "are terminal UIs fast?")
	s.Out.Passages = []api.ResearchPassage{
		{Source: 1, URL: "https://charm.sh", Quote: "They are fast over SSH."},
		{Source: 2, URL: "https://example.com/b", Quote: "ssh -p 23234 host", Code: true},
		{Source: 2, URL: "https://example.com/b", Quote: "Bubble Tea draws only what changed."},
	}
	p.Update(uitest.Press("s"))
	p.Update(uitest.Press("j"))
	msgs := uitest.Exec(func() tea.Cmd { _, c := p.Update(uitest.Press("enter")); return c }())
	if len(msgs) != 1 {
		t.Fatalf("enter gave %v", msgs)
	}
	if open, ok := msgs[0].(common.OpenPagesMsg); !ok || open.URLs[0] != "https://example.com/b" || open.At != "Bubble Tea draws only what changed." {
		t.Errorf("the source opens at %#v", msgs[0])
	}
}

// Two researches run side by side: x cancels the one shown, the other
// runs on with the spinner, and its result is still taken.
func TestCancelStopsOnlyTheResearchShown(t *testing.T) {
	srv := apitest.New(t)
	slow := apitest.Slow(30*time.Second, apitest.OK(api.InvokeResult{Tool: api.ToolResearch}))
	srv.Script(apitest.InvokePath(api.ToolResearch), slow, slow)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(80, 24)
	ask := func(q string) (*Session, chan []tea.Msg) {
		p.Focus()
		for _, k := range uitest.Type(q) {
			p.Update(k)
		}
		_, cmd := p.Update(uitest.Press("enter"))
		done := make(chan []tea.Msg, 1)
		go func() { done <- uitest.Exec(cmd) }()
		return p.Current(), done
	}
	first, firstDone := ask("first question")
	second, secondDone := ask("second question")
	if first == second || !first.Running || !second.Running {
		t.Fatalf("two researches: %+v %+v", first, second)
	}
	time.Sleep(100 * time.Millisecond)
	p.Update(uitest.Press("x"))
	take := func(done chan []tea.Msg) {
		select {
		case msgs := <-done:
			for _, m := range msgs {
				if !uitest.Ticking(m) {
					p.Update(m)
				}
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the call did not stop")
		}
	}
	take(secondDone)
	if second.Running || !errors.Is(second.Err, context.Canceled) {
		t.Fatalf("the research shown: running=%v err=%v", second.Running, second.Err)
	}
	select {
	case msgs := <-firstDone:
		t.Fatalf("x stopped the research not shown: %#v", msgs)
	case <-time.After(100 * time.Millisecond):
	}
	if !first.Running || !p.progress.Active || !strings.Contains(p.Background(), "research ") {
		t.Fatalf("the other research: running=%v spinner=%v status %q", first.Running, p.progress.Active, p.Background())
	}
	p.show(first)
	p.Update(uitest.Press("x"))
	take(firstDone)
	if first.Running || p.progress.Active || p.Background() != "" {
		t.Fatalf("after both: running=%v spinner=%v status %q", first.Running, p.progress.Active, p.Background())
	}
}

// A long source list keeps the cursor in view: moving down past the rows
// shown puts the chosen source on the last row; moving past the end stays
// on the last source.
func TestSourcesWindowFollowsTheCursor(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 12)
	s := finished(t, p, "many sources")
	s.Out.Sources = nil
	for i := range 30 {
		s.Out.Sources = append(s.Out.Sources, api.ResearchSource{Title: fmt.Sprintf("source %d", i+1), URL: fmt.Sprintf("https://example.com/%d", i+1)})
	}
	p.Update(uitest.Press("s"))
	for range 25 {
		p.Update(uitest.Press("j"))
	}
	lines := strings.Split(strings.TrimRight(uitest.Plain(p.View()), "\n "), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "26. source 26") {
		t.Fatalf("the cursor is not on the last row:\n%s", strings.Join(lines, "\n"))
	}
	for range 10 {
		p.Update(uitest.Press("j"))
	}
	if p.srcCursor != 29 || !strings.Contains(uitest.Plain(p.View()), "30. source 30") {
		t.Fatalf("past the end: cursor %d\n%s", p.srcCursor, uitest.Plain(p.View()))
	}
}

// History with more reports than rows (it loads up to 50 kept ones)
// keeps the cursor on the screen.
func TestHistoryWindowFollowsTheCursor(t *testing.T) {
	lib, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	for i := range 30 {
		q := fmt.Sprintf("question %d", i+1)
		it := &library.Item{Kind: library.KindResearch, Tool: Slug, Title: q, Query: q, Inputs: `{"input":"q","model":"mini"}`,
			Output: `{"status":"completed","content":"x"}`, Body: "# " + q, Created: uitest.Epoch.Add(time.Duration(i-40) * time.Hour)}
		if err := lib.Add(context.Background(), it); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := uitest.Common(t, nil)
	c.Library = func() (*library.Store, error) { return lib, nil }
	p := New(c)
	p.SetSize(80, 12)
	uitest.Settle(drive(p), p.Init())
	p.Update(uitest.Press("esc"))
	p.Update(uitest.Press("h"))
	for range 40 {
		p.Update(uitest.Press("j"))
	}
	// Newest first: the cursor is on the oldest, question 1.
	if v := uitest.Plain(p.View()); !strings.Contains(v, "▌") || !strings.Contains(v, " question 1\n") && !strings.HasSuffix(strings.TrimRight(v, "\n "), " question 1") {
		t.Fatalf("the cursor left the screen:\n%s", v)
	}
	for range 40 {
		p.Update(uitest.Press("k"))
	}
	if v := uitest.Plain(p.View()); !strings.Contains(v, "▌") || !strings.Contains(v, "question 30") {
		t.Fatalf("back at the top:\n%s", v)
	}
}

// At 80 columns a source's URL keeps its file name and the title gives
// way ("… Language  file:///usr/share/doc/rust…" named no page).
func TestSourceColumnsKeepTheFileName(t *testing.T) {
	title := "Advanced Types - The Rust Programming Language"
	u := "file:///usr/share/doc/rust-doc/html/book/ch19-04-advanced-types.html"
	gt, gu := sourceColumns(title, u, 73)
	if !strings.HasSuffix(gu, "ch19-04-advanced-types.html") || !strings.HasPrefix(gu, "file:///") || !strings.HasSuffix(gt, "…") ||
		ansi.StringWidth(gt)+ansi.StringWidth(gu) > 73 {
		t.Errorf("sourceColumns: %q %q", gt, gu)
	}
	if gt, gu := sourceColumns("Short", "https://example.com/a", 73); gt != "Short" || gu != "https://example.com/a" {
		t.Errorf("a row that fits was cut: %q %q", gt, gu)
	}
}
