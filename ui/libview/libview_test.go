package libview

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/library"
	"hark/ui/common"
	"hark/ui/internal/uitest"
)

// Times show in local time: the goldens are made in UTC wherever they run.
func init() { time.Local = time.UTC }

// newPane is a Library pane over a library holding a report, a search
// and a page, kept a minute apart (the report newest).
func newPane(t *testing.T, w, h int) (*Pane, *library.Store) {
	t.Helper()
	s, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	out := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	at := uitest.Epoch.Add(-time.Hour)
	items := []*library.Item{
		{Kind: library.KindPage, Tool: api.ToolExtract, Title: "Okapi facts", URL: "https://docs.example/okapi",
			Body: "# Okapi facts\n\nThe okapi is a giraffid of the Congo rainforest.", Gateway: "embedded · workspace local", Created: at},
		{Kind: library.KindSearch, Tool: api.ToolSearch, Title: "zebra crossings", Query: "zebra crossings", Inputs: `{"query":"zebra crossings"}`,
			Output: out(api.SearchOutput{Query: "zebra crossings", Results: []api.SearchResult{{Title: "Zebra crossing", URL: "https://en.example/zebra"}}}),
			Body:   "# zebra crossings\n\n1. [Zebra crossing](https://en.example/zebra)\n", Gateway: "embedded · workspace local", Created: at.Add(time.Minute)},
		{Kind: library.KindResearch, Tool: api.ToolResearch, Title: "How do crossings work?", Query: "How do crossings work?", Inputs: `{"input":"How do crossings work?","model":"mini"}`,
			Output: out(api.ResearchOutput{RequestID: "r1", Status: api.ResearchCompleted, Content: "Stripes give pedestrians the right of way [1]."}),
			Body:   "# How do crossings work?\n\nStripes give pedestrians the right of way [1].\n", Gateway: "embedded · workspace local", Created: at.Add(2 * time.Minute)},
	}
	if err := s.Add(context.Background(), items...); err != nil {
		t.Fatal(err)
	}
	c, _ := uitest.Common(t, nil)
	c.Library = func() (*library.Store, error) { return s, nil }
	p := New(c)
	p.SetSize(w, h)
	settle(p, p.Init())
	return p, s
}

// settle runs cmd and feeds its messages back until nothing is left; the
// messages meant for other panes (through the root) are returned.
func settle(p *Pane, cmd tea.Cmd) []tea.Msg {
	var out []tea.Msg
	uitest.Settle(func(m tea.Msg) tea.Cmd {
		switch m.(type) {
		case common.ShowKeptMsg, common.RunToolMsg, common.NoticeMsg, common.ErrorMsg:
			out = append(out, m)
			return nil
		}
		_, c := p.Update(m)
		return c
	}, cmd)
	return out
}

func press(p *Pane, keys ...string) []tea.Msg {
	var out []tea.Msg
	for _, k := range keys {
		_, cmd := p.Update(uitest.Press(k))
		out = append(out, settle(p, cmd)...)
	}
	return out
}

func typeText(p *Pane, text string) {
	for _, k := range uitest.Type(text) {
		_, cmd := p.Update(k)
		settle(p, cmd)
	}
}

func TestGoldens(t *testing.T) {
	for _, sz := range [][2]int{{80, 21}, {120, 27}} {
		p, _ := newPane(t, sz[0], sz[1])
		uitest.Golden(t, "library_"+size(sz), p.View())
		press(p, "f")
		uitest.Golden(t, "library_research_"+size(sz), p.View())
		press(p, "f", "f", "f", "f", "f", "/") // back to all, then search
		typeText(p, "giraf")
		uitest.Golden(t, "library_search_"+size(sz), p.View())
	}
	p, s := newPane(t, 80, 21)
	s.DeleteAll(context.Background())
	settle(p, p.load())
	uitest.Golden(t, "library_empty_80x21", p.View())
}

