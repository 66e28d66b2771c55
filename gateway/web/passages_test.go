package web

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"hark/api"
	"hark/gateway/pgtest"
	"hark/gateway/research/doc"
	"hark/gateway/research/researchset"
	"hark/gateway/store"
	"hark/gateway/text"
)

// indexCorpus indexes the research set's pages into e, and returns its
// questions: all of them, or under the race detector (which runs these
// tests ten times slower) two folders' pages and six questions;
// scripts/test.sh runs them whole without it.
func indexCorpus(t *testing.T, e *Engine) (questions []researchset.Question, minPages int) {
	t.Helper()
	dirs, err := os.ReadDir(researchCorpus)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		if !d.IsDir() || raceEnabled && n == 2 {
			continue
		}
		n++
		if _, err := e.Index(context.Background(), filepath.Join(researchCorpus, d.Name())); err != nil {
			t.Fatal(err)
		}
	}
	qs, err := researchset.Load("../research/testdata/questions.json")
	if err != nil {
		t.Fatal(err)
	}
	if raceEnabled {
		return qs[:6], 5
	}
	return qs, 50
}

// The terms and sentences stored when a page is indexed give the same
// search as reading its body at query time: every question of the
// research set, at every depth that reads them, answers the same with
// the stored columns and with them emptied (a page indexed before
// them), and the stored forms agree with the body page by page.
func TestStoredPassagesReadAsTheBody(t *testing.T) {
	t.Parallel()
	db := testDB(t)
	e, err := New(Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	qs, minPages := indexCorpus(t, e)
	var stored int
	if err := db.QueryRow(`SELECT count(*) FROM web_pages WHERE terms <> '' AND length(passages) > 0`).Scan(&stored); err != nil || stored < minPages {
		t.Fatalf("%d pages with their passages stored (%v); want every page of the corpus", stored, err)
	}

	// Page by page: the stored terms are the body's (of a page with
	// data tables, its prose's: those of the body outside them) and the
	// headings', the stored sentences give bestSentences' snippet.
	rows, err := db.Query(`SELECT body, terms, passages, headings, heading_terms, markdown FROM web_pages`)
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ body, terms, passages, headings, headingTerms, markdown string }
	var pages []row
	for rows.Next() {
		var r row
		var p []byte
		if err := rows.Scan(&r.body, &r.terms, &p, &r.headings, &r.headingTerms, &r.markdown); err != nil {
			t.Fatal(err)
		}
		r.passages = string(p)
		pages = append(pages, r)
	}
	rows.Close()
	for i, p := range pages {
		for _, q := range qs[:min(len(qs), 12)] {
			terms := text.Terms(q.Question)
			got := map[string]bool{}
			presentIn(terms, p.terms, got)
			want := text.Present(terms, p.body)
			if strings.Contains(p.markdown, "| --- |") {
				for w := range got {
					if !want[w] {
						t.Fatalf("page %d, %q: stored terms hold %v, more than the body's %v", i, q.Question, got, want)
					}
				}
			} else if !reflect.DeepEqual(got, want) {
				t.Fatalf("page %d, %q: stored terms hold %v, the body %v", i, q.Question, got, want)
			}
			if got, want := storedHeadingCoverage(terms, p.headingTerms), headingCoverage(terms, p.headings); got != want {
				t.Fatalf("page %d, %q: stored headings cover %v, the headings %v", i, q.Question, got, want)
			}
			snip, ok := bestStoredSentences(q.Question, p.passages, 300)
			if want := bestSentences(q.Question, p.body, 300); !ok || snip != want {
				t.Fatalf("page %d, %q: stored sentences give (%v) %q, the body %q", i, q.Question, ok, snip, want)
			}
		}
	}

	// Whole searches, stored and not.
	search := func() [][]api.SearchResult {
		var out [][]api.SearchResult
		for _, q := range qs {
			for _, depth := range []string{"basic", "advanced"} {
				res, err := e.Search(context.Background(), api.SearchInput{Query: q.Question, MaxResults: 5, SearchDepth: depth})
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, res.Results)
			}
			// Research's search, which names each page's headings.
			res, err := e.SearchIndex(context.Background(), api.SearchInput{Query: q.Question, MaxResults: 5, SearchDepth: "advanced", Topic: "general"})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, res.Results)
		}
		return out
	}
	withStored := search()
	// A page read from its body is one indexed before its terms were
	// stored, and so before the index kept data tables: the pages with
	// tables keep theirs, whose terms are their prose's.
	if _, err := db.Exec(`UPDATE web_pages SET terms = '', passages = x'' WHERE markdown NOT LIKE '%| --- |%'`); err != nil {
		t.Fatal(err)
	}
	fromBody := search()
	for i := range withStored {
		if !reflect.DeepEqual(withStored[i], fromBody[i]) {
			t.Fatalf("%q (%s): with stored passages\n%+v\nread from the body\n%+v", qs[i/3].Question, []string{"basic", "advanced", "research's"}[i%3], withStored[i], fromBody[i])
		}
	}
}

