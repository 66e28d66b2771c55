package web

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"hark/api"
	"hark/gateway/engine"
)

// traversal is one breadth-first walk for crawl, map or index.
type traversal struct {
	start         *url.URL
	maxDepth      int
	maxBreadth    int
	limit         int
	allowExternal bool
	// under, when set, is the folder the walk stays in (index's default):
	// only its pages and the start page are read and followed.
	under    string
	paths    []*regexp.Regexp
	domains  []*regexp.Regexp
	extract  bool // crawl and index read every page; map lists links
	sitemaps bool // map also reads robots.txt sitemaps and /sitemap.xml
	opt      extractOptions
}

// visit is one URL the walk found.
type visit struct {
	url    string
	depth  int
	anchor string
	page   *page // nil when not fetched (map's last level) or failed
	failed bool
	err    error // why it failed
}

// Crawl walks the site breadth-first from in.URL and returns each page's
// content the way Extract does.
func (e *Engine) Crawl(ctx context.Context, in api.CrawlInput) (*api.CrawlOutput, error) {
	start := time.Now()
	t, err := newTraversal(in.URL, in.MaxDepth, in.MaxBreadth, in.Limit, in.AllowExternal, in.SelectPaths, in.SelectDomains)
	if err != nil {
		return nil, err
	}
	t.extract = true
	t.opt = extractOptions{Advanced: in.ExtractDepth == "advanced"}
	visits, err := e.walkWithBudget(ctx, t)
	if err != nil {
		return nil, err
	}
	visits = filterByInstructions(visits, in.Instructions)
	out := &api.CrawlOutput{BaseURL: in.URL, Results: []api.PageContent{}}
	for _, v := range visits {
		pc := api.PageContent{URL: v.url, RawContent: renderBody(v.page, in.Format, ""), Title: v.page.Title}
		if in.IncludeFavicon {
			pc.Favicon = v.page.Favicon
		}
		out.Results = append(out.Results, pc)
	}
	out.ResponseTime = elapsed(start)
	return out, nil
}

// Map walks the site breadth-first from in.URL, and reads its sitemaps,
// listing the URLs found without extracting any content.
func (e *Engine) Map(ctx context.Context, in api.MapInput) (*api.MapOutput, error) {
	start := time.Now()
	t, err := newTraversal(in.URL, in.MaxDepth, in.MaxBreadth, in.Limit, in.AllowExternal, in.SelectPaths, in.SelectDomains)
	if err != nil {
		return nil, err
	}
	t.sitemaps = true
	visits, err := e.walkWithBudget(ctx, t)
	if err != nil {
		return nil, err
	}
	visits = filterByInstructions(visits, in.Instructions)
	out := &api.MapOutput{BaseURL: in.URL, Results: []api.MapLink{}}
	for _, v := range visits {
		out.Results = append(out.Results, api.MapLink{URL: v.url})
	}
	out.ResponseTime = elapsed(start)
	return out, nil
}

func newTraversal(raw string, depth, breadth, limit int, allowExternal *bool, paths, domains string) (*traversal, error) {
	u, err := parseHTTPURL(raw)
	if err != nil {
		return nil, &engine.InputError{Field: "url", Rule: err.Error()}
	}
	t := &traversal{start: u, maxDepth: depth, maxBreadth: breadth, limit: limit, allowExternal: true}
	if t.maxDepth <= 0 {
		t.maxDepth = 1
	}
	if t.maxBreadth <= 0 {
		t.maxBreadth = 20
	}
	if t.limit <= 0 {
		t.limit = 50
	}
	if allowExternal != nil {
		t.allowExternal = *allowExternal
	}
	if t.paths, err = compileList("select_paths", paths); err != nil {
		return nil, err
	}
	if t.domains, err = compileList("select_domains", domains); err != nil {
		return nil, err
	}
	return t, nil
}

func compileList(field, s string) ([]*regexp.Regexp, error) {
	var out []*regexp.Regexp
	for _, p := range api.SplitList(s) {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, &engine.InputError{Field: field, Rule: fmt.Sprintf("%q is not a valid regular expression: %v", p, err)}
		}
		out = append(out, re)
	}
	return out, nil
}