func size(sz [2]int) string { return strings.Join([]string{itoa(sz[0]), itoa(sz[1])}, "x") }

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// Every word typed narrows the list as it is typed, offline; a kept item
// opens from what was kept.
func TestSearchOpenRerunDeleteExport(t *testing.T) {
	p, s := newPane(t, 100, 30)
	if len(p.items) != 3 || p.items[0].Kind != library.KindResearch {
		t.Fatalf("items: %+v", p.items)
	}
	press(p, "/")
	typeText(p, "pedestrians right")
	if len(p.items) != 1 || p.items[0].Kind != library.KindResearch || !strings.Contains(p.items[0].Snippet, "pedestrians") {
		t.Fatalf("search: %+v", p.items)
	}
	msgs := press(p, "enter", "enter") // leave the line, open
	if len(msgs) != 1 {
		t.Fatalf("open gave %v", msgs)
	}
	kept, ok := msgs[0].(common.ShowKeptMsg)
	if !ok || kept.Item.Kind != library.KindResearch || !strings.Contains(kept.Item.Output, "Stripes") {
		t.Fatalf("open gave %#v", msgs[0])
	}
	// r runs the tool again with the inputs it was run with.
	msgs = press(p, "r")
	run, ok := msgs[0].(common.RunToolMsg)
	if !ok || run.Tool.Slug != api.ToolResearch || run.Inputs["input"] != "How do crossings work?" || run.Inputs["model"] != "mini" {
		t.Fatalf("r gave %#v", msgs)
	}
	// esc clears the search; d asks, d again deletes.
	press(p, "/", "esc")
	if len(p.items) != 3 {
		t.Fatalf("after esc: %d items", len(p.items))
	}
	press(p, "j", "d")
	if v := uitest.Plain(p.View()); !strings.Contains(v, "d again deletes this item") {
		t.Errorf("no confirmation:\n%s", v)
	}
	press(p, "j") // another key keeps it
	if n, _ := s.Count(context.Background()); n != 3 {
		t.Fatalf("deleted without a second d: %d", n)
	}
	msgs = press(p, "d", "d")
	for _, m := range msgs {
		if e, ok := m.(common.ErrorMsg); ok {
			t.Fatal(e.Err)
		}
	}
	settle(p, p.load())
	if n, _ := s.Count(context.Background()); n != 2 || len(p.items) != 2 {
		t.Fatalf("after d d: %d kept, %d listed", n, len(p.items))
	}
	// ctrl+s offers a file in the output directory; enter writes it.
	press(p, "g", "ctrl+s")
	if !p.OwnsKeys() || !strings.Contains(uitest.Plain(p.View()), "save as "+p.c.OutputDir+"/How_do_crossings_work.md") {
		t.Fatalf("ctrl+s did not offer a path:\n%s", uitest.Plain(p.View()))
	}
	msgs = press(p, "enter")
	notice, ok := msgs[0].(common.NoticeMsg)
	if !ok || !strings.HasPrefix(notice.Text, "exported ") {
		t.Fatalf("export gave %#v", msgs)
	}
	b, err := os.ReadFile(filepath.Join(p.c.OutputDir, "How_do_crossings_work.md"))
	if err != nil || !strings.Contains(string(b), "Stripes give pedestrians") {
		t.Errorf("exported %q %v", b, err)
	}
	// Again: a fresh name is offered, not the one that now exists.
	press(p, "ctrl+s")
	msgs = press(p, "enter")
	if notice, ok := msgs[0].(common.NoticeMsg); !ok || !strings.HasSuffix(notice.Text, "How_do_crossings_work-2.md") {
		t.Errorf("second export gave %#v", msgs)
	}
}

// A search line of punctuation alone lists nothing and says why, in the
// items and in the highlights; a word typed after it searches again.
func TestSearchWithoutWordsSaysSo(t *testing.T) {
	p, _ := newPane(t, 80, 21)
	for _, notes := range []bool{false, true} {
		if notes {
			press(p, "/", "esc", "n")
		}
		press(p, "/")
		typeText(p, "?")
		v := uitest.Plain(p.View())
		if !strings.Contains(v, "The search line has no words: a search matches words (letters or digits)") || strings.Contains(v, "crossings work") {
			t.Errorf("notes %v: punctuation alone:\n%s", notes, v)
		}
	}
	press(p, "esc", "n", "/")
	typeText(p, "? okapi")
	if v := uitest.Plain(p.View()); strings.Contains(v, "no words") || !strings.Contains(v, "Okapi facts") {
		t.Errorf("a word after the punctuation:\n%s", v)
	}
}

// Typed words (a search typed before / was pressed) never write a file:
// exporting is ctrl+s.
func TestTypingNeverExports(t *testing.T) {
	p, _ := newPane(t, 80, 21)
	for _, k := range append(uitest.Type("what was new, draw"), uitest.Press("enter")) {
		settle(p, func() tea.Cmd { _, c := p.Update(k); return c }())
	}
	if p.saveAs.Active() {
		press(p, "esc")
	}
	if files, _ := os.ReadDir(p.c.OutputDir); len(files) > 0 {
		t.Errorf("typing wrote %s", files[0].Name())
	}
}

// A kind with nothing kept says so, not "Nothing kept yet", when other
// kinds are kept.
func TestEmptyKindSaysOthersAreKept(t *testing.T) {
	p, _ := newPane(t, 80, 21)
	press(p, "f", "f", "f", "f") // research, search, page, crawl
	v := uitest.Plain(p.View())
	if !strings.Contains(v, "No crawls kept yet; other kinds are") || strings.Contains(v, "Nothing kept yet") {
		t.Errorf("empty kind:\n%s", v)
	}
}

// Items kept by another process are listed on coming back to the pane,
// without typing anything.
func TestShownReloads(t *testing.T) {
	p, s := newPane(t, 80, 21)
	if err := s.Add(context.Background(), &library.Item{Kind: library.KindPage, Tool: api.ToolExtract, Title: "Quagga notes",
		URL: "https://docs.example/quagga", Body: "The quagga was a zebra.", Created: uitest.Epoch}); err != nil {
		t.Fatal(err)
	}
	settle(p, p.Shown())
	if v := uitest.Plain(p.View()); !strings.Contains(v, "Quagga notes") {
		t.Errorf("not reloaded when shown:\n%s", v)
	}
}

// The digits switch panes from the empty search line, as everywhere.
func TestEmptyLineLetsDigitsThrough(t *testing.T) {
	p, _ := newPane(t, 80, 21)
	press(p, "/")
	if !p.LineEmpty() {
		t.Error("an empty focused line should let digits through")
	}
	typeText(p, "z")
	if p.LineEmpty() {
		t.Error("a line with text takes digits")
	}
}
