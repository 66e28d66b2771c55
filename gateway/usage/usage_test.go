package usage

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hark/gateway/pgtest"
	"hark/gateway/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// backend is one of the two databases a ledger runs on, migrated.
type backend struct {
	name string
	db   *store.DB
}

// eachBackend runs f on a fresh gateway.db and a fresh PostgreSQL
// database (of the package's shared cluster).
func eachBackend(t *testing.T, f func(t *testing.T, b backend)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		raw, err := store.OpenDB(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { raw.Close() })
		f(t, migrated(t, backend{"sqlite", store.FromSQLite(raw)}))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		db, err := store.OpenPostgres(context.Background(), pgtest.Fresh(t), 8)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(db.Close)
		f(t, migrated(t, backend{"postgres", db}))
	})
}

func migrated(t *testing.T, b backend) backend {
	t.Helper()
	if err := store.Migrate(context.Background(), b.db, Schema); err != nil {
		t.Fatal(err)
	}
	return b
}

// The in-memory count follows this process's writes exactly, sees another
// process's writes within creditResync, and starts again at a new period.
func TestCreditCountResync(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
		m := NewMeter(NewLedger(b.db), func() time.Time { return now }, 0)
		ctx := context.Background()
		if err := m.Start(ctx); err != nil {
			t.Fatal(err)
		}
		a := &Account{Name: "w"}
		count := func() int64 {
			t.Helper()
			n, err := m.CreditsUsed(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		res, _ := m.Reserve(ctx, a, "k", "t1", "vendor_search", 2)
		if err := m.Settle(res, 2, nil, 0); err != nil {
			t.Fatal(err)
		}
		if n := count(); n != 2 {
			t.Fatalf("after a call: %d", n)
		}
		// Another process records 5 credits.
		if _, err := b.db.Exec(ctx, `INSERT INTO gateway_usage(ts,workspace,key_id,trace_id,operation,credits,status) VALUES(?,?,?,?,?,?,'ok')`,
			now.UnixMilli(), "w", "k2", "t2", "vendor_crawl", 5); err != nil {
			t.Fatal(err)
		}
		res, _ = m.Reserve(ctx, a, "k", "t3", "vendor_search", 1)
		if n := count(); n != 2 {
			t.Fatalf("an unfinished call counts nothing yet: %d", n)
		}
		m.Settle(res, 1, nil, 0)
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
		a2 := &Account{Name: "w", Quota: 100}
		now = time.Date(2026, 4, 30, 23, 59, 59, 0, time.UTC)
		res, err := m.Reserve(ctx, a2, "k", "t4", "vendor_research", 4)
		if err != nil {
			t.Fatal(err)
		}
		now = now.Add(2 * time.Second)
		if n, _ := m.CreditsUsed(ctx, a2); n != 0 {
			t.Fatalf("May: %d", n)
		}
		m.Settle(res, 4, nil, 0)
		if n, _ := m.CreditsUsed(ctx, a2); n != 0 {
			t.Fatalf("May after an April call settled: %d", n)
		}
	})
}

// A gateway killed mid-call leaves pending rows; the next start on this
// machine refunds those of its processes no longer running at once,
// leased or not (a dead process renews nothing: its lease need not run
// out), and only those, and takes their credits out of the running
// total. Another machine's rows are left to it, or to their lease.
func TestAbandonedPendingRowsAreRefunded(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		l := NewLedger(b.db)
		now := time.Now()
		m := NewMeter(l, func() time.Time { return now }, 0)
		a := &Account{Name: "w", Quota: 100, Period: "day"}
		if _, err := m.Reserve(ctx, a, "k", "live", "vendor_search", 5); err != nil { // this process: alive
			t.Fatal(err)
		}
		host, _ := os.Hostname()
		leased := now.Add(time.Hour).UnixMilli()
		for _, row := range []struct {
			holder string
			lease  int64
		}{{host + "/2147483646:1", 0}, {"2147483646:1", 0}, {"", 0}, {"another-machine/2147483646:1", 0},
			{host + "/2147483645:1", leased}, {"another-machine/2147483645:1", leased}} {
			if _, err := b.db.Exec(ctx, `INSERT INTO gateway_usage(ts,workspace,key_id,trace_id,operation,credits,status,holder,lease_until) VALUES(?,?,?,?,?,?,'pending',?,?)`,
				now.UnixMilli(), "w", "k", "t", "vendor_search", 3, row.holder, row.lease); err != nil {
				t.Fatal(err)
			}
			if _, err := b.db.Exec(ctx, `UPDATE gateway_credit_totals SET used=used+3 WHERE workspace='w' AND period_start=?`,
				PeriodStart(now, "day").UnixMilli()); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.Start(ctx); err != nil {
			t.Fatal(err)
		}
		rows, err := l.Recent(ctx, "w", 10)
		if err != nil {
			t.Fatal(err)
		}
		pending, refunded := 0, 0
		for _, r := range rows {
			switch {
			case r.Status == "pending":
				pending++
			case r.Status == "error" && r.Credits == 0 && r.Error == MsgAbandoned:
				refunded++
			}
		}
		if pending != 3 || refunded != 4 {
			t.Errorf("%d pending (want 3: this process's and another machine's two), %d refunded (want 4): %+v", pending, refunded, rows)
		}
		var total int64
		if err := b.db.QueryRow(ctx, `SELECT used FROM gateway_credit_totals WHERE workspace='w'`).Scan(&total); err != nil || total != 11 {
			t.Errorf("running total %d (%v), want 5 + 3 + 3", total, err)
		}
		if len(rows) != 7 || rows[6].TraceID != "live" || rows[6].Credits != 5 || rows[6].Operation != "vendor_search" || rows[0].Time.IsZero() {
			t.Errorf("recent usage, newest first: %+v", rows)
		}
	})
}

