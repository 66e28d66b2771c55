// Package webtest serves the loopback site and opens the databases the
// tests of gateway/web and gateway/research read. Tests only.
package webtest

import (
	"database/sql"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// IndexCorpus indexes each folder of the research corpus under dir (not
// SOURCES.md beside them: it names every page and is no documentation
// anyone asks about) with index, as `hark index` would, and fails when
// it holds too few pages to be the corpus.
func IndexCorpus(t testing.TB, dir string, index func(folder string) (int, error)) {
	t.Helper()
	dirs, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		if d.IsDir() {
			k, err := index(filepath.Join(dir, d.Name()))
			if err != nil {
				t.Fatalf("index %s: %v", d.Name(), err)
			}
			n += k
		}
	}
	if n < 30 {
		t.Fatalf("index the corpus: %d pages", n)
	}
}

// DB opens a fresh SQLite database in the test's temp directory.
func DB(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "hark.db")+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=mmap_size(268435456)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Site is a small site served on loopback: links, robots.txt, a
// sitemap index, redirects and a redirect loop, a slow page, a huge page,
// non-HTML content, noindex/nofollow pages and links to an external site
// (a second server, reached as "localhost" so its host differs).
type Site struct {
	URL      string // http://127.0.0.1:port
	External string // http://localhost:port2
	mu       sync.Mutex
	hits     map[string]int
	agents   map[string]bool
}

// Hit is how many requests path has had.
func (s *Site) Hit(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// Agents are the User-Agent headers the site has seen.
func (s *Site) Agents() map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.agents)
}

// Lorem is prose about crawling, to make pages long enough to read.
const Lorem = `Web crawlers visit pages by following links from one page to the next. A polite crawler reads robots.txt first and waits between requests to the same host. `

// Article is an HTML page with a title, a body, and a site's navigation
// and footer around them.
func Article(title, body string, extraHead string) string {
	return `<!DOCTYPE html><html><head><title>` + title + `</title>` + extraHead + `
<link rel="icon" href="/static/icon.png"></head><body>
<nav><a href="/">Home</a> <a href="/a">Alpha</a> <a href="/b">Beta</a> <a href="/c">Gamma notes</a></nav>
<main><article><h1>` + title + `</h1>` + body + `</article></main>
<footer>Copyright footer text that is boilerplate. <a href="/about">About</a></footer></body></html>`
}

