package pages

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/library"
	"hark/ui/internal/uitest"
)

// longPage is a page with many sections and a link at its end, to
// another page Pages holds already.
func longPage(u, next string) *Page {
	var md strings.Builder
	md.WriteString("# Start\n\n")
	for i := range 40 {
		fmt.Fprintf(&md, "## Section %d\n\nText of section %d about suppression files.\n\n", i, i)
	}
	fmt.Fprintf(&md, "See [the next page](%s).\n", next)
	return &Page{URL: u, Content: md.String(), Source: api.ToolExtract}
}

// Following a link and coming back with esc returns to the same place
// with the same find, not to the top with the highlight gone.
func TestBackRestoresPlaceAndFind(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 20)
	const a, b = "https://docs.example.com/a", "https://docs.example.com/b"
	uitest.Settle(drive(p), p.add(doneMsg{slug: api.ToolExtract, pages: []*Page{longPage(b, a)}}))
	uitest.Settle(drive(p), p.add(doneMsg{slug: api.ToolExtract, base: a, pages: []*Page{longPage(a, b)}}))
	press(p, "/")
	for _, k := range uitest.Type("section 23") {
		p.Update(k)
	}
	press(p, "enter")
	place, status := p.scroll.Offset(), p.rd.Status()
	if place == 0 || !strings.Contains(status, "of 2") {
		t.Fatalf("the find did not move: offset %d, %q", place, status)
	}
	press(p, "l", "enter")
	if p.Reading() == nil || p.Reading().URL != b {
		t.Fatalf("following the link reads %+v", p.Reading())
	}
	press(p, "esc")
	if p.Reading() == nil || p.Reading().URL != a {
		t.Fatalf("esc reads %+v, want %s", p.Reading(), a)
	}
	if p.scroll.Offset() != place || p.rd.Status() != status {
		t.Errorf("back at offset %d with %q, want %d with %q", p.scroll.Offset(), p.rd.Status(), place, status)
	}
	if v := p.View(); !strings.Contains(v, "\x1b[1;7m") {
		t.Error("the find's highlight is gone after coming back")
	}
	// Followed again, and back at another width: the page renders anew
	// and opens where it was left all the same.
	top := strings.Split(uitest.Plain(p.View()), "\n")[1]
	press(p, "l", "enter")
	p.SetSize(60, 20)
	uitest.Settle(drive(p), func() tea.Cmd { _, c := p.Update(tea.WindowSizeMsg{Width: 60, Height: 20}); return c }())
	press(p, "esc")
	if got := strings.Split(uitest.Plain(p.View()), "\n")[1]; strings.TrimSpace(got) != strings.TrimSpace(top) || p.rd.Status() != status {
		t.Errorf("back at 60 columns the top line is %q with %q, want %q with %q", got, p.rd.Status(), top, status)
	}
}

// Typing a link's number in the links list goes to it: "1" "2" is link
// 12, enter opens it.
func TestTypingALinkNumber(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	var md strings.Builder
	md.WriteString("# Links\n\n")
	for i := 1; i <= 15; i++ {
		fmt.Fprintf(&md, "- [link %d](https://docs.example.com/%d)\n", i, i)
	}
	const u = "https://docs.example.com/"
	uitest.Settle(drive(p), p.add(doneMsg{slug: api.ToolExtract, base: u, pages: []*Page{{URL: u, Content: md.String(), Source: api.ToolExtract}}}))
	press(p, "l", "1", "2")
	if p.linkAt != 11 {
		t.Fatalf("after typing 1 2 the list is at link %d, want 12", p.linkAt+1)
	}
	press(p, "7")
	if p.linkAt != 6 {
		t.Errorf("127 passes the last link: a new number 7 should start, got link %d", p.linkAt+1)
	}
	press(p, "3")
	if p.linkAt != 2 {
		t.Errorf("73 passes the last link: a new number 3 should start, got link %d", p.linkAt+1)
	}
	if !strings.Contains(uitest.Plain(p.View()), "type its number") {
		t.Error("the links list does not say a number can be typed")
	}
}

// q closes the reader (as it leaves less) and keeps hark running; the
// root quits on q only from the list (see ui's TestQuitOnlyFromTheList).
func TestQClosesTheReader(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	const u = "https://docs.example.com/"
	uitest.Settle(drive(p), p.add(doneMsg{slug: api.ToolExtract, base: u, pages: []*Page{{URL: u, Content: "# Page\n\nText.", Source: api.ToolExtract}}}))
	if !p.ShowingDocument() {
		t.Fatal("the reader is not open")
	}
	_, cmd := p.Update(uitest.Press("q"))
	if p.ShowingDocument() || p.mode != listMode {
		t.Error("q did not close the reader")
	}
	if cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Error("q in the reader quits")
		}
	}
}

// A page reached by following a link to a page of the local index (no
// call brings it) is kept in the library, under its title.
func TestFollowedIndexedPageIsKept(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	lib, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	c.Library = func() (*library.Store, error) { return lib, nil }
	c.Index = docsIndex{}
	p := New(c)
	p.SetSize(100, 12)
	const a = "file:///srv/docs/a.html"
	uitest.Settle(drive(p), p.add(doneMsg{slug: api.ToolExtract, base: a, pages: []*Page{{URL: a, Source: api.ToolExtract,
		Content: "# Alpha\n\nSee [the next page](file:///srv/docs/b.html).\n"}}}))
	press(p, "l", "enter")
	items, _ := lib.List(context.Background(), library.KindPage, 0)
	if len(items) != 1 || items[0].URL != "file:///srv/docs/b.html" || items[0].Title != "Beta" {
		t.Errorf("kept %+v, want the followed page b.html titled Beta", items)
	}
}
