package watch

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/engine"
	"hark/gateway/pgtest"
	"hark/gateway/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// The watches' table and its migrations on PostgreSQL, as a team
// gateway has it: a watch added where private addresses are read is
// checked with them there too.
func TestPostgresWatchCarriesPrivateRead(t *testing.T) {
	ctx := context.Background()
	db, err := store.OpenPostgres(ctx, pgtest.Fresh(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	s, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Add(ctx, "team", api.WatchAdd{URL: "http://10.0.0.7/okapi", AllowPrivate: true}, time.Hour, true)
	if err != nil {
		t.Fatal(err)
	}
	var private atomic.Bool
	rc := recheckFunc(func(ctx context.Context) (*engine.Rechecked, error) {
		private.Store(engine.PrivateAllowed(ctx))
		return &engine.Rechecked{Text: "baseline"}, nil
	})
	if err := s.CheckOne(ctx, func(string) engine.Rechecker { return rc }, "team", w.ID); err != nil {
		t.Fatal(err)
	}
	r, err := s.get(ctx, "team", w.ID)
	if err != nil || !private.Load() || r.Checks != 1 || r.text != "baseline" {
		t.Errorf("checked with private reads %v; %+v %v", private.Load(), r, err)
	}
}
