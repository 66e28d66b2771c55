package web

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"hark/api"
	"hark/gateway/pgtest"
	"hark/gateway/store"
	"hark/gateway/web/webtest"
)

// pgEngine is an engine whose index is in a fresh PostgreSQL cluster,
// its tables made by the gateway's own migrations.
func pgEngine(t testing.TB) *Engine {
	t.Helper()
	return pgEngineOn(t, pgtest.Start(t).URL())
}

// pgEngineOn is an engine on the database at url, with a pool of its
// own, as a replica has.
func pgEngineOn(t testing.TB, url string) *Engine {
	t.Helper()
	ctx := context.Background()
	db, err := store.OpenPostgres(ctx, url, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	e, err := New(Config{Postgres: db})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// bothBackends indexes the research corpus and the extraction test
// pages into gateway.db's index and into PostgreSQL's.
func bothBackends(t *testing.T) (sq, pg *Engine) {
	sq, err := New(Config{DB: webtest.DB(t)})
	if err != nil {
		t.Fatal(err)
	}
	pg = pgEngine(t)
	ctx := context.Background()
	webtest.IndexCorpus(t, researchCorpus, func(folder string) (int, error) {
		n, err := sq.Index(ctx, folder)
		if err != nil {
			return n, err
		}
		m, err := pg.Index(ctx, folder)
		if m != n {
			t.Errorf("%s: %d pages into SQLite, %d into PostgreSQL", folder, n, m)
		}
		return n, err
	})
	for _, e := range []*Engine{sq, pg} {
		if _, err := e.Index(ctx, "testdata/extract"); err != nil {
			t.Fatal(err)
		}
	}
	return sq, pg
}

// compareQueries are the research questions and queries that stress the
// rank: repeated stems ("run running"), stop words only, digits, a word
// no page holds, and phrases for exact_match.
func compareQueries(t *testing.T) []string {
	b, err := os.ReadFile("../research/testdata/questions.json")
	if err != nil {
		t.Fatal(err)
	}
	var qs []struct{ Question string }
	if err := json.Unmarshal(b, &qs); err != nil {
		t.Fatal(err)
	}
	out := []string{"run running runs", "the of and", "valgrind 3.19", "memcheck leak", "zorblaxquux",
		"libffi closures", "espeak voice", "node.js stream backpressure", "café naïve", "html", "sha256 checksum"}
	for _, q := range qs {
		out = append(out, q.Question)
	}
	return out
}

type rankedPage struct {
	url string
	raw float64
}

// rankOf is the store's bm25 ranking of query, with each page's URL.
func rankOf(t *testing.T, e *Engine, query string, exact bool, pool int) []rankedPage {
	t.Helper()
	ctx := context.Background()
	m, _ := newMatch(query, exact)
	if m == nil {
		return nil
	}
	cands, err := e.store.ranked(ctx, m, &filters{}, pool)
	if err != nil {
		t.Fatalf("%q: %v", query, err)
	}
	byID := map[int64]*candidate{}
	for _, c := range cands {
		byID[c.id] = c
	}
	if err := e.store.columns(ctx, m, byID, 0, 0, false); err != nil {
		t.Fatal(err)
	}
	out := make([]rankedPage, len(cands))
	for i, c := range cands {
		out[i] = rankedPage{c.url, c.raw}
	}
	return out
}

// sameRank requires the same pages in the same order with the same
// scores. Pages whose scores tie (to float tolerance) may come in either
// order, as each backend breaks ties by its own ids; a tie cut by the
// end of the list may keep different pages of the tie.
func sameRank(t *testing.T, what string, a, b []rankedPage) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("%s: SQLite ranks %d pages, PostgreSQL %d", what, len(a), len(b))
		return
	}
	close := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(x)) }
	for i := range a {
		if !close(a[i].raw, b[i].raw) {
			t.Errorf("%s: #%d scores %.12g on SQLite (%s), %.12g on PostgreSQL (%s)", what, i+1, a[i].raw, a[i].url, b[i].raw, b[i].url)
			return
		}
	}
	for i := 0; i < len(a); {
		j := i + 1
		for j < len(a) && close(a[j].raw, a[i].raw) {
			j++
		}
		if j < len(a) { // a whole tie: the same pages
			set := map[string]bool{}
			for _, p := range a[i:j] {
				set[p.url] = true
			}
			for k, p := range b[i:j] {
				if !set[p.url] {
					t.Errorf("%s: #%d is %s on PostgreSQL, not among SQLite's %v", what, i+k+1, p.url, a[i:j])
					return
				}
			}
		}
		i = j
	}
}

