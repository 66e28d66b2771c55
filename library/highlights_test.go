package library

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/library/zoterotest"
)

const okapiPage = "# Okapi facts\n\nThe okapi is a giraffid of the Congo. Its stripes hide it in the forest.\n\nIt eats leaves."

// keepPage keeps a page with body at url and returns it.
func keepPage(t *testing.T, s *Store, url, body string, at time.Time) Item {
	t.Helper()
	it := &Item{Kind: KindPage, Tool: api.ToolExtract, Title: "Okapi facts", URL: url, Body: body, Created: at}
	if err := s.Add(context.Background(), it); err != nil {
		t.Fatal(err)
	}
	return *it
}

// highlight marks quote in it.
func highlight(t *testing.T, s *Store, it Item, quote, note string, tags ...string) Highlight {
	t.Helper()
	start, end, ok := FindPassage(it, quote, 0)
	if !ok {
		t.Fatalf("%q is not in item %d", quote, it.ID)
	}
	h, err := s.AddHighlight(context.Background(), it, start, end, note, tags)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestHighlightFoundAfterReadingAgain(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	ctx := context.Background()
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	it := keepPage(t, s, "https://docs.example/okapi", okapiPage, t0)
	h := highlight(t, s, it, "Its stripes hide it in the forest.", "camouflage, not display", "Zoology", "#forest")
	if h.Quote != "Its stripes hide it in the forest" || h.Prefix == "" || strings.Join(h.Tags, ",") != "zoology,forest" {
		t.Fatalf("highlight %+v", h)
	}
	gone := highlight(t, s, it, "It eats leaves.", "")

	hs, err := s.Highlights(ctx, "", 0)
	if err != nil || len(hs) != 2 {
		t.Fatalf("list: %v %d", err, len(hs))
	}
	if err := s.Check(ctx, hs); err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		if h.State != api.PassageStands {
			t.Errorf("%d in its own copy: %s", h.ID, h.State)
		}
	}
	// The page read again: a paragraph added above, the last one gone.
	keepPage(t, s, it.URL, "# Okapi facts\n\nA new opening paragraph.\n\nThe okapi is a giraffid of the Congo. Its *stripes* hide it in the forest.", t0.Add(time.Hour))
	if err := s.Check(ctx, hs); err != nil {
		t.Fatal(err)
	}
	state := map[int64]string{}
	for _, h := range hs {
		state[h.ID] = h.State
	}
	if state[h.ID] != api.PassageMoved || state[gone.ID] != api.PassageGone {
		t.Errorf("after reading again: %v", state)
	}
	// The kept copy it was made in still opens, whatever the page says now.
	src, ok, err := s.SourceOf(ctx, gone)
	if err != nil || !ok || src.ID != it.ID {
		t.Errorf("source of a gone highlight: %v %v %d", err, ok, src.ID)
	}

	// Search as you type over quote, note and tags.
	for q, want := range map[string]int{"camou": 1, "forest": 1, "leav": 1, "zoology": 1, "okapi": 2, "nothing here": 0} {
		got, err := s.Highlights(ctx, q, 0)
		if err != nil || len(got) != want {
			t.Errorf("search %q: %d, %v; want %d", q, len(got), err, want)
		}
	}
	if err := s.SetNote(ctx, h.ID, "stripes as camouflage", []string{"zoology"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Highlights(ctx, "display", 0); len(got) != 0 {
		t.Errorf("the old note still found after it changed: %d", len(got))
	}
	if err := s.DeleteHighlights(ctx, []int64{gone.ID, 999}); !errors.Is(err, ErrNoHighlight) {
		t.Errorf("rm with an unknown ID: %v", err)
	}
	if got, _ := s.Highlights(ctx, "", 0); len(got) != 2 {
		t.Errorf("rm with an unknown ID removed something: %d left", len(got))
	}
}

func TestHighlightBadInput(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	it := keepPage(t, s, "https://docs.example/okapi", okapiPage, time.Now())
	ctx := context.Background()
	for _, c := range []struct {
		start, end int
		note       string
		tags       []string
		want       string
	}{
		{5, 2, "", nil, "invalid span"},
		{0, len(okapiPage) + 1, "", nil, "invalid span"},
		{1, 2, "", nil, "holds no words"},
		{2, 20, strings.Repeat("x", MaxNote+1), nil, "invalid note"},
		{2, 20, "", []string{"two words"}, `invalid tag "two words"`},
	} {
		_, err := s.AddHighlight(ctx, it, c.start, c.end, c.note, c.tags)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d–%d: %v, want %q", c.start, c.end, err, c.want)
		}
	}
	search := &Item{Kind: KindSearch, Tool: api.ToolSearch, Title: "q", Body: "some results"}
	s.Add(ctx, search)
	if _, err := s.AddHighlight(ctx, *search, 0, 4, "", nil); err == nil || !strings.Contains(err.Error(), "pages and reports") {
		t.Errorf("a highlight in a search: %v", err)
	}
}

func notesFixture(t *testing.T) (*Store, []NoteSource) {
	t.Helper()
	s := open(t, t.TempDir())
	it := keepPage(t, s, "https://docs.example/okapi", okapiPage, time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))
	highlight(t, s, it, "Its stripes hide it in the forest.", "camouflage", "zoology")
	highlight(t, s, it, "The okapi is a giraffid of the Congo.", "")
	rep := &Item{Kind: KindResearch, Tool: api.ToolResearch, Title: "How do okapis hide?", Body: "# How do okapis hide?\n\nBy their stripes [1].", Created: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)}
	s.Add(context.Background(), rep)
	highlight(t, s, *rep, "By their stripes", "the report's answer", "answer")
	hs, _ := s.Highlights(context.Background(), "", 0)
	srcs, err := s.NoteSources(context.Background(), hs)
	if err != nil || len(srcs) != 2 {
		t.Fatalf("sources: %v %d", err, len(srcs))
	}
	return s, srcs
}