// NewSite serves the site until the test ends.
func NewSite(t testing.TB) *Site {
	t.Helper()
	s := &Site{hits: map[string]int{}, agents: map[string]bool{}}
	ext := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, Article("External page", `<p>This page lives on another host entirely. `+strings.Repeat(Lorem, 3)+`</p>`, ""))
	}))
	t.Cleanup(ext.Close)
	_, port, _ := net.SplitHostPort(ext.Listener.Addr().String())
	s.External = "http://localhost:" + port

	mux := http.NewServeMux()
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n\nSitemap: "+s.URL+"/sitemap_index.xml\n")
	})
	mux.HandleFunc("/sitemap_index.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>%s/sitemap-pages.xml</loc></sitemap></sitemapindex>`, s.URL)
	})
	mux.HandleFunc("/sitemap-pages.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>%[1]s/a</loc></url><url><loc>%[1]s/b</loc></url><url><loc>%[1]s/deep/sitemap-only</loc></url></urlset>`, s.URL)
	})
	mux.HandleFunc("/{$}", html(Article("Home of the test site", `<p>Welcome to the loopback test site. `+Lorem+`</p>
<ul><li><a href="/a">Alpha article</a></li><li><a href="/b#part">Beta page</a></li><li><a href="/c">Gamma notes</a></li>
<li><a href="/redirect">Moved page</a></li><li><a href="/loop1">Loop</a></li><li><a href="/slow">Slow</a></li>
<li><a href="/huge">Huge</a></li><li><a href="/data.json">Data</a></li><li><a href="/private/secret">Secret</a></li>
<li><a href="/noindex">Hidden</a></li><li><a href="/xrobots">Header robots</a></li><li><a href="/nofollow">Dead end</a></li><li><a href="/to-ext">Moved away</a></li><li><a href="/sponsored" rel="nofollow">Ad</a></li>
<li><a href="`+"EXT"+`/ext">External</a></li><li><a href="mailto:a@b.c">Mail</a></li></ul>`, "")))
	mux.HandleFunc("/a", html(Article("Alpha article about crawler politeness", `
<p>Politeness means a crawler limits how often it requests pages from one server. `+Lorem+`</p>
<p>The alpha article explains robots exclusion in depth, with examples of Disallow rules and Crawl-delay lines.</p>
<figure><img src="/img/spider.png" alt="A friendly spider"><figcaption>Spiders crawl the web</figcaption></figure>
<table><tr><th>Rule</th><th>Meaning</th></tr><tr><td>Disallow</td><td>do not fetch</td></tr><tr><td>Allow</td><td>may fetch</td></tr></table>
<iframe src="https://video.example/embed/42" title="Crawler talk"></iframe>
<p>Sitemaps list the pages a site wants crawled. <a href="/a/1">Part one</a> <a href="/a/2">Part two</a></p>
<p>Zebra quartz xylophone is a unique phrase for exact matching.</p>`,
		`<meta property="article:published_time" content="2024-03-05T10:00:00Z"><meta property="og:type" content="article"><meta name="description" content="About crawler politeness.">`)))
	mux.HandleFunc("/a/{n}", func(w http.ResponseWriter, r *http.Request) {
		n := r.PathValue("n")
		html(Article("Alpha part "+n, `<p>Part `+n+` of the alpha series covers link extraction and canonical URLs. `+strings.Repeat(Lorem, 2)+`</p><p><a href="/a/`+n+`/deeper">Deeper</a></p>`, ""))(w, r)
	})
	mux.HandleFunc("/a/{n}/deeper", html(Article("Deeper page", `<p>Only reachable at depth three. `+strings.Repeat(Lorem, 2)+`</p>`, "")))
	mux.HandleFunc("/b", html(Article("Beta page on sitemaps", `<p>Beta explains how sitemap indexes group many sitemaps. `+strings.Repeat(Lorem, 2)+`</p>
<p><a href="/a">Back to alpha</a> <a href="/c#x">Gamma</a> <a href="/b?utm_source=x">Self</a></p>`, "")))
	mux.HandleFunc("/c", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, "# Gamma notes\n\nGamma is written in **markdown** and served as text/markdown.\n\nSee [alpha](/a) for more.\n")
	})
	mux.HandleFunc("/deep/sitemap-only", html(Article("Only in the sitemap", `<p>No page links here; only the sitemap lists it. `+strings.Repeat(Lorem, 2)+`</p>`, "")))
	mux.HandleFunc("/notes.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "Plain notes: crawlers must honour robots.txt.\n")
	})
	mux.HandleFunc("/page.xhtml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xhtml+xml")
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>XHTML page</title></head><body><p>Served as XHTML, this page is still read.</p></body></html>`)
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
		w.Write([]byte("<html><head><title>Caf\xe9</title></head><body><p>Cr\xe8me br\xfbl\xe9e at the caf\xe9.</p></body></html>"))
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/a", http.StatusMovedPermanently) })
	mux.HandleFunc("/to-ext", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, s.External+"/ext", http.StatusFound) })
	mux.HandleFunc("/to-private", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/private/secret", http.StatusFound) })
	mux.HandleFunc("/loop1", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop2", http.StatusFound) })
	mux.HandleFunc("/loop2", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop1", http.StatusFound) })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
			return
		}
		html(Article("Slow", "<p>too late</p>", ""))(w, r)
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body><p>")
		chunk := strings.Repeat("huge page filler text ", 1000)
		for i := 0; i < 100; i++ { // about 2.2 MB, streamed without Content-Length
			if _, err := fmt.Fprint(w, chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"not":"a page"}`)
	})
	mux.HandleFunc("/private/secret", html(Article("Secret", "<p>robots.txt forbids this page</p>", "")))
	mux.HandleFunc("/noindex", html(Article("Do not index me", `<p>This page asks not to be indexed. `+Lorem+`</p><p><a href="/from-noindex">Onward</a></p>`, `<meta name="robots" content="noindex">`)))
	mux.HandleFunc("/from-noindex", html(Article("Linked from noindex", `<p>Reached through a noindex page, which may still be followed. `+Lorem+`</p>`, "")))
	mux.HandleFunc("/nofollow", html(Article("Dead end page", `<p>Links here must not be followed. `+Lorem+`</p><p><a href="/hidden">Hidden</a></p>`, `<meta name="robots" content="nofollow">`)))
	mux.HandleFunc("/xrobots", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Robots-Tag", "noindex, nofollow")
		html(Article("Header says noindex", `<p>The header forbids indexing. `+Lorem+`</p><p><a href="/via-xrobots">On</a></p>`, ""))(w, r)
	})
	mux.HandleFunc("/via-xrobots", html(Article("Via X-Robots", "<p>only via a nofollow header</p>", "")))
	mux.HandleFunc("/hidden", html(Article("Hidden", "<p>only via nofollow</p>", "")))
	mux.HandleFunc("/sponsored", html(Article("Sponsored", "<p>only via rel=nofollow</p>", "")))
	mux.HandleFunc("/about", html(Article("About", "<p>About this site. "+Lorem+"</p>", "")))

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.agents[r.UserAgent()] = true
		s.mu.Unlock()
		// The home page names the external server, known only now.
		if r.URL.Path == "/" {
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, r)
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			fmt.Fprint(w, strings.ReplaceAll(rec.Body.String(), "EXT/", s.External+"/"))
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}
