package web

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"time"

	"hark/api"
	"hark/gateway/text"
)

// pageStore is where the index's pages and their full-text index live:
// gateway.db's SQLite FTS5 tables (sqliteStore, the default), or
// PostgreSQL (pgStore), which every replica of a team gateway shares. Both
// rank with FTS5's bm25 and the same column weights, over the same tokens,
// so that a query finds the same pages in the same order on either.
type pageStore interface {
	// put adds or replaces a page.
	put(ctx context.Context, r *pageRow) error
	// count is how many pages the index holds.
	count(ctx context.Context) (int, error)
	// page is a page's title, text and markdown, and its reader's parse
	// (Config.Parse) stored with it; errNotIndexed when the index does
	// not hold it.
	page(ctx context.Context, url string) (title, body, markdown string, parsed []byte, err error)
	// ranked is the ids and bm25 (negated: larger is better) of the pool
	// best pages matching m among those f lets through, best first.
	ranked(ctx context.Context, m *match, f *filters, pool int) ([]*candidate, error)
	// columns fills in cands' columns (the body cut to bodyRunes runes
	// when bodyRunes > 0; when cutStored > 0, that of a page whose terms
	// are stored left out, leadPending, for leads to read if the page
	// is still wanted) and, with snippets, FTS5's snippet of each.
	columns(ctx context.Context, m *match, cands map[int64]*candidate, bodyRunes, cutStored int, snippets bool) error
	// leads is the first n runes of pages' bodies, by id.
	leads(ctx context.Context, ids []int64, n int) (map[int64]string, error)
	// snippet is FTS5's snippet of one page's body for m, "" when none.
	snippet(ctx context.Context, m *match, id int64) string
	// passages is the stored passages of pages (passages.go), by id;
	// "" for a page indexed before them.
	passages(ctx context.Context, ids []int64) (map[int64]string, error)

	recordSource(ctx context.Context, source string, urls []string, whole bool) error
	sources(ctx context.Context) ([]Source, error)
	removeSource(ctx context.Context, source string) (int, error)
}

// errNotIndexed is a store's answer for a page it does not hold.
var errNotIndexed = errors.New("not in the search index")

// bm25Weights are the title's, body's and URL's weights in the rank both
// stores order by: FTS5's bm25(5.0, 1.0, 2.0).
var bm25Weights = [3]float64{5, 1, 2}

// snippetTokens is the length of a search snippet in tokens, FTS5's
// snippet(web_fts, 1, ”, ”, '…', 40).
const snippetTokens = 40

// pageRow is a page as a store keeps it.
type pageRow struct {
	URL, Host, Title, Description, Body string
	Images, Favicon, Topic              string
	Markdown, Headings                  string
	Published, Fetched                  int64 // Unix seconds; 0: no date
	// Terms and Passages are the body's terms and sentences (passages.go);
	// of a page with data tables, Terms are its prose's (page.Prose).
	Terms, HeadingTerms string
	Passages            []byte
	// Parsed is the page as Config.Parse read it, nil without one.
	Parsed []byte
}

// filters narrow a search to a time window and to domains.
type filters struct {
	lo, hi           int64    // [lo, hi) of a page's date in Unix seconds; 0: unbounded
	include, exclude []string // normalised domains
}

// where is f as SQL conditions on web_pages p, with ph giving each
// argument's placeholder ("?" for SQLite, "$n" for PostgreSQL).
func (f *filters) where(ph func() string) (conds []string, args []any) {
	date := "(CASE WHEN p.published > 0 THEN p.published ELSE p.fetched END)"
	if f.lo > 0 {
		conds = append(conds, date+" >= "+ph())
		args = append(args, f.lo)
	}
	if f.hi > 0 {
		conds = append(conds, date+" < "+ph())
		args = append(args, f.hi)
	}
	host := func(d string) string {
		args = append(args, d, "www."+d, "%."+d)
		return "(p.host = " + ph() + " OR p.host = " + ph() + " OR p.host LIKE " + ph() + ")"
	}
	if len(f.include) > 0 {
		var ors []string
		for _, d := range f.include {
			ors = append(ors, host(d))
		}
		conds = append(conds, "("+strings.Join(ors, " OR ")+")")
	}
	for _, d := range f.exclude {
		conds = append(conds, "NOT "+host(d))
	}
	return conds, args
}

// pageIndex is the engine's index: its store, fed pages as the engine
// reads them.
type pageIndex struct {
	pageStore
	parse func(title, text, markdown string) []byte // Config.Parse
}

