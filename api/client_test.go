package api_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/api"
	"hark/api/apitest"
)

// fast is a retry policy for tests: real backoff, small numbers.
var fast = api.RetryPolicy{BaseDelay: 5 * time.Millisecond, MaxDelay: 20 * time.Millisecond}

func newClient(t *testing.T, s *apitest.Server, mod ...func(*api.Options)) *api.Client {
	t.Helper()
	o := api.Options{BaseURL: s.URL, APIKey: s.APIKey, Retry: fast}
	for _, m := range mod {
		m(&o)
	}
	c, err := api.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNewValidatesBaseURL(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"", "base URL: must not be empty"},
		{"ftp://x", "scheme must be http or https"},
		{"http://", "must name a host"},
		{"http://user:pw@host", "must not carry credentials"},
		{"http://h/?q=1", "must not have a query"},
		{"::bad", "not a valid URL"},
	} {
		_, err := api.New(api.Options{BaseURL: tc.url})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q) = %v, want error containing %q", tc.url, err, tc.want)
		}
	}
	if _, err := api.New(api.Options{BaseURL: "http://h/?api_key=sk-in-query-123"}); err == nil || strings.Contains(err.Error(), "sk-in-query") {
		t.Errorf("a query's secret is echoed: %v", err)
	}
	if _, err := api.New(api.Options{BaseURL: "http://h", Retry: api.RetryPolicy{ResearchTimeout: time.Minute}}); err == nil || !strings.Contains(err.Error(), "at least 6m0s") {
		t.Errorf("short research timeout: %v", err)
	}
	c, err := api.New(api.Options{BaseURL: "http://h:1/base/"})
	if err != nil || c.BaseURL() != "http://h:1/base" {
		t.Errorf("BaseURL() = %q, %v", c.BaseURL(), err)
	}
}

