package research

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/research/doc"
	"hark/gateway/web"
)

// BenchmarkResearchManuals measures a whole report on the manuals Debian
// ships (valgrind's HTML manual, Node.js's API docs; the questions of
// bench/research/manuals), with nothing read before kept: each report
// reads its pages anew. "stored" reads the parse the index stored with
// each page (doc.Parse); "parsed" parses every page at the question, as
// research did before.
//
//	go test -run '^$' -bench ResearchManuals -benchtime 30x -cpu 1 ./gateway/research/
func BenchmarkResearchManuals(b *testing.B) {
	for _, d := range []string{"/usr/share/doc/valgrind/html", "/usr/share/doc/nodejs/api"} {
		if _, err := os.Stat(d); err != nil {
			b.Skipf("%s not installed (apt-get install valgrind nodejs)", d)
		}
	}
	db := testDB(b)
	w, err := web.New(web.Config{DB: db, Parse: doc.Parse})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	for _, d := range []string{"/usr/share/doc/valgrind/html", "/usr/share/doc/nodejs/api"} {
		if _, err := w.Index(context.Background(), d); err != nil {
			b.Fatal(err)
		}
	}
	var qs []struct{ Question string }
	raw, err := os.ReadFile("../../bench/research/manuals/questions.json")
	if err == nil {
		err = json.Unmarshal(raw, &qs)
	}
	if err != nil {
		b.Fatal(err)
	}
	r, err := New(Config{DB: db, Index: w})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for _, kind := range []string{"stored", "parsed"} {
		b.Run(kind, func(b *testing.B) {
			if kind == "parsed" {
				if _, err := db.Exec(`UPDATE web_pages SET parsed = x''`); err != nil {
					b.Fatal(err)
				}
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			cpu0 := processCPU()
			for i := 0; i < b.N; i++ {
				r.docs = doc.Cache{}
				t0 := time.Now()
				out, err := r.Research(context.Background(), api.ResearchInput{Input: qs[i%len(qs)].Question, Model: "mini"})
				if err != nil || out.Status != api.ResearchCompleted {
					b.Fatal(err, out)
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			cpu := processCPU() - cpu0
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			if cpu > 0 {
				b.ReportMetric(cpu*1000/float64(b.N), "cpu-ms/op")
			}
		})
	}
}
