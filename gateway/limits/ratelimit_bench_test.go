package limits

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"hark/gateway/pgtest"
	"hark/gateway/store"
)

// BenchmarkRateLimit is one call's rate-limit check on one key from
// parallel callers: in memory (gateway.db's gateway, one process), and in
// PostgreSQL through one and three replicas' pools on one database, where
// every check takes the key's bucket row in turn.
func BenchmarkRateLimit(b *testing.B) {
	const rate, burst = 1e9, 1 << 30 // never refuses: the check's cost alone
	run := func(b *testing.B, ls []RateLimiter) {
		ctx := context.Background()
		var next atomic.Int64
		b.SetParallelism(4) // 8 callers on 2 cores, as an invoke burst
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			l := ls[int(next.Add(1))%len(ls)]
			for pb.Next() {
				if ok, _, err := l.Allow(ctx, "bench-key", rate, burst); err != nil || !ok {
					b.Errorf("allow = %v, %v", ok, err)
					return
				}
			}
		})
	}
	b.Run("memory", func(b *testing.B) {
		run(b, []RateLimiter{NewMemoryRateLimiter(time.Now)})
	})
	for _, n := range []int{1, 3} {
		b.Run(fmt.Sprintf("postgres-%d-replicas", n), func(b *testing.B) {
			url := pgtest.Start(b).URL()
			var ls []RateLimiter
			for range n {
				db, err := store.OpenPostgres(context.Background(), url, 8)
				if err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				if err := store.Migrate(context.Background(), db, Schema); err != nil {
					b.Fatal(err)
				}
				ls = append(ls, NewRateLimiter(db, time.Now))
			}
			run(b, ls)
		})
	}
}
