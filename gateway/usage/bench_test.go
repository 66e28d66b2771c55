package usage

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"hark/gateway/pgtest"
	"hark/gateway/store"
)

// BenchmarkLedgerReserveSettle is one billable call's ledger work (reserve
// under a quota, then settle) from parallel callers: on gateway.db, and on
// PostgreSQL through one replica's pool and through three replicas' pools
// on one database (the exact shared quota's cost).
func BenchmarkLedgerReserveSettle(b *testing.B) {
	run := func(b *testing.B, dbs []*store.DB) {
		ctx := context.Background()
		meters := make([]*Meter, len(dbs))
		for i, db := range dbs {
			if err := store.Migrate(ctx, db, Schema); err != nil {
				b.Fatal(err)
			}
			meters[i] = NewMeter(NewLedger(db), time.Now, 0)
			if err := meters[i].Start(ctx); err != nil {
				b.Fatal(err)
			}
		}
		a := &Account{Name: "bench", Quota: 1 << 40, Period: "day"}
		var next atomic.Int64
		b.SetParallelism(4) // 8 callers on 2 cores, as an invoke burst
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			m := meters[int(next.Add(1))%len(meters)]
			for pb.Next() {
				r, err := m.Reserve(ctx, a, "k", "t", "vendor_search", 1)
				if err != nil {
					b.Error(err)
					return
				}
				if err := m.Settle(r, 1, nil, time.Millisecond); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.Run("sqlite", func(b *testing.B) {
		db, err := store.OpenDB(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		run(b, []*store.DB{store.FromSQLite(db)})
	})
	for _, n := range []int{1, 3} {
		b.Run(fmt.Sprintf("postgres-%d-replicas", n), func(b *testing.B) {
			url := pgtest.Fresh(b)
			var dbs []*store.DB
			for range n {
				db, err := store.OpenPostgres(context.Background(), url, 8)
				if err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				dbs = append(dbs, db)
			}
			run(b, dbs)
		})
	}
}
