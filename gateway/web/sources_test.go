package web

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

func writeDoc(t *testing.T, path, title string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	body := "<html><head><title>" + title + "</title></head><body><main><h1>" + title + "</h1><p>" + title +
		" is described here at some length, so that the extractor keeps this paragraph as the page's content.</p></main></body></html>"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Index runs are remembered by source: listed with their page counts,
// re-indexed (pages gone from the source leave the index), removed
// (pages another source holds stay).
func TestSourcesListReindexRemove(t *testing.T) {
	ctx := context.Background()
	e := testEngine(t, nil)
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	writeDoc(t, filepath.Join(docs, "a.html"), "Alpha okapi")
	writeDoc(t, filepath.Join(docs, "b.html"), "Beta quagga")
	writeDoc(t, filepath.Join(docs, "sub", "c.html"), "Gamma zebra")
	var seen atomic.Int64
	n, err := e.IndexWithProgress(ctx, docs, func(pages int, url string) { seen.Store(int64(pages)) })
	if err != nil || n != 3 || seen.Load() != 3 {
		t.Fatalf("index: %d %v, progress saw %d", n, err, seen.Load())
	}
	// One file of the folder is also indexed on its own.
	if _, err := e.Index(ctx, filepath.Join(docs, "a.html")); err != nil {
		t.Fatal(err)
	}
	srcs, err := e.Sources(ctx)
	if err != nil || len(srcs) != 2 {
		t.Fatalf("sources: %+v %v", srcs, err)
	}
	byName := map[string]int{}
	for _, s := range srcs {
		byName[s.Source] = s.Pages
	}
	if byName[docs] != 3 || byName[filepath.Join(docs, "a.html")] != 1 {
		t.Errorf("sources: %+v", srcs)
	}
	// A file deleted, then the folder indexed again: its page goes.
	os.Remove(filepath.Join(docs, "b.html"))
	if _, err := e.Index(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if c, _ := e.IndexedPages(ctx); c != 2 {
		t.Errorf("after re-indexing without b.html the index holds %d pages, want 2", c)
	}
	// Removing the folder keeps a.html, which its own source holds.
	removed, err := e.RemoveSource(ctx, docs)
	if err != nil || removed != 1 {
		t.Errorf("remove: %d %v", removed, err)
	}
	if c, _ := e.IndexedPages(ctx); c != 1 {
		t.Errorf("after removing the folder the index holds %d pages, want a.html", c)
	}
	if _, err := e.RemoveSource(ctx, docs); !errors.Is(err, ErrNoSource) {
		t.Errorf("removing twice: %v", err)
	}
	// A relative path is remembered absolute.
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(dir)
	if _, err := e.Index(ctx, "docs"); err != nil {
		t.Fatal(err)
	}
	srcs, _ = e.Sources(ctx)
	if srcs[0].Source != docs {
		t.Errorf("relative source stored as %q", srcs[0].Source)
	}
}

// A site crawled by Index is a source too, and its progress is told.
func TestSiteSourceProgress(t *testing.T) {
	ctx := context.Background()
	site := newTestSite(t)
	e := testEngine(t, nil)
	var seen atomic.Int64
	n, err := e.IndexWithProgress(ctx, site.URL+"/", func(pages int, url string) { seen.Store(int64(pages)) })
	if err != nil || n == 0 || seen.Load() == 0 {
		t.Fatalf("index: %d %v, progress %d", n, err, seen.Load())
	}
	srcs, _ := e.Sources(ctx)
	if len(srcs) != 1 || srcs[0].Source != site.URL+"/" || srcs[0].Pages != int(seen.Load()) {
		t.Errorf("sources %+v, progress saw %d", srcs, seen.Load())
	}
}
