package gateway

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/engine"
	"hark/gateway/store"
)

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testGW is a gateway serving on 127.0.0.1 with four workspaces:
//   - local:   all web tools, vendor_speech enabled (key)
//   - partial: search only, the other web tools unavailable
//   - bare:    no search backend, no voice provider
//   - limited: tavily without a key, vendor_speech disabled
//   - nocreds: vendor_speech enabled on a remote engine without a key
type testGW struct {
	srv  *Server
	base string
	key  string // workspace local
	keys map[string]string
	web  *testWeb
	logs *syncBuffer
	done chan error
}

func startGateway(t *testing.T, mutate func(*config.Config)) *testGW {
	t.Helper()
	return startGatewayWith(t, t.TempDir(), mutate)
}

// startGatewayWith is startGateway with its gateway.db in dataDir.
func startGatewayWith(t *testing.T, dataDir string, mutate func(*config.Config)) *testGW {
	t.Helper()
	g := &testGW{web: newTestWeb(), logs: &syncBuffer{}, keys: map[string]string{}, done: make(chan error, 1)}
	for _, ws := range []string{"local", "partial", "bare", "limited", "nocreds"} {
		k, err := auth.NewAPIKey()
		if err != nil {
			t.Fatal(err)
		}
		g.keys[ws] = k
	}
	g.key = g.keys["local"]
	local := config.LocalWorkspace(auth.HashKey(g.keys["local"]))
	cfg := &config.Config{
		// CPU seats enough for every test's calls at once; the tests of
		// fair shares set fewer.
		Limits: config.Limits{RatePerSecond: 1000, RateBurst: 1000, CPUSeats: 64},
		Workspaces: []config.Workspace{
			local,
			{Name: "partial", APIKeySHA256: []string{auth.HashKey(g.keys["partial"])}, Search: &config.Search{Backend: config.BackendLocal}},
			{Name: "bare", APIKeySHA256: []string{auth.HashKey(g.keys["bare"])}},
			{Name: "limited", APIKeySHA256: []string{auth.HashKey(g.keys["limited"])},
				Search: &config.Search{Backend: config.BackendTavily},
				Voice:  map[string]config.Voice{api.DefaultProvider: {Enabled: false, Engine: config.BackendLocal}}},
			{Name: "nocreds", APIKeySHA256: []string{auth.HashKey(g.keys["nocreds"])},
				Search: &config.Search{Backend: config.BackendTavily, APIKey: "tvly-SECRET-VENDOR-KEY"},
				Voice:  map[string]config.Voice{api.DefaultProvider: {Enabled: true, Engine: config.EngineElevenLabs}}},
		},
	}
	if mutate != nil {
		mutate(cfg)
	}
	db, err := store.OpenDB(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	srv, err := New(Options{
		Config: cfg, DB: store.FromSQLite(db),
		Logger: slog.New(slog.NewJSONHandler(g.logs, nil)),
		Engines: Engines{
			Web: func(ws string, c config.Search) (engine.Web, error) {
				if ws == "partial" {
					return engine.Web{Search: g.web}, nil
				}
				return g.web.bundle(), nil
			},
			Voice: func(ws, provider string, c config.Voice) (engine.VoiceProvider, error) {
				return testVoice{}, nil
			},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	g.srv = srv
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g.base = "http://" + ln.Addr().String()
	go func() { g.done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		if strings.Contains(g.logs.String(), g.key) {
			t.Error("an API key appeared in the log")
		}
	})
	return g
}

func (g *testGW) client(t *testing.T, key string) *api.Client {
	t.Helper()
	c, err := api.New(api.Options{BaseURL: g.base, APIKey: key, StreamIdleTimeout: 5 * time.Second,
		Retry: api.RetryPolicy{MaxAttempts: 1, ResearchMaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// call makes a raw request and decodes the envelope.
func (g *testGW) call(t *testing.T, method, path, key string, body any) (int, api.Envelope, http.Header) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, _ := json.Marshal(b)
		rd = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, g.base+path, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var env api.Envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatalf("%s %s: body is not an envelope: %q", method, path, raw)
	}
	if env.TraceID == "" || env.TraceID != resp.Header.Get(TraceHeader) {
		t.Fatalf("%s %s: trace_id %q, header %q", method, path, env.TraceID, resp.Header.Get(TraceHeader))
	}
	if env.Code != resp.StatusCode && !(resp.StatusCode == 200 && env.Code == api.CodeOK) {
		t.Fatalf("envelope code %d, HTTP %d", env.Code, resp.StatusCode)
	}
	return resp.StatusCode, env, resp.Header
}

// waitLog waits for text in the log: a request's line is written just
// after its response.
func (g *testGW) waitLog(text string) bool {
	for range 100 {
		if strings.Contains(g.logs.String(), text) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

func invokePath(tool string) string { return fmt.Sprintf(api.PathInvokeFmt, tool) }

func wantError(t *testing.T, status int, env api.Envelope, wantStatus int, wantMsg ...string) {
	t.Helper()
	if status != wantStatus || env.Code != wantStatus {
		t.Fatalf("status %d code %d (%q), want %d", status, env.Code, env.Message, wantStatus)
	}
	for _, m := range wantMsg {
		if !strings.Contains(env.Message, m) {
			t.Fatalf("message %q does not contain %q", env.Message, m)
		}
	}
}

func TestToolList(t *testing.T) {
	t.Parallel()
	g := startGateway(t, nil)
	tools, err := g.client(t, g.key).Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, tl := range tools {
		slugs = append(slugs, tl.Slug)
	}
	if got := strings.Join(slugs, ","); got != "vendor_search,vendor_extract,vendor_crawl,vendor_map,vendor_research" {
		t.Fatalf("tools = %s", got)
	}
	s := tools[0]
	mr := s.Input("max_results")
	if mr == nil || mr.Type != "integer" || *mr.Min != 1 || *mr.Max != 20 || fmt.Sprint(mr.Default) != "5" || mr.Description == "" {
		t.Fatalf("max_results = %+v", mr)
	}
	if q := s.Input("query"); q == nil || !q.Required {
		t.Fatalf("query = %+v", q)
	}
	if d := s.Input("search_depth"); d == nil || strings.Join(d.Enum, ",") != "basic,advanced,fast,ultra-fast" || d.Default != "basic" {
		t.Fatalf("search_depth = %+v", d)
	}
	if d := s.Input("start_date"); d == nil || d.Format != "date" {
		t.Fatalf("start_date = %+v", d)
	}
	if u := tools[1].Input("urls"); u == nil || !u.HasType("string") || !u.HasType("array") {
		t.Fatalf("urls = %+v", u)
	}
	if ae := tools[2].Input("allow_external"); ae == nil || ae.Default != true {
		t.Fatalf("allow_external = %+v", ae)
	}
	var raw struct {
		Tools []struct {
			Slug         string         `json:"slug"`
			Available    bool           `json:"available"`
			OutputSchema map[string]any `json:"output_schema"`
		} `json:"tools"`
	}
	// The partial workspace has only search.
	status, env, _ := g.call(t, "GET", api.PathTools, g.keys["partial"], nil)
	if status != 200 || json.Unmarshal(env.Data, &raw) != nil {
		t.Fatalf("tool list: %d %s", status, env.Message)
	}
	for _, tl := range raw.Tools {
		if tl.Available != (tl.Slug == api.ToolSearch) {
			t.Errorf("%s available = %v", tl.Slug, tl.Available)
		}
		if tl.OutputSchema["type"] != "object" || tl.OutputSchema["properties"] == nil {
			t.Errorf("%s output_schema = %v", tl.Slug, tl.OutputSchema)
		}
	}
	results := raw.Tools[0].OutputSchema["properties"].(map[string]any)["results"].(map[string]any)
	url := results["items"].(map[string]any)["properties"].(map[string]any)["url"].(map[string]any)
	if url["type"] != "string" || url["description"] != "page URL" {
		t.Fatalf("results[].url schema = %v", url)
	}
}

func TestInvokeSearchDefaultsCountryAndUnknownFields(t *testing.T) {
	t.Parallel()
	g := startGateway(t, nil)
	status, env, _ := g.call(t, "POST", invokePath(api.ToolSearch), g.key,
		`{"inputs":{"query":"go","topic":"news","country":"Germany","bogus_field":42,"include_answer":true}}`)
	if status != 200 {
		t.Fatalf("%d %s", status, env.Message)
	}
	var res api.InvokeResult
	if err := json.Unmarshal(env.Data, &res); err != nil {
		t.Fatal(err)
	}
	if res.Service != api.SearchService || res.Tool != api.ToolSearch {
		t.Fatalf("result = %+v", res)
	}
	var out api.SearchOutput
	json.Unmarshal(res.Output, &out)
	if len(out.Results) != 5 || out.Answer != "answer to go" {
		t.Fatalf("output = %+v", out)
	}
	g.web.mu.Lock()
	in := g.web.lastSearch
	g.web.mu.Unlock()
	if in.Topic != "general" || in.MaxResults != 5 || in.SearchDepth != "basic" || in.Country != "Germany" {
		t.Fatalf("engine saw %+v", in)
	}
	// Empty results are an empty array, never null.
	status, env, _ = g.call(t, "POST", invokePath(api.ToolSearch), g.key, `{"inputs":{"query":"none","max_results":1,"include_images":true}}`)
	if status != 200 || !strings.Contains(string(env.Data), `"results":[{`) {
		t.Fatalf("%s", env.Data)
	}
	ro := &api.ResearchOutput{Status: "failed"}
	fillNilSlices(reflect.ValueOf(ro))
	if raw, _ := json.Marshal(ro); !strings.Contains(string(raw), `"sources":[]`) {
		t.Fatalf("fillNilSlices: %s", raw)
	}
	// Through the client: typed call.
	so, err := g.client(t, g.key).Search(context.Background(), api.SearchInput{Query: "hark", MaxResults: 2})
	if err != nil || len(so.Results) != 2 {
		t.Fatalf("client search: %v %+v", err, so)
	}
}

func TestInvokeValidation(t *testing.T) {
	t.Parallel()
	g := startGateway(t, nil)
	cases := []struct {
		tool, inputs, want string
	}{
		{api.ToolSearch, `{}`, "invalid query: is required"},
		{api.ToolSearch, `{"query":"   "}`, "invalid query: must not be empty"},
		{api.ToolSearch, `{"query":"x","max_results":21}`, "invalid max_results: must be between 1 and 20"},
		{api.ToolSearch, `{"query":"x","max_results":0}`, "invalid max_results: must be between 1 and 20"},
		{api.ToolSearch, `{"query":"x","max_results":2.5}`, "invalid max_results: must be an integer"},
		{api.ToolSearch, `{"query":"x","max_results":1e30}`, "invalid max_results: must be between 1 and 20"},
		{api.ToolSearch, `{"query":"x","max_results":-99999999999}`, "invalid max_results: must be between 1 and 20"},
		{api.ToolSearch, `{"query":"x","max_results":"5"}`, "invalid max_results: must be an integer"},
		{api.ToolSearch, `{"query":"x","search_depth":"deep"}`, "invalid search_depth: must be one of basic, advanced, fast, ultra-fast"},
		{api.ToolSearch, `{"query":"x","topic":"sports"}`, "invalid topic: must be one of general, news, finance"},
		{api.ToolSearch, `{"query":"x","start_date":"2024/01/01"}`, "invalid start_date: must be a date in the form YYYY-MM-DD"},
		{api.ToolSearch, `{"query":"x","start_date":"2024-02-01","end_date":"2024-01-01"}`, "invalid end_date: must not be before start_date"},
		{api.ToolSearch, `{"query":"x","include_answer":"yes"}`, "invalid include_answer: must be true or false"},
		{api.ToolSearch, `{"query":"` + strings.Repeat("q", 401) + `"}`, "invalid query: must be at most 400 characters"},
		{api.ToolExtract, `{"urls":[]}`, "invalid urls: must hold at least one URL"},
		{api.ToolExtract, `{"urls":"ftp://x.test/a"}`, "is not an absolute http or https URL"},
		{api.ToolExtract, `{"urls":[1]}`, "invalid urls: element 0 must be a string"},
		{api.ToolExtract, `{"urls":"` + strings.Repeat("http://a.test/,", 21) + `"}`, "invalid urls: must hold at most 20 URLs"},
		{api.ToolCrawl, `{"url":"http://a.test","max_depth":6}`, "invalid max_depth: must be between 1 and 5"},
		{api.ToolCrawl, `{"url":"http://a.test","max_breadth":501}`, "invalid max_breadth: must be between 1 and 500"},
		{api.ToolCrawl, `{"url":"http://a.test","limit":501}`, "invalid limit: must be between 1 and 500"},
		{api.ToolCrawl, `{"url":"http://a.test","format":"html"}`, "invalid format: must be one of markdown, text"},
		{api.ToolMap, `{"url":"not a url"}`, "invalid url: must be an absolute http or https URL"},
		{api.ToolMap, `{"url":"http://a.test","limit":2001}`, "invalid limit: must be between 1 and 2000"},
		{api.ToolResearch, `{"input":"x","model":"max"}`, "invalid model: must be one of mini, pro, auto"},
		{api.ToolResearch, `{"model":"mini"}`, "invalid input: is required"},
	}
	for _, c := range cases {
		status, env, _ := g.call(t, "POST", invokePath(c.tool), g.key, `{"inputs":`+c.inputs+`}`)
		if status != 400 || env.Code != CodeInvalidInput || !strings.Contains(env.Message, c.want) {
			t.Errorf("%s %s: %d %q, want 400 %q", c.tool, truncate(c.inputs, 40), status, env.Message, c.want)
		}
	}
	for body, want := range map[string]string{
		``:                      "request body is empty",
		`{"inputs":`:            "invalid JSON body",
		`{"inputs":[1]}`:        "invalid inputs: must be a JSON object",
		`{"nothing":{}}`:        "invalid inputs: is required",
		`{"inputs":{}} {"x":1}`: "more than one JSON value",
	} {
		status, env, _ := g.call(t, "POST", invokePath(api.ToolSearch), g.key, body)
		wantError(t, status, env, 400, want)
	}
	// The client sees the same as a typed error.
	_, err := g.client(t, g.key).Search(context.Background(), api.SearchInput{Query: "x", MaxResults: 99})
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Code != 400 || !strings.Contains(ae.Message, "max_results") {
		t.Fatalf("client error = %v", err)
	}
}

func TestInvokeEveryTool(t *testing.T) {
	t.Parallel()
	g := startGateway(t, nil)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, "page %s links http://x.test/a http://x.test/b", r.URL.Path)
	}))
	defer site.Close()
	c := g.client(t, g.key)
	ctx := context.Background()
	ex, err := c.Extract(ctx, api.ExtractInput{URLs: api.URLList{site.URL + "/one", site.URL + "/missing"}})
	if err != nil || len(ex.Results) != 1 || len(ex.FailedResults) != 1 || !strings.Contains(ex.Results[0].RawContent, "page /one") {
		t.Fatalf("extract: %v %+v", err, ex)
	}
	// A comma-separated string of URLs.
	status, env, _ := g.call(t, "POST", invokePath(api.ToolExtract), g.key,
		map[string]any{"inputs": map[string]any{"urls": site.URL + "/a, " + site.URL + "/b"}})
	if status != 200 || !strings.Contains(string(env.Data), "page /b") {
		t.Fatalf("extract string urls: %d %s", status, env.Data)
	}
	cr, err := c.Crawl(ctx, api.CrawlInput{URL: site.URL + "/start"})
	if err != nil || cr.BaseURL != site.URL+"/start" || len(cr.Results) != 1 {
		t.Fatalf("crawl: %v %+v", err, cr)
	}
	g.web.mu.Lock()
	ci := g.web.lastCrawl
	g.web.mu.Unlock()
	if ci.MaxDepth != 1 || ci.MaxBreadth != 20 || ci.Limit != 50 || ci.AllowExternal == nil || !*ci.AllowExternal ||
		ci.ExtractDepth != "basic" || ci.Format != "markdown" {
		t.Fatalf("crawl defaults: %+v", ci)
	}
	mp, err := c.Map(ctx, api.MapInput{URL: site.URL + "/", Limit: 1})
	if err != nil || len(mp.Results) != 1 || mp.Results[0].URL != "http://x.test/a" {
		t.Fatalf("map: %v %+v", err, mp)
	}
	rr, err := c.Research(ctx, api.ResearchInput{Input: "tides"})
	if err != nil || rr.Status != api.ResearchCompleted || rr.Content != "report on tides (auto)" {
		t.Fatalf("research: %v %+v", err, rr)
	}
	// Unknown tool.
	status, env, _ = g.call(t, "POST", invokePath("vendor_nope"), g.key, `{"inputs":{}}`)
	wantError(t, status, env, 404, `unknown tool "vendor_nope"`, "vendor_search")
}

func TestInvokeErrorPaths(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) {
		c.Limits.UpstreamTimeout = config.Duration(300 * time.Millisecond)
		c.Limits.ResearchWait = config.Duration(300 * time.Millisecond)
	})
	search := func(key, query string) (int, api.Envelope) {
		status, env, _ := g.call(t, "POST", invokePath(api.ToolSearch), key, map[string]any{"inputs": map[string]any{"query": query}})
		return status, env
	}
	// No search backend, and a tavily backend without its key.
	for _, ws := range []string{"bare", "limited"} {
		status, env := search(g.keys[ws], "x")
		wantError(t, status, env, 403)
		if env.Message != api.MsgCredentialsMissing {
			t.Fatalf("%s: message %q", ws, env.Message)
		}
	}
	_, err := g.client(t, g.keys["bare"]).Search(context.Background(), api.SearchInput{Query: "x"})
	if !errors.Is(err, api.ErrCredentialsMissing) {
		t.Fatalf("client: %v", err)
	}
	// A tool without an engine.
	status, env, _ := g.call(t, "POST", invokePath(api.ToolCrawl), g.keys["partial"], `{"inputs":{"url":"http://a.test"}}`)
	wantError(t, status, env, 503, "vendor_crawl", "not available")
	// Vendor failures in the spec's two forms.
	status, env = search(g.key, "vendor-down")
	wantError(t, status, env, 502)
	if env.Message != "Tavily API request failed: dial tcp: connection refused" {
		t.Fatalf("message %q", env.Message)
	}
	status, env = search(g.key, "vendor-quota")
	if status != 502 || env.Message != "Tavily API returned status code 432: plan limit exceeded" {
		t.Fatalf("%d %q", status, env.Message)
	}
	// Upstream timeout.
	status, env = search(g.key, "block")
	wantError(t, status, env, 504, "vendor_search timed out after 300ms")
	// An engine that ignores its context still gets a timely answer.
	t0 := time.Now()
	status, env = search(g.key, "ignore-ctx")
	if status != 504 || time.Since(t0) > 900*time.Millisecond {
		t.Fatalf("ignore-ctx: %d after %v", status, time.Since(t0))
	}
	// An engine panic is a 500, not a crash.
	status, env = search(g.key, "panic")
	wantError(t, status, env, 500, "engine panic: search engine bug")
	// Research wait limit.
	status, env, _ = g.call(t, "POST", invokePath(api.ToolResearch), g.key, `{"inputs":{"input":"forever"}}`)
	wantError(t, status, env, 504)
	if env.Message != api.MsgResearchWaitTimeout {
		t.Fatalf("research timeout message %q", env.Message)
	}
	// Unknown route and wrong method: envelopes, before auth.
	status, env, _ = g.call(t, "GET", "/v1/nowhere", "", nil)
	wantError(t, status, env, 404, "no route")
	status, env, hdr := g.call(t, "DELETE", api.PathTools, g.key, nil)
	wantError(t, status, env, 405, "not allowed")
	if !strings.Contains(hdr.Get("Allow"), "GET") {
		t.Fatalf("Allow = %q", hdr.Get("Allow"))
	}
	// Failed calls cost nothing; the history keeps them.
	used, err := g.srv.CreditsUsed(context.Background(), "local")
	if err != nil || used != 0 {
		t.Fatalf("credits used = %d, %v", used, err)
	}
	recs, _ := g.srv.Usage(context.Background(), "local", 10)
	if len(recs) < 6 || recs[0].Status != "error" || recs[0].Operation != api.ToolResearch {
		t.Fatalf("usage = %+v", recs)
	}
	// The vendor key of a workspace never leaks.
	if strings.Contains(g.logs.String(), "SECRET-VENDOR-KEY") {
		t.Fatal("vendor key in log")
	}
}

func TestAuth(t *testing.T) {
	t.Parallel()
	g := startGateway(t, nil)
	status, env, hdr := g.call(t, "GET", api.PathTools, "", nil)
	wantError(t, status, env, 401, "missing API key")
	if hdr.Get("WWW-Authenticate") == "" {
		t.Fatal("no WWW-Authenticate")
	}
	status, env, _ = g.call(t, "GET", api.PathTools, "hark_wrong", nil)
	wantError(t, status, env, 401, "invalid API key")
	req, _ := http.NewRequest("GET", g.base+api.PathTools, nil)
	req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("u:p")))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("basic auth: %d", resp.StatusCode)
	}
	// The key in the query string is refused, even a valid one.
	for _, p := range []string{"api_key", "token", "access_token"} {
		status, env, _ = g.call(t, "GET", api.PathTools+"?"+p+"="+g.key, "", nil)
		wantError(t, status, env, 401, "never accepted in the query string")
	}
	if strings.Contains(g.logs.String(), g.key) {
		t.Fatal("query-string key reached the log")
	}
	// The client reports 401 as an auth error.
	_, err = g.client(t, "hark_nope").Tools(context.Background())
	var ae *api.Error
	if !errors.As(err, &ae) || !ae.Auth() || ae.TraceID == "" {
		t.Fatalf("client: %v", err)
	}
	// The log line carries the trace_id of the response.
	status, env, _ = g.call(t, "GET", api.PathTools, g.key, nil)
	if status != 200 || !g.waitLog(`"trace_id":"`+env.TraceID+`"`) {
		t.Fatalf("trace_id %s not in log", env.TraceID)
	}
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) { c.Limits.RatePerSecond = 1; c.Limits.RateBurst = 3 })
	var limited int
	var retry string
	for range 6 {
		status, env, hdr := g.call(t, "GET", api.PathTools, g.key, nil)
		if status == 429 {
			limited++
			retry = hdr.Get("Retry-After")
			wantError(t, status, env, 429, "rate limit exceeded")
		}
	}
	if limited < 2 || retry == "" {
		t.Fatalf("limited %d times, Retry-After %q", limited, retry)
	}
	// Another key has its own bucket.
	if status, _, _ := g.call(t, "GET", api.PathTools, g.keys["partial"], nil); status != 200 {
		t.Fatalf("other key: %d", status)
	}
	var secs int
	fmt.Sscan(retry, &secs)
	if secs < 1 || secs > 2 {
		t.Fatalf("Retry-After = %q", retry)
	}
	time.Sleep(time.Duration(secs) * time.Second)
	if status, env, _ := g.call(t, "GET", api.PathTools, g.key, nil); status != 200 {
		t.Fatalf("after Retry-After: %d %s", status, env.Message)
	}
	// The client sees ErrRateLimited with the server's Retry-After.
	c, _ := api.New(api.Options{BaseURL: g.base, APIKey: g.keys["bare"], Retry: api.RetryPolicy{MaxAttempts: 1}})
	var err error
	for range 5 {
		if _, err = c.Tools(context.Background()); err != nil {
			break
		}
	}
	var ae *api.Error
	if !errors.Is(err, api.ErrRateLimited) || !errors.As(err, &ae) || ae.RetryAfter < time.Second {
		t.Fatalf("client: %v", err)
	}
}

