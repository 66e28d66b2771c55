package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/config"
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

// The in-memory count follows this process's writes exactly, sees another
// process's writes within creditResync, and starts again at a new period.
func TestCreditCountResync(t *testing.T) {
	t.Parallel()
	db, err := OpenDB(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	u := &usageStore{ledger: newSQLiteLedger(db), now: func() time.Time { return now }}
	ctx := context.Background()
	if err := u.init(ctx); err != nil {
		t.Fatal(err)
	}
	ws := &workspace{name: "w"}
	count := func() int64 {
		t.Helper()
		n, err := u.creditsUsed(ctx, ws)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	res, _ := u.reserve(ctx, ws, "k", "t1", "vendor_search", 2)
	if err := u.settle(res, 2, nil, 0); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 2 {
		t.Fatalf("after a call: %d", n)
	}
	// Another process records 5 credits.
	if _, err := db.Exec(`INSERT INTO gateway_usage(ts,workspace,key_id,trace_id,operation,credits,status) VALUES(?,?,?,?,?,?,'ok')`,
		now.UnixMilli(), "w", "k2", "t2", "vendor_crawl", 5); err != nil {
		t.Fatal(err)
	}
	res, _ = u.reserve(ctx, ws, "k", "t3", "vendor_search", 1)
	if n := count(); n != 2 {
		t.Fatalf("an unfinished call counts nothing yet: %d", n)
	}
	u.settle(res, 1, nil, 0)
	if n := count(); n != 3 {
		t.Fatalf("before the resync: %d", n)
	}
	now = now.Add(creditResync - time.Second)
	if n := count(); n != 3 {
		t.Fatalf("still before the resync: %d", n)
	}
	now = now.Add(2 * time.Second)
	// A stale count is answered at once and re-read in the background.
	for deadline := time.Now().Add(5 * time.Second); count() != 8; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after the resync: %d", count())
		}
	}
	now = time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	if n := count(); n != 0 {
		t.Fatalf("new period: %d", n)
	}
	// A call that started last month settles without touching this month.
	ws2 := &workspace{name: "w", quota: 100}
	now = time.Date(2026, 4, 30, 23, 59, 59, 0, time.UTC)
	res, err = u.reserve(ctx, ws2, "k", "t4", "vendor_research", 4)
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Second)
	if n, _ := u.creditsUsed(ctx, ws2); n != 0 {
		t.Fatalf("May: %d", n)
	}
	u.settle(res, 4, nil, 0)
	if n, _ := u.creditsUsed(ctx, ws2); n != 0 {
		t.Fatalf("May after an April call settled: %d", n)
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

// A gateway killed mid-call leaves pending rows; the next start refunds
// those of processes no longer running, and only those.
func TestAbandonedPendingRowsAreRefunded(t *testing.T) {
	t.Parallel()
	db, err := OpenDB(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	l := newSQLiteLedger(db)
	ctx := context.Background()
	if err := l.init(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, holder := range []string{"2147483646:1", "", l.holder} {
		if _, err := db.Exec(`INSERT INTO gateway_usage(ts,workspace,key_id,trace_id,operation,credits,status,holder) VALUES(?,?,?,?,?,?,'pending',?)`,
			now.UnixMilli(), "w", "k", "t", "vendor_search", 3, holder); err != nil {
			t.Fatal(err)
		}
	}
	u := &usageStore{ledger: l, now: time.Now}
	if err := u.init(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := l.recent(ctx, "w", 10)
	if err != nil {
		t.Fatal(err)
	}
	pending, refunded := 0, 0
	for _, r := range rows {
		switch {
		case r.Status == "pending":
			pending++
		case r.Status == "error" && r.Credits == 0 && r.Error == msgAbandoned:
			refunded++
		}
	}
	if pending != 1 || refunded != 2 {
		t.Errorf("%d pending (want 1: this process's), %d refunded (want 2): %+v", pending, refunded, rows)
	}
}

// The running totals follow reservations, refunds and settlements, and
// are recomputed from the rows after a reset (every start).
func TestLedgerTotalsFollowTheRows(t *testing.T) {
	t.Parallel()
	db, err := OpenDB(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	u := &usageStore{ledger: newSQLiteLedger(db), now: func() time.Time { return now }}
	ctx := context.Background()
	if err := u.init(ctx); err != nil {
		t.Fatal(err)
	}
	ws := &workspace{name: "w", quota: 5}
	a, err := u.reserve(ctx, ws, "k", "t1", "vendor_search", 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.reserve(ctx, ws, "k", "t2", "vendor_search", 3); err == nil {
		t.Fatal("3 + 3 credits passed a quota of 5")
	}
	u.settle(a, 0, errors.New("vendor failed"), 0) // refunded
	b, err := u.reserve(ctx, ws, "k", "t3", "vendor_search", 4)
	if err != nil {
		t.Fatalf("after the refund: %v", err)
	}
	u.settle(b, 2, nil, 0) // cost less than reserved
	if err := u.ledger.resetTotals(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := u.reserve(ctx, ws, "k", "t4", "vendor_search", 3); err != nil {
		t.Fatalf("2 used, 3 more within 5: %v", err)
	}
	var qe *quotaError
	if _, err := u.reserve(ctx, ws, "k", "t5", "vendor_search", 1); !errors.As(err, &qe) || qe.used != 5 {
		t.Fatalf("a sixth credit: %v", err)
	}
}
