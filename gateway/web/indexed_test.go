package web

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// A file indexed from a folder is read back by its file:// URL, as
// search's raw_content would give it, and a URL never indexed says so.
func TestIndexedPage(t *testing.T) {
	ctx := context.Background()
	e := testEngine(t, nil)
	docs := filepath.Join(t.TempDir(), "docs")
	writeDoc(t, filepath.Join(docs, "a.html"), "Alpha okapi")
	if _, err := e.Index(ctx, docs); err != nil {
		t.Fatal(err)
	}
	u := "file://" + filepath.Join(docs, "a.html")
	title, text, err := e.IndexedPage(ctx, u)
	if err != nil || title == "" || !strings.Contains(text, "okapi") {
		t.Fatalf("IndexedPage(%s) = %q, %q, %v", u, title, text, err)
	}
	if _, _, err := e.IndexedPage(ctx, "file:///nowhere.html"); err == nil || !strings.Contains(err.Error(), "not in the search index") {
		t.Errorf("a page never indexed: %v", err)
	}
}
