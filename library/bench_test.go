package library

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"hark/api"
)

// vocabulary draws words with a Zipf-like spread, as prose has.
type vocabulary struct {
	words []string
	zipf  *rand.Zipf
}

func newVocabulary(r *rand.Rand) *vocabulary {
	v := &vocabulary{zipf: rand.NewZipf(r, 1.1, 2, 4999)}
	for i := range 5000 {
		v.words = append(v.words, fmt.Sprintf("w%x%s", i, strings.Repeat("a", i%5)))
	}
	return v
}

func (v *vocabulary) text(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(v.words[v.zipf.Uint64()])
	}
	return b.String()
}

// filled is a library of n items of every kind, bodies of 300 words.
func filled(b *testing.B, n int) (*Store, *vocabulary) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	r := rand.New(rand.NewPCG(1, 2))
	v := newVocabulary(r)
	var batch []*Item
	for i := range n {
		batch = append(batch, &Item{Kind: Kinds[i%len(Kinds)], Tool: "t", Title: v.text(6), Query: v.text(4), Body: v.text(300),
			Created: time.Unix(1_700_000_000+int64(i), 0)})
		if len(batch) == 500 {
			if err := s.Add(context.Background(), batch...); err != nil {
				b.Fatal(err)
			}
			batch = nil
		}
	}
	return s, v
}

// BenchmarkLibrarySearch10k: as-you-type queries (one to three words,
// the last a prefix) over 10,000 kept items; reports p50 and p99.
func BenchmarkLibrarySearch10k(b *testing.B) {
	s, v := filled(b, 10000)
	r := rand.New(rand.NewPCG(3, 4))
	queries := make([]string, 200)
	for i := range queries {
		q := v.text(1 + r.IntN(3))
		queries[i] = q[:len(q)-r.IntN(2)] // sometimes a word cut short
	}
	var took []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		t := time.Now()
		if _, err := s.Search(context.Background(), queries[i%len(queries)], "", 50); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(t))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkKeepSearch: what keeping adds to a search call, the items made
// from the result and written, in a library that already holds 10,000.
func BenchmarkKeepSearch(b *testing.B) {
	s, _ := filled(b, 10000)
	out := api.SearchOutput{Query: "memory leak detection"}
	for i := range 5 {
		out.Results = append(out.Results, api.SearchResult{Title: fmt.Sprintf("Result %d", i), URL: fmt.Sprintf("https://example.com/%d", i),
			Content: strings.Repeat("A snippet of the page that matched the query. ", 6)})
	}
	raw, _ := json.Marshal(out)
	r := api.Result{Tool: api.ToolSearch, Inputs: map[string]any{"query": "memory leak detection", "max_results": 5}, Output: raw, TraceID: "t", Gateway: "g"}
	b.ResetTimer()
	for b.Loop() {
		if err := s.Add(context.Background(), Items(r)...); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKeepPage: what keeping adds to an extract of one page (the
// page replaces its older copy, looked up by URL), in a library that
// already holds 10,000 items.
func BenchmarkKeepPage(b *testing.B) {
	s, v := filled(b, 10000)
	raw, _ := json.Marshal(api.ExtractOutput{Results: []api.PageContent{{URL: "https://example.com/page", RawContent: "# A page\n\n" + v.text(300)}}})
	r := api.Result{Tool: api.ToolExtract, Inputs: map[string]any{"urls": []any{"https://example.com/page"}}, Output: raw, TraceID: "t", Gateway: "g"}
	b.ResetTimer()
	for b.Loop() {
		if err := s.Add(context.Background(), Items(r)...); err != nil {
			b.Fatal(err)
		}
	}
}
