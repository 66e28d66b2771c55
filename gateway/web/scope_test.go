package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sort"
	"strings"
	"syscall"
	"testing"

	"hark/api"
	"hark/gateway/engine"
)

// docsServer serves /docs/api/ (pages and a Python-style folder listing),
// a page beside it in /docs/ and one elsewhere on the site.
func docsServer(t *testing.T) string {
	mux := http.NewServeMux()
	page := func(title, body string) string {
		return "<html><head><title>" + title + "</title></head><body><main><h1>" + title + "</h1><p>" + body +
			" This paragraph has enough words in it to be read as the body of a page.</p></main></body></html>"
	}
	serve := func(p, html string) {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != p {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, html)
		})
	}
	serve("/docs/api/index.html", page("API index", `<a href="a.html">A</a> <a href="sub/">sub</a> <a href="../other.html">other</a> <a href="/elsewhere/b.html">b</a>`))
	serve("/docs/api/a.html", page("Page A", `about a`))
	serve("/docs/api/sub/", `<html><head><title>Directory listing for /docs/api/sub/</title></head><body><h1>Directory listing for /docs/api/sub/</h1><hr><ul><li><a href="c.html">c.html</a></li></ul><hr></body></html>`)
	serve("/docs/api/sub/c.html", page("Page C", `about c`))
	serve("/docs/other.html", page("Other", `beside the folder`))
	serve("/elsewhere/b.html", page("Page B", `elsewhere on the site`))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func indexedURLs(t *testing.T, e *Engine, start string) []string {
	t.Helper()
	var got []string
	if _, err := e.IndexWithProgress(context.Background(), start, func(_ int, u string) { got = append(got, u) }); err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	return got
}