// skipExt are links that are never pages; the walk neither fetches nor
// lists them.
var skipExt = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".svg": true, ".ico": true,
	".pdf": true, ".zip": true, ".gz": true, ".tgz": true, ".tar": true, ".mp3": true, ".mp4": true,
	".webm": true, ".avi": true, ".mov": true, ".css": true, ".js": true, ".woff": true, ".woff2": true,
	".ttf": true, ".exe": true, ".dmg": true, ".iso": true, ".bin": true, ".doc": true, ".docx": true,
	".xls": true, ".xlsx": true, ".ppt": true, ".pptx": true, ".wav": true, ".ogg": true,
}

// folderOf is the folder a start URL names, which index stays under:
// "/nodejs/api/" for /nodejs/api/index.html and for /nodejs/api/, and
// "/docs/" for /docs, a folder named without its slash (a last segment
// with no dot in it).
func folderOf(u *url.URL) string {
	p := u.EscapedPath()
	switch {
	case p == "":
		return "/"
	case strings.HasSuffix(p, "/"):
		return p
	case strings.Contains(path.Base(p), "."):
		return strings.TrimSuffix(path.Dir(p), "/") + "/"
	}
	return p + "/"
}

// dirListingTitle is the title web servers give a folder's listing
// (Apache and nginx "Index of /x/", Python's "Directory listing for /x/").
var dirListingTitle = regexp.MustCompile(`^(?i)(index of|directory listing for) /`)

// isDirectoryListing reports a page that is a web server's listing of a
// folder: a title as above, or (Go's file server) no title and nothing
// but links named as they point. It is followed for its links but never
// indexed: a listing is no page anyone searches for.
func isDirectoryListing(p *page) bool {
	if dirListingTitle.MatchString(strings.TrimSpace(p.Title)) {
		return true
	}
	if strings.TrimSpace(p.Title) != "" || len(p.Links) == 0 {
		return false
	}
	names := map[string]bool{"..": true, "../": true, "Parent Directory": true}
	for _, l := range p.Links {
		names[strings.TrimSpace(l.Anchor)] = true
	}
	for _, line := range strings.Split(p.Text, "\n") {
		if line = strings.TrimSpace(line); line != "" && !names[line] {
			return false
		}
	}
	return true
}