func TestExportObsidianAgainUpdatesInPlace(t *testing.T) {
	t.Parallel()
	s, srcs := notesFixture(t)
	dir := filepath.Join(t.TempDir(), "vault")
	res, err := ExportObsidian(dir, srcs)
	if err != nil || len(res.Written) != 2 {
		t.Fatalf("export: %v %+v", err, res)
	}
	okapi := filepath.Join(dir, "Okapi facts.md")
	b, err := os.ReadFile(okapi)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{
		"---\ntitle: \"Okapi facts\"\nurl: \"https://docs.example/okapi\"\naccessed: 2026-11-20\ntags: [\"zoology\"]\nhark_source: \"https://docs.example/okapi\"\n---\n",
		"> The okapi is a giraffid of the Congo\n",
		"> Its stripes hide it in the forest\n\ncamouflage\n\n[open at the passage](https://docs.example/okapi#:~:text=Its%20stripes%20hide%20it%20in%20the%20forest) · #zoology",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("note lacks %q:\n%s", want, text)
		}
	}
	if strings.Index(text, "giraffid") > strings.Index(text, "stripes hide") {
		t.Error("highlights are not in the order they sit in the page")
	}
	// The researcher's own lines below the marker stay; a new highlight
	// lands in the same file; nothing is duplicated.
	os.WriteFile(okapi, append(b, []byte("\nMy own thoughts.\n")...), 0o644)
	it, _ := s.Get(context.Background(), srcs[0].Highlights[0].ItemID)
	highlight(t, s, it, "It eats leaves.", "diet")
	hs, _ := s.Highlights(context.Background(), "", 0)
	srcs, _ = s.NoteSources(context.Background(), hs)
	res, err = ExportObsidian(dir, srcs)
	if err != nil || len(res.Written) != 1 || len(res.Unchanged) != 1 {
		t.Fatalf("again: %v %+v", err, res)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files after exporting again, want 2", len(entries))
	}
	// Nothing new: no file written, and JSON says so with [], not null.
	res, err = ExportObsidian(dir, srcs)
	if b, _ := json.Marshal(res); err != nil || !strings.Contains(string(b), `"written":[]`) {
		t.Errorf("a third time: %v %s", err, b)
	}
	b, _ = os.ReadFile(okapi)
	if !strings.Contains(string(b), "> It eats leaves\n\ndiet") || !strings.Contains(string(b), "My own thoughts.") || strings.Count(string(b), "camouflage") != 1 {
		t.Errorf("after exporting again:\n%s", b)
	}
	if res, _ := ExportObsidian(dir, srcs); len(res.Written) != 0 {
		t.Errorf("a third export rewrote %v", res.Written)
	}
}

