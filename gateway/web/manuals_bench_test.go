package web

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"

	"hark/api"
)

// The manuals Debian ships (valgrind's HTML manual, Node.js's API docs):
// real pages of 10 to 100 KB and more, where a search's cost is in its
// snippets, not in FTS5 (issue #41). The pages are the installed
// packages' files (scripts/setup.sh installs valgrind and nodejs); a
// machine without them skips.
var manualDirs = []string{"/usr/share/doc/valgrind/html", "/usr/share/doc/nodejs/api"}

var manuals struct {
	once    sync.Once
	e       *Engine
	pages   int
	queries []string
	err     error
}

// manualsIndex indexes the manuals once per test binary.
func manualsIndex(b *testing.B) (*Engine, []string) {
	for _, d := range manualDirs {
		if _, err := os.Stat(d); err != nil {
			b.Skipf("%s not installed (apt-get install valgrind nodejs)", d)
		}
	}
	manuals.once.Do(func() {
		e, err := New(Config{DB: testDB(b)})
		if err != nil {
			manuals.err = err
			return
		}
		for _, d := range manualDirs {
			n, err := e.Index(context.Background(), d)
			if err != nil {
				manuals.err = err
				return
			}
			manuals.pages += n
		}
		var qs []struct{ Question string }
		raw, err := os.ReadFile("../../bench/research/manuals/questions.json")
		if err == nil {
			err = json.Unmarshal(raw, &qs)
		}
		if err != nil {
			manuals.err = err
			return
		}
		for _, q := range qs {
			manuals.queries = append(manuals.queries, q.Question)
		}
		manuals.e = e
	})
	if manuals.err != nil {
		b.Fatal(manuals.err)
	}
	return manuals.e, manuals.queries
}

// BenchmarkSearchManuals measures vendor_search in the engine on the
// manuals, per search_depth, with p50 and p99 over the b.N searches (the
// questions of bench/research/manuals in turn).
func BenchmarkSearchManuals(b *testing.B) {
	e, queries := manualsIndex(b)
	// "research" is research's search (SearchIndex, as a report's
	// searches ask it: advanced, 8 results, their headings not quoted).
	for _, depth := range []string{"ultra-fast", "fast", "basic", "advanced", "research"} {
		b.Run(depth, func(b *testing.B) {
			cpu0 := processCPU()
			latencies(b, func(i int) error {
				q := queries[i%len(queries)]
				if depth == "research" {
					_, err := e.SearchIndex(context.Background(), api.SearchInput{Query: q, MaxResults: 8, SearchDepth: "advanced", Topic: "general"})
					return err
				}
				_, err := e.Search(context.Background(), api.SearchInput{Query: q, MaxResults: 5, SearchDepth: depth})
				return err
			})
			cpu := processCPU() - cpu0
			b.ReportMetric(float64(manuals.pages), "pages")
			if cpu > 0 {
				b.ReportMetric(cpu*1000/float64(b.N), "cpu-ms/op")
			}
		})
	}
}