// A stored form that is cut short or of another version is not read:
// the page is read from its body.
func TestDamagedPassagesAreNotRead(t *testing.T) {
	body := "# Memcheck\n\nMemcheck finds memory leaks in C programs. It reports each leaked block.\n"
	enc := string(encodePassages(body))
	if s, ok := bestStoredSentences("memory leaks", enc, 300); !ok || s == "" {
		t.Fatalf("the whole form: %v %q", ok, s)
	}
	for _, bad := range []string{enc[:len(enc)/2], "\x09" + enc[1:], "", "\xff\xff\xff"} {
		if s, ok := bestStoredSentences("memory leaks", bad, 300); ok {
			t.Errorf("%q read as %q", bad, s)
		}
	}
}

// On PostgreSQL too the stored columns are written when a page is
// indexed, and give the same answers as the body read at query time.
func TestStoredPassagesOnPostgres(t *testing.T) {
	t.Parallel()
	e := pgEngine(t)
	pool := e.store.pageStore.(*pgStore).pool
	ctx := context.Background()
	qs, minPages := indexCorpus(t, e)
	var stored int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM web_pages WHERE terms <> '' AND length(passages) > 0`).Scan(&stored); err != nil || stored < minPages {
		t.Fatalf("%d pages with their passages stored (%v)", stored, err)
	}
	qs = qs[:min(len(qs), 20)]
	search := func() []*api.SearchOutput {
		var out []*api.SearchOutput
		for _, q := range qs {
			res, err := e.Search(ctx, api.SearchInput{Query: q.Question, MaxResults: 5})
			if err != nil {
				t.Fatal(err)
			}
			res.ResponseTime = 0
			out = append(out, res)
		}
		return out
	}
	withStored := search()
	// As on SQLite, the pages with data tables keep their stored terms.
	if _, err := pool.Exec(ctx, `UPDATE web_pages SET terms = '', heading_terms = '', passages = '' WHERE markdown NOT LIKE '%| --- |%'`); err != nil {
		t.Fatal(err)
	}
	fromBody := search()
	for i := range withStored {
		if !reflect.DeepEqual(withStored[i], fromBody[i]) {
			t.Fatalf("%q: with stored passages\n%+v\nread from the body\n%+v", qs[i].Question, withStored[i], fromBody[i])
		}
	}
}

// The page as the index's reader parses it (Config.Parse, research's
// doc.Parse) is stored when the page is indexed and read back whole by
// Kept, on either database; research holds its reading of the copy to
// its reading of the page (research's TestStoredDocsReadAsParsed).
func TestParsedPagesKeptOnBothDatabases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pgDB, err := store.OpenPostgres(ctx, pgtest.Start(t).URL(), 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pgDB.Close)
	for _, cfg := range []Config{{DB: testDB(t)}, {Postgres: pgDB}} {
		cfg.Parse = doc.Parse
		e, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		dir, _ := filepath.Abs(filepath.Join(researchCorpus, "valgrind"))
		if _, err := e.Index(ctx, dir); err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		n := 0
		for _, f := range files {
			title, body, md, parsed, err := e.Kept(ctx, (&url.URL{Scheme: "file", Path: f}).String())
			if errors.Is(err, errNotIndexed) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			n++
			if want := doc.Parse(title, body, md); len(parsed) == 0 || !bytes.Equal(parsed, want) {
				t.Fatalf("%s (PostgreSQL %v): %d bytes kept, the page parses to %d", f, cfg.Postgres != nil, len(parsed), len(want))
			}
		}
		if n == 0 {
			t.Fatalf("no page of %s kept (PostgreSQL %v)", dir, cfg.Postgres != nil)
		}
		e.Close()
	}
}
