package research

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/library"
	"hark/ui/internal/uitest"
)

// BenchmarkHistoryAtStart is what the Research pane costs a TUI start
// with 60 kept reports of 200 KB each: its Init command and the Update
// that takes the history in.
func BenchmarkHistoryAtStart(b *testing.B) {
	lib, err := library.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer lib.Close()
	para := strings.Repeat("Memcheck tracks every heap block and reports the ones no pointer reaches. ", 40) + "\n\n"
	body := strings.Repeat(para, 200*1024/len(para))
	for i := range 60 {
		q := fmt.Sprintf("question %d about memcheck", i)
		out, _ := json.Marshal(api.ResearchOutput{RequestID: "r", Status: api.ResearchCompleted, Content: body,
			Sources: []api.ResearchSource{{Title: "Valgrind", URL: "https://valgrind.org"}}})
		it := &library.Item{Kind: library.KindResearch, Tool: Slug, Title: q, Query: q, Inputs: `{"input":"q","model":"pro"}`,
			Output: string(out), Body: body, Created: uitest.Epoch.Add(time.Duration(i) * time.Minute)}
		if err := lib.Add(context.Background(), it); err != nil {
			b.Fatal(err)
		}
	}
	c, _ := uitest.Common(b, nil)
	c.Library = func() (*library.Store, error) { return lib, nil }
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		p := New(c)
		p.Update(p.Init()())
		if len(p.sessions) != historyKept {
			b.Fatalf("%d sessions", len(p.sessions))
		}
	}
}