func TestCreditQuota(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) { c.Workspaces[0].CreditQuota = 4 })
	search := func(depth string) (int, api.Envelope) {
		status, env, _ := g.call(t, "POST", invokePath(api.ToolSearch), g.key,
			map[string]any{"inputs": map[string]any{"query": "q", "search_depth": depth}})
		return status, env
	}
	if s, env := search("advanced"); s != 200 { // 2 credits
		t.Fatal(env.Message)
	}
	if s, env := search("basic"); s != 200 { // 1 credit
		t.Fatal(env.Message)
	}
	s, env := search("advanced") // would be 5 of 4
	wantError(t, s, env, 402, "credit quota exhausted", "3 of 4 credits used this month", "costs 2")
	// Instructions double crawl credits: limit 10 -> 1 credit, 2 with instructions.
	status, env, _ := g.call(t, "POST", invokePath(api.ToolCrawl), g.key,
		`{"inputs":{"url":"http://127.0.0.1:1/","limit":10,"instructions":"only docs"}}`)
	wantError(t, status, env, 402, "costs 2")
	used, _ := g.srv.CreditsUsed(context.Background(), "local")
	if used != 3 {
		t.Fatalf("used = %d", used)
	}
	recs, _ := g.srv.Usage(context.Background(), "local", 10)
	if len(recs) != 2 || recs[0].Credits != 1 || recs[1].Credits != 2 || recs[1].Status != "ok" || recs[0].KeyID == "" {
		t.Fatalf("usage = %+v", recs)
	}
}

