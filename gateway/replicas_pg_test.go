package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/pgtest"
)

// Three replicas on one PostgreSQL take a burst of three times a key's
// rate-limit burst, spread over them: exactly the burst is served, the
// rest get the spec's 429 with Retry-After, and the ledger holds one row
// per call served with the credits charged.
func TestPGReplicasShareOneRateLimit(t *testing.T) {
	url := pgtest.Fresh(t)
	const burst = 15
	key, err := auth.NewAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	team := config.LocalWorkspace(auth.HashKey(key))
	team.Name = "team"
	cfg := &config.Config{
		// 0.01 a second: no token comes back while the test runs.
		Limits:     config.Limits{RatePerSecond: 0.01, RateBurst: burst, MaxInvoke: 64, QueueLength: 64, CPUSeats: 64},
		Workspaces: []config.Workspace{team},
	}
	var replicas []*testGW
	for range 3 {
		replicas = append(replicas, startPGReplica(t, cfg, url))
	}
	codes, charged := spreadCalls(t, replicas, key, 3*burst, "q", func(status int, env api.Envelope, h http.Header) {
		if status != http.StatusTooManyRequests {
			return
		}
		if !strings.Contains(env.Message, "rate limit exceeded") {
			t.Errorf("429 message %q", env.Message)
		}
		if ra, err := strconv.Atoi(h.Get("Retry-After")); err != nil || ra < 1 {
			t.Errorf("429 with Retry-After %q", h.Get("Retry-After"))
		}
	})
	if codes[200] != burst || codes[429] != 2*burst || len(codes) != 2 {
		t.Fatalf("statuses %v, want %d x 200 and %d x 429", codes, burst, 2*burst)
	}
	l := openPG(t, url)
	var rows, credits int64
	if err := l.QueryRow(context.Background(), `SELECT count(*), COALESCE(SUM(credits),0) FROM gateway_usage WHERE workspace='team' AND status='ok'`).Scan(&rows, &credits); err != nil {
		t.Fatal(err)
	}
	if rows != burst || credits != int64(charged) {
		t.Fatalf("ledger: %d ok rows with %d credits; %d calls served, %d credits charged", rows, credits, burst, charged)
	}
}

// spreadCalls makes n search calls with key at once, spread over the
// replicas in turn, and returns how many got each status and the credits
// the 200s charged (X-Credits-Charged); check sees every answer.
func spreadCalls(t *testing.T, replicas []*testGW, key string, n int, query string, check func(status int, env api.Envelope, h http.Header)) (codes map[int]int, charged int) {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes = map[int]int{}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, env, h := replicas[i%len(replicas)].call(t, "POST", invokePath(api.ToolSearch), key, `{"inputs":{"query":"`+query+`"}}`)
			mu.Lock()
			defer mu.Unlock()
			codes[status]++
			if status == http.StatusOK {
				_, _, c := creditHeaders(h)
				k, err := strconv.Atoi(c)
				if err != nil {
					t.Errorf("200 without X-Credits-Charged: %q", c)
				}
				charged += k
			}
			check(status, env, h)
		}()
	}
	wg.Wait()
	return codes, charged
}

