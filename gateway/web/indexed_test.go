package web

import (
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hark/api"
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

// The index keeps a page's data tables, as a manual's markdown page keeps
// them: a word only a table cell holds is found by search, is in the
// indexed copy and in FileText and PageText (what a report's quotes are
// checked against); vendor_extract's basic depth still leaves the table out.
func TestIndexKeepsDataTables(t *testing.T) {
	ctx := context.Background()
	e := testEngine(t, nil)
	docs := filepath.Join(t.TempDir(), "docs")
	page := `<html><head><title>Numeric Types</title></head><body><main><h1>Numeric Types</h1>
<p>Numeric types consist of integers of several sizes, described at some length here so that this paragraph is the page's content.</p>
<div class="table"><p class="title"><strong>Table 8.2. Numeric Types</strong></p><div class="table-contents">
<table class="table" summary="Numeric Types" border="1"><thead><tr><th>Name</th><th>Storage Size</th><th>Range</th></tr></thead>
<tbody><tr><td>smallint</td><td>2 bytes</td><td>quokkaward to 32767</td></tr><tr><td>integer</td><td>4 bytes</td><td>-2147483648 to +2147483647</td></tr></tbody></table></div></div>
<p>The syntax of constants for the numeric types is described elsewhere, with their operators and functions.</p></main></body></html>`
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "numeric.html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Index(ctx, docs); err != nil {
		t.Fatal(err)
	}
	u := "file://" + filepath.Join(docs, "numeric.html")
	out, err := e.Search(ctx, api.SearchInput{Query: "quokkaward", MaxResults: 5})
	if err != nil || len(out.Results) != 1 || out.Results[0].URL != u {
		t.Fatalf("search for a word only the table holds: %v %+v", err, out)
	}
	_, content, _, err := e.IndexedPage(ctx, u)
	if err != nil || !strings.Contains(content, "| smallint | 2 bytes | quokkaward to 32767 |") {
		t.Errorf("the indexed copy lacks the table: %v\n%s", err, content)
	}
	if text, err := FileText(u, 1<<20); err != nil || !strings.Contains(text, "quokkaward") {
		t.Errorf("FileText lacks the table: %v\n%s", err, text)
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, page)
	}))
	defer srv.Close()
	if text, err := e.PageText(ctx, srv.URL+"/numeric"); err != nil || !strings.Contains(text, "quokkaward") {
		t.Errorf("PageText lacks the table: %v\n%s", err, text)
	}
	ex, err := e.Extract(ctx, api.ExtractInput{URLs: api.URLList{srv.URL + "/numeric"}})
	if err != nil || len(ex.Results) != 1 {
		t.Fatalf("%v %+v", err, ex)
	}
	if md := ex.Results[0].RawContent; strings.Contains(md, "quokkaward") || !strings.Contains(md, "Numeric types consist") {
		t.Errorf("basic extraction should leave the table out and keep the prose: %q", md)
	}
}
