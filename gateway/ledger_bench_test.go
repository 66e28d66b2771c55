package gateway

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"hark/gateway/pgtest"
)

// BenchmarkLedgerReserveSettle is one billable call's ledger work (reserve
// under a quota, then settle) from parallel callers: on gateway.db, and on
// PostgreSQL through one replica's pool and through three replicas' pools
// on one database (the exact shared quota's cost).
func BenchmarkLedgerReserveSettle(b *testing.B) {
	run := func(b *testing.B, ledgers []ledger) {
		ctx := context.Background()
		stores := make([]*usageStore, len(ledgers))
		for i, l := range ledgers {
			stores[i] = &usageStore{ledger: l, now: time.Now}
			if err := stores[i].init(ctx); err != nil {
				b.Fatal(err)
			}
		}
		ws := &workspace{name: "bench", quota: 1 << 40, quotaPeriod: "day"}
		var next atomic.Int64
		b.SetParallelism(4) // 8 callers on 2 cores, as an invoke burst
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			u := stores[int(next.Add(1))%len(stores)]
			for pb.Next() {
				r, err := u.reserve(ctx, ws, "k", "t", "vendor_search", 1)
				if err != nil {
					b.Error(err)
					return
				}
				if err := u.settle(r, 1, nil, time.Millisecond); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.Run("sqlite", func(b *testing.B) {
		db, err := OpenDB(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		run(b, []ledger{newSQLiteLedger(db)})
	})
	for _, n := range []int{1, 3} {
		b.Run(fmt.Sprintf("postgres-%d-replicas", n), func(b *testing.B) {
			url := pgtest.Start(b).URL()
			var ls []ledger
			for range n {
				l, err := OpenPGLedger(context.Background(), url, 8)
				if err != nil {
					b.Fatal(err)
				}
				defer l.Close()
				ls = append(ls, l)
			}
			run(b, ls)
		})
	}
}
