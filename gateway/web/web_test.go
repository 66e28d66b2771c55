package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/engine"
)

func failedReason(out *api.ExtractOutput, url string) string {
	for _, f := range out.FailedResults {
		if f.URL == url {
			return f.Error
		}
	}
	return ""
}

func resultFor(rs []api.PageContent, url string) *api.PageContent {
	for i := range rs {
		if rs[i].URL == url {
			return &rs[i]
		}
	}
	return nil
}

func TestExtractPagesAndFailures(t *testing.T) {
	site := newTestSite(t)
	e := testEngine(t, nil)
	u := site.URL
	in := api.ExtractInput{
		URLs: api.ParseURLList(strings.Join([]string{u + "/a", u + "/c", u + "/redirect", u + "/notes.txt", u + "/page.xhtml", u + "/data.json", u + "/huge",
			u + "/slow", u + "/loop1", u + "/private/secret", u + "/to-private", u + "/missing", "ftp://x/y", "not a url"}, ", ")),
		IncludeFavicon: true, IncludeImages: true,
	}
	out, err := e.Extract(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	a := resultFor(out.Results, u+"/a")
	if a == nil {
		t.Fatalf("no result for /a: %+v", out)
	}
	if !strings.Contains(a.RawContent, "Politeness means a crawler") {
		t.Errorf("main content missing: %q", a.RawContent)
	}
	if strings.Contains(a.RawContent, "boilerplate") {
		t.Errorf("footer boilerplate kept: %q", a.RawContent)
	}
	if strings.Contains(a.RawContent, "| Disallow") {
		t.Errorf("basic depth kept the table: %q", a.RawContent)
	}
	if a.Favicon != u+"/static/icon.png" {
		t.Errorf("favicon = %q", a.Favicon)
	}
	if len(a.Images) == 0 || a.Images[0] != u+"/img/spider.png" {
		t.Errorf("images = %v", a.Images)
	}
	if c := resultFor(out.Results, u+"/c"); c == nil || !strings.Contains(c.RawContent, "**markdown**") {
		t.Errorf("markdown page: %+v", c)
	}
	// The redirect lands on /a, reported under the URL asked for.
	if r := resultFor(out.Results, u+"/redirect"); r == nil || !strings.Contains(r.RawContent, "Politeness means") {
		t.Errorf("redirected page: %+v", r)
	}
	if r := resultFor(out.Results, u+"/notes.txt"); r == nil || r.RawContent != "Plain notes: crawlers must honour robots.txt." {
		t.Errorf("plain text page: %+v", r)
	}
	if r := resultFor(out.Results, u+"/page.xhtml"); r == nil || !strings.Contains(r.RawContent, "Served as XHTML") {
		t.Errorf("XHTML page: %+v", r)
	}
	if n := len(out.Results); n != 5 {
		t.Errorf("want 5 results (/a, /c, /redirect→/a, /notes.txt, /page.xhtml), got %d: %+v", n, out.Results)
	}
	wantFail := map[string]string{
		u + "/data.json":      "unsupported content type application/json",
		u + "/huge":           "over the limit",
		u + "/slow":           "timed out",
		u + "/loop1":          "redirect loop",
		u + "/private/secret": "robots.txt",
		u + "/to-private":     "redirect to " + u + "/private/secret, which robots.txt disallows",
		u + "/missing":        "HTTP status 404",
		"ftp://x/y":           "http:// or https://",
		"not a url":           "http:// or https://",
	}
	for url, want := range wantFail {
		if got := failedReason(out, url); !strings.Contains(got, want) {
			t.Errorf("failed_results[%s] = %q, want it to mention %q", url, got, want)
		}
	}
	if site.Hit("/private/secret") != 0 {
		t.Error("fetched a page robots.txt disallows")
	}
	if !site.Agents()[DefaultUserAgent] {
		t.Errorf("user agents seen: %v", site.Agents())
	}
}

func TestExtractAdvancedTextAndQuery(t *testing.T) {
	site := newTestSite(t)
	e := testEngine(t, nil)
	out, err := e.Extract(context.Background(), api.ExtractInput{URLs: api.URLList{site.URL + "/a"}, ExtractDepth: "advanced"})
	if err != nil || len(out.Results) != 1 {
		t.Fatalf("%v %+v", err, out)
	}
	md := out.Results[0].RawContent
	if !strings.Contains(md, "| Disallow") || !strings.Contains(md, "video.example/embed/42") {
		t.Errorf("advanced should keep the table and the iframe: %q", md)
	}
	if !strings.Contains(md, "# Alpha article") {
		t.Errorf("markdown lacks the heading: %q", md)
	}
	if r := out.Results[0]; r.Favicon != "" || r.Images != nil {
		t.Errorf("favicon or images without being asked: %+v", r)
	}
	out, err = e.Extract(context.Background(), api.ExtractInput{URLs: api.URLList{site.URL + "/a"}, Format: "text", Query: "sitemaps list pages"})
	if err != nil || len(out.Results) != 1 {
		t.Fatalf("%v %+v", err, out)
	}
	txt := out.Results[0].RawContent
	if strings.Contains(txt, "](") || strings.Contains(txt, "# ") {
		t.Errorf("text format has markdown: %q", txt)
	}
	if i, j := strings.Index(txt, "Sitemaps list the pages"), strings.Index(txt, "Politeness means"); i < 0 || j < 0 || i > j {
		t.Errorf("query should bring the sitemap chunk first: %q", txt)
	}
}

func TestAddressGuard(t *testing.T) {
	site := newTestSite(t)
	e, err := New(Config{DB: testDB(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	out, err := e.Extract(context.Background(), api.ExtractInput{URLs: api.URLList{site.URL + "/a", site.External + "/ext", "http://[::1]:1/", "http://169.254.169.254/latest"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 0 || len(out.FailedResults) != 4 {
		t.Fatalf("guard let something through: %+v", out)
	}
	for _, f := range out.FailedResults {
		if !strings.Contains(f.Error, "refused") {
			t.Errorf("%s: %q", f.URL, f.Error)
		}
	}
	if site.Hit("/a")+site.Hit("/robots.txt") != 0 {
		t.Error("request reached the loopback server")
	}
	if _, err := e.Crawl(context.Background(), api.CrawlInput{URL: site.URL}); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("crawl of loopback: %v", err)
	}
}

func urlsOf(rs []api.PageContent) map[string]bool {
	m := map[string]bool{}
	for _, r := range rs {
		m[r.URL] = true
	}
	return m
}

func TestCrawl(t *testing.T) {
	site := newTestSite(t)
	e := testEngine(t, nil)
	u := site.URL
	out, err := e.Crawl(context.Background(), api.CrawlInput{URL: u, MaxDepth: 2, MaxBreadth: 50, Limit: 50, IncludeFavicon: true})
	if err != nil {
		t.Fatal(err)
	}
	got := urlsOf(out.Results)
	for _, want := range []string{u + "/", u + "/a", u + "/b", u + "/c", u + "/a/1", u + "/a/2", u + "/from-noindex", site.External + "/ext", u + "/about"} {
		if !got[want] {
			t.Errorf("crawl missed %s", want)
		}
	}
	for _, bad := range []string{u + "/private/secret", u + "/noindex", u + "/xrobots", u + "/via-xrobots", u + "/hidden", u + "/sponsored", u + "/a/1/deeper", u + "/data.json", u + "/redirect", u + "/b?utm_source=x", u + "/huge", u + "/slow", u + "/loop1", u + "/loop2"} {
		if got[bad] {
			t.Errorf("crawl returned %s", bad)
		}
	}
	if site.Hit("/hidden") != 0 || site.Hit("/sponsored") != 0 || site.Hit("/via-xrobots") != 0 {
		t.Error("followed a nofollow link")
	}
	if site.Hit("/private/secret") != 0 {
		t.Error("crawl fetched a page robots.txt disallows")
	}
	if n := len(out.Results); n != len(got) {
		t.Errorf("duplicates in results: %d results, %d distinct", n, len(got))
	}
	if out.BaseURL != u || out.Results[0].URL != u+"/" || out.Results[0].Favicon == "" {
		t.Errorf("base_url %q, first %+v", out.BaseURL, out.Results[0])
	}

	// limit, allow_external, select_paths, max_breadth
	no := false
	out, err = e.Crawl(context.Background(), api.CrawlInput{URL: u, MaxDepth: 2, MaxBreadth: 50, Limit: 3})
	if err != nil || len(out.Results) != 3 {
		t.Fatalf("limit 3: %v %d", err, len(out.Results))
	}
	out, err = e.Crawl(context.Background(), api.CrawlInput{URL: u, MaxDepth: 1, MaxBreadth: 50, Limit: 50, AllowExternal: &no})
	if err != nil || urlsOf(out.Results)[site.External+"/ext"] || !urlsOf(out.Results)[u+"/a"] {
		t.Errorf("allow_external=false kept the external page (directly or via /to-ext): %v %v", err, urlsOf(out.Results))
	}
	out, err = e.Crawl(context.Background(), api.CrawlInput{URL: u, MaxDepth: 3, MaxBreadth: 50, Limit: 50, SelectPaths: "^/a(/.*)?$"})
	if err != nil {
		t.Fatal(err)
	}
	for r := range urlsOf(out.Results) {
		if !strings.HasPrefix(r, u+"/a") {
			t.Errorf("select_paths let %s through", r)
		}
	}
	if !urlsOf(out.Results)[u+"/a/1/deeper"] {
		t.Errorf("depth 3 should reach /a/1/deeper: %v", urlsOf(out.Results))
	}
	out, err = e.Crawl(context.Background(), api.CrawlInput{URL: u, MaxDepth: 1, MaxBreadth: 2, Limit: 50})
	if err != nil || len(out.Results) != 3 { // the start page and two links
		t.Errorf("max_breadth 2: %v %v", err, urlsOf(out.Results))
	}
	// Pages are extracted the way extract does: extract_depth and format.
	out, err = e.Crawl(context.Background(), api.CrawlInput{URL: u, MaxDepth: 1, MaxBreadth: 50, Limit: 50, SelectPaths: "^/a$", ExtractDepth: "advanced"})
	if err != nil || len(out.Results) != 1 || !strings.Contains(out.Results[0].RawContent, "| Disallow") {
		t.Errorf("crawl extract_depth advanced keeps tables: %v %+v", err, out)
	}
	out, err = e.Crawl(context.Background(), api.CrawlInput{URL: u, MaxDepth: 1, MaxBreadth: 50, Limit: 50, SelectPaths: "^/a$", Format: "text"})
	if err != nil || len(out.Results) != 1 || strings.Contains(out.Results[0].RawContent, "# Alpha") || !strings.Contains(out.Results[0].RawContent, "Politeness means") {
		t.Errorf("crawl format text: %v %+v", err, out)
	}
	// select_domains: only the external host; the start page is read for
	// its links but not returned.
	out, err = e.Crawl(context.Background(), api.CrawlInput{URL: u, MaxDepth: 1, MaxBreadth: 50, Limit: 50, SelectDomains: "^localhost$"})
	if got := urlsOf(out.Results); err != nil || len(got) != 1 || !got[site.External+"/ext"] {
		t.Errorf("select_domains ^localhost$: %v %v", err, got)
	}
	if _, err := e.Crawl(context.Background(), api.CrawlInput{URL: u, SelectDomains: "(["}); err == nil {
		t.Error("bad regex accepted")
	} else {
		var ie *engine.InputError
		if !errors.As(err, &ie) || ie.Field != "select_domains" {
			t.Errorf("bad regex error: %v", err)
		}
	}
}

func TestCrawlInstructions(t *testing.T) {
	site := newTestSite(t)
	e := testEngine(t, nil)
	out, err := e.Crawl(context.Background(), api.CrawlInput{URL: site.URL, MaxDepth: 2, MaxBreadth: 50, Limit: 50, Instructions: "find pages about sitemap indexes"})
	if err != nil {
		t.Fatal(err)
	}
	got := urlsOf(out.Results)
	if !got[site.URL+"/b"] {
		t.Errorf("instructions dropped the sitemap page: %v", got)
	}
	if got[site.URL+"/a/1"] || got[site.External+"/ext"] {
		t.Errorf("instructions kept unrelated pages: %v", got)
	}
}

func mapURLs(out *api.MapOutput) map[string]bool {
	m := map[string]bool{}
	for _, r := range out.Results {
		m[r.URL] = true
	}
	return m
}

func TestMap(t *testing.T) {
	no := false
	site := newTestSite(t)
	e := testEngine(t, nil)
	u := site.URL
	out, err := e.Map(context.Background(), api.MapInput{URL: u, MaxDepth: 1, MaxBreadth: 50, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range out.Results {
		if got[r.URL] {
			t.Errorf("duplicate %s", r.URL)
		}
		got[r.URL] = true
	}
	for _, want := range []string{u + "/", u + "/a", u + "/deep/sitemap-only", u + "/redirect", site.External + "/ext"} {
		if !got[want] {
			t.Errorf("map missed %s: %v", want, got)
		}
	}
	for _, bad := range []string{u + "/private/secret", u + "/sponsored", u + "/a/1"} {
		if got[bad] {
			t.Errorf("map listed %s", bad)
		}
	}
	// Map lists depth-1 links without fetching them, and extracts nothing.
	if site.Hit("/a") != 0 || site.Hit("/deep/sitemap-only") != 0 {
		t.Error("map fetched last-level pages")
	}
	if n, _ := e.store.count(context.Background()); n != 0 {
		t.Errorf("map indexed %d pages", n)
	}
	out, err = e.Map(context.Background(), api.MapInput{URL: u, MaxDepth: 2, MaxBreadth: 50, Limit: 4})
	if err != nil || len(out.Results) != 4 {
		t.Errorf("limit 4: %v %+v", err, out)
	}
	// The crawl parameters bound map too.
	out, err = e.Map(context.Background(), api.MapInput{URL: u, MaxDepth: 1, MaxBreadth: 50, Limit: 100, AllowExternal: &no, SelectPaths: "^/(a|b)$"})
	if err != nil {
		t.Fatal(err)
	}
	if got := mapURLs(out); len(got) != 2 || !got[u+"/a"] || !got[u+"/b"] {
		t.Errorf("map select_paths ^/(a|b)$, allow_external false: %v", got)
	}
	out, err = e.Map(context.Background(), api.MapInput{URL: u + "/b", MaxDepth: 1, MaxBreadth: 1, Limit: 100})
	// /b, its first link (/ in the nav), and /a and /deep/sitemap-only from
	// the sitemap, which max_breadth does not bound; not /c or /about.
	if got := mapURLs(out); err != nil || len(got) != 4 || !got[u+"/"] || got[u+"/c"] {
		t.Errorf("map max_breadth 1: %v %v", err, got)
	}
	out, err = e.Map(context.Background(), api.MapInput{URL: u, MaxDepth: 2, MaxBreadth: 50, Limit: 100, Instructions: "alpha part"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range out.Results {
		if !strings.Contains(r.URL, "/a") {
			t.Errorf("instructions kept %s", r.URL)
		}
	}
	if len(out.Results) == 0 {
		t.Error("instructions dropped everything")
	}
}

func TestPoliteness(t *testing.T) {
	site := newTestSite(t)
	e, err := New(Config{DB: testDB(t), AllowPrivate: true, HostDelay: 150 * time.Millisecond, HostConcurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	start := time.Now()
	out, err := e.Extract(context.Background(), api.ExtractInput{URLs: api.URLList{site.URL + "/a", site.URL + "/b", site.URL + "/c", site.URL + "/about"}})
	if err != nil || len(out.Results) != 4 {
		t.Fatalf("%v %+v", err, out)
	}
	// Four pages on one host, one at a time, 150 ms apart.
	if d := time.Since(start); d < 450*time.Millisecond {
		t.Errorf("four requests to one host took %s; politeness delay not applied", d)
	}
}

func TestCanonicalURL(t *testing.T) {
	for in, want := range map[string]string{
		"HTTP://Example.COM:80":                   "http://example.com/",
		"https://example.com:443/a/../b/?b=2&a=1": "https://example.com/b/?a=1&b=2",
		"https://example.com/x#frag":              "https://example.com/x",
		"https://example.com/x?utm_source=a&q=1":  "https://example.com/x?q=1",
		"http://example.com:8080/%7Euser":         "http://example.com:8080/~user",
	} {
		if got := canonicalString(in); got != want {
			t.Errorf("canonical(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCrawlBudgetKeepsWhatWasRead(t *testing.T) {
	site := newTestSite(t)
	e, err := New(Config{DB: testDB(t), AllowPrivate: true, CrawlTimeout: 1500 * time.Millisecond, PageTimeout: 5 * time.Second, MaxPageBytes: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	start := time.Now()
	out, err := e.Crawl(context.Background(), api.CrawlInput{URL: site.URL, MaxDepth: 1, MaxBreadth: 50, Limit: 50})
	if err != nil {
		t.Fatalf("budget end should not fail the crawl: %v", err)
	}
	if time.Since(start) > 2800*time.Millisecond { // /slow answers after 3 s
		t.Errorf("crawl ran past its budget: %s", time.Since(start))
	}
	got := urlsOf(out.Results)
	if !got[site.URL+"/"] || len(got) < 2 || got[site.URL+"/slow"] {
		t.Errorf("partial crawl: %v", got)
	}
	// A caller that gives up gets its error.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := e.Crawl(ctx, api.CrawlInput{URL: site.URL + "/slow"}); !errors.Is(err, context.DeadlineExceeded) && (err == nil || !strings.Contains(err.Error(), "timed out")) {
		t.Errorf("cancelled crawl: %v", err)
	}
}

func TestExtractDecodesCharsets(t *testing.T) {
	site := newTestSite(t)
	e := testEngine(t, nil)
	out, err := e.Extract(context.Background(), api.ExtractInput{URLs: api.URLList{site.URL + "/latin1"}, Format: "text"})
	if err != nil || len(out.Results) != 1 {
		t.Fatalf("%v %+v", err, out)
	}
	if !strings.Contains(out.Results[0].RawContent, "Crème brûlée at the café.") {
		t.Errorf("latin-1 page: %q", out.Results[0].RawContent)
	}
	// What extract read is searchable, accents folded.
	if s := mustSearch(t, e, api.SearchInput{Query: "creme brulee"}); len(s.Results) != 1 || s.Results[0].URL != site.URL+"/latin1" {
		t.Errorf("extracted page not indexed: %+v", s.Results)
	}
}

func TestShortPageTextOnce(t *testing.T) {
	doc := `<html><head><title>Rivets in Germany</title></head><body><main><p>German rivet makers supply rivets to carmakers.</p></main></body></html>`
	p, err := parseHTML("http://x.test/de/", []byte(doc), "", time.Now(), extractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"text": p.Text, "markdown": p.Markdown} {
		if strings.Count(body, "German rivet makers") != 1 || strings.Contains(body, "GermanyGerman") {
			t.Errorf("%s of a short page: %q", name, body)
		}
	}
}

func TestShortArticleKeepsBlocks(t *testing.T) {
	doc := `<html><head><title>Prices</title></head><body><article><h1>Rivet prices rise</h1>
<p>Steel rivet prices rose sharply this week after a <b>short</b>age of steel wire.</p>
<figure><img src="/r.jpg" alt="A rivet"><figcaption>Hot rivets being set</figcaption></figure>
<p>Analysts expect rivet prices to fall again next spring.</p></article></body></html>`
	p, err := parseHTML("http://x.test/news", []byte(doc), "", time.Now(), extractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The caption goes: extract's fitted weights take captions out of
	// articles (docs/web.md, "Articles from sites hark has never seen").
	want := "Rivet prices rise\n\nSteel rivet prices rose sharply this week after a shortage of steel wire.\n\nAnalysts expect rivet prices to fall again next spring."
	if p.Text != want {
		t.Errorf("text = %q, want %q", p.Text, want)
	}
	if !strings.HasPrefix(p.Markdown, "# Rivet prices rise\n\n") {
		t.Errorf("markdown = %q", p.Markdown)
	}
}

// Without a Sitemap line in robots.txt, map still reads /sitemap.xml.
func TestMapReadsDefaultSitemap(t *testing.T) {
	var base string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<html><head><title>Bare</title></head><body><p>No links here.</p></body></html>`)
		case "/sitemap.xml":
			w.Header().Set("Content-Type", "text/xml")
			fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%[1]s/x</loc></url><url><loc>%[1]s/y</loc></url></urlset>`, base)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	base = srv.URL
	e := testEngine(t, nil)
	out, err := e.Map(context.Background(), api.MapInput{URL: base, MaxDepth: 1, MaxBreadth: 20, Limit: 50})
	if got := mapURLs(out); err != nil || len(got) != 3 || !got[base+"/x"] || !got[base+"/y"] {
		t.Errorf("map with /sitemap.xml: %v %v", err, got)
	}
}

// toUTF8 keeps a UTF-8 body whose first kilobyte is plain ASCII and which
// names no charset (the HTML sniffer alone guesses windows-1252 there and
// turned later accents into mojibake), and still decodes what a header or
// a byte-order mark says is another charset.
func TestToUTF8(t *testing.T) {
	head := "<html><head><title>t</title></head><body><p>" + strings.Repeat("plain words ", 100) + "</p>"
	cases := []struct {
		name, contentType string
		body              []byte
		want              string
	}{
		{"UTF-8 after an ASCII kilobyte", "text/html", []byte(head + "<p>Crème brûlée</p>"), "Crème brûlée"},
		{"latin-1 by header", "text/html; charset=iso-8859-1", []byte(head + "<p>Cr\xe8me br\xfbl\xe9e</p>"), "Crème brûlée"},
		{"latin-1 by its meta", "text/html", []byte(`<meta charset="iso-8859-1">` + head + "<p>Cr\xe8me br\xfbl\xe9e</p>"), "Crème brûlée"},
		{"unlabelled latin-1", "text/html", []byte(head + "<p>Cr\xe8me br\xfbl\xe9e</p>"), "Crème brûlée"},
	}
	for _, c := range cases {
		if got := string(toUTF8(c.body, c.contentType)); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q", c.name, got[max(0, len(got)-40):])
		}
	}
}