// The running totals follow reservations, refunds, settlements and calls
// that reserved nothing, and agree with the rows; a row refunded by
// another process and then settled is charged once.
func TestLedgerTotalsFollowTheRows(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
		l := NewLedger(b.db)
		m := NewMeter(l, func() time.Time { return now }, 0)
		ctx := context.Background()
		a := &Account{Name: "w", Quota: 5}
		r1, err := m.Reserve(ctx, a, "k", "t1", "vendor_search", 3)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Reserve(ctx, a, "k", "t2", "vendor_search", 3); err == nil {
			t.Fatal("3 + 3 credits passed a quota of 5")
		}
		m.Settle(r1, 0, errors.New("vendor failed"), 0) // refunded
		r2, err := m.Reserve(ctx, a, "k", "t3", "vendor_search", 4)
		if err != nil {
			t.Fatalf("after the refund: %v", err)
		}
		m.Settle(r2, 2, nil, 0) // cost less than reserved
		r4, err := m.Reserve(ctx, a, "k", "t4", "vendor_search", 3)
		if err != nil {
			t.Fatalf("2 used, 3 more within 5: %v", err)
		}
		var qe *QuotaError
		if _, err := m.Reserve(ctx, a, "k", "t5", "vendor_search", 1); !errors.As(err, &qe) || qe.Used != 5 {
			t.Fatalf("a sixth credit: %v", err)
		}
		m.Settle(r4, 3, nil, 0)
		// The quota is lifted for a while: calls reserve nothing, but
		// their credits still count when it comes back.
		free := &Account{Name: "w"}
		r3, _ := m.Reserve(ctx, free, "k", "t6", "vendor_search", 1)
		if err := m.Settle(r3, 1, nil, 0); err != nil {
			t.Fatal(err)
		}
		a10 := &Account{Name: "w", Quota: 10}
		if _, err := m.Reserve(ctx, a10, "k", "t7", "vendor_search", 5); !errors.As(err, &qe) || qe.Used != 6 {
			t.Fatalf("6 used, 5 more past 10: %v", err)
		}
		// A pending row another process refunded (it took this one for
		// dead), settled after all: charged once, as it was served.
		r5, err := m.Reserve(ctx, a10, "k", "t8", "vendor_search", 2)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := l.refundHolder(ctx, l.holder); err != nil || n != 1 {
			t.Fatalf("refund: %d, %v", n, err)
		}
		if err := m.Settle(r5, 2, nil, 0); err != nil {
			t.Fatal(err)
		}
		var used, sum int64
		p := PeriodStart(now, "month").UnixMilli()
		if err := b.db.QueryRow(ctx, `SELECT used FROM gateway_credit_totals WHERE workspace='w' AND period_start=?`, p).Scan(&used); err != nil {
			t.Fatal(err)
		}
		if sum, err = l.Sum(ctx, "w", time.UnixMilli(p)); err != nil {
			t.Fatal(err)
		}
		if used != 8 || sum != 8 {
			t.Fatalf("total %d, rows %d; want 2 + 3 + 1 + 2", used, sum)
		}
		// A new period (here a day, as the quota's period changes) starts
		// from the rows, and the workspace's stale totals go.
		day := &Account{Name: "w", Quota: 100, Period: "day"}
		if _, err := m.Reserve(ctx, day, "k", "t9", "vendor_search", 1); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := b.db.QueryRow(ctx, `SELECT count(*), MAX(used) FROM gateway_credit_totals WHERE workspace='w'`).Scan(&n, &used); err != nil || n != 1 || used != 9 {
			t.Fatalf("%d totals rows, used %d (%v); want 1, 9", n, used, err)
		}
	})
}

