package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/engine"
)

const testKey = "tvly-secret-key-123"

// fakeTavily speaks the parts of Tavily's API hark uses.
type fakeTavily struct {
	mu     sync.Mutex
	bodies map[string]map[string]any
	polls  int
}

func (f *fakeTavily) handler(t *testing.T) http.Handler {
	mux := http.NewServeMux()
	auth := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+testKey {
				w.WriteHeader(http.StatusUnauthorized)
				fmt.Fprint(w, `{"detail":{"error":"Unauthorized: missing or invalid API key."}}`)
				return
			}
			if r.Method == http.MethodPost {
				var body map[string]any
				if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
					t.Errorf("%s: body: %v", r.URL.Path, err)
				}
				f.mu.Lock()
				f.bodies[r.URL.Path] = body
				f.mu.Unlock()
			}
			w.Header().Set("Content-Type", "application/json")
			h(w, r)
		}
	}
	mux.HandleFunc("POST /search", auth(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"query":"q","answer":"The answer.","response_time":"1.25","images":[{"url":"https://i.example/1.png","description":"One"}],
"results":[{"title":"T","url":"https://a.example/","content":"C","score":0.87,"raw_content":null,"favicon":"https://a.example/favicon.ico"}]}`)
	}))
	mux.HandleFunc("POST /extract", auth(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"results":[{"url":"https://a.example/","raw_content":"# A","images":["https://a.example/i.png"]}],
"failed_results":[{"url":"https://b.example/","error":"timeout"}],"response_time":0.5}`)
	}))
	mux.HandleFunc("POST /crawl", auth(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"base_url":"https://a.example","results":[{"url":"https://a.example/x","raw_content":"X"}],"response_time":2}`)
	}))
	mux.HandleFunc("POST /map", auth(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"base_url":"https://a.example","results":["https://a.example/x","https://a.example/y"],"response_time":1}`)
	}))
	mux.HandleFunc("POST /research", auth(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"request_id":"req-1","status":"pending","input":"x","model":"mini"}`)
	}))
	mux.HandleFunc("GET /research/{id}", auth(func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") != "req-1" {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"detail":"Research task not found"}`)
			return
		}
		f.mu.Lock()
		f.polls++
		n := f.polls
		f.mu.Unlock()
		if n < 3 {
			fmt.Fprint(w, `{"request_id":"req-1","status":"in_progress"}`)
			return
		}
		fmt.Fprint(w, `{"request_id":"req-1","status":"completed","content":"# Report\n\nDone [1].","sources":[{"title":"S","url":"https://s.example/","favicon":"x"}]}`)
	}))
	return mux
}

