package research

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/api/apitest"
	"hark/ui/common"
	"hark/ui/internal/uitest"
)

// keptIndex is a local index holding one file's kept text, which a test
// changes to see verify find each quote standing, moved or gone; the
// file read again from disk is the same text, or readErr when set.
type keptIndex struct {
	fileIndex
	text    *string
	readErr *error
}

func (k keptIndex) IndexedText(context.Context, string) (string, error) { return *k.text, nil }

func (k keptIndex) SourceText(context.Context, string) (string, error) {
	if k.readErr != nil && *k.readErr != nil {
		return "", *k.readErr
	}
	return *k.text, nil
}

const keptPage = "Zorblax manual\n\nThe zorblax engine is tuned by setting the flux ratio in the control file. A higher ratio makes it louder.\n"

// A report with one quote of a file source.
func citedReport(text string) *api.ResearchOutput {
	quote := "The zorblax engine is tuned by setting the flux ratio in the control file."
	start := strings.Index(text, quote)
	return &api.ResearchOutput{RequestID: "req-9", Status: api.ResearchCompleted,
		Content: "# how do I tune zorblax?\n\n## Summary\n\n" + quote + " [1]\n",
		Sources: []api.ResearchSource{{Title: "Zorblax", URL: "file:///docs/zorblax.md"}},
		Passages: []api.ResearchPassage{{Source: 1, URL: "file:///docs/zorblax.md", Quote: quote,
			Start: start, End: start + len(quote) - 1}}}
}

// c lists the report's quotes; enter shows the quote in its source's
// text, found and highlighted; v marks each quote as it now stands.
func TestCitationOpensItsPassageAndVerifies(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	text := keptPage
	c.Index = keptIndex{text: &text}
	p := New(c)
	p.SetSize(100, 24)
	s := finished(t, p, "how do I tune zorblax?")
	s.Out = citedReport(text)
	p.setReport(s)
	if v := uitest.Plain(p.View()); !strings.Contains(v, "c citations · v verify") {
		t.Errorf("the report's foot does not name the citation keys:\n%s", v)
	}
	p.Update(uitest.Press("c"))
	if v := uitest.Plain(p.View()); !strings.Contains(v, "Citations (1)") || !strings.Contains(v, "[1] The zorblax engine is tuned") {
		t.Fatalf("c did not list the citations:\n%s", v)
	}
	enter := func() {
		t.Helper()
		uitest.Settle(drive(p), func() tea.Cmd { _, c := p.Update(uitest.Press("enter")); return c }())
	}
	enter()
	if p.focus != focusSource || p.srcState != api.PassageStands {
		t.Fatalf("enter: focus %v, state %q", p.focus, p.srcState)
	}
	if st := p.srcRd.Status(); !strings.Contains(st, "1 of 1") {
		t.Errorf("the quote is not found in the source: %q", st)
	}
	view := p.View()
	if !strings.Contains(uitest.Plain(view), "the quote stands") || !strings.Contains(view, "\x1b[") {
		t.Errorf("source view:\n%s", view)
	}
	p.Update(uitest.Press("esc"))
	if p.focus != focusCitations {
		t.Fatalf("esc from the source: focus %v", p.focus)
	}

	if n := verify(t, p); n.Text != "verified: 1 quote: 1 stand, 0 moved, 0 gone" || n.Warn {
		t.Errorf("verify in place: %+v", n)
	}
	text = "A new first paragraph.\n\n" + keptPage
	if n := verify(t, p); n.Text != "verified: 1 quote: 0 stand, 1 moved, 0 gone" || !strings.Contains(uitest.Plain(p.View()), "moved") {
		t.Errorf("verify after an insert: %q\n%s", n.Text, uitest.Plain(p.View()))
	}
	enter()
	if p.srcState != api.PassageMoved || !strings.Contains(p.srcRd.Status(), "1 of 1") {
		t.Errorf("a moved quote is found where it is now: %q %q", p.srcState, p.srcRd.Status())
	}
	p.Update(uitest.Press("esc"))
	text = "Zorblax manual\n\nNothing here.\n"
	if n := verify(t, p); n.Text != "verified: 1 quote: 0 stand, 0 moved, 1 gone" {
		t.Errorf("verify after removal: %q", n.Text)
	}
}

