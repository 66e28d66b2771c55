package search

import (
	"strings"
	"testing"

	"hark/api"
	"hark/api/apitest"
	"hark/ui/common"
	"hark/ui/internal/uitest"
)

// A search sent from the form or the palette shows what it sent on the
// options line (max 3, the dates), and the zero-result hint names what
// that search narrowed, nothing else.
func TestOptionsLineShowsWhatWasSent(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(100, 24)
	t0 := c.Tool(api.ToolSearch)
	if t0 == nil {
		t.Fatal("no search tool in the test gateway's list")
	}
	run := common.RunToolMsg{Tool: *t0, Inputs: map[string]any{"query": "rivets", "max_results": 3, "start_date": "2025-01-01"}}
	_, cmd := p.Update(run)
	uitest.Settle(drive(p), cmd)
	line := uitest.Plain(p.optionsLine())
	for _, want := range []string{"max 3", "time since 2025-01-01"} {
		if !strings.Contains(line, want) {
			t.Errorf("options line %q lacks %q", line, want)
		}
	}
	p.Update(doneMsg{seq: p.seq, out: &api.SearchOutput{Query: "rivets"}})
	hint := p.noResults()
	if !strings.Contains(hint, "the dates (since 2025-01-01)") || strings.Contains(hint, "time range") || strings.Contains(hint, "domains") {
		t.Errorf("zero-result hint: %q", hint)
	}
	// A search with nothing narrowed asks for other words only.
	run.Inputs = map[string]any{"query": "rivets"}
	_, cmd = p.Update(run)
	uitest.Settle(drive(p), cmd)
	if line := uitest.Plain(p.optionsLine()); !strings.Contains(line, "max 5") || !strings.Contains(line, "time any") {
		t.Errorf("after a plain search the options line is %q", line)
	}
	if hint := p.noResults(); strings.Contains(hint, "loosen") {
		t.Errorf("zero-result hint with nothing narrowed: %q", hint)
	}
}

// The query line says what the gateway searches: the embedded one its
// own pages, not the web; ctrl+r's help says it dictates.
func TestQueryPlaceholderAndDictateHelp(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	c.Gateway = "embedded · workspace local"
	if p := New(c); !strings.Contains(p.query.Placeholder, "pages hark has read") {
		t.Errorf("embedded placeholder %q", p.query.Placeholder)
	}
	c.Gateway = "https://gateway.example"
	if p := New(c); p.query.Placeholder != "search the web…" {
		t.Errorf("remote placeholder %q", p.query.Placeholder)
	}
	if h := c.Keys().Search.Dictate.Help().Desc; !strings.Contains(h, "dictate") {
		t.Errorf("ctrl+r's help %q does not say it dictates", h)
	}
}

// + then - comes back to the same search: it is sent as the first was
// (the default left out), so the library replaces the first, not keeps
// two identical items.
func TestBackToTheDefaultIsTheSameSearch(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(80, 24)
	typeText(p, "go tui")
	_, cmd := p.Update(uitest.Press("enter"))
	uitest.Settle(drive(p), cmd)
	first := string(srv.Last(apitest.InvokePath(api.ToolSearch)).Body)
	for _, k := range []string{"+", "-"} {
		_, cmd := p.Update(uitest.Press(k))
		uitest.Settle(drive(p), cmd)
	}
	if last := string(srv.Last(apitest.InvokePath(api.ToolSearch)).Body); last != first {
		t.Errorf("after + and - the search sent %s, the first sent %s", last, first)
	}
}

// At 120 columns a result from a file keeps its score on the row (the
// path gives way, keeping the file's name), and near scores draw bars
// of different lengths.
func TestScoreStaysOnTheRow(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(120, 30)
	long := "file:///usr/share/doc/valgrind/html/some/very/deep/folder/of/the/manual/that/goes/on/and/on/manual-core.html"
	out := &api.SearchOutput{Query: "leak", Results: []api.SearchResult{
		{Title: "A", URL: long, Content: "a", Score: 1.00},
		{Title: "B", URL: long + "?b", Content: "b", Score: 0.98},
		{Title: "C", URL: long + "?c", Content: "c", Score: 0.97},
		{Title: "D", URL: long + "?d", Content: "d", Score: 0.95},
	}}
	p.query.Blur()
	p.Update(doneMsg{seq: 0, out: out})
	var bars []string
	for _, l := range strings.Split(uitest.Plain(p.View()), "\n") {
		if strings.Contains(l, "manual-core.html") && !strings.Contains(l, "file://") {
			if !strings.Contains(l, "0.9") && !strings.Contains(l, "1.00") {
				t.Errorf("the score is off the row: %q", l)
			}
			bars = append(bars, strings.TrimRight(l[strings.LastIndex(l, "html")+4:], " "))
		}
	}
	if len(bars) < 4 {
		t.Fatalf("found %d result rows:\n%s", len(bars), uitest.Plain(p.View()))
	}
	for i := 1; i < len(bars); i++ {
		if a, b := strings.Fields(bars[i-1])[0], strings.Fields(bars[i])[0]; a == b {
			t.Errorf("results %d and %d draw the same bar %q", i, i+1, a)
		}
	}
}

// The index line opened from the palette shows its whole placeholder,
// not "index: a" (a line with no width shows only the first letter).
func TestIndexLineShowsItsPlaceholder(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	c.Index = &memIndex{sources: map[string]int{}}
	p := New(c)
	p.SetSize(80, 24)
	_, cmd := p.Update(common.IndexMsg{})
	uitest.Settle(drive(p), cmd)
	if v := uitest.Plain(p.View()); !strings.Contains(v, "index: a folder, a file, a site URL or a sitemap URL") {
		t.Errorf("the index line:\n%s", v)
	}
}

// A search sent from the pane's own form (f) with max_results 3 shows
// "max 3" on the options line, and + counts up from 3: the form sends
// integers as int64, which the options line did not read (issue 43:
// "max 5" above "3 results").
func TestFormSentMaxResultsIsShown(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(80, 24)
	typeText(p, "rivets")
	p.Update(uitest.Press("esc"))
	p.Update(uitest.Press("f"))
	if p.form == nil {
		t.Fatal("f did not open the form")
	}
	p.form.Set("max_results", 3)
	_, cmd := p.Update(uitest.Press("ctrl+s"))
	if p.form != nil {
		_, cmd = p.Update(uitest.Press("enter"))
	}
	uitest.Settle(drive(p), cmd)
	if body := string(srv.Last(apitest.InvokePath(api.ToolSearch)).Body); !strings.Contains(body, `"max_results":3`) {
		t.Fatalf("the form sent %s", body)
	}
	if line := uitest.Plain(p.optionsLine()); !strings.Contains(line, "max 3") {
		t.Errorf("after the form sent max_results 3 the options line is %q", line)
	}
	_, cmd = p.Update(uitest.Press("+"))
	uitest.Settle(drive(p), cmd)
	if line := uitest.Plain(p.optionsLine()); !strings.Contains(line, "max 4") {
		t.Errorf("+ after max 3: %q", line)
	}
}
