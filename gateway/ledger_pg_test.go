package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/engine"
	"hark/gateway/pgtest"
)

func openPG(t *testing.T, url string) *PGLedger {
	t.Helper()
	l, err := OpenPGLedger(context.Background(), url, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

// startPGReplica is one `hark serve` on the PostgreSQL ledger at url, with
// its own gateway.db for everything else, on its own loopback server.
func startPGReplica(t *testing.T, cfg *config.Config, url string) *testGW {
	t.Helper()
	g := &testGW{web: newTestWeb(), logs: &syncBuffer{}, done: make(chan error, 1)}
	db, err := OpenDB(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	srv, err := New(Options{
		Config: cfg, DB: db, Ledger: openPG(t, url),
		Logger: slog.New(slog.NewJSONHandler(g.logs, nil)),
		Engines: Engines{
			Web: func(string, config.Search) (engine.Web, error) { return g.web.bundle(), nil },
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
	})
	return g
}

// Three replicas on one PostgreSQL take a burst of three times a
// workspace's quota on one key, spread over them: exactly the quota is
// served, the rest get the spec's 402, and the ledger's rows add up to
// the credits charged.
func TestPGReplicasShareOneQuota(t *testing.T) {
	url := pgtest.Start(t).URL()
	const quota = 12
	key, err := auth.NewAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	team := config.LocalWorkspace(auth.HashKey(key))
	team.Name, team.CreditQuota, team.QuotaPeriod = "team", quota, "day"
	cfg := &config.Config{
		Limits:     config.Limits{RatePerSecond: 1000, RateBurst: 1000, MaxInvoke: 64, QueueLength: 64},
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
	if err := l.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE status='ok'), count(*) FILTER (WHERE status='pending'), COALESCE(SUM(credits),0)
		FROM gateway_usage WHERE workspace='team'`).Scan(&rows, &ok, &pending, &credits); err != nil {
		t.Fatal(err)
	}
	if err := l.pool.QueryRow(ctx, `SELECT used FROM gateway_credit_totals WHERE workspace='team'`).Scan(&total); err != nil {
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

// Migrations run once, in order, are recorded, and a database from a
// newer hark is refused untouched.
func TestPGMigrations(t *testing.T) {
	url := pgtest.Start(t).URL()
	ctx := context.Background()
	l := openPG(t, url)
	for range 2 {
		v, err := l.Migrate(ctx)
		if err != nil || v != SchemaVersion {
			t.Fatalf("Migrate = %d, %v; want %d", v, err, SchemaVersion)
		}
	}
	var n int
	if err := l.pool.QueryRow(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != SchemaVersion {
		t.Fatalf("schema_migrations holds %d rows (%v), want %d", n, err, SchemaVersion)
	}
	if _, err := l.pool.Exec(ctx, `INSERT INTO schema_migrations(version) VALUES(99)`); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Migrate(ctx); err == nil || !strings.Contains(err.Error(), "version 99, newer than this hark knows") {
		t.Fatalf("a newer schema: %v", err)
	}
}

// Pending rows of a dead process of this machine are refunded at start,
// and their credits leave the running total; a live process's rows and
// another machine's are left.
func TestPGAbandonedRowsAreRefunded(t *testing.T) {
	url := pgtest.Start(t).URL()
	ctx := context.Background()
	l := openPG(t, url)
	if err := l.init(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	period := periodStart(now, "day")
	ws := &workspace{name: "w", quota: 100, quotaPeriod: "day"}
	u := &usageStore{ledger: l, now: time.Now}
	if _, err := u.reserve(ctx, ws, "k", "live", "vendor_search", 5); err != nil { // this process: alive
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	for _, holder := range []string{host + "/2147483646:1", "another-machine/2147483646:1"} {
		if _, err := l.pool.Exec(ctx, `INSERT INTO gateway_usage(ts,workspace,key_id,trace_id,operation,credits,status,holder) VALUES($1,'w','k','t','vendor_search',3,'pending',$2)`,
			now.UnixMilli(), holder); err != nil {
			t.Fatal(err)
		}
		if _, err := l.pool.Exec(ctx, `UPDATE gateway_credit_totals SET used=used+3 WHERE workspace='w' AND period_start=$1`, period.UnixMilli()); err != nil {
			t.Fatal(err)
		}
	}
	if err := u.init(ctx); err != nil {
		t.Fatal(err)
	}
	var refunded, pending, total int64
	if err := l.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE error=$1 AND credits=0), count(*) FILTER (WHERE status='pending') FROM gateway_usage`,
		msgAbandoned).Scan(&refunded, &pending); err != nil {
		t.Fatal(err)
	}
	if err := l.pool.QueryRow(ctx, `SELECT used FROM gateway_credit_totals WHERE workspace='w'`).Scan(&total); err != nil {
		t.Fatal(err)
	}
	if refunded != 1 || pending != 2 || total != 8 {
		t.Fatalf("%d refunded (want 1), %d pending (want 2), total %d (want 5+3)", refunded, pending, total)
	}
	// The usage list reads them back, newest first.
	rows, err := l.recent(ctx, "w", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[2].TraceID != "live" || rows[2].Credits != 5 || rows[2].Status != "pending" || rows[2].Operation != "vendor_search" ||
		rows[0].Status != "pending" || rows[1].Error != msgAbandoned || rows[0].Time.IsZero() {
		t.Errorf("recent usage: %+v", rows)
	}
}

// A bad URL is refused with a message that names the rule and does not
// echo the password.
func TestPGBadURL(t *testing.T) {
	_, err := OpenPGLedger(context.Background(), "postgres://u:s3cret@[::1/db", 1)
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "database URL") {
		t.Fatalf("err = %v", err)
	}
}

// database_url in gateway.toml is a postgres:// URL or empty.
func TestConfigDatabaseURL(t *testing.T) {
	cfg := &config.Config{Workspaces: []config.Workspace{config.LocalWorkspace(auth.HashKey("k"))}}
	for u, ok := range map[string]bool{"": true, "postgres://h/db": true, "postgresql://h/db": true, "sqlite:gateway.db": false, "h:5432": false} {
		cfg.DatabaseURL = u
		err := cfg.Validate()
		if ok != (err == nil) || (err != nil && !strings.Contains(err.Error(), "database_url: must be a postgres://")) {
			t.Errorf("database_url %q: %v", u, err)
		}
	}
}
