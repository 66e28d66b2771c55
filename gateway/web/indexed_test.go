package web

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// A file indexed from a folder is read back by its file:// URL as the
// extractor's markdown, its links resolved and kept, and a URL never
// indexed says so; a page indexed before the index kept markdown comes
// back as its text.
func TestIndexedPage(t *testing.T) {
	ctx := context.Background()
	e := testEngine(t, nil)
	docs := filepath.Join(t.TempDir(), "docs")
	writeDoc(t, filepath.Join(docs, "a.html"), `Alpha okapi, see <a href="b.html">the next page</a>.`)
	if _, err := e.Index(ctx, docs); err != nil {
		t.Fatal(err)
	}
	u := "file://" + filepath.Join(docs, "a.html")
	title, content, md, err := e.IndexedPage(ctx, u)
	link := "[the next page](file://" + filepath.Join(docs, "b.html") + ")"
	if err != nil || title == "" || !md || !strings.Contains(content, "okapi") || !strings.Contains(content, link) {
		t.Fatalf("IndexedPage(%s) = %q, %q, %v, %v; want markdown with %s", u, title, content, md, err, link)
	}
	if _, _, _, err := e.IndexedPage(ctx, "file:///nowhere.html"); err == nil || !strings.Contains(err.Error(), "not in the search index") {
		t.Errorf("a page never indexed: %v", err)
	}
	if _, err := e.db.Exec(`UPDATE web_pages SET markdown = '' WHERE url = ?`, u); err != nil {
		t.Fatal(err)
	}
	if _, content, md, err := e.IndexedPage(ctx, u); err != nil || md || strings.Contains(content, "](") || !strings.Contains(content, "okapi") {
		t.Errorf("an older page: %q, markdown %v, %v; want its text", content, md, err)
	}
}