func TestCreditQuotaHoldsUnderConcurrency(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) {
		c.Workspaces[0].CreditQuota = 5
		c.Workspaces[0].QuotaPeriod = "day"
		c.Limits.MaxInvoke = 32 // all 20 run at once: the quota, not admission, decides
	})
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, _, _ := g.call(t, "POST", invokePath(api.ToolSearch), g.key, `{"inputs":{"query":"slow"}}`)
			mu.Lock()
			codes[status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if codes[200] != 5 || codes[402] != 15 {
		t.Fatalf("statuses %v, want 5 x 200 and 15 x 402", codes)
	}
	if used, _ := g.srv.CreditsUsed(context.Background(), "local"); used != 5 {
		t.Fatalf("used %d", used)
	}
}

func TestCosts(t *testing.T) {
	t.Parallel()
	reg := map[string]*tool{}
	for _, tl := range newRegistry() {
		reg[tl.slug] = tl
	}
	cost := func(slug, inputs string) int64 {
		var m map[string]any
		dec := json.NewDecoder(strings.NewReader(inputs))
		dec.UseNumber()
		dec.Decode(&m)
		v, err := reg[slug].validate(m)
		if err != nil {
			t.Fatal(err)
		}
		return reg[slug].cost(v)
	}
	for _, c := range []struct {
		slug, in string
		want     int64
	}{
		{api.ToolSearch, `{"query":"a"}`, 1},
		{api.ToolSearch, `{"query":"a","search_depth":"advanced"}`, 2},
		{api.ToolCrawl, `{"url":"http://a.test"}`, 5},
		{api.ToolCrawl, `{"url":"http://a.test","instructions":"x"}`, 10},
		{api.ToolMap, `{"url":"http://a.test"}`, 1},
		{api.ToolMap, `{"url":"http://a.test","instructions":"x"}`, 2},
		{api.ToolExtract, `{"urls":"http://a.test,http://b.test"}`, 1},
		{api.ToolExtract, `{"urls":"http://a.test","extract_depth":"advanced"}`, 2},
		{api.ToolResearch, `{"input":"a","model":"pro"}`, 10},
	} {
		if got := cost(c.slug, c.in); got != c.want {
			t.Errorf("%s %s: cost %d, want %d", c.slug, c.in, got, c.want)
		}
	}
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) { c.Limits.MaxBodyBytes = 1024 })
	status, env, _ := g.call(t, "POST", invokePath(api.ToolSearch), g.key,
		`{"inputs":{"query":"`+strings.Repeat("a", 2000)+`"}}`)
	wantError(t, status, env, 413, "request body exceeds 1024 bytes")
}
