package web

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/research/researchset"
)

// A synthetic corpus for the search benchmarks: 30,000 pronounceable words
// drawn with a Zipf distribution (s=1.1), like natural text, so common
// words match thousands of pages and rare ones a handful.

const vocabSize = 30000

var syllables = strings.Fields("ka lo mi ne ru ta shi po fe da gu ni ve so la zo mu ri be to")

func benchVocab() []string {
	words := make([]string, 0, vocabSize)
	seen := map[string]bool{}
	for i := 0; len(words) < vocabSize; i++ {
		var b strings.Builder
		n := i
		for k := 0; k < 2+i%3; k++ {
			b.WriteString(syllables[n%len(syllables)])
			n /= len(syllables)
			n += k * 7
		}
		w := b.String() + fmt.Sprint(i%10)
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words
}

type benchCorpus struct {
	vocab []string
	zipf  *rand.Zipf
	rng   *rand.Rand
}

func newBenchCorpus(seed int64) *benchCorpus {
	rng := rand.New(rand.NewSource(seed))
	v := benchVocab()
	return &benchCorpus{vocab: v, rng: rng, zipf: rand.NewZipf(rng, 1.1, 1, uint64(len(v)-1))}
}

func (c *benchCorpus) words(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			if i%15 == 0 {
				b.WriteString(". ")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(c.vocab[c.zipf.Uint64()])
	}
	return b.String()
}

func (c *benchCorpus) page(i int) *page {
	return &page{
		URL:     fmt.Sprintf("https://site%d.example/page/%d", i%97, i),
		Title:   c.words(6),
		Text:    c.words(300),
		Fetched: time.Now().Add(-time.Duration(i) * time.Minute).UTC(),
	}
}

var bench10k struct {
	once        sync.Once
	e           *Engine
	rate        float64 // pages/s while building
	queries     []string
	zipfQueries []string
	err         error
}

// index10k builds the 10,000-page index once per process.
func index10k(b *testing.B) *Engine {
	bench10k.once.Do(func() {
		dir, err := os.MkdirTemp("", "hark-search-bench")
		if err != nil {
			bench10k.err = err
			return
		}
		db, err := sql.Open("sqlite", filepath.Join(dir, "bench.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
		if err != nil {
			bench10k.err = err
			return
		}
		e, err := New(Config{DB: db})
		if err != nil {
			bench10k.err = err
			return
		}
		c := newBenchCorpus(1)
		start := time.Now()
		for i := 0; i < 10000; i++ {
			if err := e.store.put(context.Background(), c.page(i)); err != nil {
				bench10k.err = err
				return
			}
		}
		bench10k.rate = 10000 / time.Since(start).Seconds()
		// Content-word queries: 2-3 words drawn uniformly from frequency
		// ranks 100..30000, as the 100 commonest words of this Zipf corpus
		// play the part of stop words ("the", "of") that real queries
		// drop. zipfQueries keep them, as a worst case.
		qr := rand.New(rand.NewSource(2))
		qc := newBenchCorpus(2)
		for i := 0; i < 200; i++ {
			var w []string
			for k := 0; k < 2+i%2; k++ {
				w = append(w, c.vocab[100+qr.Intn(vocabSize-100)])
			}
			bench10k.queries = append(bench10k.queries, strings.Join(w, " "))
			bench10k.zipfQueries = append(bench10k.zipfQueries, qc.words(2+i%2))
		}
		bench10k.e = e
	})
	if bench10k.err != nil {
		b.Fatal(bench10k.err)
	}
	return bench10k.e
}

// BenchmarkIndexPage measures adding one page (300 words) to the index.
func BenchmarkIndexPage(b *testing.B) {
	db := testDB(b)
	e, err := New(Config{DB: db})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	c := newBenchCorpus(3)
	pages := make([]*page, b.N)
	for i := range pages {
		pages[i] = c.page(i)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := e.store.put(context.Background(), pages[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
}

// BenchmarkSearch10k measures search latency on a 10,000-page index, per
// search_depth, with p50 and p99 over the b.N searches.
func BenchmarkSearch10k(b *testing.B) {
	e := index10k(b)
	for _, depth := range []string{"ultra-fast", "fast", "basic", "advanced", "basic-zipf"} {
		b.Run(depth, func(b *testing.B) {
			queries := bench10k.queries
			if depth == "basic-zipf" {
				depth, queries = "basic", bench10k.zipfQueries
			}
			searchLatencies(b, e, queries, depth)
			b.ReportMetric(bench10k.rate, "build-pages/s")
		})
	}
}

// searchLatencies runs b.N searches of queries in turn at depth and
// reports their p50 and p99.
func searchLatencies(b *testing.B, e *Engine, queries []string, depth string) {
	latencies(b, func(i int) error {
		_, err := e.Search(context.Background(), api.SearchInput{Query: queries[i%len(queries)], MaxResults: 5, SearchDepth: depth})
		return err
	})
}

// latencies times b.N calls of call, the i-th given i, and reports
// their p50 and p99 in milliseconds.
func latencies(b *testing.B, call func(i int) error) {
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := call(i); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

var researchPages sync.Once

// researchCorpus is the question set's pages, kept with research.
const researchCorpus = "../research/testdata/corpus"

// BenchmarkResearch10k measures research on the 10,000-page index with
// the question set's pages (../research/testdata/corpus) indexed into it: the
// question set's questions in turn, per model, with p50 and p99 over the
// b.N reports.
func BenchmarkResearch10k(b *testing.B) {
	e := index10k(b)
	researchPages.Do(func() {
		dirs, err := os.ReadDir(researchCorpus)
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range dirs {
			if d.IsDir() {
				if _, err := e.Index(context.Background(), filepath.Join(researchCorpus, d.Name())); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	qs, err := researchset.Load("../research/testdata/questions.json")
	if err != nil {
		b.Fatal(err)
	}
	r := researchOn(b, e)
	for _, model := range []string{"mini", "pro"} {
		b.Run(model, func(b *testing.B) {
			latencies(b, func(i int) error {
				_, err := r.Research(context.Background(), api.ResearchInput{Input: qs[i%len(qs)].Question, Model: model})
				return err
			})
		})
	}
}

// BenchmarkSearchBackends compares the two homes of the index on 3,000
// pages of the synthetic corpus: gateway.db's SQLite FTS5 and a team
// gateway's PostgreSQL (a throwaway local cluster, pgtest), both ranking
// with the same bm25. It reports search latency per search_depth (p50,
// p99) and how fast each takes pages in.
func BenchmarkSearchBackends(b *testing.B) {
	const pages = 3000
	c := newBenchCorpus(4)
	corpus := make([]*page, pages)
	for i := range corpus {
		corpus[i] = c.page(i)
	}
	qr := rand.New(rand.NewSource(5))
	var queries []string
	for i := 0; i < 200; i++ {
		var w []string
		for k := 0; k < 2+i%2; k++ {
			w = append(w, c.vocab[100+qr.Intn(2000)])
		}
		queries = append(queries, strings.Join(w, " "))
	}
	sq, err := New(Config{DB: testDB(b)})
	if err != nil {
		b.Fatal(err)
	}
	backends := []struct {
		name string
		e    *Engine
		rate float64
	}{{"sqlite", sq, 0}, {"postgres", pgEngine(b), 0}}
	for i := range backends {
		start := time.Now()
		for _, p := range corpus {
			if err := backends[i].e.store.put(context.Background(), p); err != nil {
				b.Fatal(err)
			}
		}
		backends[i].rate = pages / time.Since(start).Seconds()
	}
	// PostgreSQL plans with the tables' statistics, which autovacuum
	// gathers on a live server within a minute of the writes.
	if _, err := backends[1].e.store.pageStore.(*pgStore).pool.Exec(context.Background(), "ANALYZE"); err != nil {
		b.Fatal(err)
	}
	for _, be := range backends {
		for _, depth := range []string{"ultra-fast", "fast", "basic"} {
			b.Run(be.name+"/"+depth, func(b *testing.B) {
				searchLatencies(b, be.e, queries, depth)
				b.ReportMetric(be.rate, "build-pages/s")
			})
		}
	}
}
