package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"hark/api"
	"hark/api/apitest"
	"hark/library"
	"hark/library/zoterotest"
)

const okapiPage = "# Okapi facts\n\nThe okapi is a giraffid of the Congo. Its stripes hide it in the forest.\n\nIt eats leaves."

// A page is extracted, a passage highlighted with a note and tags, and
// the highlight exported to Zotero (a fake of its connector on loopback)
// and to an Obsidian folder; exporting again duplicates nothing.
func TestNotesHighlightNoteExport(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	s.Script(apitest.InvokePath(api.ToolExtract), apitest.OK(api.InvokeResult{Service: api.SearchService, Tool: api.ToolExtract,
		Output: json.RawMessage(`{"results":[{"url":"https://docs.example/okapi","raw_content":` + strconv.Quote(okapiPage) + `}],"failed_results":[]}`)}))
	data := t.TempDir()
	if code, _, errs := harkData(t, s, data, "", "extract", "https://docs.example/okapi"); code != 0 {
		t.Fatalf("extract: %d %s", code, errs)
	}
	code, out, _ := harkData(t, s, data, "", "library", "list", "--json")
	var items []library.Item
	if code != 0 || json.Unmarshal([]byte(out), &items) != nil || len(items) != 1 {
		t.Fatalf("library: %d %s", code, out)
	}
	page := strconv.FormatInt(items[0].ID, 10)
	calls := len(s.Requests())

	// #words in the note are tags, as on the TUI's note line: a note
	// "camouflage #stripes" kept "#stripes" in the note and no tag.
	code, out, errs := harkData(t, s, data, "", "notes", "add", page, "--quote", "its stripes hide it in the forest", "--note", "camouflage #stripes", "--tag", "zoology", "--json")
	var h library.Highlight
	if code != 0 || json.Unmarshal([]byte(out), &h) != nil || h.Quote != "Its stripes hide it in the forest" || h.Note != "camouflage" ||
		strings.Join(h.Tags, ",") != "zoology,stripes" {
		t.Fatalf("add: %d %s %s", code, out, errs)
	}
	// Bad input: a quote the page does not hold, a tag with a space, an
	// unknown item, an unknown highlight.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"notes", "add", page, "--quote", "zebras run"}, "invalid quote"},
		{[]string{"notes", "add", page, "--quote", "It eats leaves", "--tag", "two words"}, `invalid tag "two words"`},
		{[]string{"notes", "add", "99", "--quote", "x"}, "no item 99"},
		{[]string{"notes", "rm", "1", "77"}, "highlight 77"},
		{[]string{"notes", "export", "--to", "evernote"}, `--to "evernote": must be one of zotero, obsidian, bibtex, csl-json`},
		{[]string{"notes", "export", "--to", "obsidian"}, "want -o FOLDER"},
	} {
		code, _, errs := harkData(t, s, data, "", c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: %d %q, want 2 and %q", c.args, code, errs, c.want)
		}
	}

	code, out, _ = harkData(t, s, data, "", "notes", "list", "camou")
	if code != 0 || !strings.Contains(out, "stands") || !strings.Contains(out, "Its stripes hide it in the forest") || !strings.Contains(out, "camouflage · #zoology") {
		t.Errorf("list: %d\n%s", code, out)
	}

	// Zotero not running: the port is named, nothing is recorded.
	code, _, errs = harkDataWith(t, withEnv("HARK_ZOTERO_URL", "http://127.0.0.1:1"), s, data, "", "notes", "export", "--to", "zotero")
	if code != exitGateway || !strings.Contains(errs, "Zotero is not running: nothing answers on 127.0.0.1:1") {
		t.Errorf("zotero not running: %d %s", code, errs)
	}
	fake, zurl := zoterotest.Start(t)
	zot := withEnv("HARK_ZOTERO_URL", zurl)
	code, out, errs = harkDataWith(t, zot, s, data, "", "notes", "export", "--to", "zotero")
	if code != 0 || !strings.Contains(out, "sent Zotero 1 new item and 1 note") {
		t.Fatalf("zotero: %d %s %s", code, out, errs)
	}
	code, out, _ = harkDataWith(t, zot, s, data, "", "notes", "export", "--to", "zotero")
	if code != 0 || !strings.Contains(out, "sent Zotero 0 new items and 0 notes; 1 highlight already there") || len(fake.Items()) != 1 {
		t.Errorf("zotero again: %d %s, %d items", code, out, len(fake.Items()))
	}
	if it := fake.Items()[0]; it.URL != "https://docs.example/okapi" || len(it.Notes) != 1 || !strings.Contains(it.Notes[0].Note, "camouflage") {
		t.Errorf("zotero item: %+v", it)
	}

	vault := filepath.Join(t.TempDir(), "vault")
	for i := 0; i < 2; i++ {
		code, out, errs = harkData(t, s, data, "", "notes", "export", "-o", vault)
		if code != 0 {
			t.Fatalf("obsidian: %d %s", code, errs)
		}
	}
	if !strings.Contains(out, "wrote 0 notes") || !strings.Contains(out, "(1 unchanged)") {
		t.Errorf("obsidian again: %s", out)
	}
	b, err := os.ReadFile(filepath.Join(vault, "Okapi facts.md"))
	if err != nil || !strings.Contains(string(b), "> Its stripes hide it in the forest\n\ncamouflage\n") {
		t.Errorf("obsidian note: %v\n%s", err, b)
	}
	bib := filepath.Join(t.TempDir(), "notes.bib")
	if code, _, errs = harkData(t, s, data, "", "notes", "export", "-o", bib); code != 0 {
		t.Fatalf("bibtex: %s", errs)
	}
	if b, _ := os.ReadFile(bib); !strings.Contains(string(b), "annote = {“Its stripes hide it in the forest” — camouflage [zoology, stripes]}") {
		t.Errorf("bibtex:\n%s", b)
	}
	if code, out, _ = harkData(t, s, data, "", "notes", "export", "--to", "csl-json", "-o", "-"); code != 0 || !strings.Contains(out, `"note": "“Its stripes hide it in the forest” — camouflage [zoology, stripes]"`) {
		t.Errorf("csl-json: %d %s", code, out)
	}
	if code, out, _ = harkData(t, s, data, "", "notes", "rm", strconv.FormatInt(h.ID, 10)); code != 0 || !strings.Contains(out, "removed 1 highlight") {
		t.Errorf("rm: %d %s", code, out)
	}
	if n := len(s.Requests()); n != calls {
		t.Errorf("the notes commands called the gateway %d times", n-calls)
	}
}