func TestToolsSendsAuthAndUserAgent(t *testing.T) {
	s := apitest.New(t)
	var calls []api.CallInfo
	var mu sync.Mutex
	c := newClient(t, s, func(o *api.Options) {
		o.OnCall = func(ci api.CallInfo) { mu.Lock(); calls = append(calls, ci); mu.Unlock() }
	})
	tools, err := c.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 5 || tools[0].Slug != api.ToolSearch {
		t.Fatalf("tools = %+v", tools)
	}
	q := tools[0].Input("max_results")
	if q == nil || q.Type != "integer" || *q.Min != 1 || *q.Max != 20 || q.Default != float64(5) {
		t.Errorf("max_results = %+v", q)
	}
	if f := tools[0].Input("query"); f == nil || !f.Required {
		t.Errorf("query not required: %+v", f)
	}
	if f := tools[1].Input("urls"); f == nil || f.Type != "string|array" || f.Items != "string" {
		t.Errorf("urls = %+v", f)
	}
	req := s.Last(api.PathTools)
	if got := req.Header.Get("Authorization"); got != "Bearer "+apitest.Key {
		t.Errorf("Authorization = %q", got)
	}
	if got := req.Header.Get("User-Agent"); got != "hark/"+api.Version {
		t.Errorf("User-Agent = %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 || calls[0].TraceID == "" || calls[0].Status != 200 || calls[0].Path != api.PathTools {
		t.Errorf("OnCall = %+v", calls)
	}
}

func TestToolListShapesThroughClient(t *testing.T) {
	s := apitest.New(t)
	c := newClient(t, s)
	s.SetToolList(`[{"name":"vendor_map","parameters":{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]}}]`)
	tools, err := c.Tools(context.Background())
	if err != nil || len(tools) != 1 || tools[0].Slug != "vendor_map" || !tools[0].Inputs[0].Required {
		t.Fatalf("bare array: %+v %v", tools, err)
	}
	// A gateway that serves the tool list without the envelope.
	s.Script(api.PathTools, apitest.RawBody(200, `{"tools":[{"slug":"x"}]}`))
	if tools, err := c.Tools(context.Background()); err != nil || len(tools) != 1 || tools[0].Slug != "x" {
		t.Errorf("bare tool list: %+v %v", tools, err)
	}
	s.Script(api.PathTools, apitest.RawBody(200, `<html>login</html>`))
	if _, err := c.Tools(context.Background()); err == nil || !strings.Contains(err.Error(), "not the gateway envelope") {
		t.Errorf("html: %v", err)
	}
	s.Script(api.PathTools, apitest.RawBody(200, `{"code": 400}`))
	if _, err := c.Tools(context.Background()); err == nil {
		t.Error("code 400 without message: no error")
	}
}

func TestWrongKeyIsAuthError(t *testing.T) {
	s := apitest.New(t)
	c, _ := api.New(api.Options{BaseURL: s.URL, APIKey: "wrong-key-123456", Retry: fast})
	_, err := c.Tools(context.Background())
	var e *api.Error
	if !errors.As(err, &e) || e.HTTPStatus != 401 || !e.Auth() || e.TraceID == "" {
		t.Fatalf("err = %#v", err)
	}
	if strings.Contains(err.Error(), "wrong-key-123456") {
		t.Error("key in error")
	}
	if n := s.Count(api.PathTools); n != 1 {
		t.Errorf("401 retried: %d calls", n)
	}
}

func TestErrorForms(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name  string
		reply apitest.Reply
		check func(t *testing.T, e *api.Error, err error)
	}{
		{"code other than 200", apitest.Fail(400, "max_results: must be 1 to 20"), func(t *testing.T, e *api.Error, err error) {
			if e.HTTPStatus != 200 || e.Code != 400 || e.Message != "max_results: must be 1 to 20" || e.TraceID == "" {
				t.Errorf("%+v", e)
			}
		}},
		{"HTTP error with envelope", apitest.HTTPError(503, "maintenance"), func(t *testing.T, e *api.Error, err error) {
			if e.HTTPStatus != 503 || e.Code != 503 || e.Message != "maintenance" {
				t.Errorf("%+v", e)
			}
		}},
		{"HTTP error without envelope", apitest.RawBody(502, "<html>bad gateway</html>"), func(t *testing.T, e *api.Error, err error) {
			if e.HTTPStatus != 502 || e.Code != 0 || !strings.Contains(e.Error(), "(HTTP 502)") || !strings.Contains(e.Message, "bad gateway") {
				t.Errorf("%+v", e)
			}
		}},
		{"200 that is not the envelope", apitest.RawBody(200, `{"result": "ok"}`), func(t *testing.T, e *api.Error, err error) {
			if e.HTTPStatus != 200 || !strings.Contains(e.Message, "not the gateway envelope") {
				t.Errorf("%+v", e)
			}
		}},
		{"200 that is not JSON", apitest.RawBody(200, `hello`), func(t *testing.T, e *api.Error, err error) {
			if !strings.Contains(e.Message, "not the gateway envelope") {
				t.Errorf("%+v", e)
			}
		}},
		{"credentials missing", apitest.CredentialsMissing(), func(t *testing.T, e *api.Error, err error) {
			if !errors.Is(err, api.ErrCredentialsMissing) || !e.Auth() {
				t.Errorf("%+v", e)
			}
		}},
		{"vendor request failed", apitest.VendorRequestFailed("Tavily", "dial tcp: i/o timeout"), func(t *testing.T, e *api.Error, err error) {
			want := api.VendorFailure{Vendor: "Tavily", Detail: "dial tcp: i/o timeout"}
			if e.Vendor == nil || *e.Vendor != want {
				t.Errorf("vendor = %+v", e.Vendor)
			}
		}},
		{"vendor status", apitest.VendorStatus("Acme Search", 432, `{"detail":"quota exhausted"}`), func(t *testing.T, e *api.Error, err error) {
			want := api.VendorFailure{Vendor: "Acme Search", Status: 432, Detail: `{"detail":"quota exhausted"}`}
			if e.Vendor == nil || *e.Vendor != want {
				t.Errorf("vendor = %+v", e.Vendor)
			}
		}},
		{"rate limited", apitest.RateLimited("7"), func(t *testing.T, e *api.Error, err error) {
			if !errors.Is(err, api.ErrRateLimited) || e.RetryAfter != 7*time.Second {
				t.Errorf("%+v", e)
			}
		}},
		{"dropped connection", apitest.Drop(), func(t *testing.T, e *api.Error, err error) {
			if e != nil || err == nil {
				t.Errorf("want a transport error, got %v", err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := apitest.New(t)
			c := newClient(t, s)
			s.Script(apitest.InvokePath(api.ToolSearch), tc.reply)
			_, err := c.Search(ctx, api.SearchInput{Query: "q"})
			if err == nil {
				t.Fatal("no error")
			}
			var e *api.Error
			errors.As(err, &e)
			tc.check(t, e, err)
			if n := s.Count(apitest.InvokePath(api.ToolSearch)); n != 1 {
				t.Errorf("search invoked %d times; only research is retried", n)
			}
		})
	}
}

func TestGETRetriesHonourRetryAfter(t *testing.T) {
	s := apitest.New(t)
	c := newClient(t, s)
	s.Script(api.PathTools, apitest.Drop(), apitest.RateLimited("1"), apitest.HTTPError(502, "upstream"))
	var events []api.RetryEvent
	ctx := api.WithRetryObserver(context.Background(), func(ev api.RetryEvent) { events = append(events, ev) })
	start := time.Now()
	tools, err := c.Tools(ctx)
	if err != nil || len(tools) != 5 {
		t.Fatalf("%v %v", tools, err)
	}
	if time.Since(start) < time.Second {
		t.Errorf("Retry-After 1 not honoured: %v", time.Since(start))
	}
	if len(events) != 3 || events[1].Wait < time.Second || events[0].Attempt != 1 || events[2].Attempt != 3 {
		t.Errorf("events = %+v", events)
	}
	if n := s.Count(api.PathTools); n != 4 {
		t.Errorf("calls = %d", n)
	}
}

func TestGETRetriesAreBounded(t *testing.T) {
	s := apitest.New(t)
	c := newClient(t, s, func(o *api.Options) { o.Retry.MaxAttempts = 3 })
	for i := 0; i < 5; i++ {
		s.Script(apitest.VoicesPath(api.DefaultProvider), apitest.HTTPError(500, "boom"))
	}
	_, err := c.Voices(context.Background(), "")
	if err == nil || s.Count(apitest.VoicesPath(api.DefaultProvider)) != 3 {
		t.Fatalf("err %v, calls %d", err, s.Count(apitest.VoicesPath(api.DefaultProvider)))
	}
	// A Retry-After beyond the time budget stops retrying at once.
	c = newClient(t, s, func(o *api.Options) { o.Retry.MaxElapsed = time.Second })
	s.Script(api.PathTools, apitest.RateLimited("30"))
	start := time.Now()
	_, err = c.Tools(context.Background())
	if !errors.Is(err, api.ErrRateLimited) || time.Since(start) > 5*time.Second {
		t.Errorf("err %v after %v", err, time.Since(start))
	}
}

func TestInvokeSendsInputsAndKeepsOutputRaw(t *testing.T) {
	s := apitest.New(t)
	c := newClient(t, s)
	res, err := c.Invoke(context.Background(), api.ToolSearch, map[string]any{"query": "go", "max_results": 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Service != api.SearchService || res.Tool != api.ToolSearch || !json.Valid(res.Output) {
		t.Fatalf("%+v", res)
	}
	var body map[string]map[string]any
	json.Unmarshal(s.Last(apitest.InvokePath(api.ToolSearch)).Body, &body)
	if body["inputs"]["query"] != "go" || body["inputs"]["max_results"] != float64(3) {
		t.Errorf("body = %v", body)
	}
	if ct := s.Last(apitest.InvokePath(api.ToolSearch)).Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	out, err := api.DecodeSearch(res.Output)
	if err != nil || len(out.Results) != 3 {
		t.Fatalf("%+v %v", out, err)
	}
	if _, err := c.Invoke(context.Background(), "../x", nil); err == nil || !strings.Contains(err.Error(), "tool") {
		t.Errorf("bad slug: %v", err)
	}
	// Data without output is reported, not returned empty.
	s.Script(apitest.InvokePath(api.ToolMap), apitest.OK(map[string]any{"service": "vendor_search"}))
	if _, err := c.Map(context.Background(), api.MapInput{URL: "https://x"}); err == nil {
		t.Error("missing output: no error")
	}
}

func TestTypedWrappers(t *testing.T) {
	s := apitest.New(t)
	c := newClient(t, s)
	ctx := context.Background()
	so, err := c.Search(ctx, api.SearchInput{Query: "cats", IncludeAnswer: true})
	if err != nil || so.Answer == "" || so.Query != "cats" {
		t.Errorf("search %+v %v", so, err)
	}
	eo, err := c.Extract(ctx, api.ExtractInput{URLs: api.URLList{"https://a", "https://fail"}})
	if err != nil || len(eo.Results) != 1 || len(eo.FailedResults) != 1 || eo.FailedResults[0].Error == "" {
		t.Errorf("extract %+v %v", eo, err)
	}
	co, err := c.Crawl(ctx, api.CrawlInput{URL: "https://a"})
	if err != nil || co.BaseURL != "https://a" || len(co.Results) != 2 {
		t.Errorf("crawl %+v %v", co, err)
	}
	mo, err := c.Map(ctx, api.MapInput{URL: "https://a"})
	if err != nil || len(mo.Results) != 3 {
		t.Errorf("map %+v %v", mo, err)
	}
	ro, err := c.Research(ctx, api.ResearchInput{Input: "why"})
	if err != nil || ro.Status != api.ResearchCompleted || ro.Content == "" || len(ro.Sources) != 1 {
		t.Errorf("research %+v %v", ro, err)
	}
	// Zero values stay off the wire so the gateway applies its defaults.
	var body map[string]map[string]any
	json.Unmarshal(s.Last(apitest.InvokePath(api.ToolCrawl)).Body, &body)
	if len(body["inputs"]) != 1 {
		t.Errorf("crawl inputs = %v", body["inputs"])
	}
}

func TestResearchRetriesAndReports(t *testing.T) {
	s := apitest.New(t)
	c := newClient(t, s)
	p := apitest.InvokePath(api.ToolResearch)
	s.Script(p, apitest.ResearchTimeout(), apitest.VendorStatus("Acme", 500, "busy"))
	var events []api.RetryEvent
	ctx := api.WithRetryObserver(context.Background(), func(ev api.RetryEvent) { events = append(events, ev) })
	out, err := c.Research(ctx, api.ResearchInput{Input: "q"})
	if err != nil || out.Status != api.ResearchCompleted {
		t.Fatalf("%+v %v", out, err)
	}
	if len(events) != 2 || !errors.Is(events[0].Err, api.ErrResearchTimeout) || events[1].Attempt != 2 || events[1].Wait <= 0 {
		t.Errorf("events = %+v", events)
	}
	// Bounded in count: three timeouts are the end.
	s.Script(p, apitest.ResearchTimeout(), apitest.ResearchTimeout(), apitest.ResearchTimeout())
	before := s.Count(p)
	_, err = c.Research(context.Background(), api.ResearchInput{Input: "q"})
	if !errors.Is(err, api.ErrResearchTimeout) || s.Count(p)-before != 3 {
		t.Errorf("err %v after %d calls", err, s.Count(p)-before)
	}
	// Errors retrying cannot fix are not retried.
	for _, r := range []apitest.Reply{apitest.CredentialsMissing(), apitest.Fail(400, "input: required"), apitest.HTTPError(401, "bad key")} {
		s.Script(p, r)
		before := s.Count(p)
		if _, err := c.Research(context.Background(), api.ResearchInput{Input: "q"}); err == nil || s.Count(p)-before != 1 {
			t.Errorf("%q: err %v, %d calls", r.Message, err, s.Count(p)-before)
		}
	}
}

func TestResearchBoundedInTime(t *testing.T) {
	s := apitest.New(t)
	c := newClient(t, s, func(o *api.Options) {
		o.Retry = api.RetryPolicy{BaseDelay: 300 * time.Millisecond, MaxDelay: 300 * time.Millisecond, ResearchMaxAttempts: 10, ResearchMaxElapsed: 500 * time.Millisecond}
	})
	p := apitest.InvokePath(api.ToolResearch)
	for i := 0; i < 10; i++ {
		s.Script(p, apitest.HTTPError(502, "upstream"))
	}
	start := time.Now()
	_, err := c.Research(context.Background(), api.ResearchInput{Input: "q"})
	if err == nil || time.Since(start) > 2*time.Second || s.Count(p) > 3 {
		t.Errorf("err %v after %v and %d calls", err, time.Since(start), s.Count(p))
	}
}

func TestSlowResearchIsCancelled(t *testing.T) {
	s := apitest.New(t)
	c := newClient(t, s)
	s.Script(apitest.InvokePath(api.ToolResearch), apitest.Slow(time.Minute, apitest.OK(nil)))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.Research(ctx, api.ResearchInput{Input: "q"})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
	if n := s.Count(apitest.InvokePath(api.ToolResearch)); n != 1 {
		t.Errorf("cancelled research retried: %d calls", n)
	}
}

func TestVoicesTTSSTT(t *testing.T) {
	s := apitest.New(t)
	c := newClient(t, s)
	ctx := context.Background()
	vs, err := c.Voices(ctx, "")
	if err != nil || len(vs) != 2 || vs[0].Value != "alice" {
		t.Fatalf("%+v %v", vs, err)
	}
	if _, err := c.Voices(ctx, "nope"); err == nil || !strings.Contains(err.Error(), "not enabled") {
		t.Errorf("unknown provider: %v", err)
	}
	if _, err := c.Voices(ctx, "a/b"); err == nil || !strings.Contains(err.Error(), "provider") {
		t.Errorf("bad provider: %v", err)
	}
	a, err := c.TTS(ctx, api.TTSRequest{Text: "hello", VoiceCode: "alice"})
	if err != nil || !bytes.Equal(a.Data, apitest.Synthesize("hello")) || a.SampleRate != apitest.SampleRate || a.DurationMs != 100 {
		t.Fatalf("tts %v %v", a != nil, err)
	}
	var sent api.TTSRequest
	json.Unmarshal(s.Last(api.PathTTS).Body, &sent)
	if sent.Provider != api.DefaultProvider {
		t.Errorf("provider = %q", sent.Provider)
	}
	s.Script(api.PathTTS, apitest.OK(map[string]any{"audio_data": "@@@", "format": "pcm"}))
	if _, err := c.TTS(ctx, api.TTSRequest{Text: "x", VoiceCode: "a"}); err == nil || !strings.Contains(err.Error(), "base64") {
		t.Errorf("bad base64: %v", err)
	}
	// A success that carries no audio, or no object, is an error naming
	// what is missing, not silence.
	s.Script(api.PathTTS, apitest.OK(nil), apitest.OK(map[string]any{"format": "pcm"}), apitest.OK(map[string]any{"audio_data": 5}))
	for _, want := range []string{"want a JSON object", "audio_data: missing", "audio_data"} {
		if _, err := c.TTS(ctx, api.TTSRequest{Text: "x", VoiceCode: "a"}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("tts answer without audio: %v, want %q", err, want)
		}
	}
	s.Script(api.PathSTT, apitest.OK([]string{"hi"}))
	if _, err := c.STT(ctx, api.STTRequest{}, []byte{1}); err == nil || !strings.Contains(err.Error(), "want a JSON object") {
		t.Errorf("stt answer that is not an object: %v", err)
	}
	audio := []byte{1, 2, 3, 4, 5}
	r, err := c.STT(ctx, api.STTRequest{Language: "en"}, audio)
	if err != nil || r.Text != apitest.Transcript(5) || r.Confidence != 0.9 {
		t.Fatalf("stt %+v %v", r, err)
	}
	var sreq api.STTRequest
	json.Unmarshal(s.Last(api.PathSTT).Body, &sreq)
	if sreq.AudioData != base64.StdEncoding.EncodeToString(audio) || sreq.Language != "en" {
		t.Errorf("stt body %+v", sreq)
	}
	if _, err := c.STT(ctx, api.STTRequest{}, nil); err == nil {
		t.Error("empty audio accepted")
	}
}

func TestKeyIsScrubbedFromErrors(t *testing.T) {
	s := apitest.New(t)
	c := newClient(t, s)
	s.Script(api.PathTTS, apitest.Fail(400, "bad key "+apitest.Key+" for workspace"))
	_, err := c.TTS(context.Background(), api.TTSRequest{Text: "x", VoiceCode: "a"})
	if err == nil || strings.Contains(err.Error(), apitest.Key) || !strings.Contains(err.Error(), "****") {
		t.Errorf("err = %v", err)
	}
}

func TestParseRetryAfterDate(t *testing.T) {
	s := apitest.New(t)
	c := newClient(t, s)
	s.Script(api.PathTTS, apitest.RateLimited(time.Now().Add(30*time.Second).UTC().Format(http1123)))
	_, err := c.TTS(context.Background(), api.TTSRequest{Text: "x", VoiceCode: "a"})
	var e *api.Error
	if !errors.As(err, &e) || e.RetryAfter < 20*time.Second || e.RetryAfter > 31*time.Second {
		t.Errorf("err %v", err)
	}
}

const http1123 = "Mon, 02 Jan 2006 15:04:05 GMT"

func TestCallInfoCarriesCredits(t *testing.T) {
	s := apitest.New(t)
	var calls []api.CallInfo
	var mu sync.Mutex
	c := newClient(t, s, func(o *api.Options) {
		o.OnCall = func(ci api.CallInfo) { mu.Lock(); calls = append(calls, ci); mu.Unlock() }
	})
	ctx := context.Background()
	last := func() api.CallInfo {
		mu.Lock()
		defer mu.Unlock()
		return calls[len(calls)-1]
	}

	// A gateway without usage accounting sends no headers.
	if _, err := c.Voices(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if ci := last(); ci.HasCredits || ci.CreditsUsed != 0 {
		t.Errorf("no headers: %+v", ci)
	}

	s.SetCredits(apitest.Credits{Used: 10, Limit: 100, Charge: 2})
	for want := int64(12); want <= 14; want += 2 {
		if _, err := c.Search(ctx, api.SearchInput{Query: "q"}); err != nil {
			t.Fatal(err)
		}
		ci := last()
		if !ci.HasCredits || ci.CreditsUsed != want || ci.CreditsLimit != 100 || ci.CreditsCharged != 2 {
			t.Errorf("after a call: %+v, want used %d of 100, charged 2", ci, want)
		}
	}

	// An error answer still reports usage, charging nothing.
	s.Script(apitest.InvokePath(api.ToolSearch), apitest.VendorStatus("Acme", 503, "down"))
	if _, err := c.Search(ctx, api.SearchInput{Query: "q"}); err == nil {
		t.Fatal("want an error")
	}
	if ci := last(); ci.Err == nil || !ci.HasCredits || ci.CreditsUsed != 14 || ci.CreditsCharged != 0 {
		t.Errorf("error answer: %+v", ci)
	}

	// No quota: X-Credits-Limit absent; a header that is not an integer
	// counts as absent.
	s.SetCredits(apitest.Credits{Used: 5, Charge: 1})
	if _, err := c.TTS(ctx, api.TTSRequest{Text: "hi", VoiceCode: "alice"}); err != nil {
		t.Fatal(err)
	}
	if ci := last(); !ci.HasCredits || ci.CreditsUsed != 6 || ci.CreditsLimit != 0 || ci.CreditsCharged != 1 {
		t.Errorf("no quota: %+v", ci)
	}
	s.Script(api.PathTTS, apitest.Reply{Data: api.TTSResponse{AudioData: "AAA="}, Header: map[string]string{api.HeaderCreditsUsed: "lots"}})
	if _, err := c.TTS(ctx, api.TTSRequest{Text: "hi", VoiceCode: "alice"}); err != nil {
		t.Fatal(err)
	}
	if ci := last(); ci.HasCredits {
		t.Errorf("X-Credits-Used: lots gave %+v", ci)
	}
}

// KeyFunc gives the key on the first request, not when the client is made:
// its failure is a *KeyError naming the source, sent nowhere and never
// retried; once it answers, every call (WebSocket handshakes included)
// carries the key and KeyFunc is not asked again.
func TestKeyFuncResolvedOnFirstRequest(t *testing.T) {
	s := apitest.New(t)
	var mu sync.Mutex
	asked, fail := 0, true
	var calls []api.CallInfo
	c := newClient(t, s, func(o *api.Options) {
		o.APIKey = ""
		o.KeyFunc = func(ctx context.Context) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			asked++
			if fail {
				return "", errors.New("api_key_command: failed: exit status 1")
			}
			return apitest.Key, nil
		}
		o.OnCall = func(ci api.CallInfo) { mu.Lock(); calls = append(calls, ci); mu.Unlock() }
	})
	mu.Lock()
	if asked != 0 {
		t.Errorf("KeyFunc asked %d times by New", asked)
	}
	mu.Unlock()
	_, err := c.Tools(context.Background())
	var ke *api.KeyError
	if !errors.As(err, &ke) || ke.Error() != "api_key_command: failed: exit status 1" {
		t.Fatalf("Tools with a failing key source: %v (%T)", err, err)
	}
	_, err = c.Research(context.Background(), api.ResearchInput{Input: "q"})
	mu.Lock()
	if !errors.As(err, &ke) || asked != 2 || s.Count(api.PathTools) != 0 || len(calls) != 2 || !errors.As(calls[0].Err, &ke) {
		t.Errorf("key failure: asked %d times (want 2, no retries), %d requests sent, calls %+v, research %v", asked, s.Count(api.PathTools), calls, err)
	}
	fail = false
	mu.Unlock()
	if _, err := c.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	st, err := c.TTSStream(context.Background(), api.TTSRequest{Text: "abc", VoiceCode: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	mu.Lock()
	defer mu.Unlock()
	if asked != 3 {
		t.Errorf("KeyFunc asked %d times, want once more after it failed", asked)
	}
	if got := s.Last(api.PathTools).Header.Get("Authorization"); got != "Bearer "+apitest.Key {
		t.Errorf("Authorization = %q", got)
	}
	if got := s.Last(api.PathTTSStream).Header.Get("Authorization"); got != "Bearer "+apitest.Key {
		t.Errorf("handshake Authorization = %q", got)
	}
}
