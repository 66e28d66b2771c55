package library

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExportFormats(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	kept := keepAll(t, s)
	r, _ := s.Get(ctx, kept[KindResearch].ID)
	dir := t.TempDir()

	md, err := Export(r, filepath.Join(dir, "report.md"), "")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(md)
	for _, want := range []string{"# How do crossings work?", "Crossings give pedestrians right of way [1].", "## Sources", "1. [Zebra crossing](https://en.example/zebra)", "2. [Signals](https://roads.example/signals)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b)
		}
	}
	bib, err := Export(r, filepath.Join(dir, "sources.bib"), "")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(bib)
	if strings.Count(string(b), "@misc{") != 2 || !strings.Contains(string(b), "url = {https://roads.example/signals}") ||
		!strings.Contains(string(b), "urldate = {2026-11-24}") || !strings.Contains(string(b), "@misc{en-zebra-crossing,") {
		t.Errorf("bibtex:\n%s", b)
	}
	csl, err := Export(r, filepath.Join(dir, "sources.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(csl)
	var entries []map[string]any
	if err := json.Unmarshal(b, &entries); err != nil || len(entries) != 2 || entries[1]["type"] != "webpage" || entries[1]["URL"] != "https://roads.example/signals" {
		t.Errorf("csl-json: %v\n%s", err, b)
	}
	// Never overwrite.
	if _, err := Export(r, md, ""); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("overwrite: %v", err)
	}

	// A crawl exports as a folder of markdown files with an index.
	c, _ := s.Get(ctx, kept[KindCrawl].ID)
	folder, err := Export(c, filepath.Join(dir, "crawl"), "")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := os.ReadDir(folder)
	var names []string
	for _, f := range files {
		names = append(names, f.Name())
	}
	if strings.Join(names, " ") != "index.md site.example_a.md site.example_b.md" {
		t.Errorf("crawl folder holds %v", names)
	}
	if _, err := Export(kept[KindPage].withBody(s, t), filepath.Join(dir, "x"), FormatFolder); err == nil {
		t.Error("a page exported as a folder")
	}
	if _, err := Export(r, filepath.Join(dir, "y"), "pdf"); err == nil || !strings.Contains(err.Error(), "must be markdown, bibtex, csl-json or folder") {
		t.Errorf("unknown format: %v", err)
	}
}

func (it *Item) withBody(s *Store, t *testing.T) Item {
	full, err := s.Get(context.Background(), it.ID)
	if err != nil {
		t.Fatal(err)
	}
	return full
}