// Reservations racing at a period's start, from several ledgers on one
// database (replicas), get exactly the quota: the first makes the
// period's totals row while the others wait on it.
func TestConcurrentReservationsHoldTheQuota(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		const quota, calls = 12, 36
		a := &Account{Name: "w", Quota: quota, Period: "day"}
		meters := []*Meter{NewMeter(NewLedger(b.db), nil, 0), NewMeter(NewLedger(b.db), nil, 0), NewMeter(NewLedger(b.db), nil, 0)}
		var wg sync.WaitGroup
		var ok, refused atomic.Int64
		for i := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := meters[i%len(meters)].Reserve(ctx, a, "k", "t", "vendor_search", 1)
				var qe *QuotaError
				switch {
				case err == nil:
					ok.Add(1)
				case errors.As(err, &qe) && qe.Used == quota:
					refused.Add(1)
				default:
					t.Errorf("reserve: %v", err)
				}
			}()
		}
		wg.Wait()
		if ok.Load() != quota || refused.Load() != calls-quota {
			t.Fatalf("%d reserved, %d refused; want %d and %d", ok.Load(), refused.Load(), quota, calls-quota)
		}
	})
}

// A live gateway renews its reservations' leases, so a long call keeps
// its credits reserved; a gateway that stops renewing (killed mid-call:
// its Run ends, its calls never settle) has them refunded by another on
// the database within a lease and a sixth, once, with its credits out of
// the total; settled after all (it was only cut off), the call is charged
// once.
func TestReservationLeases(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		const lease = 600 * time.Millisecond
		log := slog.New(slog.DiscardHandler)
		a := &Account{Name: "w", Quota: 10, Period: "day"}
		// Two gateways on the database; "dying" will be killed. Each
		// ledger is a process of its own, so give the dying one another
		// holder, as another process's pid would be.
		dying, live := NewMeter(NewLedger(b.db), nil, lease), NewMeter(NewLedger(b.db), nil, lease)
		dying.ledger.holder += "-dying"
		dctx, kill := context.WithCancel(ctx)
		go dying.Run(dctx, log)
		lctx, stop := context.WithCancel(ctx)
		defer stop()
		go live.Run(lctx, log)

		long, err := live.Reserve(ctx, a, "k", "long", "vendor_research", 4)
		if err != nil {
			t.Fatal(err)
		}
		lost, err := dying.Reserve(ctx, a, "k", "lost", "vendor_research", 4)
		if err != nil {
			t.Fatal(err)
		}
		cut, err := dying.Reserve(ctx, a, "k", "cut", "vendor_search", 1)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * lease) // both renew: nothing is refunded
		if n, err := live.ledger.Pending(ctx); err != nil || n != 3 {
			t.Fatalf("pending %d (%v) while both gateways live; want 3", n, err)
		}
		kill()
		killed := time.Now()
		for {
			var status string
			if err := b.db.QueryRow(ctx, `SELECT status FROM gateway_usage WHERE trace_id='lost'`).Scan(&status); err != nil {
				t.Fatal(err)
			}
			if status != "pending" {
				break
			}
			if time.Since(killed) > lease+lease/6+time.Second {
				t.Fatalf("still pending %s after the gateway died (lease %s)", time.Since(killed), lease)
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Logf("refunded %s after its gateway stopped renewing (lease %s)", time.Since(killed).Round(time.Millisecond), lease)
		rows, err := live.ledger.Recent(ctx, "w", 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			switch r.TraceID {
			case "long":
				if r.Status != "pending" || r.Credits != 4 {
					t.Errorf("the live gateway's call: %+v", r)
				}
			case "lost", "cut":
				if r.Status != "error" || r.Credits != 0 || r.Error != MsgAbandoned {
					t.Errorf("the dead gateway's call: %+v", r)
				}
			}
		}
		if used, err := live.Used(ctx, a); err != nil || used != 4 {
			t.Fatalf("credits used %d (%v) after the refund; want the live call's 4", used, err)
		}
		var total int64
		if err := b.db.QueryRow(ctx, `SELECT used FROM gateway_credit_totals WHERE workspace='w'`).Scan(&total); err != nil || total != 4 {
			t.Fatalf("running total %d (%v); want 4", total, err)
		}
		// The quota the refund freed is there for new calls: 4 + 6 = 10.
		if _, err := live.Reserve(ctx, a, "k", "after", "vendor_search", 6); err != nil {
			t.Fatalf("the refunded credits were not freed: %v", err)
		}
		// The cut-off call settles after all: charged once.
		if err := dying.Settle(cut, 1, nil, time.Second); err != nil {
			t.Fatal(err)
		}
		if err := live.Settle(long, 4, nil, time.Second); err != nil {
			t.Fatal(err)
		}
		if total, err := live.Used(ctx, a); err != nil || total != 4+6+1 {
			t.Fatalf("credits used %d (%v); want 4 + 6 reserved + 1 settled late", total, err)
		}
		_ = lost
	})
}
