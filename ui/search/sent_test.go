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
	if h := Keys.Dictate.Help().Desc; !strings.Contains(h, "dictate") {
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