// Through a remote gateway, v reads each source again at the depth the
// report was made with: basic for a mini report, advanced for a pro one
// (advanced costs more on a paid vendor).
func TestVerifyReadsAtTheReportsDepth(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(100, 24)
	for model, want := range map[string]string{"mini": "basic", "pro": "advanced", "": "basic"} {
		s := finished(t, p, "how do I tune zorblax?")
		s.Model = model
		u := "https://docs.example/zorblax"
		s.Out = &api.ResearchOutput{RequestID: "r", Status: api.ResearchCompleted, Content: "Zorblax [1].",
			Sources:  []api.ResearchSource{{Title: "Zorblax", URL: u}},
			Passages: []api.ResearchPassage{{Source: 1, URL: u, Quote: "Page " + u, Start: 2, End: 7 + len(u)}}}
		p.setReport(s)
		if n := verify(t, p); n.Text != "verified: 1 quote: 1 stand, 0 moved, 0 gone" {
			t.Fatalf("model %q: %+v", model, n)
		}
		var body struct{ Inputs map[string]any }
		json.Unmarshal(srv.Last(apitest.InvokePath(api.ToolExtract)).Body, &body)
		if got := body.Inputs["extract_depth"]; got != want {
			t.Errorf("a %q report's sources read again at %v, want %s", model, got, want)
		}
	}
}

// verify presses v and returns the notice it ends with.
func verify(t *testing.T, p *Pane) common.NoticeMsg {
	t.Helper()
	var notice common.NoticeMsg
	uitest.Settle(func(m tea.Msg) tea.Cmd {
		if n, ok := m.(common.NoticeMsg); ok {
			notice = n
		}
		_, c := p.Update(m)
		return c
	}, func() tea.Cmd { _, c := p.Update(uitest.Press("v")); return c }())
	return notice
}

// A source that cannot be read now is not checked: v warns with the
// reason (never "✓ verified … gone"), the citation says "not checked",
// and enter shows the kept copy, called that, which still holds the
// quote (issue 43).
func TestUnreachableSourceIsNotChecked(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	text := keptPage
	var readErr error = errors.New("connection refused by 127.0.0.1:8743")
	c.Index = keptIndex{text: &text, readErr: &readErr}
	p := New(c)
	p.SetSize(80, 24)
	s := finished(t, p, "how do I tune zorblax?")
	s.Out = citedReport(text)
	p.setReport(s)
	n := verify(t, p)
	if !n.Warn || n.Text != "1 of 1 quote not checked: connection refused by 127.0.0.1:8743" {
		t.Errorf("v with the source unreachable: %+v", n)
	}
	p.Update(uitest.Press("c"))
	if v := uitest.Plain(p.View()); !strings.Contains(v, "[1] not checked The zorblax engine") {
		t.Errorf("the citation is not marked not checked:\n%s", v)
	}
	uitest.Settle(drive(p), func() tea.Cmd { _, c := p.Update(uitest.Press("enter")); return c }())
	v := uitest.Plain(p.View())
	if p.srcState != api.PassageStands || !strings.Contains(v, "the kept copy") || !strings.Contains(v, "not checked: connection refused") ||
		strings.Contains(v, "no longer holds") {
		t.Errorf("the kept copy shown after an unreachable verify:\n%s", v)
	}
	// Reachable again: v reads it, and enter shows the page as read.
	readErr = nil
	p.Update(uitest.Press("esc"))
	if n := verify(t, p); n.Warn || n.Text != "verified: 1 quote: 1 stand, 0 moved, 0 gone" {
		t.Errorf("v once the source is back: %+v", n)
	}
	uitest.Settle(drive(p), func() tea.Cmd { _, c := p.Update(uitest.Press("enter")); return c }())
	if v := uitest.Plain(p.View()); !strings.Contains(v, "the quote stands in the page now") {
		t.Errorf("after v, enter shows the page as read:\n%s", v)
	}
}

// A citation's source opens at the start of the quote's paragraph, not
// two wrapped lines above the quote, mid-sentence (issue 43: "that code.
// Therefore…").
func TestCitationOpensAtItsParagraph(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	var b strings.Builder
	b.WriteString("Zorblax manual\n\n")
	for i := 0; i < 30; i++ {
		b.WriteString("An earlier paragraph that fills the page so that the quote is far below the top of it.\n\n")
	}
	b.WriteString("The opening sentence of the paragraph runs long enough to wrap over a line or two at eighty columns, and then some more words, " +
		"and more again, so that the quote begins on the fourth line of its paragraph, below that code. Therefore: " +
		"The zorblax engine is tuned by setting the flux ratio in the control file. A higher ratio makes it louder.\n\n")
	for i := 0; i < 30; i++ {
		b.WriteString("A later paragraph.\n\n")
	}
	text := b.String()
	c.Index = keptIndex{text: &text}
	p := New(c)
	p.SetSize(80, 24)
	s := finished(t, p, "how do I tune zorblax?")
	s.Out = citedReport(text)
	p.setReport(s)
	p.Update(uitest.Press("c"))
	uitest.Settle(drive(p), func() tea.Cmd { _, c := p.Update(uitest.Press("enter")); return c }())
	lines := strings.Split(uitest.Plain(p.View()), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "[1] ") {
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "The opening sentence of the paragraph") {
				t.Errorf("the source opens mid-paragraph:\n%s", strings.Join(lines, "\n"))
			}
			return
		}
	}
	t.Fatalf("no source view:\n%s", strings.Join(lines, "\n"))
}

