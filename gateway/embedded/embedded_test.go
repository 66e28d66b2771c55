package embedded

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/config"
	"hark/gateway/store"
)

func TestStartExtractsALoopbackPage(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Tides</title></head><body><article><h1>Tides</h1>
<p>The tide rises and falls twice a day because of the moon's pull on the oceans of the earth.</p>
<p>Spring tides happen at new and full moon, when the sun and moon line up.</p></article></body></html>`)
	}))
	defer site.Close()
	g, err := Start(context.Background(), t.TempDir(), Options{AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	// What hark runs with: the defaults, the spec's 5-minute research wait
	// among them, but for a queue that waits for its one user.
	want := config.DefaultLimits()
	want.QueueWait, want.QueueLength = config.Duration(embeddedQueueWait), embeddedQueueLength
	if l := g.Server.Limits(); l != want || time.Duration(l.ResearchWait) != 5*time.Minute {
		t.Fatalf("embedded limits %+v", l)
	}
	c, err := api.New(api.Options{BaseURL: g.URL, APIKey: g.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Extract(context.Background(), api.ExtractInput{URLs: api.URLList{site.URL + "/tides", "http://127.0.0.1:1/closed"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 1 || !strings.Contains(out.Results[0].RawContent, "moon") || len(out.FailedResults) != 1 {
		t.Fatalf("extract: %+v", out)
	}
	g.Stop()
	g.Stop() // idempotent
	if _, err := c.Tools(context.Background()); err == nil {
		t.Fatal("gateway answers after Stop")
	}
}

// The web engine opens on the first web call, not at Start: a gateway
// that only lists its tools creates no index tables. A research task an
// earlier process left running is marked failed by that first call,
// before it reads anything, and concurrent first calls open it once.
func TestWebEngineOpensOnFirstCall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := store.OpenDB(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tableCount := func() int {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name LIKE 'web_%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var mu sync.Mutex
	var events []string
	trace := func(e string) { mu.Lock(); events = append(events, e); mu.Unlock() }
	g, err := Start(context.Background(), dir, Options{Trace: trace})
	if err != nil {
		t.Fatal(err)
	}
	c, err := api.New(api.Options{BaseURL: g.URL, APIKey: g.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := tableCount(); n != 0 {
		t.Fatalf("%d web tables after Start and the tool list; the engine opened before any web call", n)
	}
	g.Stop()

	// A task left running: the tables as an earlier process made them.
	eng := NewEngines(db, false, nil)
	if _, _, err := eng.localWeb(); err != nil {
		t.Fatal(err)
	}
	eng.Close()
	if _, err := db.Exec(`INSERT INTO web_research(id, input, model, status, created, updated) VALUES ('r1', 'q', 'mini', ?, 1, 1)`, api.ResearchInProgress); err != nil {
		t.Fatal(err)
	}
	status := func() string {
		var s string
		if err := db.QueryRow(`SELECT status FROM web_research WHERE id = 'r1'`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	events = nil
	// The three first calls wait for the engine to open; on a loaded
	// machine that outlasts hark serve's 20 ms queue wait, and the
	// embedded gateway's queue waits for its one user.
	g, err = Start(context.Background(), dir, Options{Trace: trace})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	if s := status(); s != api.ResearchInProgress {
		t.Fatalf("status %q after Start; the sweep ran before any web call", s)
	}
	c, _ = api.New(api.Options{BaseURL: g.URL, APIKey: g.APIKey})
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Search(context.Background(), api.SearchInput{Query: "tides"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if s := status(); s != api.ResearchFailed {
		t.Errorf("status %q after the first web call, want %q", s, api.ResearchFailed)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(events, ",") != "web engine opened" {
		t.Errorf("trace %q, want the engine opened once", events)
	}
}

// A Local outlives the gateways served from it, and what its web engine
// indexes the gateway's search finds: one engine, one database.
func TestServeSharesTheLocalWebEngine(t *testing.T) {
	t.Parallel()
	docs := t.TempDir()
	os.WriteFile(filepath.Join(docs, "tides.md"), []byte("# Tides\n\nSpring tides come at new and full moon.\n"), 0o644)
	l, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	g, err := l.Serve()
	if err != nil {
		t.Fatal(err)
	}
	w, err := l.Web()
	if err != nil {
		t.Fatal(err)
	}
	if gw, _ := g.Web(); gw != w {
		t.Fatal("the gateway's web engine is not the Local's")
	}
	if _, err := w.Index(ctx, docs); err != nil {
		t.Fatal(err)
	}
	c, _ := api.New(api.Options{BaseURL: g.URL, APIKey: g.APIKey})
	out, err := c.Search(ctx, api.SearchInput{Query: "spring tides"})
	if err != nil || len(out.Results) != 1 {
		t.Fatalf("search after indexing through the Local: %+v %v", out, err)
	}
	g.Stop()
	if n, err := w.IndexedPages(ctx); err != nil || n != 1 {
		t.Errorf("after the gateway stopped the Local still reads: %d %v", n, err)
	}
}

// A detached job carries the reading of private addresses of the gateway
// it was submitted to (issue 43: hark crawl --detach --allow-private ran
// later in a hark without the flag and failed with "address is
// private"): a gateway over the same data directory without
// --allow-private runs it and reads the loopback site. A job that fails
// on its input (a private address, submitted without the flag) gives its
// credits back.
func TestDetachedJobCarriesAllowPrivate(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var asked sync.Once
	started := make(chan struct{})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		asked.Do(func() { close(started) })
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Okapis</title></head><body><article><h1>Okapis</h1>
<p>The okapi is a giraffid of the Congo rainforest, with zebra stripes on its legs and a long tongue.</p></article></body></html>`)
	}))
	defer site.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()

	a, err := Start(ctx, dir, Options{AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := api.New(api.Options{BaseURL: a.URL, APIKey: a.APIKey})
	j, err := ca.SubmitJob(ctx, api.ToolCrawl, map[string]any{"url": site.URL + "/okapi.html", "max_depth": 1, "limit": 1})
	if err != nil {
		t.Fatal(err)
	}
	select { // the submitting hark has begun the crawl, and stops
	case <-started:
	case <-ctx.Done():
		t.Fatal("the job did not start")
	}
	a.Stop()

	b, err := Start(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	close(release)
	cb, _ := api.New(api.Options{BaseURL: b.URL, APIKey: b.APIKey})
	done, err := cb.FollowJob(ctx, j.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if done.State != api.JobCompleted || !strings.Contains(string(done.Output), "giraffid") {
		t.Fatalf("the job run by a hark without --allow-private: %+v", done)
	}

	before, err := b.Server.CreditsUsed(ctx, "local")
	if err != nil {
		t.Fatal(err)
	}
	j2, err := cb.SubmitJob(ctx, api.ToolCrawl, map[string]any{"url": site.URL + "/okapi.html"})
	if err != nil {
		t.Fatal(err)
	}
	done, err = cb.FollowJob(ctx, j2.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if done.State != api.JobFailed || !strings.Contains(done.Error, "address is private") {
		t.Fatalf("a loopback crawl submitted without --allow-private: %+v", done)
	}
	var after int64
	for range 50 { // the refund is written as the job ends
		if after, _ = b.Server.CreditsUsed(ctx, "local"); after == before {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if after != before {
		t.Errorf("a job that failed on its input was charged: credits %d before, %d after", before, after)
	}
	rows, _ := b.Server.Usage(ctx, "local", 5)
	if len(rows) < 2 || rows[0].Operation != "refund vendor_crawl" || rows[0].Credits != -rows[1].Credits || rows[0].Credits >= 0 {
		t.Errorf("usage rows %+v, want the refund first", rows)
	}
}