// inScope applies allow_external, select_domains and select_paths.
func (t *traversal) inScope(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	if skipExt[strings.ToLower(path.Ext(u.Path))] {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if !t.allowExternal && !sameSite(host, strings.ToLower(t.start.Hostname())) {
		return false
	}
	if t.under != "" && !strings.HasPrefix(u.EscapedPath(), t.under) && u.EscapedPath() != t.start.EscapedPath() {
		return false
	}
	if len(t.domains) > 0 && !anyMatch(t.domains, host) {
		return false
	}
	if len(t.paths) > 0 && !anyMatch(t.paths, u.EscapedPath()) {
		return false
	}
	return true
}

func anyMatch(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// walk runs the breadth-first traversal. Depth 0 is the start URL; links
// of a page at depth d are at d+1, and pages at max_depth are not
// followed further. Each page contributes at most max_breadth new links.
// The start URL is always fetched (for its links) but is returned only
// when it passes the filters. Pages that say noindex are not returned;
// pages that say nofollow (or links with rel=nofollow) are not followed.
func (e *Engine) walk(ctx context.Context, t *traversal) ([]visit, error) {
	startURL := canonicalURL(t.start)
	seen := map[string]bool{startURL: true}
	frontier := []visit{{url: startURL}}
	var results []visit

	for depth := 0; depth <= t.maxDepth && len(frontier) > 0 && len(results) < t.limit; depth++ {
		lastLevel := depth == t.maxDepth
		switch {
		case t.extract:
			want := t.limit - len(results)
			if depth == 0 {
				want = 1
			}
			e.fetchLevel(ctx, frontier, t, want)
		case !lastLevel:
			e.fetchLevel(ctx, frontier, t, len(frontier))
		default:
			// A map's last level is listed without fetching, as long as
			// robots.txt of the start site allows it.
			for i := range frontier {
				v := &frontier[i]
				if sameSite(hostOf(v.url), t.start.Hostname()) {
					if u, err := url.Parse(v.url); err == nil {
						if ok, _, _ := e.fetch.allowed(ctx, u); !ok {
							v.failed = true
						}
					}
				}
			}
		}
		if depth == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if depth == 0 && frontier[0].failed {
			return nil, &startError{url: t.start.String(), err: frontier[0].err}
		}

		var next []visit
		for i := range frontier {
			v := &frontier[i]
			if v.failed {
				continue
			}
			p := v.page
			if p != nil {
				// A redirect or canonical link may name a page already seen.
				dup := false
				for _, alias := range []string{p.URL, p.Canonical} {
					if alias != "" && alias != v.url {
						if seen[alias] {
							dup = true
						}
						seen[alias] = true
					}
				}
				if dup {
					continue
				}
				v.url = p.URL
			}
			// Scope is checked again on the final URL: a redirect may leave it.
			include := t.inScope(v.url)
			if p != nil && p.NoIndex || t.extract && p == nil {
				include = false
			}
			if include && len(results) < t.limit {
				results = append(results, *v)
			}
			if lastLevel || p == nil || p.NoFollow {
				continue
			}
			links := p.Links
			fromPage := len(links)
			if depth == 0 && t.sitemaps {
				for _, s := range e.sitemapURLs(ctx, t.start) {
					links = append(links, link{URL: s})
				}
			}
			added := 0
			for j, l := range links {
				if !t.extract && len(results)+len(next) >= 2*t.limit {
					break
				}
				if j < fromPage && added >= t.maxBreadth {
					continue // sitemap entries are not bound by max_breadth
				}
				if seen[l.URL] || !t.inScope(l.URL) {
					continue
				}
				seen[l.URL] = true
				next = append(next, visit{url: l.URL, depth: depth + 1, anchor: l.Anchor})
				if j < fromPage {
					added++
				}
			}
		}
		if err := ctx.Err(); err != nil {
			return results, err // what was read so far, with the reason it stopped
		}
		engine.Progress(ctx, "depth %d: %d pages so far, %d links to follow", depth, len(results), len(next))
		frontier = next
	}
	return results, nil
}

// startError is a start URL that cannot be read.
type startError struct {
	url string
	err error
}

func (e *startError) Error() string { return fmt.Sprintf("cannot read %s: %v", e.url, e.err) }
func (e *startError) Unwrap() error { return e.err }

// walkWithBudget runs walk under Config.CrawlTimeout. When that budget
// ends first, the pages read so far are the answer; when ctx ends, the
// call fails with ctx's error. An unreadable start URL is the caller's
// input error (HTTP 400 at the gateway), naming the field url; one whose
// site cannot be reached at all is the site's failure (HTTP 502).
func (e *Engine) walkWithBudget(ctx context.Context, t *traversal) ([]visit, error) {
	wctx, cancel := context.WithTimeout(ctx, e.cfg.CrawlTimeout)
	defer cancel()
	visits, err := e.walk(wctx, t)
	var se *startError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.As(err, &se) && errors.Is(se.err, ErrUnreachable):
		// The site, not the input: a name that does not resolve or a
		// refused connection is a 502, as a vendor that cannot be
		// reached is.
		return nil, &engine.VendorError{Vendor: "Site", Detail: se.Error()}
	case errors.As(err, &se):
		return nil, &engine.InputError{Field: "url", Rule: "cannot be read: " + se.err.Error()}
	case errors.Is(err, context.DeadlineExceeded) && visits != nil:
		return visits, nil
	}
	return visits, err
}

// fetchLevel fetches the visits of one level concurrently (the fetcher
// bounds concurrency overall and per host), stopping once want pages were
// read. A failed visit keeps its reason in err.
func (e *Engine) fetchLevel(ctx context.Context, level []visit, t *traversal, want int) {
	var got atomic.Int64
	jobs := make(chan int)
	var wg sync.WaitGroup
	workers := min(e.cfg.Concurrency, len(level))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				v := &level[i]
				if got.Load() >= int64(want) {
					v.failed = true
					v.err = errors.New("limit reached")
					continue
				}
				var p *page
				var err error
				if t.extract {
					p, err = e.readPage(ctx, v.url, t.opt)
				} else {
					p, err = e.readLinks(ctx, v.url)
				}
				if err != nil {
					v.failed = true
					v.err = err
					continue
				}
				if !p.NoIndex {
					got.Add(1)
				}
				v.page = p
			}
		}()
	}
	for i := range level {
		select {
		case jobs <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(jobs)
	wg.Wait()
}

// readLinks fetches a page for map: links and robots directives only, no
// content extraction and no indexing.
func (e *Engine) readLinks(ctx context.Context, raw string) (*page, error) {
	fp, err := e.fetch.fetch(ctx, raw, pageTypes)
	if err != nil {
		return nil, err
	}
	p := &page{URL: fp.URL, Fetched: fp.Fetched}
	switch fp.kind() {
	case kindHTML:
		return linksOnly(fp)
	case kindMarkdown:
		pp := parsePlain(fp.URL, string(fp.Body), true, fp.Fetched)
		p.Links = pp.Links
	}
	return p, nil
}

// filterByInstructions keeps the visits lexically relevant to the
// instruction. Each visit is a document made of its URL's path words, the
// anchor text that led to it, its title and (for crawl) its text. Documents
// are scored by BM25 against the instruction's terms, with the set of
// visits as the corpus; a visit is kept when its score is positive and at
// least 20% of the best score. Without an instruction nothing is filtered.
func filterByInstructions(visits []visit, instructions string) []visit {
	q := tokens(instructions)
	if len(q) == 0 || len(visits) == 0 {
		return visits
	}
	docs := make([][]string, len(visits))
	for i, v := range visits {
		text := urlWords(v.url) + " " + v.anchor
		if v.page != nil {
			text += " " + v.page.Title + " " + v.page.Description + " " + v.page.Text
		}
		docs[i] = tokens(text)
	}
	scores := bm25(q, docs)
	best := 0.0
	for _, s := range scores {
		best = max(best, s)
	}
	var out []visit
	for i, v := range visits {
		if scores[i] > 0 && scores[i] >= 0.2*best {
			out = append(out, v)
		}
	}
	return out
}

func urlWords(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return strings.NewReplacer("/", " ", "-", " ", "_", " ", ".", " ").Replace(u.Path + " " + u.RawQuery)
}

// sitemapURLs reads the sitemaps robots.txt names and /sitemap.xml,
// following sitemap indexes up to 3 levels and 25 files, 50,000 URLs.
func (e *Engine) sitemapURLs(ctx context.Context, start *url.URL) []string {
	origin := start.Scheme + "://" + start.Host
	var queue []string
	if rd, err := e.fetch.robotsFor(ctx, start); err == nil && rd != nil {
		queue = append(queue, rd.Sitemaps...)
	}
	queue = append(queue, origin+"/sitemap.xml")
	urls, _ := e.readSitemaps(ctx, queue)
	return urls
}

func (e *Engine) readSitemaps(ctx context.Context, queue []string) ([]string, error) {
	type item struct {
		url   string
		level int
	}
	var items []item
	for _, q := range queue {
		items = append(items, item{q, 0})
	}
	seen := map[string]bool{}
	var out []string
	var firstErr error
	files := 0
	for len(items) > 0 && files < 25 && len(out) < 50000 {
		it := items[0]
		items = items[1:]
		c := canonicalString(it.url)
		if seen[c] {
			continue
		}
		seen[c] = true
		files++
		locs, children, err := e.readSitemap(ctx, it.url)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		out = append(out, locs...)
		if it.level < 3 {
			for _, ch := range children {
				items = append(items, item{ch, it.level + 1})
			}
		}
	}
	if len(out) == 0 && firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

type sitemapDoc struct {
	XMLName xml.Name
	URLs    []struct {
		Loc string `xml:"loc"`
	} `xml:"url"`
	Sitemaps []struct {
		Loc string `xml:"loc"`
	} `xml:"sitemap"`
}

// readSitemap reads one sitemap: a urlset (page URLs) or a sitemapindex
// (further sitemaps). Plain-text sitemaps (one URL a line) work too.
func (e *Engine) readSitemap(ctx context.Context, raw string) (locs, children []string, err error) {
	fp, err := e.fetch.fetch(ctx, raw, sitemapTypes)
	if err != nil {
		return nil, nil, err
	}
	base, _ := url.Parse(fp.URL)
	if fp.ContentType == "text/plain" && !strings.HasPrefix(strings.TrimSpace(string(fp.Body)), "<") {
		for _, line := range strings.Split(string(fp.Body), "\n") {
			if l := resolveLink(base, line); l != "" {
				locs = append(locs, l)
			}
		}
		return locs, nil, nil
	}
	var doc sitemapDoc
	dec := xml.NewDecoder(strings.NewReader(string(fp.Body)))
	dec.Strict = false
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, failf("not a sitemap: %v", err)
	}
	switch doc.XMLName.Local {
	case "urlset", "sitemapindex":
	default:
		return nil, nil, failf("not a sitemap (root element <%s>)", doc.XMLName.Local)
	}
	for _, u := range doc.URLs {
		if l := resolveLink(base, u.Loc); l != "" {
			locs = append(locs, l)
		}
	}
	for _, s := range doc.Sitemaps {
		if l := resolveLink(base, s.Loc); l != "" {
			children = append(children, l)
		}
	}
	return locs, children, nil
}