// q closes what is shown a step at a time (a citation's source, the
// citations, the report) rather than quitting hark: the root quits on q
// only when ShowingDocument is false (issue 28).
func TestQClosesTheReportNotHark(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	text := keptPage
	c.Index = keptIndex{text: &text}
	p := New(c)
	p.SetSize(100, 24)
	s := finished(t, p, "how do I tune zorblax?")
	s.Out = citedReport(text)
	p.setReport(s)
	if !p.ShowingDocument() {
		t.Fatal("a report is shown, but ShowingDocument is false: q would quit hark")
	}
	p.Update(uitest.Press("c"))
	uitest.Settle(drive(p), func() tea.Cmd { _, c := p.Update(uitest.Press("enter")); return c }())
	if p.focus != focusSource {
		t.Fatalf("enter on a citation: focus %v", p.focus)
	}
	for _, want := range []focus{focusCitations, focusReport} {
		if !p.ShowingDocument() {
			t.Fatalf("focus %v: ShowingDocument is false", p.focus)
		}
		p.Update(uitest.Press("q"))
		if p.focus != want || p.current != s {
			t.Fatalf("q: focus %v, want %v (report kept %v)", p.focus, want, p.current == s)
		}
	}
	p.Update(uitest.Press("q"))
	if p.current != nil || p.ShowingDocument() {
		t.Fatal("q on the report did not close it")
	}
	if v := uitest.Plain(p.View()); strings.Contains(v, "Summary") || !strings.Contains(v, "history (1)") {
		t.Errorf("after q the pane still shows the report or lost its history:\n%s", v)
	}
	// The history is a list: q there quits, as the root decides.
	p.Update(uitest.Press("h"))
	if p.focus != focusHistory || p.ShowingDocument() {
		t.Errorf("history: focus %v, ShowingDocument %v", p.focus, p.ShowingDocument())
	}
	// While the question line has the cursor, q is a letter of the question.
	p.Update(uitest.Press("i"))
	if p.ShowingDocument() {
		t.Error("the question line has the cursor, yet ShowingDocument is true")
	}
}

// A quote is located by its words (api.Locate); its highlight takes in
// the marks it begins and ends with when the page has them there.
func TestQuoteSpanTakesInItsMarks(t *testing.T) {
	text := "copy them:\n\n    $FLITEDIR/tools/setup_flite\n\nthen (run it)."
	for _, c := range []struct{ quote, want string }{
		{"$FLITEDIR/tools/setup_flite", "$FLITEDIR/tools/setup_flite"},
		{"(run it).", "(run it)."},
		{"copy them", "copy them"},
	} {
		s, e, ok := api.Locate(text, c.quote, 0)
		if !ok {
			t.Fatalf("%q not located", c.quote)
		}
		if s, e = quoteSpan(text, c.quote, s, e); text[s:e] != c.want {
			t.Errorf("%q highlights %q, want %q", c.quote, text[s:e], c.want)
		}
	}
}

// In a citation's source, the index's copy of the page, H is claimed
// from the root (whose H goes to the pane before) and says where a
// passage is highlighted; in the report it selects one.
func TestHInACitationsSourceSaysWhere(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	text := "Zorblax manual\n\nThe zorblax engine is tuned by setting the flux ratio in the control file. A higher ratio makes it louder.\n"
	c.Index = keptIndex{text: &text}
	p := New(c)
	p.SetSize(80, 24)
	s := finished(t, p, "how do I tune zorblax?")
	s.Out = citedReport(text)
	p.setReport(s)
	if !p.Claims(uitest.Press("H")) {
		t.Error("the report does not claim H")
	}
	p.Update(uitest.Press("c"))
	if p.Claims(uitest.Press("H")) {
		t.Error("the citations list claims H")
	}
	uitest.Settle(drive(p), func() tea.Cmd { _, c := p.Update(uitest.Press("enter")); return c }())
	if p.focus != focusSource || !p.Claims(uitest.Press("H")) {
		t.Fatalf("the source (focus %d) does not claim H", p.focus)
	}
	_, cmd := p.Update(uitest.Press("H"))
	if cmd == nil {
		t.Fatal("H in the source said nothing")
	}
	if n, ok := cmd().(common.NoticeMsg); !ok || !strings.Contains(n.Text, "s, then enter reads it in Pages") {
		t.Errorf("H in the source: %+v", n)
	}
}
