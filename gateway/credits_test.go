package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/pgtest"
)

// creditHeaders reads the three credit headers; "-" stands for absent.
func creditHeaders(h http.Header) (used, limit, charged string) {
	get := func(k string) string {
		if v := h.Values(k); len(v) > 0 {
			return v[0]
		}
		return "-"
	}
	return get(HeaderCreditsUsed), get(HeaderCreditsLimit), get(HeaderCreditsCharged)
}

func TestCreditHeaders(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) { c.Workspaces[0].CreditQuota = 6 })
	want := func(what string, h http.Header, used, limit, charged string) {
		t.Helper()
		u, l, c := creditHeaders(h)
		if u != used || l != limit || c != charged {
			t.Fatalf("%s: used %s limit %s charged %s, want %s %s %s", what, u, l, c, used, limit, charged)
		}
	}
	search := func(key, depth, query string) (int, http.Header) {
		s, _, h := g.call(t, "POST", invokePath(api.ToolSearch), key,
			map[string]any{"inputs": map[string]any{"query": query, "search_depth": depth}})
		return s, h
	}
	_, _, h := g.call(t, "GET", api.PathTools, g.key, nil)
	want("tool list", h, "0", "6", "0")
	s, h := search(g.key, "advanced", "q")
	if s != 200 {
		t.Fatalf("search: %d", s)
	}
	want("advanced search", h, "2", "6", "2")
	_, h = search(g.key, "nope", "q")
	want("invalid input", h, "2", "6", "0")
	_, h = search(g.key, "basic", "vendor-down")
	want("vendor failure", h, "2", "6", "0")
	s, _, h = g.call(t, "POST", api.PathTTS, g.key, `{"provider":"vendor_speech","text":"one two","voice_code":"tone"}`)
	if s != 200 {
		t.Fatalf("tts: %d", s)
	}
	want("tts", h, "3", "6", "1")
	_, _, h = g.call(t, "GET", "/v1/openapi/third-party-service/voice/vendor_speech/voices", g.key, nil)
	want("voice list", h, "3", "6", "0")
	search(g.key, "advanced", "q")
	s, h = search(g.key, "advanced", "q") // 7 of 6
	if s != 402 {
		t.Fatalf("over quota: %d", s)
	}
	want("quota exhausted", h, "5", "6", "0")

	// A workspace without a quota has no limit header.
	_, h = search(g.keys["partial"], "basic", "q")
	want("unlimited workspace", h, "1", "-", "1")
	// Unauthenticated answers carry none.
	_, _, h = g.call(t, "GET", api.PathTools, "hark_wrong", nil)
	want("bad key", h, "-", "-", "-")
	_, _, h = g.call(t, "GET", "/v1/nowhere", g.key, nil)
	want("no route", h, "-", "-", "-")

	// A stream's handshake reports the count and limit, not a charge; the
	// stream's credits show in the next response.
	conn, resp, err := g.dialWS(t, api.PathTTSStream, http.Header{"Authorization": {"Bearer " + g.key}})
	if err != nil {
		t.Fatal(err)
	}
	want("stream handshake", resp.Header, "5", "6", "-")
	conn.WriteJSON(api.TTSRequest{Provider: api.DefaultProvider, Text: "hi", VoiceCode: "tone"})
	for {
		var f api.TTSFinalFrame
		mt, data, err := conn.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		if mt == 1 && jsonInto(data, &f) && f.IsFinal {
			break
		}
	}
	conn.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, _, h = g.call(t, "GET", api.PathTools, g.key, nil)
		if u, _, _ := creditHeaders(h); u == "6" || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	want("after the stream", h, "6", "6", "0")
	// The header agrees with the database.
	if used, err := g.srv.CreditsUsed(context.Background(), "local"); err != nil || used != 6 {
		t.Fatalf("CreditsUsed = %d, %v", used, err)
	}
}

func jsonInto(data []byte, v any) bool { return json.Unmarshal(data, v) == nil }