func TestTavilyPassThrough(t *testing.T) {
	ft := &fakeTavily{bodies: map[string]map[string]any{}}
	srv := httptest.NewServer(ft.handler(t))
	defer srv.Close()
	w, err := NewBackend(BackendConfig{Kind: "tavily", URL: srv.URL, APIKey: testKey, PollInterval: 10 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := w.Search.Search(ctx, api.SearchInput{Query: "q", MaxResults: 3, SearchDepth: "advanced", IncludeImages: true, IncludeImageDescriptions: true, IncludeDomains: "a.example"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Answer != "The answer." || s.ResponseTime != 1.25 || len(s.Results) != 1 || s.Results[0].Score != 0.87 || s.Images[0].Description != "One" {
		t.Errorf("search: %+v", s)
	}
	sent := ft.bodies["/search"]
	if sent["query"] != "q" || sent["max_results"] != float64(3) || sent["search_depth"] != "advanced" || sent["include_domains"] != "a.example" {
		t.Errorf("search body sent: %v", sent)
	}
	x, err := w.Extract.Extract(ctx, api.ExtractInput{URLs: api.ParseURLList("https://a.example/, https://b.example/"), Format: "text"})
	if err != nil || len(x.Results) != 1 || x.Results[0].Images[0] != "https://a.example/i.png" || x.FailedResults[0].Error != "timeout" {
		t.Errorf("extract: %v %+v", err, x)
	}
	if urls, _ := ft.bodies["/extract"]["urls"].([]any); len(urls) != 2 {
		t.Errorf("extract urls sent: %v", ft.bodies["/extract"])
	}
	c, err := w.Crawl.Crawl(ctx, api.CrawlInput{URL: "https://a.example", MaxDepth: 2, Instructions: "docs"})
	if err != nil || c.BaseURL != "https://a.example" || c.Results[0].RawContent != "X" || ft.bodies["/crawl"]["instructions"] != "docs" {
		t.Errorf("crawl: %v %+v", err, c)
	}
	m, err := w.Map.Map(ctx, api.MapInput{URL: "https://a.example"})
	if err != nil || len(m.Results) != 2 || m.Results[1].URL != "https://a.example/y" {
		t.Errorf("map: %v %+v", err, m)
	}
	r, err := w.Research.Research(ctx, api.ResearchInput{Input: "x", Model: "mini"})
	if err != nil || r.Status != api.ResearchCompleted || r.RequestID != "req-1" || !strings.Contains(r.Content, "Done [1]") || r.Sources[0].URL != "https://s.example/" {
		t.Errorf("research: %v %+v", err, r)
	}
	if ft.polls != 3 {
		t.Errorf("polled %d times", ft.polls)
	}

	// The wait ends with ctx, returning the last state seen.
	ft.polls = -1000
	wctx, cancel := context.WithTimeout(ctx, 80*time.Millisecond)
	defer cancel()
	r, err = w.Research.Research(wctx, api.ResearchInput{Input: "x"})
	if !errors.Is(err, context.DeadlineExceeded) || r == nil || r.Status != api.ResearchInProgress {
		t.Errorf("research wait: %v %+v", err, r)
	}
}

func TestTavilyErrors(t *testing.T) {
	ft := &fakeTavily{bodies: map[string]map[string]any{}}
	srv := httptest.NewServer(ft.handler(t))
	ctx := context.Background()

	// Missing key: every tool answers the credentials message, and nothing is sent.
	w, _ := NewBackend(BackendConfig{Kind: "tavily", URL: srv.URL}, nil)
	if _, err := w.Search.Search(ctx, api.SearchInput{Query: "q"}); !errors.Is(err, engine.ErrCredentialsMissing) || err.Error() != api.MsgCredentialsMissing {
		t.Errorf("missing key: %v", err)
	}
	if _, err := w.Research.Research(ctx, api.ResearchInput{Input: "q"}); !errors.Is(err, engine.ErrCredentialsMissing) {
		t.Errorf("missing key research: %v", err)
	}
	if len(ft.bodies) != 0 {
		t.Error("a request was sent without a key")
	}

	// A wrong key: the vendor's status and message, in the spec's form.
	w, _ = NewBackend(BackendConfig{Kind: "tavily", URL: srv.URL, APIKey: "tvly-wrong"}, nil)
	_, err := w.Map.Map(ctx, api.MapInput{URL: "https://a.example"})
	var ve *engine.VendorError
	if !errors.As(err, &ve) || ve.Status != 401 || err.Error() != "Tavily API returned status code 401: Unauthorized: missing or invalid API key." {
		t.Errorf("401: %v", err)
	}

	// The vendor unreachable: the first form, without the key anywhere.
	srv.Close()
	w, _ = NewBackend(BackendConfig{Kind: "tavily", URL: srv.URL, APIKey: testKey}, nil)
	_, err = w.Extract.Extract(ctx, api.ExtractInput{URLs: api.URLList{"https://a.example"}})
	if !errors.As(err, &ve) || ve.Status != 0 || !strings.HasPrefix(err.Error(), "Tavily API request failed: ") || strings.Contains(err.Error(), testKey) {
		t.Errorf("unreachable: %v", err)
	}
	if _, err := NewBackend(BackendConfig{Kind: "bing"}, nil); err == nil || !strings.Contains(err.Error(), "bing") {
		t.Errorf("unknown kind: %v", err)
	}
	if _, err := NewBackend(BackendConfig{Kind: "searxng"}, nil); err == nil || !strings.Contains(err.Error(), "url") {
		t.Errorf("searxng without url: %v", err)
	}
}

func TestSearXNG(t *testing.T) {
	site := newTestSite(t)
	var mu sync.Mutex
	var queries []string
	sx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		mu.Lock()
		queries = append(queries, r.URL.RawQuery)
		mu.Unlock()
		if r.URL.Path != "/search" || q.Get("format") != "json" {
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, "Forbidden")
			return
		}
		if q.Get("q") == "broken" {
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":"too many requests"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if q.Get("categories") == "images" {
			fmt.Fprint(w, `{"query":"x","results":[{"url":"https://p.example/","title":"Spider photo","img_src":"https://p.example/spider.jpg","content":"a spider"}]}`)
			return
		}
		fmt.Fprintf(w, `{"query":%q,"answers":[],"results":[
{"url":"%s/a","title":"Alpha","content":"Politeness means a crawler limits requests.","score":4.0,"publishedDate":"2024-03-05T10:00:00"},
{"url":"https://www.example.de/x","title":"German page","content":"Politeness in Germany.","score":3.6},
{"url":"https://other.example.org/y","title":"Other","content":"Unrelated politeness words.","score":1.0,"publishedDate":"2019-01-01T00:00:00"}]}`, q.Get("q"), site.URL)
	}))
	defer sx.Close()
	local := testEngine(t, nil)
	w, err := NewBackend(BackendConfig{Kind: "searxng", URL: sx.URL + "/"}, local)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	out, err := w.Search.Search(ctx, api.SearchInput{Query: "crawler politeness", MaxResults: 5, IncludeRawContent: true, IncludeFavicon: true, IncludeAnswer: true,
		IncludeImages: true, IncludeImageDescriptions: true, Topic: "news", TimeRange: "year"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 3 || out.Results[0].Score != 1 || out.Results[1].Score != 0.9 || out.Results[0].PublishedDate != "2024-03-05T10:00:00Z" {
		t.Errorf("results: %+v", out.Results)
	}
	if !strings.Contains(out.Results[0].RawContent, "Politeness means a crawler") || out.Results[2].Favicon != "https://other.example.org/favicon.ico" {
		t.Errorf("raw content / favicon: %+v", out.Results[0])
	}
	if !strings.Contains(out.Answer, "Politeness") || len(out.Images) != 1 || out.Images[0].Description == "" {
		t.Errorf("answer %q images %+v", out.Answer, out.Images)
	}
	if !strings.Contains(queries[0], "categories=news") || !strings.Contains(queries[0], "time_range=year") {
		t.Errorf("query sent: %s", queries[0])
	}
	out, err = w.Search.Search(ctx, api.SearchInput{Query: "politeness", Country: "Germany", ExcludeDomains: "example.org", StartDate: "2020-01-01"})
	if err != nil || len(out.Results) != 2 || out.Results[0].URL != "https://www.example.de/x" {
		t.Errorf("country/exclude/date: %v %+v", err, out)
	}
	_, err = w.Search.Search(ctx, api.SearchInput{Query: "broken"})
	if err == nil || err.Error() != "SearXNG API returned status code 429: too many requests" {
		t.Errorf("vendor error: %v", err)
	}
	// Research through SearXNG reads sources with the local fetcher.
	r, err := researchOn(t, local).Via(w.Search).Research(ctx, api.ResearchInput{Input: "what does politeness mean for a crawler", Model: "mini"})
	if err != nil || r.Status != api.ResearchCompleted || !strings.Contains(r.Content, "[1]") {
		t.Errorf("research via searxng: %v %+v", err, r)
	}
	if w.Extract == nil || w.Crawl == nil || w.Map == nil {
		t.Error("searxng workspace lacks local extract/crawl/map")
	}
}
