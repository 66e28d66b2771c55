// Package web is hark's local web engine: a polite fetcher and crawler, a
// main-content extractor, a search index fed by every page the engine
// reads (SQLite FTS5 in gateway.db, or a team gateway's PostgreSQL ranking
// the same way). Research (gateway/research) is built on it. It also holds the
// search backends a workspace may choose instead (SearXNG, Tavily).
//
// It answers the five web tools behind gateway/engine's interfaces; inputs
// arrive validated with defaults applied, and billing is the gateway's job.
// It must not reach private addresses unless Config.AllowPrivate says so.
package web

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"hark/api"
	"hark/gateway/engine"
	"hark/gateway/store"
)

// Config configures the local engine. Zero values take the defaults noted.
type Config struct {
	DB *sql.DB // the gateway's SQLite database (modernc.org/sqlite); required unless Postgres is set
	// Postgres, when set, holds the pages and their full-text index
	// instead of DB, shared by every replica of a team gateway. New
	// brings its tables (Schema) up to date.
	Postgres     *store.DB
	AllowPrivate bool   // allow private, loopback and link-local addresses
	UserAgent    string // default DefaultUserAgent

	Concurrency     int           // requests in flight overall; default 8
	HostConcurrency int           // requests in flight per host; default 2
	HostDelay       time.Duration // minimum gap between requests to one host; default 0
	MaxCrawlDelay   time.Duration // cap on robots.txt Crawl-delay; default 2s
	MaxPageBytes    int64         // per-page body limit; default 5 MiB
	PageTimeout     time.Duration // per-page time limit; default 15s

	CrawlTimeout time.Duration // time budget of one crawl or map; default 60s, then what was read is returned

	IndexDepth int // link depth `hark index URL` follows; default 2
	IndexLimit int // pages `hark index URL` reads at most; default 500
	// IndexWholeSite lets `hark index URL` follow links anywhere on the
	// start URL's site; by default it stays under the start URL's folder.
	IndexWholeSite bool

	// Embedder, when set, is the embedding model: EmbedPages gives pages
	// vectors from it, and search fuses the pages nearest a query with
	// the full-text rank once the index holds its vectors (hybrid.go).
	Embedder Embedder

	// Parse, when set, is how the index's reader (research) reads a
	// page: its answer is stored beside each page when it is indexed,
	// and Kept returns it, so the reader need not parse the page again
	// at every question. It marks its own version; a reader that finds
	// another parses the page itself.
	Parse func(title, text, markdown string) []byte
	// EmbedBatch is how many pages one embeddings request carries;
	// default 32.
	EmbedBatch int
}

// DefaultUserAgent identifies hark's crawler to the sites it reads.
const DefaultUserAgent = "HarkBot/1.0 (+https://github.com/hark; local web engine)"

func (c *Config) defaults() {
	if c.UserAgent == "" {
		c.UserAgent = DefaultUserAgent
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 8
	}
	if c.HostConcurrency <= 0 {
		c.HostConcurrency = 2
	}
	if c.MaxCrawlDelay <= 0 {
		c.MaxCrawlDelay = 2 * time.Second
	}
	if c.MaxPageBytes <= 0 {
		c.MaxPageBytes = 5 << 20
	}
	if c.PageTimeout <= 0 {
		c.PageTimeout = 15 * time.Second
	}
	if c.CrawlTimeout <= 0 {
		c.CrawlTimeout = 60 * time.Second
	}
	if c.IndexDepth <= 0 {
		c.IndexDepth = 2
	}
	if c.IndexLimit <= 0 {
		c.IndexLimit = 500
	}
	if c.EmbedBatch <= 0 {
		c.EmbedBatch = defaultEmbedBatch
	}
}

// Engine is the local web engine. It is safe for concurrent use.
type Engine struct {
	cfg   Config
	db    *sql.DB // cfg.DB
	fetch *fetcher
	store pageIndex
	// vectors is the index's vectors of cfg.Embedder's model; nil
	// without one.
	vectors *vectorIndex
}

var (
	_ engine.Searcher  = (*Engine)(nil)
	_ engine.Extractor = (*Engine)(nil)
	_ engine.Crawler   = (*Engine)(nil)
	_ engine.Mapper    = (*Engine)(nil)
)

