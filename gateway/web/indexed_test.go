package web

import (
	"context"
	"maps"
	"os"
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

// A folder's walk skips the text files that are source copies of its HTML
// pages (Sphinx's _sources/<page>.rst.txt, old Sphinx's _sources/<page>.txt,
// a manual's <stem>.txt beside <stem>.html) and says which; a text file
// that copies no page is indexed.
func TestIndexDirSkipsSourceCopies(t *testing.T) {
	ctx := context.Background()
	e := testEngine(t, nil)
	root := filepath.Join(t.TempDir(), "docs")
	writeDoc(t, filepath.Join(root, "html", "index.html"), "Okapi index")
	writeDoc(t, filepath.Join(root, "html", "library", "os.html"), "Okapi os module")
	writeDoc(t, filepath.Join(root, "html", "old.html"), "Okapi old page")
	writeDoc(t, filepath.Join(root, "git", "git-commit.html"), "Okapi git commit")
	text := func(rel, s string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s+" is a plain text file with words enough to be a page of its own.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text("html/_sources/index.rst.txt", "Okapi index source")
	text("html/_sources/library/os.rst.txt", "Okapi os source")
	text("html/_sources/old.txt", "Okapi old source")
	text("html/_sources/orphan.rst.txt", "Okapi orphan source")
	text("git/git-commit.txt", "Okapi git commit source")
	text("git/notes.txt", "Okapi notes")
	copies := map[string]string{}
	var stored []string
	n, err := e.IndexWith(ctx, root, IndexOptions{
		SourceCopy: func(path, page string) { copies[path] = page },
		Progress:   func(_ int, u string) { stored = append(stored, u) },
	})
	if err != nil {
		t.Fatal(err)
	}
	j := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	want := map[string]string{
		j("html/_sources/index.rst.txt"):      j("html/index.html"),
		j("html/_sources/library/os.rst.txt"): j("html/library/os.html"),
		j("html/_sources/old.txt"):            j("html/old.html"),
		j("git/git-commit.txt"):               j("git/git-commit.html"),
	}
	if !maps.Equal(copies, want) {
		t.Errorf("source copies skipped: %q\nwant %q", copies, want)
	}
	if n != 6 || len(stored) != 6 {
		t.Errorf("indexed %d pages (%q); want the 4 HTML pages, the orphan source and notes.txt", n, stored)
	}
	for _, u := range stored {
		if strings.Contains(u, "_sources/index") || strings.Contains(u, "os.rst.txt") || strings.HasSuffix(u, "git-commit.txt") {
			t.Errorf("a source copy was indexed: %s", u)
		}
	}
	// A copy named on its own is indexed: only a folder's walk knows its page.
	if n, err := e.Index(ctx, j("git/git-commit.txt")); err != nil || n != 1 {
		t.Errorf("a copy named alone: %d, %v", n, err)
	}
}
