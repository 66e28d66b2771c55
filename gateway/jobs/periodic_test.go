package jobs

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"hark/gateway/pgtest"
	"hark/gateway/store"
)

// Two replicas on one PostgreSQL with the same periodic work: it runs,
// and it runs once per period, not once per replica (River's leader
// alone inserts it).
func TestPeriodicOnceAcrossReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	c := pgtest.Start(t)
	ctx := context.Background()
	var runs atomic.Int32
	var replicas []*Queue
	for range 2 {
		db, err := store.OpenPostgres(ctx, c.URL(), 4)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(db.Close)
		q, err := Open(ctx, fast(Options{DB: db, Run: func(context.Context, *Job) (any, error) { return nil, nil },
			Periodic: []Periodic{{Name: "watches", Every: time.Second, Run: func(context.Context) error { runs.Add(1); return nil }}}}))
		if err != nil {
			t.Fatal(err)
		}
		replicas = append(replicas, q)
	}
	t.Cleanup(func() {
		for _, q := range replicas {
			q.Close(context.Background())
		}
	})
	// River elects a leader within seconds; from then on one insert a second.
	deadline := time.Now().Add(20 * time.Second)
	for runs.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if runs.Load() == 0 {
		t.Fatal("the periodic work never ran")
	}
	start := runs.Load()
	time.Sleep(5 * time.Second)
	if n := runs.Load() - start; n < 2 || n > 7 {
		t.Errorf("%d runs in 5 s at one a second on two replicas; want about 5 (10 would be one per replica)", n)
	}
}