func TestExportNotesBibTeXAndCSL(t *testing.T) {
	t.Parallel()
	_, srcs := notesFixture(t)
	bib := NotesBibTeX(srcs)
	for _, want := range []string{"@misc{docs-okapi-facts,", "url = {https://docs.example/okapi}", "annote = {“The okapi is a giraffid of the Congo”\n\n  “Its stripes hide it in the forest” — camouflage [zoology]}",
		"keywords = {zoology}", "howpublished = {Research report kept by hark}"} {
		if !strings.Contains(bib, want) {
			t.Errorf("bibtex lacks %q:\n%s", want, bib)
		}
	}
	if bib != NotesBibTeX(srcs) {
		t.Error("two exports of the same highlights differ")
	}
	data, err := NotesCSL(srcs)
	if err != nil {
		t.Fatal(err)
	}
	var items []map[string]any
	if err := json.Unmarshal(data, &items); err != nil || len(items) != 2 {
		t.Fatalf("csl: %v %s", err, data)
	}
	if items[0]["type"] != "webpage" || !strings.Contains(items[0]["note"].(string), "— camouflage [zoology]") || items[1]["type"] != "report" {
		t.Errorf("csl: %s", data)
	}
}

func TestExportZotero(t *testing.T) {
	t.Parallel()
	s, srcs := notesFixture(t)
	ctx := context.Background()
	fake, url := zoterotest.Start(t)
	z := Zotero{URL: url}
	res, err := s.ExportZotero(ctx, z, srcs)
	if err != nil || res.Items != 2 || res.Notes != 3 {
		t.Fatalf("export: %v %+v", err, res)
	}
	items := fake.Items()
	if len(items) != 2 || items[0].ItemType != "webpage" || items[0].URL != "https://docs.example/okapi" || len(items[0].Notes) != 2 ||
		!strings.Contains(items[0].Notes[1].Note, "<blockquote><p>Its stripes hide it in the forest</p></blockquote><p>camouflage</p>") ||
		items[0].Tags[0].Tag != "zoology" || items[1].ItemType != "report" {
		t.Fatalf("zotero got %+v", items)
	}
	// Again: nothing is sent twice.
	res, err = s.ExportZotero(ctx, z, srcs)
	if err != nil || res.Items != 0 || res.Notes != 0 || res.Already != 3 || len(fake.Items()) != 2 {
		t.Fatalf("again: %v %+v, %d items", err, res, len(fake.Items()))
	}
	// A new highlight on a source sent before goes as a note that names
	// it; an edited one is reported, not sent twice.
	it, _ := s.Get(ctx, srcs[0].Highlights[0].ItemID)
	highlight(t, s, it, "It eats leaves.", "diet")
	s.SetNote(ctx, srcs[0].Highlights[1].ID, "camouflage, surely", []string{"zoology"})
	hs, _ := s.Highlights(ctx, "", 0)
	srcs, _ = s.NoteSources(ctx, hs)
	res, err = s.ExportZotero(ctx, z, srcs)
	items = fake.Items()
	if err != nil || res.Notes != 1 || res.Items != 0 || len(res.Changed) != 1 || len(items) != 3 || items[2].ItemType != "note" ||
		!strings.Contains(items[2].Note, `Highlight in <a href="https://docs.example/okapi">Okapi facts</a>`) {
		t.Fatalf("a new highlight: %v %+v %+v", err, res, items)
	}
}

func TestExportZoteroNotRunning(t *testing.T) {
	t.Parallel()
	s, srcs := notesFixture(t)
	ctx := context.Background()
	_, err := s.ExportZotero(ctx, Zotero{URL: "http://127.0.0.1:1"}, srcs)
	if !errors.Is(err, ErrZoteroNotRunning) || !strings.Contains(err.Error(), "127.0.0.1:1") || !strings.Contains(err.Error(), "nothing was sent") {
		t.Fatalf("not running: %v", err)
	}
	// A read-only library: refused, nothing recorded, so that the next
	// export sends everything.
	fake, url := zoterotest.Start(t)
	fake.ReadOnly = true
	if _, err := s.ExportZotero(ctx, Zotero{URL: url}, srcs); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("read-only: %v", err)
	}
	fake.ReadOnly = false
	if res, err := s.ExportZotero(ctx, Zotero{URL: url}, srcs); err != nil || res.Notes != 3 {
		t.Fatalf("after a refusal: %v %+v", err, res)
	}
}