// put adds or replaces a page in the index, and tells the index run ctx
// carries (see IndexWith) of it.
func (s pageIndex) put(ctx context.Context, p *page) error {
	if strings.TrimSpace(p.Text) == "" && p.Title == "" {
		return nil
	}
	imgs := make([]storedImage, 0, len(p.Images))
	for _, im := range p.Images {
		imgs = append(imgs, storedImage{im.URL, im.Description})
	}
	ij, _ := json.Marshal(imgs)
	var pub int64
	if !p.Published.IsZero() {
		pub = p.Published.Unix()
	}
	fetched := p.Fetched
	if fetched.IsZero() {
		fetched = time.Now()
	}
	r := &pageRow{URL: p.URL, Host: hostOf(p.URL), Title: p.Title, Description: p.Description, Body: p.Text,
		Images: string(ij), Favicon: p.Favicon, Published: pub, Fetched: fetched.Unix(), Topic: classifyTopic(p),
		Markdown: p.Markdown, Headings: markdownHeadings(p.Markdown),
		Terms: pageTerms(cmp.Or(p.Prose, p.Text)), Passages: encodePassages(p.Text)}
	r.HeadingTerms = pageHeadingTerms(r.Headings)
	if s.parse != nil {
		r.Parsed = s.parse(p.Title, p.Text, p.Markdown)
		p.Parsed = r.Parsed
	}
	if err := s.pageStore.put(ctx, r); err != nil {
		return err
	}
	if run, ok := ctx.Value(indexRunKey{}).(*indexRun); ok {
		run.add(p.URL)
	}
	return nil
}

type storedImage struct {
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
}

// markdownHeadings is the headings of markdown, one a line, as text:
// search weighs a query's words in a page's headings.
func markdownHeadings(md string) string {
	var out []string
	fence := ""
	for _, l := range strings.Split(md, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:3]
		case strings.HasPrefix(t, "#"):
			// A heading's links read as their text: rustdoc's "# Struct
			// [syn](http://…/syn/index.html)::Ident" gave its headings the
			// words of a URL (http, 127, html) and showed it in snippets.
			h := api.QuoteText(strings.TrimSpace(strings.TrimLeft(t, "#")))
			h = strings.NewReplacer("\\", "", "*", "", "`", "", "_", " ").Replace(h)
			if h != "" {
				out = append(out, h)
			}
		}
	}
	return strings.Join(out, "\n")
}

var financeTerms = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`stock stocks share shares market markets earnings revenue profit dividend dividends
nasdaq nyse dow index inflation interest rate rates bond bonds yield investor investors investment fund funds
price prices trading trader equity equities ipo quarterly fiscal bank banks currency forex crypto bitcoin
valuation portfolio hedge etf gdp recession central treasury`) {
		financeTerms[text.Stem(w)] = true
	}
}

// classifyTopic files a page under news (article markup, a publication
// date with a news-like path, or /news/ in the path), finance (at least
// 2% of its words are finance terms) or general.
func classifyTopic(p *page) string {
	path := ""
	if u, err := url.Parse(p.URL); err == nil {
		path = strings.ToLower(u.Path)
		if strings.Contains(strings.ToLower(u.Hostname()), "news") {
			path = "/news/" + path
		}
	}
	if p.ArticleType || strings.Contains(path, "/news") || (!p.Published.IsZero() && (strings.Contains(path, "/20") || strings.Contains(path, "/article") || strings.Contains(path, "/blog"))) {
		return "news"
	}
	toks := text.Terms(p.Title + " " + text.TruncateRunes(p.Text, 20000))
	hits := 0
	for _, t := range toks {
		if financeTerms[t] {
			hits++
		}
	}
	if len(toks) > 0 && hits >= 3 && float64(hits)/float64(len(toks)) >= 0.02 {
		return "finance"
	}
	return "general"
}

// sourcesQuery lists the indexed sources, newest first, each with the
// pages it holds now; the same SQL on both stores.
const sourcesQuery = `SELECT s.source, s.indexed,
	(SELECT count(*) FROM web_source_pages sp JOIN web_pages p ON p.url = sp.url WHERE sp.source = s.source)
	FROM web_sources s ORDER BY s.indexed DESC, s.source`

// rowScanner is what both stores' query results (database/sql's and
// pgx's) offer for reading rows.
type rowScanner interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// scanSources reads sourcesQuery's rows.
func scanSources(rows rowScanner) ([]Source, error) {
	out := []Source{}
	for rows.Next() {
		var src Source
		var at int64
		if err := rows.Scan(&src.Source, &at, &src.Pages); err != nil {
			return nil, err
		}
		src.Indexed = time.Unix(at, 0)
		out = append(out, src)
	}
	return out, rows.Err()
}
