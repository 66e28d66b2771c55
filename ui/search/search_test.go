package search

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/api/apitest"
	"hark/ui/common"
	"hark/ui/internal/uitest"
)

func drive(p *Pane) func(tea.Msg) tea.Cmd {
	return func(m tea.Msg) tea.Cmd { _, c := p.Update(m); return c }
}

func typeText(p *Pane, s string) {
	for _, k := range uitest.Type(s) {
		p.Update(k)
	}
}

func sample() *api.SearchOutput {
	return &api.SearchOutput{
		Query:        "bubble tea",
		Answer:       "Bubble Tea is a Go framework for terminal apps based on The Elm Architecture.",
		ResponseTime: 0.42,
		Results: []api.SearchResult{
			{Title: "Bubble Tea on GitHub", URL: "https://github.com/charmbracelet/bubbletea", Content: "A powerful little TUI framework", Score: 0.93, PublishedDate: "2026-01-02"},
			{Title: "Tutorial: building a TUI", URL: "https://www.example.com/blog/tui", Content: "Step by step with models, updates and views.", Score: 0.61},
			{Title: "", URL: "https://docs.example.org/x", Content: "no title here", Score: 0.2},
		},
		Images: []api.SearchImage{{URL: "https://img.example.com/a.png", Description: "the bubble tea logo"}},
	}
}

func TestGoldenViews(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	for _, sz := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"120x30", 120, 30}} {
		p := New(c)
		p.SetSize(sz.w, sz.h)
		uitest.Golden(t, "empty_"+sz.name, p.View())
		p.Update(doneMsg{seq: 0, out: sample()})
		p.query.Blur()
		uitest.Golden(t, "results_"+sz.name, p.View())
		p.Update(uitest.Press("j"))
		p.Update(uitest.Press("p"))
		uitest.Golden(t, "preview_"+sz.name, p.View())
	}
}

func TestOptionsOneKeyAwayAndSent(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(80, 24)
	typeText(p, "go tui")
	p.Update(uitest.Press("esc"))
	for _, k := range []string{"d", "t", "r", "+", "+", "a"} {
		p.Update(uitest.Press(k))
	}
	line := uitest.Plain(p.optionsLine())
	for _, want := range []string{"depth advanced", "topic news", "time day", "max 7", "answer on"} {
		if !strings.Contains(line, want) {
			t.Errorf("options line %q lacks %q", line, want)
		}
	}
	p.Update(uitest.Press("/"))
	_, cmd := p.Update(uitest.Press("enter"))
	uitest.Settle(drive(p), cmd)
	if p.Result() == nil || len(p.Result().Results) != 7 {
		t.Fatalf("want 7 results, got %+v (err %v)", p.Result(), p.err)
	}
	var body api.InvokeRequest
	if err := json.Unmarshal(srv.Last(apitest.InvokePath(api.ToolSearch)).Body, &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"query": "go tui", "search_depth": "advanced", "topic": "news", "time_range": "day", "max_results": 7.0, "include_answer": true}
	for k, v := range want {
		if body.Inputs[k] != v {
			t.Errorf("sent %s=%v, want %v (all: %v)", k, body.Inputs[k], v, body.Inputs)
		}
	}
	if _, ok := body.Inputs["include_images"]; ok {
		t.Errorf("defaults must be left to the gateway: %v", body.Inputs)
	}
	if !strings.Contains(uitest.Plain(p.View()), "The answer about go tui") {
		t.Errorf("answer not on top:\n%s", uitest.Plain(p.View()))
	}
}

func TestMaxResultsStaysInRange(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.query.Blur()
	for range 30 {
		p.Update(uitest.Press("+"))
	}
	if v := p.value("max_results"); v != 20.0 {
		t.Errorf("max_results = %v, want the runtime maximum 20", v)
	}
	for range 30 {
		p.Update(uitest.Press("-"))
	}
	if v := p.value("max_results"); v != 1.0 {
		t.Errorf("max_results = %v, want the runtime minimum 1", v)
	}
}

func TestOpenAndCopy(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	p.Update(doneMsg{out: sample()})
	p.query.Blur()
	p.Update(uitest.Press("j"))
	_, cmd := p.Update(uitest.Press("enter"))
	msgs := uitest.Exec(cmd)
	if len(msgs) != 1 {
		t.Fatalf("open: %v", msgs)
	}
	// The page opens at the search's words (see Pages).
	if m, ok := msgs[0].(common.OpenPagesMsg); !ok || m.URLs[0] != "https://www.example.com/blog/tui" || m.Find != "bubble tea" {
		t.Errorf("open gave %#v", msgs[0])
	}
	_, cmd = p.Update(uitest.Press("y"))
	var notice bool
	for _, m := range uitest.Exec(cmd) {
		if n, ok := m.(common.NoticeMsg); ok && strings.Contains(n.Text, "example.com/blog/tui") {
			notice = true
		}
	}
	if !notice {
		t.Error("copy gave no notice")
	}
}

