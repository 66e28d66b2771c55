package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/auth"
	"hark/gateway/pgtest"
	"hark/gateway/store"
)

// A `hark serve` killed (SIGKILL) in the middle of a billed call leaves
// its reservation pending; another `hark serve` on the same database
// refunds it within the stated time (reservation_lease, and a sixth of
// it), with its credits out of the workspace's total. On PostgreSQL, and
// on one gateway.db that two processes share.
func TestKilledServeReservationRefunded(t *testing.T) {
	t.Parallel()
	bin := buildHarkBinary(t)
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			// A search backend that answers only when its caller leaves.
			searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
			defer searx.Close()
			key, err := auth.NewAPIKey()
			if err != nil {
				t.Fatal(err)
			}
			cfg := filepath.Join(t.TempDir(), "gateway.toml")
			const lease = 2 * time.Second
			toml := fmt.Sprintf("[limits]\nreservation_lease = %q\n\n[[workspace]]\nname = \"team\"\napi_key_sha256 = [%q]\ncredit_quota = 100\nquota_period = \"day\"\n\n[workspace.search]\nbackend = \"searxng\"\nurl = %q\n",
				lease.String(), auth.HashKey(key), searx.URL)
			if err := os.WriteFile(cfg, []byte(toml), 0o600); err != nil {
				t.Fatal(err)
			}
			dirA, dirB, dbURL := t.TempDir(), t.TempDir(), ""
			var db *store.DB
			if backend == "postgres" {
				dbURL = pgtest.Fresh(t)
				pg, err := store.OpenPostgres(context.Background(), dbURL, 2)
				if err != nil {
					t.Fatal(err)
				}
				defer pg.Close()
				db = pg
			} else {
				dirB = dirA // two processes on one gateway.db
			}
			a := startReplica(t, bin, cfg, dirA, dbURL)
			b := startReplica(t, bin, cfg, dirB, dbURL)
			if db == nil {
				raw, err := store.OpenDB(dirA)
				if err != nil {
					t.Fatal(err)
				}
				defer raw.Close()
				db = store.FromSQLite(raw)
			}
			go a.client(t, key).Invoke(context.Background(), api.ToolSearch, map[string]any{"query": "hangs"})
			ctx := context.Background()
			row := func() (status string, credits, used int64) {
				t.Helper()
				if err := db.QueryRow(ctx, `SELECT status, credits FROM gateway_usage WHERE operation = 'vendor_search'`).Scan(&status, &credits); err != nil {
					return "", 0, 0
				}
				db.QueryRow(ctx, `SELECT used FROM gateway_credit_totals WHERE workspace = 'team'`).Scan(&used)
				return status, credits, used
			}
			deadline := time.Now().Add(30 * time.Second)
			for st, _, used := row(); st != "pending" || used != 1; st, _, used = row() {
				if time.Now().After(deadline) {
					t.Fatalf("the call's reservation never showed: %q, used %d\nA:\n%s", st, used, a.out.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			a.kill(t)
			killed := time.Now()
			for st, _, _ := row(); st == "pending"; st, _, _ = row() {
				if time.Since(killed) > lease+lease/6+3*time.Second {
					t.Fatalf("still pending %s after the kill (lease %s)\nB:\n%s", time.Since(killed).Round(time.Millisecond), lease, b.out.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			took := time.Since(killed)
			st, credits, used := row()
			var msg string
			db.QueryRow(ctx, `SELECT error FROM gateway_usage WHERE operation = 'vendor_search'`).Scan(&msg)
			if st != "error" || credits != 0 || used != 0 {
				t.Fatalf("after the refund: status %q, %d credits, total %d; want error, 0, 0", st, credits, used)
			}
			t.Logf("%s: refunded by the other hark serve %s after the kill (lease %s): %q", backend, took.Round(time.Millisecond), lease, msg)
		})
	}
}
