package ui

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/embedded"
	"hark/ui/pages"
)

// TestE2EEmbeddedSearchOpenExtractBack runs the TUI against hark's own
// embedded gateway, whose local engines read pages served on 127.0.0.1:
// search, open a result, read it extracted in Pages, go back.
func TestE2EEmbeddedSearchOpenExtractBack(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<html><head><title>Okapi facts %s</title></head><body><article><h1>Okapi facts</h1>
<p>The okapi is a giraffid mammal of the Congo rainforest, also called the forest giraffe. This page is %s and has enough text to be
kept as the main content by the extractor, which drops short boilerplate.</p><p>Okapis eat leaves, buds and fungi.</p></article></body></html>`, r.URL.Path, r.URL.Path)
	}))
	t.Cleanup(site.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := embedded.Start(ctx, t.TempDir(), embedded.Options{AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Stop)
	// Reading a page indexes it for search.
	cl, err := api.New(api.Options{BaseURL: g.URL, APIKey: g.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Extract(ctx, api.ExtractInput{URLs: api.URLList{site.URL + "/okapi"}}); err != nil {
		t.Fatal(err)
	}

	r := startAt(t, g.URL, g.APIKey, 100, 30)
	r.typeText("okapi")
	r.keys("enter")
	r.waitFor("the indexed page as a result", screenHas("Okapi facts"))
	// The gateway reports the workspace's credits on each response; the
	// status bar shows the figure the gateway itself holds.
	used, err := g.Server.CreditsUsed(ctx, "local")
	if err != nil || used <= 0 {
		t.Fatalf("gateway credits used = %d, %v; want a positive count after extract and search", used, err)
	}
	r.waitFor(fmt.Sprintf("credits %d in the status bar", used), screenHas(fmt.Sprintf("credits %d", used)))
	r.keys("enter")
	r.waitFor("the page extracted and read in Pages", func(m *Model) bool {
		pg := m.panes[1].(*pages.Pane).Reading()
		return m.Active() == 1 && pg != nil && strings.Contains(pg.Content, "forest giraffe") && screenHas("forest giraffe")(m)
	})
	r.keys("esc")
	r.waitFor("the page list", screenHas("vendor_extract · "))
	r.keys("1")
	r.waitFor("search results kept", screenHas("Okapi facts"))
}