func TestErrorShowsTraceAndHint(t *testing.T) {
	srv := apitest.New(t)
	srv.Script(apitest.InvokePath(api.ToolSearch), apitest.Reply{Code: 500, Message: api.MsgCredentialsMissing, TraceID: "tr-42"})
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(80, 24)
	typeText(p, "x")
	_, cmd := p.Update(uitest.Press("enter"))
	var sawErr bool
	uitest.Settle(func(m tea.Msg) tea.Cmd {
		if _, ok := m.(common.ErrorMsg); ok {
			sawErr = true
		}
		_, c := p.Update(m)
		return c
	}, cmd)
	v := uitest.Plain(p.View())
	for _, want := range []string{api.MsgCredentialsMissing, "trace_id tr-42", "credentials"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	if !sawErr {
		t.Error("no ErrorMsg for the status bar")
	}
}

func TestClickSelectsResult(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	p.Update(doneMsg{out: sample()})
	p.query.Blur()
	p.View()
	// Find the screen row of the second result's title.
	lines := strings.Split(uitest.Plain(p.View()), "\n")
	row := -1
	for i, l := range lines {
		if strings.Contains(l, "Tutorial: building") {
			row = i
		}
	}
	if row < 0 {
		t.Fatal("second result not drawn")
	}
	p.Update(tea.MouseClickMsg{X: 5, Y: row, Button: tea.MouseLeft})
	if p.Selected() != 1 {
		t.Errorf("click selected %d, want 1", p.Selected())
	}
}

func TestToolListFailureShownInPane(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	c.Tools = nil
	p := New(c)
	p.SetSize(80, 24)
	p.Update(common.ToolsMsg{Err: &api.Error{HTTPStatus: 401, Message: "invalid or missing API key", TraceID: "t-2"}})
	v := uitest.Plain(p.View())
	for _, want := range []string{"tool list: invalid or missing API key", "trace_id t-2", "HARK_API_KEY"} {
		if !strings.Contains(v, want) {
			t.Errorf("lacks %q:\n%s", want, v)
		}
	}
}

// After a search, changing quick options re-runs it once they rest, so the
// results match the options line; three quick presses make one call.
func TestOptionChangeRerunsOnce(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(80, 24)
	typeText(p, "go tui")
	_, cmd := p.Update(uitest.Press("enter"))
	uitest.Settle(drive(p), cmd)
	if p.Result() == nil {
		t.Fatalf("first search failed: %v", p.err)
	}
	calls := srv.Count(apitest.InvokePath(api.ToolSearch))
	var ticks []tea.Cmd
	for _, k := range []string{"+", "+", "+"} {
		_, cmd := p.Update(uitest.Press(k))
		ticks = append(ticks, cmd)
	}
	for _, tick := range ticks {
		uitest.Settle(drive(p), tick)
	}
	if n := srv.Count(apitest.InvokePath(api.ToolSearch)) - calls; n != 1 {
		t.Errorf("three option keys made %d searches, want 1", n)
	}
	if n := len(p.Result().Results); n != 8 {
		t.Errorf("after + + +: %d results, want 8", n)
	}
	// An option already at its limit changes nothing and runs nothing.
	p.opts["max_results"] = 20.0
	if _, cmd := p.Update(uitest.Press("+")); cmd != nil {
		t.Error("+ at the maximum scheduled a search")
	}
}

// With nothing found, the pane says what to try, and with the embedded
// gateway how to fill its index.
func TestNoResultsSaysWhatToDo(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	c.Gateway = "embedded · workspace local"
	p := New(c)
	p.SetSize(80, 24)
	p.query.SetValue("zzz")
	p.query.Blur()
	p.Update(doneMsg{seq: 0, out: &api.SearchOutput{Query: "zzz"}})
	v := uitest.Plain(p.View())
	for _, want := range []string{"No results", "hark index"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
}

// TestOpenIndexedFileReadsFromIndex: a result the gateway indexed but
// cannot fetch (a file:// page of `hark index DIR`) opens with the text
// the index holds, asked for with include_raw_content, not by extracting.
func TestOpenIndexedFileReadsFromIndex(t *testing.T) {
	srv := apitest.New(t)
	const u = "file:///usr/share/doc/x/index.html"
	invoke := func(raw string) apitest.Reply {
		r := api.SearchResult{Title: "X", URL: u, Content: "snippet", Score: 1, RawContent: raw}
		return apitest.OK(api.InvokeResult{Service: api.SearchService, Tool: Slug,
			Output: mustJSON(t, api.SearchOutput{Query: "x", Results: []api.SearchResult{r}})})
	}
	srv.Script(apitest.InvokePath(Slug), invoke(""), invoke("The whole page, from the index."))
	c, _ := uitest.Common(t, srv)
	// What the library would keep: the user's search, not hark's re-run.
	var kept []map[string]any
	cl, err := api.New(api.Options{BaseURL: srv.URL, APIKey: apitest.Key, OnResult: func(r api.Result) { kept = append(kept, r.Inputs) }})
	if err != nil {
		t.Fatal(err)
	}
	c.Client = cl
	p := New(c)
	p.SetSize(80, 24)
	typeText(p, "x")
	_, cmd := p.Update(uitest.Press("enter"))
	uitest.Settle(drive(p), cmd)
	p.Update(uitest.Press("esc"))
	_, cmd = p.Update(uitest.Press("enter"))
	if cmd == nil {
		t.Fatal("enter on a file:// result did nothing")
	}
	msg := cmd()
	open, ok := msg.(common.OpenPagesMsg)
	if !ok || len(open.URLs) != 0 || len(open.Read) != 1 || open.Read[0].RawContent != "The whole page, from the index." {
		t.Fatalf("open: %#v", msg)
	}
	var body api.InvokeRequest
	json.Unmarshal(srv.Last(apitest.InvokePath(Slug)).Body, &body)
	if body.Inputs["include_raw_content"] != true || body.Inputs["query"] != "x" {
		t.Errorf("re-query sent %v", body.Inputs)
	}
	if len(kept) != 1 || kept[0]["include_raw_content"] != nil {
		t.Errorf("kept %v: the re-run was kept as a second search", kept)
	}
}

// pageIndex is a local index that holds one page's text.
type pageIndex struct{ memIndex }

func (*pageIndex) IndexedPage(_ context.Context, u string) (string, string, bool, error) {
	return "X, from the index", "The whole page, read in process.", false, nil
}

// With the embedded gateway's index in process, a file:// result is read
// from it: no second search at all. A web result opens by extraction
// even when the search returned its text, so that its links are kept.
func TestOpenResultWithTheLocalIndex(t *testing.T) {
	srv := apitest.New(t)
	out := api.SearchOutput{Query: "x", Results: []api.SearchResult{
		{Title: "X", URL: "file:///usr/share/doc/x/index.html", Content: "snippet", Score: 1},
		{Title: "Web", URL: "https://example.org/x", Content: "snippet", Score: 0.5, RawContent: "plain text"},
	}}
	srv.Script(apitest.InvokePath(Slug), apitest.OK(api.InvokeResult{Service: api.SearchService, Tool: Slug, Output: mustJSON(t, out)}))
	c, _ := uitest.Common(t, srv)
	c.Index = &pageIndex{memIndex{sources: map[string]int{}}}
	p := New(c)
	p.SetSize(80, 24)
	typeText(p, "x")
	_, cmd := p.Update(uitest.Press("enter"))
	uitest.Settle(drive(p), cmd)
	calls := srv.Count(apitest.InvokePath(Slug))
	_, cmd = p.Update(uitest.Press("enter"))
	msgs := uitest.Exec(cmd)
	if len(msgs) != 1 {
		t.Fatalf("open gave %v", msgs)
	}
	open, _ := msgs[0].(common.OpenPagesMsg)
	if len(open.Read) != 1 || open.Read[0].RawContent != "The whole page, read in process." || open.Find != "x" {
		t.Fatalf("open: %#v", msgs[0])
	}
	if n := srv.Count(apitest.InvokePath(Slug)); n != calls {
		t.Errorf("opening called the gateway %d more times", n-calls)
	}
	p.Update(uitest.Press("j"))
	msgs = uitest.Exec(func() tea.Cmd { _, c := p.Update(uitest.Press("enter")); return c }())
	if open, _ := msgs[0].(common.OpenPagesMsg); len(open.URLs) != 1 || open.URLs[0] != "https://example.org/x" || len(open.Read) != 0 {
		t.Errorf("a web result: %#v", msgs[0])
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// When the gateway refuses the form, what was typed stays: the form
// reopens with its values, at the field the gateway named, with the
// message there; the old results are cleared.
func TestRefusedFormKeepsValuesAtTheField(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(100, 30)
	// A first search leaves results on screen.
	for _, k := range uitest.Type("old query") {
		p.Update(k)
	}
	_, cmd := p.Update(uitest.Press("enter"))
	uitest.Settle(drive(p), cmd)
	if p.Result() == nil {
		t.Fatal("no first results")
	}
	srv.Script(apitest.InvokePath(api.ToolSearch), apitest.HTTPError(400, "invalid end_date: must not be before start_date"))
	p.Update(uitest.Press("esc"))
	p.Update(uitest.Press("f"))
	if p.form == nil {
		t.Fatal("f did not open the form")
	}
	p.form.Set("query", "new query")
	p.form.Set("start_date", "2025-06-01")
	p.form.Set("end_date", "2024-01-01")
	p.form.Focus(0)
	_, cmd = p.Update(uitest.Press("enter"))
	uitest.Settle(drive(p), cmd)
	if p.form == nil {
		t.Fatalf("the refused form did not reopen:\n%s", uitest.Plain(p.View()))
	}
	if got := p.form.Control("start_date").Value(); got != "2025-06-01" {
		t.Errorf("start_date is %q after the refusal", got)
	}
	if got := p.form.Control("end_date").Value(); got != "2024-01-01" {
		t.Errorf("end_date is %q after the refusal", got)
	}
	if f := p.form.Controls[p.form.Focused()]; f.Field.Name != "end_date" || f.Err != "must not be before start_date" {
		t.Errorf("focus on %s with error %q, want end_date and the gateway's rule", f.Field.Name, f.Err)
	}
	if p.Result() != nil {
		t.Error("the old query's results are still shown under the refusal")
	}
	v := uitest.Plain(p.View())
	if !strings.Contains(v, "✗ end_date must not be before start_date") {
		t.Errorf("the message is not shown:\n%s", v)
	}
	// The status bar's error says what failed once, so that at 80
	// columns its rule is read ("search: invoke vendor_search: …" cut it).
	if e := p.err; e == nil || strings.HasPrefix(e.Error(), "search: ") {
		t.Errorf("the pane's error: %v", e)
	}
	// esc leaves the form; f reopens it with the values still there.
	p.Update(uitest.Press("esc"))
	p.Update(uitest.Press("f"))
	if p.form == nil || p.form.Control("start_date").Value() != "2025-06-01" {
		t.Error("f after the refusal lost the typed values")
	}
}

// Snippets take two lines when every result fits with them, one when the
// pane is short; a click on either line selects its result.
func TestSnippetsTakeTwoLinesWhenThereIsRoom(t *testing.T) {
	long := strings.Repeat("The okapi browses leaves in the forest understorey. ", 8)
	out := &api.SearchOutput{Query: "okapi"}
	for _, title := range []string{"First", "Second", "Third"} {
		out.Results = append(out.Results, api.SearchResult{Title: title + " page", URL: "https://a.example/" + title, Content: long, Score: 0.5})
	}
	c, _ := uitest.Common(t, nil)
	for _, tc := range []struct {
		h, rows int
	}{{30, 2}, {12, 1}} {
		p := New(c)
		p.SetSize(80, tc.h)
		p.Update(doneMsg{out: out})
		p.query.Blur()
		lines := strings.Split(uitest.Plain(p.View()), "\n")
		snippet, prev := 0, false
		for i, l := range lines {
			is := strings.Contains(l, "okapi browses")
			if is && prev && tc.rows == 1 {
				t.Errorf("h %d: a snippet of two lines in a short pane, line %d", tc.h, i)
			}
			prev = is
			if is {
				snippet++
				if w := len([]rune(strings.TrimRight(l, " "))); w > 80 {
					t.Errorf("h %d: line %d is %d cells wide", tc.h, i, w)
				}
			}
		}
		if want := tc.rows * 3; snippet != want && !(tc.rows == 1 && snippet < want) {
			t.Errorf("h %d: %d snippet lines, want %d:\n%s", tc.h, snippet, want, strings.Join(lines, "\n"))
		}
		if tc.rows == 2 {
			var second int
			for i, l := range lines {
				if strings.Contains(l, "Second page") {
					second = i + 3 // title, meta, snippet, snippet
				}
			}
			if !strings.HasSuffix(strings.TrimRight(lines[second], " "), "…") {
				t.Errorf("the second snippet line does not say there is more: %q", lines[second])
			}
			p.Update(tea.MouseClickMsg{X: 5, Y: second, Button: tea.MouseLeft})
			if p.Selected() != 1 {
				t.Errorf("a click on a snippet's second line selected %d, want 1", p.Selected())
			}
		}
	}
}

func TestResponseTimeReadable(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want string
	}{{0.006, "6 ms"}, {0.42, "420 ms"}, {0.9996, "1.00s"}, {1, "1.00s"}, {12.345, "12.35s"}} {
		if got := took(c.s); got != c.want {
			t.Errorf("took(%v) = %q, want %q", c.s, got, c.want)
		}
	}
}
