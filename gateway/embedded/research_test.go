package embedded

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"hark/api"
	"hark/gateway/config"
	"hark/gateway/store"
)

// Research (gateway/research) is wired onto each workspace's web tools:
// over the local index for a local backend, over the instance's search
// for a SearXNG one, reading sources with the local fetcher either way.
func TestResearchIsWiredPerBackend(t *testing.T) {
	db, err := store.OpenDB(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	eng := NewEngines(db, true, nil)
	defer eng.Close()
	ctx := context.Background()

	local, err := eng.Gateway().Web("local", config.Search{Backend: config.BackendLocal})
	if err != nil {
		t.Fatal(err)
	}
	out, err := local.Research.Research(ctx, api.ResearchInput{Input: "what is a sitemap?", Model: "mini"})
	if err != nil || out.Status != api.ResearchCompleted || !strings.Contains(out.Content, "local search index is empty") {
		t.Fatalf("local research: %v %+v", err, out)
	}

	var searches atomic.Int32
	sx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/search" {
			searches.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"query":"x","results":[]}`))
	}))
	defer sx.Close()
	viaSX, err := eng.Gateway().Web("sx", config.Search{Backend: config.BackendSearXNG, URL: sx.URL})
	if err != nil {
		t.Fatal(err)
	}
	out, err = viaSX.Research.Research(ctx, api.ResearchInput{Input: "what is a sitemap?", Model: "mini"})
	if err != nil || out.Status != api.ResearchCompleted || !strings.Contains(out.Content, "No matching sources") || searches.Load() == 0 {
		t.Fatalf("research via searxng (%d searches): %v %+v", searches.Load(), err, out)
	}
	if strings.Contains(out.Content, "local index holds") {
		t.Errorf("research via searxng spoke of the local index: %s", out.Content)
	}
}
