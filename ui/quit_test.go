package ui

import (
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