// vendor_research answers only finished tasks: completed with content, or
// failed (a 200 that costs nothing); anything else from an engine is an
// error, and so uncharged.
func TestResearchOutcomes(t *testing.T) {
	t.Parallel()
	g := startGateway(t, nil)
	research := func(input string) (int, api.Envelope, http.Header) {
		return g.call(t, "POST", invokePath(api.ToolResearch), g.key, map[string]any{"inputs": map[string]any{"input": input}})
	}
	s, env, h := research("tides")
	if _, _, c := creditHeaders(h); s != 200 || c != "4" {
		t.Fatalf("completed: %d %s, charged %s", s, env.Message, c)
	}
	s, env, h = research("doomed")
	var res api.InvokeResult
	var out api.ResearchOutput
	if s != 200 || json.Unmarshal(env.Data, &res) != nil || json.Unmarshal(res.Output, &out) != nil || out.Status != api.ResearchFailed {
		t.Fatalf("failed: %d %s", s, env.Data)
	}
	if _, _, c := creditHeaders(h); c != "0" {
		t.Fatalf("failed research charged %s", c)
	}
	for input, msg := range map[string]string{
		"unfinished": "research task r3: the engine returned while the task was still in_progress",
		"empty":      "research task r4: completed without content",
		"odd":        `research task r5: unknown status "done"`,
	} {
		s, env, h := research(input)
		wantError(t, s, env, 500, msg)
		if _, _, c := creditHeaders(h); c != "0" {
			t.Fatalf("%s charged %s", input, c)
		}
	}
}

// Two gateways on one database (replicas on PostgreSQL, processes on one
// gateway.db): the credit headers of an answer come from the same read as
// its reservation, so they show the other's spending at once, and a 402's
// X-Credits-Used says what its message says.
func TestCreditHeadersAgreeAcrossGateways(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			key, _ := auth.NewAPIKey()
			team := config.LocalWorkspace(auth.HashKey(key))
			team.CreditQuota, team.QuotaPeriod = 5, "day"
			cfg := &config.Config{Limits: config.Limits{RatePerSecond: 1000, RateBurst: 1000}, Workspaces: []config.Workspace{team}}
			var a, b *testGW
			if backend == "sqlite" {
				dir := t.TempDir()
				a, b = startSQLiteReplica(t, cfg, dir), startSQLiteReplica(t, cfg, dir)
			} else {
				url := pgtest.Fresh(t)
				a, b = startPGReplica(t, cfg, url), startPGReplica(t, cfg, url)
			}
			search := `{"inputs":{"query":"q"}}`
			// b answers once, so that its count is loaded, then a spends.
			if s, _, h := b.call(t, "POST", invokePath(api.ToolSearch), key, search); s != 200 || h.Get(HeaderCreditsUsed) != "1" {
				t.Fatalf("b: %d, used %s", s, h.Get(HeaderCreditsUsed))
			}
			for range 3 {
				if s, _, _ := a.call(t, "POST", invokePath(api.ToolSearch), key, search); s != 200 {
					t.Fatalf("a: %d", s)
				}
			}
			// b's next answer counts a's three calls, without waiting for
			// its count's resync.
			s, _, h := b.call(t, "POST", invokePath(api.ToolSearch), key, search)
			if used, limit, charged := creditHeaders(h); s != 200 || used != "5" || limit != "5" || charged != "1" {
				t.Fatalf("b after a spent: %d, used %s limit %s charged %s; want 5 5 1", s, used, limit, charged)
			}
			// a's count is behind (it last saw 4); its refusal reads 5, and
			// says 5 in its message and its header alike.
			s, env, h := a.call(t, "POST", invokePath(api.ToolSearch), key, search)
			wantError(t, s, env, http.StatusPaymentRequired, "5 of 5 credits used this day")
			if used, limit, charged := creditHeaders(h); used != "5" || limit != "5" || charged != "0" {
				t.Fatalf("the 402: used %s limit %s charged %s; want 5 5 0", used, limit, charged)
			}
		})
	}
}