// waitStatus calls g until it answers want, for at most within, and
// returns how long that took.
func waitStatus(t *testing.T, g *testGW, key string, want int, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		status, _, _ := g.call(t, "POST", invokePath(api.ToolSearch), key, `{"inputs":{"query":"q"}}`)
		if status == want {
			return time.Since(start)
		}
		if time.Since(start) > within {
			t.Fatalf("still %d after %s, want %d", status, within, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A key added on one replica works on the other within a second; revoked
// there, the other refuses it within a second. So does a key of
// gateway.toml, which the database can revoke though it never stored it.
func TestPGKeysAddRevokeAcrossReplicas(t *testing.T) {
	url := pgtest.Fresh(t)
	seed, err := auth.NewAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	team := config.LocalWorkspace(auth.HashKey(seed))
	team.Name = "team"
	cfg := &config.Config{Limits: config.Limits{RatePerSecond: 1000, RateBurst: 1000}, Workspaces: []config.Workspace{team}}
	a, b := startPGReplica(t, cfg, url), startPGReplica(t, cfg, url)
	admin := auth.NewStore(openPG(t, url)) // what `hark serve keys` opens
	ctx := context.Background()

	key, info, err := admin.Add(ctx, cfg, names(cfg), auth.New{Workspace: "team", Name: "alice laptop"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if info.ID != auth.HashKey(key)[:8] || info.Workspace != "team" || info.Source != auth.KeySourceDB {
		t.Fatalf("added %+v", info)
	}
	t.Logf("added key works after %s", waitStatus(t, b, key, 200, time.Second))
	if status, _, _ := a.call(t, "POST", invokePath(api.ToolSearch), key, `{"inputs":{"query":"q"}}`); status != 200 {
		t.Fatalf("replica a answers the new key %d", status)
	}
	if _, err := admin.Revoke(ctx, cfg, info.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	t.Logf("revoked key refused after %s", waitStatus(t, b, key, http.StatusUnauthorized, time.Second))
	waitStatus(t, a, key, http.StatusUnauthorized, time.Second)

	seedID := auth.HashKey(seed)[:8]
	if _, err := admin.Revoke(ctx, cfg, seedID, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, b, seed, http.StatusUnauthorized, time.Second)
	// A replica started now refuses it from the start: gateway.toml does
	// not revive a revoked key.
	c := startPGReplica(t, cfg, url)
	status, env, _ := c.call(t, "POST", invokePath(api.ToolSearch), seed, `{"inputs":{"query":"q"}}`)
	wantError(t, status, env, http.StatusUnauthorized, "invalid API key")

	keys, err := admin.List(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 || keys[0].Revoked.IsZero() || keys[1].Revoked.IsZero() {
		t.Fatalf("ListKeys = %+v, want both revoked", keys)
	}
	for _, k := range keys {
		if strings.Contains(k.Name+k.ID, key[5:20]) {
			t.Fatalf("ListKeys shows a secret: %+v", k)
		}
	}
}

// The rate limit's state lives in the database: a replica started after
// a burst finds the key's bucket empty.
func TestPGRateLimitSurvivesRestart(t *testing.T) {
	url := pgtest.Fresh(t)
	key, _ := auth.NewAPIKey()
	team := config.LocalWorkspace(auth.HashKey(key))
	cfg := &config.Config{Limits: config.Limits{RatePerSecond: 0.01, RateBurst: 2}, Workspaces: []config.Workspace{team}}
	a := startPGReplica(t, cfg, url)
	for range 2 {
		if status, _, _ := a.call(t, "POST", invokePath(api.ToolSearch), key, `{"inputs":{"query":"q"}}`); status != 200 {
			t.Fatalf("status %d", status)
		}
	}
	b := startPGReplica(t, cfg, url)
	status, env, h := b.call(t, "POST", invokePath(api.ToolSearch), key, `{"inputs":{"query":"q"}}`)
	wantError(t, status, env, http.StatusTooManyRequests, "rate limit exceeded")
	// One token at 0.01 a second is 100 s away.
	if ra, _ := strconv.Atoi(h.Get("Retry-After")); ra < 90 || ra > 100 {
		t.Fatalf("Retry-After %q, want about 100", h.Get("Retry-After"))
	}
	// A token given back (a call shed before it ran) is there for the
	// next call on any replica, and only one.
	if err := b.srv.limiter.GiveBack(context.Background(), auth.HashKey(key), 2); err != nil {
		t.Fatal(err)
	}
	if status, _, _ := a.call(t, "POST", invokePath(api.ToolSearch), key, `{"inputs":{"query":"q"}}`); status != 200 {
		t.Fatalf("after giveBack: status %d", status)
	}
	status, env, _ = b.call(t, "POST", invokePath(api.ToolSearch), key, `{"inputs":{"query":"q"}}`)
	wantError(t, status, env, http.StatusTooManyRequests, "rate limit exceeded")
}

// With its database gone, a replica refuses calls with 503 and
// Retry-After at once (the shared limiter cannot be read), never lets a
// key past its rate unchecked, and never hangs.
func TestPGDatabaseDownRefuses(t *testing.T) {
	cluster := pgtest.Start(t)
	key, _ := auth.NewAPIKey()
	cfg := &config.Config{Limits: config.Limits{RatePerSecond: 1000, RateBurst: 1000}, Workspaces: []config.Workspace{config.LocalWorkspace(auth.HashKey(key))}}
	g := startPGReplica(t, cfg, cluster.URL())
	if status, _, _ := g.call(t, "POST", invokePath(api.ToolSearch), key, `{"inputs":{"query":"q"}}`); status != 200 {
		t.Fatalf("status %d before the database stops", status)
	}
	if err := cluster.Stop(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	status, env, h := g.call(t, "POST", invokePath(api.ToolSearch), key, `{"inputs":{"query":"q"}}`)
	wantError(t, status, env, http.StatusServiceUnavailable, "rate limiter unavailable")
	if h.Get("Retry-After") == "" || time.Since(start) > 5*time.Second {
		t.Fatalf("Retry-After %q after %s", h.Get("Retry-After"), time.Since(start))
	}
}

// logRecords are a gateway's JSON log lines, decoded.
func logRecords(t *testing.T, logs string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs), "\n") {
		var r map[string]any
		if json.Unmarshal([]byte(l), &r) == nil {
			out = append(out, r)
		}
	}
	return out
}

// While PostgreSQL is down, a replica logs the outage once, then sums it
// up at growing intervals, not River's "Error fetching jobs" 20 times a
// second; it says "recovered" when the database answers again, and takes
// calls.
func TestPGOutageIsLoggedQuietly(t *testing.T) {
	cluster := pgtest.Start(t) // this test stops its server
	key, _ := auth.NewAPIKey()
	cfg := &config.Config{Limits: config.Limits{RatePerSecond: 1000, RateBurst: 1000},
		Workspaces: []config.Workspace{config.LocalWorkspace(auth.HashKey(key))}}
	g := startPGReplica(t, cfg, cluster.URL(), func(o *Options) {
		o.OutageTiming = OutageTiming{FirstSummary: time.Second, PingEvery: 100 * time.Millisecond}
	})
	if status, _, _ := g.call(t, "POST", invokePath(api.ToolSearch), key, `{"inputs":{"query":"q"}}`); status != 200 {
		t.Fatalf("status %d before the outage", status)
	}
	if err := cluster.Halt(); err != nil {
		t.Fatal(err)
	}
	// Calls through the outage, each refused (503), each with its access
	// line, none a warning of its own: River polls every 50 ms meanwhile,
	// some 70 failed fetches.
	refused := 0
	for end := time.Now().Add(3500 * time.Millisecond); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if status, _, _ := g.call(t, "POST", invokePath(api.ToolSearch), key, `{"inputs":{"query":"q"}}`); status == http.StatusServiceUnavailable {
			refused++
		}
	}
	if refused < 5 {
		t.Fatalf("%d calls refused through the outage, want every one (at least 5)", refused)
	}
	count := func(msg string) (n int) {
		for _, r := range logRecords(t, g.logs.String()) {
			if r["msg"] == msg {
				n++
			}
		}
		return n
	}
	noisy := func() (lines []string) {
		for _, r := range logRecords(t, g.logs.String()) {
			switch r["msg"] {
			case "database unavailable: its errors are counted, not logged, until it answers again", "database still unavailable", "database recovered":
				continue
			}
			if r["level"] == "WARN" || r["level"] == "ERROR" {
				lines = append(lines, fmt.Sprint(r["msg"]))
			}
		}
		return lines
	}
	if n := count("database unavailable: its errors are counted, not logged, until it answers again"); n != 1 {
		t.Fatalf("the outage logged %d times, want once:\n%s", n, g.logs.String())
	}
	// 1 s, then 2 s later: two summaries in 3.5 s.
	if n := count("database still unavailable"); n < 1 || n > 2 {
		t.Errorf("%d summaries in 3.5 s, want 1 or 2 (1 s, then 3 s)", n)
	}
	if lines := noisy(); len(lines) > 0 {
		t.Errorf("%d warnings and errors logged through the outage: %q", len(lines), lines)
	}
	if n := count("request"); n < refused {
		t.Errorf("%d access lines for %d calls refused: every request keeps its line", n, refused)
	}
	if err := cluster.Resume(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the recovery's line", func() bool { return count("database recovered") == 1 })
	for _, r := range logRecords(t, g.logs.String()) {
		if r["msg"] == "database recovered" {
			if n, _ := r["suppressed"].(float64); n < 10 {
				t.Errorf("recovered after %v with %v records held back; River polled far more", r["after"], r["suppressed"])
			}
			t.Logf("recovered after %v, %v records held back", r["after"], r["suppressed"])
		}
	}
	waitFor(t, "a call answered after the recovery", func() bool {
		status, _, _ := g.call(t, "POST", invokePath(api.ToolSearch), key, `{"inputs":{"query":"q"}}`)
		return status == 200
	})
}
