package embedded

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/gateway"
)

func TestStartExtractsALoopbackPage(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Tides</title></head><body><article><h1>Tides</h1>
<p>The tide rises and falls twice a day because of the moon's pull on the oceans of the earth.</p>
<p>Spring tides happen at new and full moon, when the sun and moon line up.</p></article></body></html>`)
	}))
	defer site.Close()
	g, err := Start(context.Background(), t.TempDir(), Options{AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	// What hark runs with: the defaults, the spec's 5-minute research wait
	// among them.
	if l := g.Server.Limits(); l != gateway.DefaultLimits() || time.Duration(l.ResearchWait) != 5*time.Minute {
		t.Fatalf("embedded limits %+v", l)
	}
	c, err := api.New(api.Options{BaseURL: g.URL, APIKey: g.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Extract(context.Background(), api.ExtractInput{URLs: api.URLList{site.URL + "/tides", "http://127.0.0.1:1/closed"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 1 || !strings.Contains(out.Results[0].RawContent, "moon") || len(out.FailedResults) != 1 {
		t.Fatalf("extract: %+v", out)
	}
	g.Stop()
	g.Stop() // idempotent
	if _, err := c.Tools(context.Background()); err == nil {
		t.Fatal("gateway answers after Stop")
	}
}
