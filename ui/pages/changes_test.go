package pages

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/library"
	"hark/ui/common"
	"hark/ui/internal/uitest"
)

const (
	okapiBefore = "Okapi facts\n\nThe okapi is a giraffid of the Congo rainforest. Its stripes hide it in the forest.\n\nIt eats leaves, buds and fungi, and it is shy."
	okapiAfter  = "Okapi facts\n\nThe okapi is a giraffid of the Congo rainforest. Its stripes mark it out among the trees.\n\nIt eats leaves, buds and fungi, and it is shy."
)

func okapiChange(u string) *common.Change {
	return &common.Change{WatchID: "w1", URL: u, ChangedAt: time.Date(2026, 12, 7, 9, 30, 0, 0, time.Local), Unseen: true, Current: okapiAfter,
		Ops:   library.WordDiff(okapiBefore, okapiAfter),
		Flags: []library.Flag{{Highlight: &library.Highlight{ID: 4}, Quote: "Its stripes hide it in the forest.", State: api.PassageGone}}}
}

// A watched page that changed says so in the reader's title line; D
// shows the passage that changed as a word diff with the highlight it
// touched flagged; D again (or esc) goes back to the page, not the list.
func TestReaderShowsTheChange(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	const u = "http://127.0.0.1:8080/okapi"
	_, cmd := p.Update(common.OpenPagesMsg{Read: []api.PageContent{{URL: u, RawContent: okapiAfter}}})
	uitest.Settle(drive(p), cmd)
	press(p, "D")
	if p.showChange {
		t.Fatal("D showed a change the page does not have")
	}
	uitest.Settle(drive(p), func() tea.Cmd { _, c := p.Update(common.ChangeMsg{URL: u, Change: okapiChange(u)}); return c }())
	v := uitest.Plain(p.View())
	if !strings.Contains(v, "changed Dec 07 (D)") || !strings.Contains(v, "D the change") {
		t.Fatalf("the reader does not say the page changed:\n%s", v)
	}
	press(p, "D")
	v = uitest.Plain(p.View())
	for _, want := range []string{"! highlight 4 (gone): “Its stripes hide it in the forest.”", "changed Dec 07 09:30: 1 passage",
		"stripes [-hide-] {+mark+} it [-in-]", "D or esc the page"} {
		if !strings.Contains(v, want) {
			t.Errorf("the change lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "It eats leaves, buds and fungi, and it is shy.") {
		t.Errorf("the change shows the page's unchanged paragraph:\n%s", v)
	}
	if got := p.View(); !strings.Contains(got, c.Styles.Err.Render("[-hide-]")) || !strings.Contains(got, c.Styles.OK.Render("{+mark+}")) {
		t.Errorf("the deleted words are not coloured:\n%q", got)
	}
	press(p, "v")
	if p.mark.Selecting() {
		t.Error("v selects in the change view")
	}
	press(p, "esc")
	v = uitest.Plain(p.View())
	if p.mode != readMode || p.showChange || !strings.Contains(v, "mark it out among") || strings.Contains(v, "[-hide") {
		t.Fatalf("esc did not go back to the page (mode %v, change %v):\n%s", p.mode, p.showChange, v)
	}
	press(p, "D", "D")
	if p.showChange || p.mode != readMode {
		t.Error("D twice is not the page again")
	}
}

// The Library's watched pages open a page the pane does not hold at its
// change, from the text the watch read.
func TestOpenChangeOfAPageNotRead(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	const u = "http://127.0.0.1:8080/okapi"
	p.openChange(u)
	uitest.Settle(drive(p), func() tea.Cmd { _, c := p.Update(common.ChangeMsg{URL: u, Change: okapiChange(u)}); return c }())
	if p.mode != readMode || p.reading == nil || p.reading.URL != u || !p.showChange {
		t.Fatalf("not reading the change: mode %v, showChange %v", p.mode, p.showChange)
	}
	if v := uitest.Plain(p.View()); !strings.Contains(v, "{+out among+}") || !strings.Contains(v, "the change") {
		t.Errorf("the change:\n%s", v)
	}
	press(p, "esc")
	if v := uitest.Plain(p.View()); !strings.Contains(v, "Its stripes mark it out among") {
		t.Errorf("the page, as the watch read it:\n%s", v)
	}
	// A page with no change: a notice, no reader.
	q := New(c)
	q.SetSize(80, 24)
	q.openChange(u)
	_, cmd := q.Update(common.ChangeMsg{URL: u})
	if q.mode == readMode || cmd == nil {
		t.Fatal("a page with no change was opened")
	}
	if n, ok := cmd().(common.NoticeMsg); !ok || !strings.Contains(n.Text, "has not changed since it was first read") {
		t.Errorf("notice %+v", n)
	}
}

// A word-diff run that wraps is coloured on each of its lines.
func TestDiffColorsAcrossLines(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	st := c.Styles
	got := common.DiffColors(st, []string{"a [-b c", "d-] e {+f+}"})
	if got[0] != "a "+st.Err.Render("[-b c") || got[1] != st.Err.Render("d-]")+" e "+st.OK.Render("{+f+}") {
		t.Errorf("%q", got)
	}
}

// The Library opens a watched page at its change from the watch's text
// when Pages holds the page as read before the change, and from its own
// copy when read since.
func TestOpenChangeReadsThePageAsItIsNow(t *testing.T) {
	c, clk := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	const u = "http://127.0.0.1:8080/okapi"
	ch := okapiChange(u)
	clk.T = ch.ChangedAt.Add(-time.Hour)
	_, cmd := p.Update(common.OpenPagesMsg{Read: []api.PageContent{{URL: u, RawContent: okapiBefore}}})
	uitest.Settle(drive(p), cmd)
	p.openChange(u)
	uitest.Settle(drive(p), func() tea.Cmd { _, c := p.Update(common.ChangeMsg{URL: u, Change: ch}); return c }())
	press(p, "esc")
	if v := uitest.Plain(p.View()); !strings.Contains(v, "Its stripes mark it out") {
		t.Errorf("a copy read before the change is shown:\n%s", v)
	}
	// Read since the change: that copy is the page now.
	clk.T = ch.ChangedAt.Add(time.Hour)
	const since = "Okapi facts\n\nRead since: its stripes mark it out."
	_, cmd = p.Update(common.OpenPagesMsg{Read: []api.PageContent{{URL: u, RawContent: since}}})
	uitest.Settle(drive(p), cmd)
	p.openChange(u)
	uitest.Settle(drive(p), func() tea.Cmd { _, c := p.Update(common.ChangeMsg{URL: u, Change: okapiChange(u)}); return c }())
	press(p, "esc")
	if v := uitest.Plain(p.View()); !strings.Contains(v, "Read since: its stripes") {
		t.Errorf("the copy read since the change is not shown:\n%s", v)
	}
}