// New creates the engine and its tables (the FTS5 page index) in cfg.DB,
// or opens its index in cfg.Postgres.
func New(cfg Config) (*Engine, error) {
	cfg.defaults()
	var st pageStore
	var db *store.DB
	switch {
	case cfg.Postgres != nil:
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		pg, err := newPGStore(ctx, cfg.Postgres)
		if err != nil {
			return nil, err
		}
		st, db = pg, cfg.Postgres
	case cfg.DB != nil:
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		sq, err := openStore(ctx, cfg.DB)
		if err != nil {
			return nil, err
		}
		st, db = sq, store.FromSQLite(cfg.DB)
	default:
		return nil, errors.New("web: Config.DB or Config.Postgres is required")
	}
	e := &Engine{cfg: cfg, db: cfg.DB, fetch: newFetcher(cfg), store: pageIndex{st, cfg.Parse}}
	if cfg.Embedder != nil && cfg.Embedder.EmbeddingModel() != "" {
		e.vectors = &vectorIndex{db: db, emb: cfg.Embedder, batch: cfg.EmbedBatch}
	}
	return e, nil
}

// Close lets go of idle connections. It does not close cfg.DB, which the
// gateway owns.
func (e *Engine) Close() error {
	e.fetch.client.CloseIdleConnections()
	return nil
}

// Web returns the local engine as a workspace's web tools but research,
// which gateway/research runs over it.
func (e *Engine) Web() engine.Web {
	return engine.Web{Search: e, Extract: e, Crawl: e, Map: e}
}

// Extract reads each URL and returns its main content. A URL that cannot
// be read goes into FailedResults with the reason; only a cancelled ctx
// fails the call. Every page read is added to the search index.
func (e *Engine) Extract(ctx context.Context, in api.ExtractInput) (*api.ExtractOutput, error) {
	start := time.Now()
	urls := dedupeURLs(in.URLs)
	opt := extractOptions{Advanced: in.ExtractDepth == "advanced"}
	type result struct {
		page *page
		err  error
	}
	results := make([]result, len(urls))
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := e.readPage(ctx, u, opt)
			results[i] = result{p, err}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := &api.ExtractOutput{Results: []api.PageContent{}, FailedResults: []api.FailedExtract{}}
	for i, r := range results {
		if r.err != nil {
			out.FailedResults = append(out.FailedResults, api.FailedExtract{URL: urls[i], Error: r.err.Error()})
			continue
		}
		// The URL as asked for, like failed_results, so callers can match
		// answers to their list; redirects are followed silently.
		pc := api.PageContent{URL: urls[i], RawContent: renderBody(r.page, in.Format, in.Query), Title: r.page.Title}
		if in.IncludeFavicon {
			pc.Favicon = r.page.Favicon
		}
		if in.IncludeImages {
			pc.Images = []string{}
			for _, im := range r.page.Images {
				pc.Images = append(pc.Images, im.URL)
			}
		}
		out.Results = append(out.Results, pc)
	}
	out.ResponseTime = elapsed(start)
	return out, nil
}

// readPage fetches and parses one page, and indexes it unless the page
// asks not to be indexed.
func (e *Engine) readPage(ctx context.Context, raw string, opt extractOptions) (*page, error) {
	fp, err := e.fetch.fetch(ctx, raw, pageTypes)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err // extraction is the costly part; skip it when no one waits
	}
	if dir := e.directoryTwin(ctx, fp); dir != "" {
		fp.URL = dir // as if the site redirected "/index.html" to "/"
	}
	// Extraction does not watch ctx; when the caller stops waiting, it
	// finishes in the background (bounded by MaxPageBytes) unobserved.
	type parsed struct {
		p   *page
		err error
	}
	done := make(chan parsed, 1)
	go func() {
		p, err := parsePage(fp, opt)
		done <- parsed{p, err}
	}()
	var p *page
	select {
	case r := <-done:
		if r.err != nil {
			return nil, r.err
		}
		p = r.p
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if isDirectoryListing(p) {
		p.NoIndex = true
	}
	if !p.NoIndex {
		if err := e.store.put(ctx, p); err != nil && ctx.Err() == nil {
			return nil, fmt.Errorf("index %s: %w", p.URL, err)
		}
	}
	return p, nil
}

// renderBody renders a page in format ("markdown" or "text"); with a query,
// its chunks are ordered by BM25 relevance, most relevant first. Markdown
// leads with the page's headline, as a reader shows it; text is the body
// alone, as extraction benchmarks and a caller that shows the title apart
// want it.
func renderBody(p *page, format, query string) string {
	body := p.Markdown
	if format == "text" {
		body = p.Text
		if p.BodyText != "" {
			body = p.BodyText
		}
	}
	if strings.TrimSpace(query) == "" {
		return body
	}
	ranked, _ := rankChunks(query, chunks(body, 300))
	return strings.Join(ranked, "\n\n")
}

func dedupeURLs(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, u := range in {
		u = strings.TrimSpace(u)
		if u == "" || seen[u] {
			continue
		}
		seen[u] = true
		out = append(out, u)
	}
	return out
}

func elapsed(start time.Time) float64 {
	return float64(time.Since(start).Round(time.Millisecond)) / float64(time.Second)
}