// hark index URL stays under the start URL's folder and leaves server
// folder listings out (following their links); IndexWholeSite widens it
// to the site.
func TestIndexStaysUnderTheStartFolder(t *testing.T) {
	base := docsServer(t)
	e, err := New(Config{DB: testDB(t), AllowPrivate: true, IndexDepth: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	got := indexedURLs(t, e, base+"/docs/api/index.html")
	want := []string{base + "/docs/api/a.html", base + "/docs/api/index.html", base + "/docs/api/sub/c.html"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("indexed %v\nwant %v", got, want)
	}
	wide, err := New(Config{DB: testDB(t), AllowPrivate: true, IndexDepth: 3, IndexWholeSite: true})
	if err != nil {
		t.Fatal(err)
	}
	defer wide.Close()
	got = indexedURLs(t, wide, base+"/docs/api/index.html")
	if len(got) != 5 || strings.Contains(strings.Join(got, " "), "/sub/ ") {
		t.Errorf("the whole site indexed %v, want the five pages and no listing", got)
	}
}

// IndexOptions widen or narrow one call on an engine configured
// otherwise: the gateway's one engine serves every `hark index` flag.
func TestIndexOptionsOverrideTheConfig(t *testing.T) {
	base := docsServer(t)
	e, err := New(Config{DB: testDB(t), AllowPrivate: true, IndexDepth: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var got []string
	n, err := e.IndexWith(context.Background(), base+"/docs/api/index.html", IndexOptions{Depth: 3, WholeSite: true, Progress: func(_ int, u string) { got = append(got, u) }})
	if err != nil || n != 5 || len(got) != 5 {
		t.Fatalf("depth 3, whole site: %d pages %v, %v; want the five pages", n, got, err)
	}
	n, err = e.IndexWith(context.Background(), base+"/docs/api/index.html", IndexOptions{Depth: 3, Limit: 2})
	if err != nil || n != 2 {
		t.Errorf("limit 2: %d pages, %v", n, err)
	}
	n, err = e.Index(context.Background(), base+"/docs/api/index.html")
	if err != nil || n != 2 {
		t.Errorf("the config's depth 1 after: %d pages, %v; want the start and a.html", n, err)
	}
}

func TestFolderOf(t *testing.T) {
	for in, want := range map[string]string{
		"http://h/nodejs/api/index.html": "/nodejs/api/",
		"http://h/nodejs/api/":           "/nodejs/api/",
		"http://h/docs":                  "/docs/",
		"http://h/":                      "/",
		"http://h":                       "/",
		"http://h/index.html":            "/",
	} {
		u, _ := url.Parse(in)
		if got := folderOf(u); got != want {
			t.Errorf("folderOf(%s) = %q, want %q", in, got, want)
		}
	}
}

// A site that cannot be reached is the site's failure, worded without
// Go's dial noise and without the resolver's (internal) address; a crawl
// from it is a 502 (engine.VendorError), not invalid input.
func TestUnreachableSites(t *testing.T) {
	dns := &url.Error{Op: "Get", URL: "http://docs.invalid/", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: &net.DNSError{Err: "no such host", Name: "docs.invalid", Server: "10.255.255.53:53", IsNotFound: true}}}
	refused := &url.Error{Op: "Get", URL: "http://127.0.0.1:1/", Err: &net.OpError{Op: "dial", Net: "tcp",
		Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}}
	f := &fetcher{}
	for err, want := range map[error]string{dns: "cannot resolve host docs.invalid: no such host", refused: "connection refused by 127.0.0.1:1"} {
		got := f.describe(err)
		if got.Error() != want || !errors.Is(got, ErrUnreachable) {
			t.Errorf("%v described as %q (unreachable %v), want %q", err, got, errors.Is(got, ErrUnreachable), want)
		}
	}
	e := testEngine(t, nil)
	_, err := e.Crawl(context.Background(), api.CrawlInput{URL: "http://127.0.0.1:1/"})
	var ve *engine.VendorError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "connection refused by 127.0.0.1:1") {
		t.Errorf("crawl of a closed port: %v (%T), want a VendorError saying the connection was refused", err, err)
	}
	out, err := e.Extract(context.Background(), api.ExtractInput{URLs: api.URLList{"http://127.0.0.1:1/"}})
	if err != nil || len(out.FailedResults) != 1 || out.FailedResults[0].Error != "connection refused by 127.0.0.1:1" {
		t.Errorf("extract of a closed port: %+v, %v", out, err)
	}
}

// A folder's index served at the folder's URL too is one page, stored
// at the folder's URL, whichever of the two the walk meets first (mdBook
// links its "/" as "index.html"); an index that differs from what its
// folder's URL serves (a listing), or that the folder redirects to, keeps
// its own URL.
func TestADirectoryIndexIsItsFolder(t *testing.T) {
	page := func(title, body string) string {
		return "<html><head><title>" + title + "</title></head><body><main><h1>" + title + "</h1><p>" + body +
			" This paragraph has enough words in it to be read as the body of a page.</p></main></body></html>"
	}
	home := page("Introduction", `<a href="index.html">Introduction</a> <a href="hello.html">Hello</a> <a href="b/index.html">B</a> <a href="c/">C</a>`)
	files := map[string]string{
		"/":             home,
		"/index.html":   home,
		"/hello.html":   page("Hello", `<a href="index.html">back</a> <a href="b/">B's folder</a>`),
		"/b/":           `<html><head><title>Directory listing for /b/</title></head><body><ul><li><a href="index.html">index.html</a></li></ul></body></html>`,
		"/b/index.html": page("Bee", `a page in b`),
		"/c/index.html": page("Sea", `a page in c`),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/c/" {
			http.Redirect(w, r, "/c/index.html", http.StatusMovedPermanently)
			return
		}
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, body)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	want := []string{srv.URL + "/", srv.URL + "/b/index.html", srv.URL + "/c/index.html", srv.URL + "/hello.html"}
	for _, start := range []string{"/", "/index.html", "/hello.html"} {
		e, err := New(Config{DB: testDB(t), AllowPrivate: true, IndexDepth: 3})
		if err != nil {
			t.Fatal(err)
		}
		got := indexedURLs(t, e, srv.URL+start)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("from %s indexed %v\nwant %v", start, got, want)
		}
		if n, err := e.store.count(context.Background()); err != nil || n != len(want) {
			t.Errorf("from %s the index holds %d pages, %v; want %d", start, n, err, len(want))
		}
		e.Close()
	}
}

func TestDirectoryURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://h/index.html":          "http://h/",
		"https://h/a/b/INDEX.HTM":      "https://h/a/b/",
		"http://h/a/index.xhtml":       "http://h/a/",
		"http://h/a/index.html?page=2": "",
		"http://h/a/index.md":          "",
		"http://h/a/main.html":         "",
		"http://h/a/":                  "",
		"file:///srv/docs/index.html":  "",
	} {
		if got := directoryURL(in); got != want {
			t.Errorf("directoryURL(%q) = %q, want %q", in, got, want)
		}
	}
}
