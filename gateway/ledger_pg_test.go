package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/engine"
	"hark/gateway/pgtest"
	"hark/gateway/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// openPG is a pool of the PostgreSQL database at url, as a replica has.
func openPG(t *testing.T, url string) *store.DB {
	t.Helper()
	db, err := store.OpenPostgres(context.Background(), url, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

// startPGReplica is one `hark serve` on the PostgreSQL database at url,
// on its own loopback server.
func startPGReplica(t *testing.T, cfg *config.Config, url string, opts ...func(*Options)) *testGW {
	t.Helper()
	return startReplica(t, cfg, openPG(t, url), opts...)
}

// startSQLiteReplica is one `hark serve` on the gateway.db of dir, with a
// handle of its own, as another process on the same file has.
func startSQLiteReplica(t *testing.T, cfg *config.Config, dir string) *testGW {
	t.Helper()
	raw, err := store.OpenDB(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return startReplica(t, cfg, store.FromSQLite(raw))
}

// startReplica is a gateway on db, on its own loopback server; opts
// change its Options.
func startReplica(t *testing.T, cfg *config.Config, db *store.DB, opts ...func(*Options)) *testGW {
	t.Helper()
	g := &testGW{web: newTestWeb(), logs: &syncBuffer{}, done: make(chan error, 1)}
	o := Options{
		Config: cfg, DB: db,
		Logger: slog.New(slog.NewJSONHandler(g.logs, nil)),
		Engines: Engines{
			Web: func(string, config.Search) (engine.Web, error) { return g.web.bundle(), nil },
		},
	}
	for _, f := range opts {
		f(&o)
	}
	srv, err := New(o)
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
	})
	return g
}

// Three replicas on one PostgreSQL take a burst of three times a
// workspace's quota on one key, spread over them: exactly the quota is
// served, the rest get the spec's 402, and the ledger's rows add up to
// the credits charged.
func TestPGReplicasShareOneQuota(t *testing.T) {
	url := pgtest.Fresh(t)
	const quota = 12
	key, err := auth.NewAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	team := config.LocalWorkspace(auth.HashKey(key))
	team.Name, team.CreditQuota, team.QuotaPeriod = "team", quota, "day"
	cfg := &config.Config{
		Limits:     config.Limits{RatePerSecond: 1000, RateBurst: 1000, MaxInvoke: 64, QueueLength: 64, CPUSeats: 64},
		Workspaces: []config.Workspace{team},
	}
	var replicas []*testGW
	for range 3 {
		replicas = append(replicas, startPGReplica(t, cfg, url))
	}
	// "slow" holds each call 50 ms, so reservations of all three
	// replicas are in flight together.
	codes, charged := spreadCalls(t, replicas, key, 3*quota, "slow", func(status int, env api.Envelope, h http.Header) {
		if status != http.StatusPaymentRequired {
			return
		}
		if !strings.Contains(env.Message, "credit quota exhausted") {
			t.Errorf("402 message %q", env.Message)
		}
		// Retry-After: the seconds until the day's quota renews.
		if ra, err := strconv.Atoi(h.Get("Retry-After")); err != nil || ra < 1 || ra > 86400 {
			t.Errorf("402 with Retry-After %q", h.Get("Retry-After"))
		}
	})
	if codes[200] != quota || codes[402] != 2*quota || len(codes) != 2 {
		t.Fatalf("statuses %v, want %d x 200 and %d x 402", codes, quota, 2*quota)
	}
	if charged != quota {
		t.Fatalf("X-Credits-Charged adds up to %d, want %d", charged, quota)
	}
	// The ledger: one settled row per call served, none pending, and its
	// credits and the running total equal to what was charged.
	l := openPG(t, url)
	ctx := context.Background()
	var rows, ok, pending, credits, total int64
	if err := l.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE status='ok'), count(*) FILTER (WHERE status='pending'), COALESCE(SUM(credits),0)
		FROM gateway_usage WHERE workspace='team'`).Scan(&rows, &ok, &pending, &credits); err != nil {
		t.Fatal(err)
	}
	if err := l.QueryRow(ctx, `SELECT used FROM gateway_credit_totals WHERE workspace='team'`).Scan(&total); err != nil {
		t.Fatal(err)
	}
	if rows != quota || ok != quota || pending != 0 || credits != int64(charged) || total != int64(charged) {
		t.Fatalf("ledger: %d rows, %d ok, %d pending, %d credits, total %d; charged %d", rows, ok, pending, credits, total, charged)
	}
	for _, g := range replicas {
		if used, err := g.srv.CreditsUsed(ctx, "team"); err != nil || used != quota {
			t.Errorf("a replica reports %d used (%v), want %d", used, err, quota)
		}
	}
	// A fourth replica started now sees the spent quota at once.
	late := startPGReplica(t, cfg, url)
	status, env, _ := late.call(t, "POST", invokePath(api.ToolSearch), key, `{"inputs":{"query":"q"}}`)
	wantError(t, status, env, http.StatusPaymentRequired, fmt.Sprintf("%d of %d credits used this day", quota, quota))
}
