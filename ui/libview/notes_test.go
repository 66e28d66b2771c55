package libview

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"hark/library"
	"hark/library/zoterotest"
	"hark/ui/common"
	"hark/ui/internal/uitest"
)

// With no highlight, the list says how to make one: v in a page, and H
// in a report, where v verifies the report's quotes.
func TestNotesEmptyNamesTheKeys(t *testing.T) {
	p, _ := newPane(t, 80, 21)
	settle(p, p.key(uitest.Press("n")))
	if v := strings.Join(strings.Fields(uitest.Plain(p.View())), " "); !strings.Contains(v, "In a page, v selects a sentence (in a report, H does: v verifies there)") {
		t.Errorf("the empty list's hint:\n%s", v)
	}
}

// n lists the highlights; typing searches quote, note and tags; enter
// opens the kept copy at the quote; z sends them to Zotero, O to an
// Obsidian folder; d d removes one.
func TestNotesList(t *testing.T) {
	p, s := newPane(t, 80, 21)
	ctx := context.Background()
	items, _ := s.List(ctx, library.KindPage, 0)
	page, _ := s.Get(ctx, items[0].ID)
	start, end, _ := library.FindPassage(page, "a giraffid of the Congo", 0)
	if _, err := s.AddHighlight(ctx, page, start, end, "where it lives", []string{"zoology"}); err != nil {
		t.Fatal(err)
	}
	settle(p, p.key(uitest.Press("n")))
	v := uitest.Plain(p.View())
	if !strings.Contains(v, "“a giraffid of the Congo”") || !strings.Contains(v, "where it lives · #zoology · Okapi facts") || !strings.Contains(v, "1 highlight") {
		t.Fatalf("notes:\n%s", v)
	}
	// At 80 columns the keys line gives way by whole keys, the way
	// back to the items last: it was cut mid-word ("n it…").
	if f := strings.TrimSpace(uitest.Plain(p.notesFooter())); !strings.HasSuffix(f, " · n items") || strings.Contains(f, "…") {
		t.Errorf("the keys line at 80 columns: %q", f)
	}
	settle(p, p.key(uitest.Press("/")))
	for _, k := range uitest.Type("lives") {
		settle(p, p.key(k))
	}
	if v := uitest.Plain(p.View()); !strings.Contains(v, "giraffid") {
		t.Errorf("search lives:\n%s", v)
	}
	for _, k := range uitest.Type("x") {
		settle(p, p.key(k))
	}
	if v := uitest.Plain(p.View()); !strings.Contains(v, "No highlight matches") {
		t.Errorf("search livesx:\n%s", v)
	}
	settle(p, p.key(uitest.Press("backspace")))
	settle(p, p.key(uitest.Press("enter")))
	out := settle(p, p.key(uitest.Press("enter")))
	if len(out) != 1 {
		t.Fatalf("enter: %v", out)
	}
	if m, ok := out[0].(common.ShowKeptMsg); !ok || m.Item.ID != page.ID || m.At != "a giraffid of the Congo" {
		t.Errorf("enter: %+v", out[0])
	}

	// Zotero not running: what to do, first, in a line that fits at 80
	// columns with the status bar's "✗ ".
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	p.c.ZoteroURL = closed.URL
	out = settle(p, p.key(uitest.Press("z")))
	if len(out) != 1 {
		t.Fatalf("z with Zotero closed: %+v", out)
	}
	if e, ok := out[0].(common.ErrorMsg); !ok || !strings.HasPrefix(e.Err.Error(), "nothing was sent: Zotero is not running on 127.0.0.1:") ||
		!strings.HasSuffix(e.Err.Error(), "(start it, then z)") || len(e.Err.Error()) > 78 {
		t.Errorf("z with Zotero closed: %+v", out[0])
	}

	fake, url := zoterotest.Start(t)
	p.c.ZoteroURL = url
	out = settle(p, p.key(uitest.Press("z")))
	if len(out) != 1 || !strings.Contains(out[0].(common.NoticeMsg).Text, "Zotero: 1 new item and 1 note sent") || len(fake.Items()) != 1 {
		t.Errorf("z: %+v", out)
	}
	dir := filepath.Join(t.TempDir(), "vault")
	settle(p, p.key(uitest.Press("O")))
	p.saveAs.Close()
	p.saveAs.Open(dir, false, nil)
	out = settle(p, p.key(uitest.Press("enter")))
	if b, err := os.ReadFile(filepath.Join(dir, "Okapi facts.md")); err != nil || !strings.Contains(string(b), "> a giraffid of the Congo\n\nwhere it lives") {
		t.Errorf("O: %v %+v\n%s", err, out, b)
	}
	settle(p, p.key(uitest.Press("d")))
	settle(p, p.key(uitest.Press("d")))
	settle(p, func() tea.Msg { return common.LibraryChangedMsg{} })
	if hs, _ := s.Highlights(ctx, "", 0); len(hs) != 0 || !strings.Contains(uitest.Plain(p.View()), "0 highlights") {
		t.Errorf("d d: %d left\n%s", len(hs), uitest.Plain(p.View()))
	}
}
