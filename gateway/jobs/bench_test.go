package jobs

import (
	"context"
	"testing"

	"hark/gateway/pgtest"
	"hark/gateway/store"
)

// backends opens a Queue on each backend: SQLite (a file in a temporary
// folder) and a throwaway PostgreSQL.
func benchBackends(b *testing.B, run RunFunc, f func(b *testing.B, q *Queue)) {
	b.Run("sqlite", func(b *testing.B) {
		q, err := Open(context.Background(), Options{DB: openSQLite(b, b.TempDir()), Run: run})
		if err != nil {
			b.Fatal(err)
		}
		defer q.Close(context.Background())
		f(b, q)
	})
	b.Run("postgres", func(b *testing.B) {
		c := pgtest.Start(b)
		db, err := store.OpenPostgres(context.Background(), c.URL(), 0)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		q, err := Open(context.Background(), Options{DB: db, Run: run})
		if err != nil {
			b.Fatal(err)
		}
		defer q.Close(context.Background())
		f(b, q)
	})
}

// BenchmarkRoundTrip is a no-op job from Submit to Wait's return: the
// queue's own cost on every research and crawl (the synchronous invoke's
// overhead), with the default poll interval.
func BenchmarkRoundTrip(b *testing.B) {
	noop := func(context.Context, *Job) (any, error) { return "ok", nil }
	benchBackends(b, noop, func(b *testing.B, q *Queue) {
		ctx := context.Background()
		for b.Loop() {
			j, err := q.Submit(ctx, Spec{Workspace: "w", Tool: "noop", Input: []byte(`{}`)})
			if err != nil {
				b.Fatal(err)
			}
			if d, _, err := q.Wait(ctx, j.ID); err != nil || d.State != StateCompleted {
				b.Fatalf("%v %+v", err, d)
			}
		}
	})
}

// BenchmarkReplay is a reattach's first answer: a job of 100 log entries
// read back with its state (what GET …/events?after=0 does).
func BenchmarkReplay(b *testing.B) {
	noop := func(context.Context, *Job) (any, error) { return "ok", nil }
	benchBackends(b, noop, func(b *testing.B, q *Queue) {
		ctx := context.Background()
		j, err := q.Submit(ctx, Spec{Workspace: "w", Tool: "noop", Input: []byte(`{}`)})
		if err != nil {
			b.Fatal(err)
		}
		for range 100 {
			q.Progress(ctx, j.ID, "a step of the work, as a crawl level or research round logs it")
		}
		for b.Loop() {
			evs, _, err := q.Events(ctx, "w", j.ID, 0, 0)
			if err != nil || len(evs) < 100 {
				b.Fatalf("%v: %d events", err, len(evs))
			}
		}
	})
}

// BenchmarkOpen is what the queue adds to a gateway's start on a
// gateway.db it has migrated before: River's migration check, the
// tables' IF NOT EXISTS, and starting and stopping the client.
func BenchmarkOpen(b *testing.B) {
	db := openSQLite(b, b.TempDir())
	noop := func(context.Context, *Job) (any, error) { return nil, nil }
	q, err := Open(context.Background(), Options{DB: db, Run: noop})
	if err != nil {
		b.Fatal(err)
	}
	q.Close(context.Background())
	for b.Loop() {
		q, err := Open(context.Background(), Options{DB: db, Run: noop})
		if err != nil {
			b.Fatal(err)
		}
		q.Close(context.Background())
	}
}
