package web

import (
	"context"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/gateway/model/modeltest"
	"hark/gateway/pgtest"
	"hark/gateway/store"
)

// benchEmbedDims is the benchmark's vector length: nomic-embed-text's
// and most small embedding models' 768.
const benchEmbedDims = 768

var hybrid10k struct {
	once sync.Once
	e    *Engine
	rate float64 // pages/s embedded into the index
	vecs int     // passages' vectors it holds
	err  error
}

// BenchmarkHybridSearch10k measures search on the 10,000-page index of
// BenchmarkSearch10k with a 768-dimension vector per passage (at most 8 a
// page) from modeltest's
// fake embedding model on loopback: each search embeds its query there,
// reads the nearest pages and fuses them with the full-text rank. The
// lexical runs are the same searches without a model, for comparison.
func BenchmarkHybridSearch10k(b *testing.B) {
	base := index10k(b)
	hybrid10k.once.Do(func() {
		s := modeltest.NewOpenAI(&testing.T{})
		s.AddEmbeddingModel("fake-embed-768", benchEmbedDims)
		c := embedClient(b, s, "fake-embed-768")
		he := *base
		he.vectors = &vectorIndex{db: store.FromSQLite(base.db), emb: c, batch: 64}
		start := time.Now()
		rep, err := he.EmbedPages(context.Background(), nil)
		if err != nil {
			hybrid10k.err = err
			return
		}
		hybrid10k.rate = float64(rep.Embedded) / time.Since(start).Seconds()
		hybrid10k.vecs = rep.Passages
		hybrid10k.e = &he
	})
	if hybrid10k.err != nil {
		b.Fatal(hybrid10k.err)
	}
	for _, run := range []struct {
		name string
		e    *Engine
	}{{"lexical", base}, {"hybrid", hybrid10k.e}} {
		for _, depth := range []string{"fast", "basic", "advanced", "basic-zipf"} {
			b.Run(run.name+"-"+depth, func(b *testing.B) {
				queries := bench10k.queries
				if depth == "basic-zipf" {
					depth, queries = "basic", bench10k.zipfQueries
				}
				searchLatencies(b, run.e, queries, depth)
				if run.name == "hybrid" {
					b.ReportMetric(hybrid10k.rate, "embed-pages/s")
					b.ReportMetric(float64(hybrid10k.vecs), "vectors")
				}
			})
		}
	}
}

// BenchmarkHybridBackends is hybrid search on 3,000 pages of
// BenchmarkSearchBackends' corpus in gateway.db and in PostgreSQL, each
// page with a 768-dimension vector, beside the same searches without a
// model.
func BenchmarkHybridBackends(b *testing.B) {
	const pages = 3000
	c := newBenchCorpus(4)
	qr := rand.New(rand.NewSource(5)) // BenchmarkSearchBackends' queries
	var queries []string
	for i := 0; i < 200; i++ {
		var w []string
		for k := 0; k < 2+i%2; k++ {
			w = append(w, c.vocab[100+qr.Intn(2000)])
		}
		queries = append(queries, strings.Join(w, " "))
	}
	s := modeltest.NewOpenAI(&testing.T{})
	s.AddEmbeddingModel("fake-embed-768", benchEmbedDims)
	client := embedClient(b, s, "fake-embed-768")
	sq, err := New(Config{DB: testDB(b)})
	if err != nil {
		b.Fatal(err)
	}
	pgdb, err := store.OpenPostgres(context.Background(), pgtest.Start(b).URL(), 8)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pgdb.Close)
	pg, err := New(Config{Postgres: pgdb})
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range []*Engine{sq, pg} {
		for i := 0; i < pages; i++ {
			if err := e.store.put(context.Background(), c.page(i)); err != nil {
				b.Fatal(err)
			}
		}
	}
	if _, err := pg.store.pageStore.(*pgStore).pool.Exec(context.Background(), "ANALYZE"); err != nil {
		b.Fatal(err)
	}
	for _, be := range []struct {
		name string
		e    *Engine
		db   *store.DB
	}{{"sqlite", sq, store.FromSQLite(sq.db)}, {"postgres", pg, pgdb}} {
		he := *be.e
		he.vectors = &vectorIndex{db: be.db, emb: client, batch: 64}
		start := time.Now()
		rep, err := he.EmbedPages(context.Background(), nil)
		if err != nil {
			b.Fatal(err)
		}
		rate := float64(rep.Embedded) / time.Since(start).Seconds()
		for _, run := range []struct {
			name string
			e    *Engine
		}{{"lexical", be.e}, {"hybrid", &he}} {
			b.Run(be.name+"/"+run.name, func(b *testing.B) {
				searchLatencies(b, run.e, queries, "")
				if run.name == "hybrid" {
					b.ReportMetric(rate, "embed-pages/s")
				}
			})
		}
	}
}