// TestPostgresIndexRanksAsSQLite indexes the same pages into both
// backends and requires the same bm25 ranking (pages, order, scores) for
// every query, and the same search results at every depth: the team's
// index answers as the embedded one does.
func TestPostgresIndexRanksAsSQLite(t *testing.T) {
	if raceEnabled {
		// A search costs about forty times as much under the detector,
		// and the races this could find are the concurrent-replicas
		// test's; scripts/test.sh runs this whole without it.
		t.Skip("compared without -race (scripts/test.sh)")
	}
	sq, pg := bothBackends(t)
	ctx := context.Background()
	ns, _ := sq.IndexedPages(ctx)
	np, _ := pg.IndexedPages(ctx)
	if ns != np || ns < 60 {
		t.Fatalf("SQLite holds %d pages, PostgreSQL %d", ns, np)
	}
	queries := compareQueries(t)
	compared, scores, bitEqual := 0, 0, 0
	for _, q := range queries {
		a, b := rankOf(t, sq, q, false, 50), rankOf(t, pg, q, false, 50)
		sameRank(t, fmt.Sprintf("rank %q", q), a, b)
		if len(a) > 0 {
			compared++
		}
		for i := range min(len(a), len(b)) {
			scores++
			if a[i].raw == b[i].raw {
				bitEqual++
			}
		}
	}
	if compared < len(queries)*2/5 {
		t.Fatalf("only %d of %d queries found pages", compared, len(queries))
	}
	t.Logf("%d queries found pages; %d of %d scores are the same double on both", compared, bitEqual, scores)
	for _, q := range []string{"memory leak", "the suppression file", "closure API", "Node.js", "run"} {
		sameRank(t, fmt.Sprintf("exact %q", q), rankOf(t, sq, q, true, 50), rankOf(t, pg, q, true, 50))
	}
	// Whole searches: the same results, scores and content (fast quotes
	// FTS5's snippet, basic falls back to it), for a sample of the
	// queries (a search costs what reading its pages' sentences does).
	exactFound := 0
	var sample []string
	for i, q := range queries {
		if i%5 == 0 {
			sample = append(sample, q)
		}
	}
	for _, q := range append(sample, "memory leak", "the suppression file", "leak check", "error messages") {
		for _, in := range []api.SearchInput{
			{Query: q, SearchDepth: "basic", MaxResults: 5},
			{Query: q, SearchDepth: "advanced", MaxResults: 3},
			{Query: q, SearchDepth: "fast", MaxResults: 5},
			{Query: q, SearchDepth: "ultra-fast", MaxResults: 5},
			{Query: q, SearchDepth: "basic", MaxResults: 5, ExactMatch: true},
			{Query: q, SearchDepth: "basic", MaxResults: 5, IncludeDomains: "valgrind.example, nodejs.example"},
			{Query: q, SearchDepth: "fast", MaxResults: 5, ExcludeDomains: "example.com", StartDate: "2000-01-01"},
			{Query: q, SearchDepth: "basic", MaxResults: 5, ExactMatch: true, ExcludeDomains: "example.com", StartDate: "2000-01-01", EndDate: "2100-01-01"},
		} {
			a, err := sq.Search(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			b, err := pg.Search(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("%s search %q (exact %v, domains %q, not %q, from %q)", in.SearchDepth, q, in.ExactMatch, in.IncludeDomains, in.ExcludeDomains, in.StartDate)
			if in.ExactMatch {
				exactFound += len(a.Results)
			}
			if len(a.Results) != len(b.Results) {
				t.Errorf("%s: %d results on SQLite, %d on PostgreSQL", what, len(a.Results), len(b.Results))
				continue
			}
			for i := range a.Results {
				ra, rb := a.Results[i], b.Results[i]
				if ra.URL != rb.URL || math.Abs(ra.Score-rb.Score) > 1e-4 || ra.Content != rb.Content {
					t.Errorf("%s #%d:\nSQLite     %s %.4f %q\nPostgreSQL %s %.4f %q", what, i+1, ra.URL, ra.Score, ra.Content, rb.URL, rb.Score, rb.Content)
					break
				}
			}
		}
	}
	if exactFound == 0 {
		t.Error("no exact_match search found a page: the phrase path went untested")
	}
	// Research reads the same through its interface.
	for _, q := range queries[:10] {
		a, _ := sq.SearchIndex(ctx, api.SearchInput{Query: q, MaxResults: 8})
		b, _ := pg.SearchIndex(ctx, api.SearchInput{Query: q, MaxResults: 8})
		if fmt.Sprint(searchURLs(a)) != fmt.Sprint(searchURLs(b)) {
			t.Errorf("research's search of %q: SQLite %v, PostgreSQL %v", q, searchURLs(a), searchURLs(b))
		}
		for _, u := range searchURLs(a) {
			ta, ba, ma, _, _ := sq.Kept(ctx, u)
			tb, bb, mb, _, err := pg.Kept(ctx, u)
			if err != nil || ta != tb || ba != bb || ma != mb {
				t.Errorf("Kept(%s) differs on PostgreSQL (%v)", u, err)
			}
		}
	}
}

// The snippet PostgreSQL's store makes is FTS5's own, on pages with and
// without a match in the body, short and long, for one word or several.
func TestSnippetIsFTS5s(t *testing.T) {
	sq, err := New(Config{DB: webtest.DB(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := sq.Index(ctx, researchCorpus+"/valgrind"); err != nil {
		t.Fatal(err)
	}
	queries, least := []string{"memcheck leak", "suppression", "valgrind", "thread error detector", "the", "cachegrind branch simulation", "gdb vgdb"}, 50
	if raceEnabled {
		// A snippet costs about twenty times as much under the detector;
		// two queries still run every path, and scripts/test.sh compares
		// them all without it.
		queries, least = queries[:2], 15
	}
	n := 0
	for _, q := range queries {
		m, _ := newMatch(q, false)
		cands, err := sq.store.ranked(ctx, m, &filters{}, 20)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cands {
			want := sq.store.snippet(ctx, m, c.id)
			_, body, _, _, err := sq.store.page(ctx, urlOfID(t, sq, c.id))
			if err != nil {
				t.Fatal(err)
			}
			if got := ftsSnippet(body, m.phrases, "…", snippetTokens); got != want {
				t.Errorf("%q, page %d:\nFTS5: %q\ngot:  %q", q, c.id, want, got)
			}
			n++
		}
	}
	if n < least {
		t.Fatalf("only %d snippets compared", n)
	}
}

func urlOfID(t *testing.T, e *Engine, id int64) string {
	var u string
	if err := e.db.QueryRow(`SELECT url FROM web_pages WHERE id = ?`, id).Scan(&u); err != nil {
		t.Fatal(err)
	}
	return u
}

// Indexing again, a source's removal and a whole run that no longer finds
// a page keep PostgreSQL's totals (and so bm25) as SQLite's are.
func TestPostgresIndexKeepsTotalsThroughChanges(t *testing.T) {
	sq, err := New(Config{DB: webtest.DB(t)})
	if err != nil {
		t.Fatal(err)
	}
	pg := pgEngine(t)
	ctx := context.Background()
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.md", "# Alpha\n\nThe zorblax engine tunes alpha pages.\n")
	write("b.md", "# Beta\n\nBeta pages mention zorblax twice: zorblax.\n")
	write("c.txt", "Gamma holds no engine word at all, only gamma.\x00")
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "d.md"), []byte("# Delta\n\nDelta tunes the zorblax too.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	step := func(what string, f func(e *Engine) error) {
		t.Helper()
		for _, e := range []*Engine{sq, pg} {
			if err := f(e); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		}
		ns, _ := sq.IndexedPages(ctx)
		np, _ := pg.IndexedPages(ctx)
		if ns != np {
			t.Fatalf("%s: SQLite holds %d pages, PostgreSQL %d", what, ns, np)
		}
		for _, q := range []string{"zorblax", "alpha gamma", "engine tunes"} {
			sameRank(t, what+": "+q, rankOf(t, sq, q, false, 10), rankOf(t, pg, q, false, 10))
		}
		var ts, tp int64
		sq.db.QueryRow(`SELECT count(*) FROM web_fts_docsize`).Scan(&ts)
		if err := pg.store.pageStore.(*pgStore).pool.QueryRow(ctx, `SELECT count(*) FROM web_pages`).Scan(&tp); err != nil || ts != tp {
			t.Fatalf("%s: FTS5 holds %d rows, PostgreSQL %d (%v)", what, ts, tp, err)
		}
	}
	step("index", func(e *Engine) error { _, err := e.Index(ctx, dir); return err })
	step("index other", func(e *Engine) error { _, err := e.Index(ctx, other); return err })
	write("a.md", "# Alpha\n\nRewritten: alpha now says zorblax zorblax zorblax, and much more text than before about engines.\n")
	step("index again", func(e *Engine) error { _, err := e.Index(ctx, dir); return err })
	os.Remove(filepath.Join(dir, "b.md"))
	step("index without b", func(e *Engine) error { _, err := e.Index(ctx, dir); return err })
	step("remove other", func(e *Engine) error {
		n, err := e.RemoveSource(ctx, sourceName(other))
		if n != 1 {
			return fmt.Errorf("removed %d pages, want 1", n)
		}
		return err
	})
	for _, e := range []*Engine{sq, pg} {
		if _, err := e.RemoveSource(ctx, "/no/such/source"); err == nil || !strings.Contains(err.Error(), ErrNoSource.Error()) {
			t.Errorf("removing an unknown source: %v", err)
		}
		src, err := e.Sources(ctx)
		if err != nil || len(src) != 1 || src[0].Pages != 2 {
			t.Errorf("sources: %+v, %v", src, err)
		}
	}
}

// Replicas feed one index at once: two engines with pools of their own,
// eight writers each, many pages stored by both. The totals bm25 reads
// stay those of the pages held, and the index ranks as SQLite's does
// with the same pages.
func TestPostgresIndexTakesConcurrentReplicas(t *testing.T) {
	url := pgtest.Start(t).URL()
	replicas := []*Engine{pgEngineOn(t, url), pgEngineOn(t, url)}
	sq, err := New(Config{DB: webtest.DB(t)})
	if err != nil {
		t.Fatal(err)
	}
	c := newBenchCorpus(7)
	// Under the race detector a third as many pages, which still puts
	// both replicas on the same page at once, many times over.
	pages := make([]*page, 300)
	if raceEnabled {
		pages = pages[:100]
	}
	for i := range pages {
		pages[i] = c.page(i)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for r, e := range replicas {
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Each replica stores two thirds of the pages, so a third
				// are stored by both, often at the same moment.
				for i := w; i < len(pages); i += 8 {
					if i%3 == r {
						continue
					}
					p := *pages[i]
					if err := e.store.put(ctx, &p); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, p := range pages {
		if err := sq.store.put(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	pool := replicas[0].store.pageStore.(*pgStore).pool
	var held, tokens, totalPages, totalTokens int64
	if err := pool.QueryRow(ctx, `SELECT count(*), COALESCE(sum(tokens), 0) FROM web_pages`).Scan(&held, &tokens); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT pages, tokens FROM web_index_totals`).Scan(&totalPages, &totalTokens); err != nil {
		t.Fatal(err)
	}
	if held != int64(len(pages)) || totalPages != held || totalTokens != tokens {
		t.Fatalf("%d pages held (%d tokens); totals say %d pages, %d tokens", held, tokens, totalPages, totalTokens)
	}
	for i := 0; i < 20; i++ {
		q := c.vocab[100+i*37] + " " + c.vocab[400+i*11]
		a := rankOf(t, sq, q, false, 20)
		for _, e := range replicas {
			sameRank(t, q, a, rankOf(t, e, q, false, 20))
		}
	}
}
