package library

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/api"
)

func open(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func result(t *testing.T, tool string, inputs map[string]any, output any) api.Result {
	t.Helper()
	b, err := json.Marshal(output)
	if err != nil {
		t.Fatal(err)
	}
	return api.Result{Tool: tool, Inputs: inputs, Output: b, TraceID: "trace-" + tool, Gateway: "http://127.0.0.1:9"}
}

// keepAll keeps one result of each tool, a second apart, oldest first.
func keepAll(t *testing.T, s *Store) map[string]*Item {
	t.Helper()
	rs := []api.Result{
		result(t, api.ToolSearch, map[string]any{"query": "zebra crossings"}, api.SearchOutput{Query: "zebra crossings",
			Results: []api.SearchResult{{Title: "Zebra crossing", URL: "https://en.example/zebra", Content: "Stripes for pedestrians."}}}),
		result(t, api.ToolExtract, map[string]any{"urls": []any{"https://docs.example/okapi"}}, map[string]any{
			"results": []any{map[string]any{"url": "https://docs.example/okapi", "raw_content": "# Okapi facts\n\nThe okapi is a giraffid of the Congo."}}, "failed_results": []any{}}),
		result(t, api.ToolCrawl, map[string]any{"url": "https://site.example/"}, api.CrawlOutput{BaseURL: "https://site.example/", Results: []api.PageContent{
			{URL: "https://site.example/a", RawContent: "# Alpha\n\nQuagga stripes fade."}, {URL: "https://site.example/b", RawContent: "Beta page."}}}),
		result(t, api.ToolMap, map[string]any{"url": "https://site.example/"}, api.MapOutput{BaseURL: "https://site.example/", Results: []api.MapLink{{URL: "https://site.example/a"}}}),
		result(t, api.ToolResearch, map[string]any{"input": "How do crossings work?"}, api.ResearchOutput{RequestID: "r1", Status: api.ResearchCompleted,
			Content: "Crossings give pedestrians right of way [1].", Sources: []api.ResearchSource{{Title: "Zebra crossing", URL: "https://en.example/zebra"}, {Title: "Signals", URL: "https://roads.example/signals"}}}),
	}
	got := map[string]*Item{}
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	for i, r := range rs {
		items := Items(r)
		if len(items) != 1 {
			t.Fatalf("%s gave %d items", r.Tool, len(items))
		}
		items[0].Created = t0.Add(time.Duration(i) * time.Second)
		if err := s.Add(context.Background(), items...); err != nil {
			t.Fatal(err)
		}
		got[items[0].Kind] = items[0]
	}
	return got
}

func TestKeepListGetDelete(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	kept := keepAll(t, s)
	list, err := s.List(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, it := range list {
		kinds = append(kinds, it.Kind)
	}
	if strings.Join(kinds, " ") != "research map crawl page search" {
		t.Errorf("newest first: %v", kinds)
	}
	if l, _ := s.List(ctx, KindPage, 0); len(l) != 1 || l[0].Title != "Okapi facts" || l[0].URL != "https://docs.example/okapi" {
		t.Errorf("pages: %+v", l)
	}
	if l, _ := s.List(ctx, "", 2); len(l) != 2 {
		t.Errorf("limit 2 gave %d", len(l))
	}
	r, err := s.Get(ctx, kept[KindResearch].ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Title != "How do crossings work?" || r.TraceID != "trace-vendor_research" || r.Gateway != "http://127.0.0.1:9" ||
		!strings.Contains(r.Body, "2. [Signals](https://roads.example/signals)") || !r.Created.Equal(kept[KindResearch].Created) {
		t.Errorf("research item: %+v", r)
	}
	if err := s.Delete(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, r.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleted item: %v", err)
	}
	if err := s.Delete(ctx, r.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleting twice: %v", err)
	}
	if hits, _ := s.Search(ctx, "pedestrians right", "", 0); len(hits) != 0 {
		t.Errorf("a deleted report is still found: %+v", hits)
	}
	n, err := s.DeleteAll(ctx)
	if c, _ := s.Count(ctx); err != nil || n != 4 || c != 0 {
		t.Errorf("DeleteAll: %d %v, %d left", n, err, c)
	}
}

func TestSearchAsYouType(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	kept := keepAll(t, s)
	for q, want := range map[string]string{
		"giraff":            KindPage,  // a prefix of a word of the page body
		"quagga":            KindCrawl, // a crawled page's text
		"how do crossings":  KindResearch,
		"zebra crossings":   KindSearch, // the query itself ranks its search first
		`"okapi" (giraffid`: KindPage,   // quotes and brackets are just text
	} {
		hits, err := s.Search(ctx, q, "", 0)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if len(hits) == 0 || hits[0].Kind != want {
			t.Errorf("%q: hits %+v, want a %s first", q, hits, want)
			continue
		}
		if hits[0].ID != kept[want].ID {
			t.Errorf("%q: id %d, want %d", q, hits[0].ID, kept[want].ID)
		}
	}
	hits, _ := s.Search(ctx, "congo", KindSearch, 0)
	if len(hits) != 0 {
		t.Errorf("kind filter: %+v", hits)
	}
	hits, _ = s.Search(ctx, "congo", "", 0)
	if len(hits) != 1 || !strings.Contains(hits[0].Snippet, "Congo") {
		t.Errorf("snippet: %+v", hits)
	}
}

// A query of punctuation alone has no word to match: it is refused,
// named, instead of listing everything as a blank query does.
func TestSearchWithoutWordsIsRefused(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	keepAll(t, s)
	for _, q := range []string{"?", " -- ", "…!", `"*"`} {
		if hits, err := s.Search(ctx, q, "", 0); !errors.Is(err, ErrNoWords) {
			t.Errorf("Search(%q) = %d hits, %v; want ErrNoWords", q, len(hits), err)
		}
		if hs, err := s.Highlights(ctx, q, 0); !errors.Is(err, ErrNoWords) {
			t.Errorf("Highlights(%q) = %d, %v; want ErrNoWords", q, len(hs), err)
		}
	}
	if !strings.HasPrefix(ErrNoWords.Error(), "query: ") || !strings.Contains(ErrNoWords.Error(), "letters or digits") {
		t.Errorf("the error names neither the field nor the rule: %q", ErrNoWords)
	}
	if hits, err := s.Search(ctx, "  ", "", 0); err != nil || len(hits) == 0 {
		t.Errorf("a blank query lists the library: %d, %v", len(hits), err)
	}
}

func TestPageKeptOnce(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	page := map[string]any{"results": []any{map[string]any{"url": "https://a.example/", "raw_content": "Same text."}}}
	for range 3 {
		if err := s.Add(ctx, Items(result(t, api.ToolExtract, nil, page))...); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := s.Count(ctx); n != 1 {
		t.Errorf("the same page opened three times is kept %d times", n)
	}
	// The same map twice is kept once (issue 43).
	m := api.MapOutput{BaseURL: "https://a.example/", Results: []api.MapLink{{URL: "https://a.example/x"}}}
	for range 2 {
		if err := s.Add(ctx, Items(result(t, api.ToolMap, map[string]any{"url": "https://a.example/"}, m))...); err != nil {
			t.Fatal(err)
		}
	}
	if l, _ := s.List(ctx, KindMap, 0); len(l) != 1 {
		t.Errorf("the same map twice is kept %d times", len(l))
	}
	// The same search run again is kept once; a run of changes to one
	// query (+, -, a in the Search pane) keeps its last step; a search
	// of another query ends the run, and so does time.
	search := func(in map[string]any, at time.Time) {
		out := api.SearchOutput{Query: "zebra", Results: []api.SearchResult{{Title: "Z", URL: "https://z.example"}}}
		items := Items(result(t, api.ToolSearch, in, out))
		for _, it := range items {
			it.Created = at
		}
		if err := s.Add(ctx, items...); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	search(map[string]any{"query": "zebra"}, now)
	search(map[string]any{"query": "zebra"}, now.Add(time.Second))
	search(map[string]any{"query": "zebra", "max_results": 6}, now.Add(2*time.Second))
	search(map[string]any{"query": "zebra", "max_results": 6, "include_answer": true}, now.Add(3*time.Second))
	if l, _ := s.List(ctx, KindSearch, 0); len(l) != 1 || !strings.Contains(l[0].Title, "include_answer=true") {
		t.Errorf("a run of changes to one query: %+v, want its last step alone", l)
	}
	search(map[string]any{"query": "okapi"}, now.Add(4*time.Second))
	search(map[string]any{"query": "zebra", "topic": "news"}, now.Add(5*time.Second))
	search(map[string]any{"query": "zebra", "topic": "finance"}, now.Add(5*time.Second+searchRunGap+time.Second))
	if l, _ := s.List(ctx, KindSearch, 0); len(l) != 4 {
		t.Errorf("searches kept: %d, want 4 (the run, okapi, then zebra twice: once after another query, once after a pause)", len(l))
	}
	// A job's report, followed to its end twice (the background run
	// that ran it, then hark jobs attach), is kept once, under its first
	// ID; another job's is kept beside it.
	job := func(id string) int64 {
		r := result(t, api.ToolResearch, map[string]any{"input": "why stripes?"}, api.ResearchOutput{Status: api.ResearchCompleted,
			Content: "# why stripes?\n\nStripes confuse flies [1].", Sources: []api.ResearchSource{{Title: "Z", URL: "https://z.example"}}})
		r.TraceID = api.JobTracePrefix + id
		items := Items(r)
		if err := s.Add(ctx, items...); err != nil || len(items) != 1 {
			t.Fatal(err, len(items))
		}
		return items[0].ID
	}
	first := job("49bda6d0-9405-2edd-4891-7b733d83486a")
	if again := job("49bda6d0-9405-2edd-4891-7b733d83486a"); again != first {
		t.Errorf("the job's report kept again as item %d, first %d", again, first)
	}
	job("675b32a0-717b-341a-c13a-5fc9aa745290")
	if l, _ := s.List(ctx, KindResearch, 0); len(l) != 2 {
		t.Errorf("two jobs' reports, one kept twice: %d items, want 2", len(l))
	}
	// A report that found no source is not kept.
	if it := Items(result(t, api.ToolResearch, map[string]any{"input": "q"}, api.ResearchOutput{Status: api.ResearchCompleted,
		Content: "# q\n\nNo sources available.", Sources: []api.ResearchSource{}})); len(it) != 0 {
		t.Errorf("a report without sources kept: %+v", it)
	}
	// A failed research, or an unknown tool, is not kept.
	if it := Items(result(t, api.ToolResearch, nil, api.ResearchOutput{Status: api.ResearchFailed})); len(it) != 0 {
		t.Errorf("failed research kept: %+v", it)
	}
	if it := Items(result(t, "vendor_dice", nil, map[string]any{"roll": 4})); len(it) != 0 {
		t.Errorf("unknown tool kept: %+v", it)
	}
}

// A file that is not a hark library is reported and left as it was.
func TestDamagedLibraryIsReportedNotRecreated(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, File)
	junk := []byte(strings.Repeat("this is not a database ", 400))
	os.WriteFile(path, junk, 0o600)
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "damaged") || !strings.Contains(err.Error(), path) {
		t.Errorf("junk file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != string(junk) {
		t.Error("the damaged file was changed")
	}
	// Another program's SQLite file.
	other := t.TempDir()
	s := open(t, other)
	s.db.Exec(`PRAGMA application_id = 42`)
	s.Close()
	if _, err := Open(other); err == nil || !strings.Contains(err.Error(), "not a hark library") {
		t.Errorf("foreign database: %v", err)
	}
}

// Two processes (two Stores) keep items at once; a lock held too long is
// reported, not waited on forever.
func TestTwoWritersAndALock(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b := open(t, dir), open(t, dir)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := a
			if i%2 == 1 {
				s = b
			}
			q := fmt.Sprintf("q%d", i)
			it := &Item{Kind: KindSearch, Tool: api.ToolSearch, Title: q, Query: q, Body: "x"}
			if err := s.Add(ctx, it); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n, _ := a.Count(ctx); n != 40 {
		t.Errorf("kept %d of 40", n)
	}

	saved := busyTimeout
	busyTimeout = 100 * time.Millisecond
	defer func() { busyTimeout = saved }()
	c := open(t, dir)
	conn, err := a.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN EXCLUSIVE`); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, `ROLLBACK`)
	err = c.Add(ctx, &Item{Kind: KindSearch, Tool: api.ToolSearch, Title: "blocked"})
	if err == nil || !strings.Contains(err.Error(), "locked by another process") {
		t.Errorf("write under another's lock: %v", err)
	}
}

// Replacing an older copy looks the copy up through an index: a keep
// that scanned every item cost 4 to 6 ms in a library of 10,000
// (BenchmarkKeepSearch).
func TestReplacingLooksUpAnIndex(t *testing.T) {
	s := open(t, t.TempDir())
	for _, tc := range []struct {
		stmt, index string
		args        []any
	}{
		{deleteSearchCopy, "items_kind_query", []any{KindSearch, "q", "{}", "g"}},
		{deleteSameCopy, "items_kind_url", []any{KindPage, "https://a.example/", "text"}},
		{deleteSearchRun, "items_kind", []any{KindSearch, "g", "q", int64(0)}},
	} {
		rows, err := s.db.Query(`EXPLAIN QUERY PLAN `+tc.stmt, tc.args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		if p := strings.Join(plan, "; "); !strings.Contains(p, "USING INDEX "+tc.index) {
			t.Errorf("%s\nplan: %s, want it to use %s", tc.stmt, p, tc.index)
		}
	}
}

// A library made by an older hark (schema version 1, without the
// indexes) gets them on its next open, its items untouched.
func TestVersionOneLibraryIsMigrated(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := open(t, dir)
	keepAll(t, s)
	for _, stmt := range []string{`DROP INDEX items_kind_query`, `DROP INDEX items_kind_url`, `PRAGMA user_version = 1`} {
		if _, err := s.db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s = open(t, dir)
	var version, indexes int
	s.db.QueryRow(`PRAGMA user_version`).Scan(&version)
	s.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN ('items_kind_query', 'items_kind_url')`).Scan(&indexes)
	if version != schemaVersion || indexes != 2 {
		t.Errorf("after reopening: user_version %d, %d of 2 new indexes", version, indexes)
	}
	if n, _ := s.Count(ctx); n != 5 {
		t.Errorf("%d items after the migration, want 5", n)
	}
	// A newer hark's library is not marked down to this version.
	s.db.Exec(`PRAGMA user_version = 7`)
	s.Close()
	s = open(t, dir)
	s.db.QueryRow(`PRAGMA user_version`).Scan(&version)
	if version != 7 {
		t.Errorf("a version 7 library was marked %d", version)
	}
}

// Removing several items is all or none: one unknown ID removes nothing,
// and the error names every unknown ID.
func TestDeleteIDsIsAtomic(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	kept := keepAll(t, s)
	a, b := kept[KindSearch].ID, kept[KindPage].ID
	err := s.DeleteIDs(ctx, []int64{a, 999, b, 998})
	var nf *NotFoundError
	if !errors.Is(err, ErrNotFound) || !errors.As(err, &nf) || fmt.Sprint(nf.IDs) != "[999 998]" {
		t.Fatalf("DeleteIDs with unknown IDs: %v", err)
	}
	if n, _ := s.Count(ctx); n != 5 {
		t.Errorf("%d items left, want all 5: an unknown ID must remove nothing", n)
	}
	if err := s.DeleteIDs(ctx, []int64{a, b, a}); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.Count(ctx); n != 3 {
		t.Errorf("%d items left, want 3", n)
	}
}

// A page opened from a search result's text (the TUI keeps it without a
// call of its own) carries the trace_id of the search that listed it.
func TestPageFromASearchResultHasItsTraceID(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	const page = "file:///usr/share/doc/flite/index.html"
	out := api.SearchOutput{Query: "flite", Results: []api.SearchResult{{Title: "Flite", URL: page, RawContent: "# Flite\n\nA small speech synthesiser."}}}
	r := result(t, api.ToolSearch, map[string]any{"query": "flite", "include_raw_content": true}, out)
	if err := s.Add(ctx, Items(r)...); err != nil {
		t.Fatal(err)
	}
	read := func(url, gateway string) Item {
		t.Helper()
		it := &Item{Kind: KindPage, Tool: api.ToolSearch, Title: "Flite", Query: url, URL: url, Body: "# Flite\n\nA small speech synthesiser.", Gateway: gateway}
		if err := s.Add(ctx, it); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, it.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := read(page, r.Gateway); got.TraceID != r.TraceID {
		t.Errorf("page kept from the search's result: trace_id %q, want the search's %q", got.TraceID, r.TraceID)
	}
	// Not a result of a search kept from this gateway: no trace_id is made up.
	if got := read(page, "http://elsewhere:9"); got.TraceID != "" {
		t.Errorf("page from another gateway: trace_id %q, want none", got.TraceID)
	}
	if got := read("file:///not/a/result.html", r.Gateway); got.TraceID != "" {
		t.Errorf("page no search listed: trace_id %q, want none", got.TraceID)
	}
}

// A zero-byte library is reported, not silently made anew; a foreign
// SQLite file without an application id is refused and left unchanged
// (not switched to WAL).
func TestEmptyAndForeignLibrariesAreLeftAlone(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, File)
	os.WriteFile(path, nil, 0o600)
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "empty (0 bytes)") {
		t.Errorf("zero-byte library: %v", err)
	}
	if fi, _ := os.Stat(path); fi.Size() != 0 {
		t.Errorf("the empty file was written: %d bytes", fi.Size())
	}

	other := t.TempDir()
	fpath := filepath.Join(other, File)
	db, err := sql.Open("sqlite", fpath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE notes(x TEXT); INSERT INTO notes VALUES('mine')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, _ := os.ReadFile(fpath)
	if _, err := Open(other); err == nil || !strings.Contains(err.Error(), "not a hark library") {
		t.Errorf("foreign database: %v", err)
	}
	after, _ := os.ReadFile(fpath)
	if string(before) != string(after) {
		t.Error("the foreign database was changed")
	}
	if _, err := os.Stat(fpath + "-wal"); err == nil {
		t.Error("the foreign database was switched to WAL")
	}
}

// A key in a crawl's URL, in a query or in a page is not written to the
// library: the client's own key in any case and with or without its
// prefix, and anything with the shape of a hark key.
func TestKeysAreNotKept(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	const own = "hark_3ee5033f3f2657b7622abc6937344ae0caa710bb30bbd71293f84f8d3b5ac249"
	const other = "HARK_0123456789ABCDEF0123" // another gateway's, cut short
	s.RedactKey(own)
	bare := strings.ToUpper(strings.TrimPrefix(own, "hark_"))
	u := "https://site.example/docs?token=" + own
	crawl := result(t, api.ToolCrawl, map[string]any{"url": u}, api.CrawlOutput{BaseURL: u, Results: []api.PageContent{
		{URL: "https://site.example/p/" + bare, RawContent: "the key " + other + " was pasted here"}}})
	search := result(t, api.ToolSearch, map[string]any{"query": "why does " + strings.ToUpper(own) + " fail"},
		api.SearchOutput{Query: "why does " + strings.ToUpper(own) + " fail"})
	var ids []int64
	for _, r := range []api.Result{crawl, search} {
		items := Items(r)
		if err := s.Add(context.Background(), items...); err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			ids = append(ids, it.ID)
		}
	}
	for _, id := range ids {
		it, err := s.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		all := strings.ToLower(strings.Join([]string{it.Title, it.Query, it.URL, it.Body, it.Inputs, it.Output}, "\n"))
		if strings.Contains(all, own[5:21]) || strings.Contains(all, "0123456789abcdef") || !strings.Contains(all, "[redacted]") {
			t.Errorf("item %d (%s) keeps a key:\n%s", id, it.Kind, all)
		}
		if !json.Valid([]byte(it.Inputs)) || !json.Valid([]byte(it.Output)) {
			t.Errorf("item %d: redacting broke its JSON: %s %s", id, it.Inputs, it.Output)
		}
	}
}