// A quote is kept as the page's markdown (the library's view and an
// Obsidian note render its code), but BibTeX, CSL-JSON and Zotero hold
// plain text: the backticks, stars and link syntax went there as they
// were written. Verification still finds the quote: the stored one is
// unchanged, and the plain one has the same words.
func TestExportQuotesArePlainText(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	ctx := context.Background()
	page := "# Worktrees\n\nIf a working tree is dirty, `git worktree remove` **refuses**; see the [manual](https://git-scm.com/docs/git-worktree) for `--force`.\n\nDone."
	it := keepPage(t, s, "https://docs.example/worktree", page, time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))
	highlight(t, s, it, "If a working tree is dirty, `git worktree remove` **refuses**; see the [manual](https://git-scm.com/docs/git-worktree) for `--force`.", "", "git")
	hs, _ := s.Highlights(ctx, "", 0)
	srcs, err := s.NoteSources(ctx, hs)
	if err != nil || len(srcs) != 1 {
		t.Fatalf("sources: %v %d", err, len(srcs))
	}
	const plain = "If a working tree is dirty, git worktree remove refuses; see the manual for --force"
	if bib := NotesBibTeX(srcs); !strings.Contains(bib, "annote = {“"+plain+"”") {
		t.Errorf("bibtex annote is not the plain quote:\n%s", bib)
	}
	data, err := NotesCSL(srcs)
	if err != nil {
		t.Fatal(err)
	}
	var items []map[string]any
	if err := json.Unmarshal(data, &items); err != nil || len(items) != 1 || !strings.HasPrefix(items[0]["note"].(string), "“"+plain+"”") {
		t.Errorf("csl note is not the plain quote: %v %s", err, data)
	}
	fake, url := zoterotest.Start(t)
	if _, err := s.ExportZotero(ctx, Zotero{URL: url}, srcs); err != nil {
		t.Fatal(err)
	}
	if z := fake.Items(); len(z) != 1 || len(z[0].Notes) != 1 || !strings.Contains(z[0].Notes[0].Note, "<blockquote><p>"+plain+"</p></blockquote>") {
		t.Errorf("zotero note is not the plain quote: %+v", z)
	}
	// The library's markdown keeps the code formatting.
	dir := t.TempDir()
	if _, err := ExportObsidian(dir, srcs); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "Okapi facts.md")); !strings.Contains(string(b), "> If a working tree is dirty, `git worktree remove` **refuses**") {
		t.Errorf("the markdown note lost the quote's formatting:\n%s", b)
	}
	// Verified against the page, the highlight stands, and the plain
	// quote is found where the kept one is.
	if err := s.Check(ctx, hs); err != nil || hs[0].State != api.PassageStands {
		t.Errorf("check: %v %q", err, hs[0].State)
	}
	ps, pe, ok := api.Locate(page, PlainQuote(hs[0].Quote), 0)
	ks, ke, _ := api.Locate(page, hs[0].Quote, 0)
	if !ok || ps != ks || pe != ke {
		t.Errorf("the plain quote is found at %d–%d (%v), the kept one at %d–%d", ps, pe, ok, ks, ke)
	}
}

func TestPlainQuote(t *testing.T) {
	for in, want := range map[string]string{
		"the `git worktree` command":                        "the git worktree command",
		"call `f(**kwargs)` with *care*":                    "call f(**kwargs) with care",
		"``a `b` c`` and __bold__ text":                     "a `b` c and bold text",
		"snake_case and a * b stay":                         "snake_case and a * b stay",
		"see [the docs](https://x.example/) ok":             "see the docs ok",
		"an <https://x.example/a> link":                     "an https://x.example/a link",
		"a lone ` tick and \\*not emphasis\\*":              "a lone ` tick and *not emphasis*",
		"code `a[i](x)` is not a link":                      "code a[i](x) is not a link",
		"cut inside a span: worktree` remove, and `--force": "cut inside a span: worktree remove, and --force",
		"`x`, then `y`":                                     "x, then y",
	} {
		if got := PlainQuote(in); got != want {
			t.Errorf("PlainQuote(%q) = %q, want %q", in, got, want)
		}
	}
}
