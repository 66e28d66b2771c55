package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/library"
	"hark/ui/common"
	"hark/ui/internal/uitest"
)

func quits(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

// q in the Pages reader closes the page (as it leaves less); quitting
// takes q from the list, or ctrl+c anywhere.
func TestQuitOnlyFromTheList(t *testing.T) {
	m := newModel(t, nil, 80, 24)
	m.Update(common.ShowKeptMsg{Item: keptPage("https://docs.example.com/a", "# A\n\nText.")})
	if m.panes[m.active].Title() != "Pages" || !m.panes[m.active].(common.DocumentShower).ShowingDocument() {
		t.Fatal("the kept page is not open in the Pages reader")
	}
	if _, cmd := m.Update(uitest.Press("q")); quits(cmd) {
		t.Fatal("q in the reader quits hark")
	}
	if m.panes[m.active].(common.DocumentShower).ShowingDocument() {
		t.Error("q did not close the reader")
	}
	if _, cmd := m.Update(uitest.Press("q")); !quits(cmd) {
		t.Error("q on the Pages list does not quit")
	}
	m.Update(common.ShowKeptMsg{Item: keptPage("https://docs.example.com/a", "# A\n\nText.")})
	if _, cmd := m.Update(uitest.Press("ctrl+c")); !quits(cmd) {
		t.Error("ctrl+c in the reader does not quit")
	}
}

func keptPage(u, body string) library.Item {
	return library.Item{Kind: library.KindPage, Tool: api.ToolExtract, URL: u, Body: body, Inputs: `{"format":"markdown"}`}
}

// Credits used before the session (the CLI's, an earlier session's) are
// told apart from the session's own: a TUI that has done nothing does
// not read as having spent 5.
func TestCreditsSayWhatThisSessionSpent(t *testing.T) {
	m := newModel(t, nil, 120, 24)
	m.Update(common.CallMsg{TraceID: "t1", Status: 200, HasCredits: true, CreditsUsed: 5})
	if st := uitest.Plain(m.statusView()); !strings.Contains(st, "credits 5 (0 this session)") {
		t.Errorf("at start: %q", st)
	}
	m.Update(common.CallMsg{TraceID: "t2", Status: 200, HasCredits: true, CreditsUsed: 7, CreditsCharged: 2})
	if st := uitest.Plain(m.statusView()); !strings.Contains(st, "credits 7 (2 this session)") {
		t.Errorf("after a search: %q", st)
	}
	fresh := newModel(t, nil, 120, 24)
	fresh.Update(common.CallMsg{TraceID: "t1", Status: 200, HasCredits: true, CreditsUsed: 0})
	fresh.Update(common.CallMsg{TraceID: "t2", Status: 200, HasCredits: true, CreditsUsed: 1, CreditsCharged: 1})
	if st := uitest.Plain(fresh.statusView()); !strings.Contains(st, "credits 1 │") && !strings.HasSuffix(strings.TrimSpace(st), "credits 1") {
		t.Errorf("a fresh folder: %q", st)
	}
}
