package watch

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"hark/api"
	"hark/gateway/engine"
	"hark/gateway/store"
)

// page is a Rechecker over a page whose text and validator the test sets.
type page struct {
	mu    sync.Mutex
	text  string
	etag  string
	fail  error
	reads atomic.Int32
}

func (p *page) Recheck(ctx context.Context, url, etag, lastModified string) (*engine.Rechecked, error) {
	p.reads.Add(1)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		return nil, p.fail
	}
	if etag != "" && etag == p.etag {
		return &engine.Rechecked{NotModified: true, ETag: etag}, nil
	}
	return &engine.Rechecked{Text: p.text, ETag: p.etag}, nil
}

func openStore(t *testing.T, path string) *Store {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := Open(context.Background(), store.FromSQLite(db))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCheckBaselineNotModifiedChangeBackoff(t *testing.T) {
	t.Parallel()
	s := openStore(t, filepath.Join(t.TempDir(), "g.db"))
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { return now }
	ctx := context.Background()
	pg := &page{text: "Okapi facts\nIts stripes hide it.", etag: `"1"`}
	rc := func(string) engine.Rechecker { return pg }
	w, err := s.Add(ctx, "local", api.WatchAdd{URL: "https://docs.example/okapi"}, time.Hour, false)
	if err != nil {
		t.Fatal(err)
	}
	get := func() *api.WatchTexts {
		tx, err := s.Texts(ctx, "local", w.ID)
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	if n, next, err := s.RunDue(ctx, rc, ""); err != nil || n != 1 || !next.Equal(now.Add(time.Hour)) {
		t.Fatalf("first: %d %v %v", n, next, err)
	}
	if tx := get(); tx.Changed || tx.Current == "" || tx.Previous != "" {
		t.Errorf("the first read is a baseline: %+v", tx)
	}
	if n, _, _ := s.RunDue(ctx, rc, ""); n != 0 {
		t.Errorf("checked %d before due", n)
	}
	now = now.Add(time.Hour)
	s.RunDue(ctx, rc, "")
	if tx := get(); tx.Changed || tx.Checks != 2 {
		t.Errorf("a 304: %+v", tx)
	}
	// Spacing alone is no change; words are.
	pg.mu.Lock()
	pg.text, pg.etag = "Okapi   facts\n\nIts stripes hide it.", `"2"`
	pg.mu.Unlock()
	now = now.Add(time.Hour)
	s.RunDue(ctx, rc, "")
	if tx := get(); tx.Changed {
		t.Errorf("spacing counted as a change: %+v", tx)
	}
	pg.mu.Lock()
	pg.text, pg.etag = "Okapi facts\nIts stripes mark it out.", `"3"`
	pg.mu.Unlock()
	now = now.Add(time.Hour)
	s.RunDue(ctx, rc, "")
	tx := get()
	if !tx.Changed || tx.Previous != "Okapi facts\nIts stripes hide it." || tx.Current != "Okapi facts\nIts stripes mark it out." {
		t.Fatalf("a change: %+v", tx)
	}
	if l, _ := s.List(ctx, "local"); l.Changed != 1 {
		t.Errorf("changed count %d", l.Changed)
	}
	s.Seen(ctx, "local", w.ID)
	if l, _ := s.List(ctx, "local"); l.Changed != 0 {
		t.Errorf("seen, still counted: %d", l.Changed)
	}
	// Failures back off: a minute, two, four…, never past the interval.
	pg.mu.Lock()
	pg.fail = errors.New("HTTP status 503")
	pg.mu.Unlock()
	for i, want := range []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute} {
		now = get().NextAt
		s.RunDue(ctx, rc, "")
		if tx := get(); tx.Failures != i+1 || !tx.NextAt.Equal(now.Add(want)) || tx.Error != "HTTP status 503" {
			t.Errorf("failure %d: next in %v, want %v (%+v)", i+1, tx.NextAt.Sub(now), want, tx.Watch)
		}
	}
	if d := Backoff(30, time.Hour); d != time.Hour {
		t.Errorf("backoff past the interval: %v", d)
	}
	// Another workspace's watch is not this one's.
	if _, err := s.Texts(ctx, "other", w.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("another workspace: %v", err)
	}
}

// Two nodes checking the same database at once read each due page once.
func TestRunDueOnceAcrossNodes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "g.db")
	a, b := openStore(t, path), openStore(t, path)
	ctx := context.Background()
	pg := &page{text: "x"}
	rc := func(string) engine.Rechecker { return pg }
	for i := range 20 {
		if _, err := a.Add(ctx, "local", api.WatchAdd{URL: "https://docs.example/" + string(rune('a'+i))}, time.Hour, false); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	var total atomic.Int32
	for _, s := range []*Store{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, _, err := s.RunDue(ctx, rc, "")
			if err != nil {
				t.Error(err)
			}
			total.Add(int32(n))
		}()
	}
	wg.Wait()
	if total.Load() != 20 || pg.reads.Load() != 20 {
		t.Errorf("checked %d, read %d times; want 20 each", total.Load(), pg.reads.Load())
	}
}

// busy is a site's refusal that says when to come back (what the web
// engine returns for a 429 or 503 with Retry-After).
type busy time.Duration

func (b busy) Error() string             { return "HTTP status 429" }
func (b busy) RetryAfter() time.Duration { return time.Duration(b) }

// A site's Retry-After holds the next check back at least as long as it
// asked, past the doubling backoff and past the watch's interval; a
// wait beyond MaxRetryAfter is taken as MaxRetryAfter; a shorter one
// leaves the backoff as it is.
func TestRetryAfterHoldsTheNextCheck(t *testing.T) {
	t.Parallel()
	s := openStore(t, filepath.Join(t.TempDir(), "g.db"))
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { return now }
	ctx := context.Background()
	pg := &page{text: "Okapi facts"}
	rc := func(string) engine.Rechecker { return pg }
	w, err := s.Add(ctx, "local", api.WatchAdd{URL: "https://docs.example/okapi"}, time.Hour, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		asked, want time.Duration
	}{
		{3 * time.Hour, 3 * time.Hour},      // past the interval (1h) and the backoff (1m)
		{30 * time.Second, 2 * time.Minute}, // the backoff is longer
		{400 * 24 * time.Hour, MaxRetryAfter},
	} {
		pg.mu.Lock()
		pg.fail = busy(c.asked)
		pg.mu.Unlock()
		tx, _ := s.Texts(ctx, "local", w.ID)
		now = tx.NextAt
		if n, _, err := s.RunDue(ctx, rc, ""); n != 1 || err != nil {
			t.Fatalf("check %d: %d %v", i, n, err)
		}
		tx, _ = s.Texts(ctx, "local", w.ID)
		if got := tx.NextAt.Sub(now); got != c.want || tx.Failures != i+1 {
			t.Errorf("Retry-After %v: next check in %v, want %v (%+v)", c.asked, got, c.want, tx.Watch)
		}
	}
}

// recheckFunc is a Rechecker from a function.
type recheckFunc func(ctx context.Context) (*engine.Rechecked, error)

func (f recheckFunc) Recheck(ctx context.Context, url, etag, lastModified string) (*engine.Rechecked, error) {
	return f(ctx)
}

// A watch that asks for private addresses is checked with them when the
// gateway it was added to read them (a later process without the flag
// too, as a detached job runs); not when that gateway did not, whatever
// the caller asked; never for a watch that did not ask.
func TestPrivateReadTravelsWithTheWatch(t *testing.T) {
	t.Parallel()
	s := openStore(t, filepath.Join(t.TempDir(), "g.db"))
	ctx := context.Background()
	for _, c := range []struct {
		ask, gateway, want bool
	}{{true, true, true}, {true, false, false}, {false, true, false}} {
		var got atomic.Bool
		rc := recheckFunc(func(ctx context.Context) (*engine.Rechecked, error) {
			got.Store(engine.PrivateAllowed(ctx))
			return &engine.Rechecked{Text: "x"}, nil
		})
		u := fmt.Sprintf("http://127.0.0.1:8080/%v-%v", c.ask, c.gateway)
		w, err := s.Add(ctx, "local", api.WatchAdd{URL: u, AllowPrivate: c.ask}, time.Hour, c.gateway)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.CheckOne(ctx, func(string) engine.Rechecker { return rc }, "local", w.ID); err != nil {
			t.Fatal(err)
		}
		if got.Load() != c.want {
			t.Errorf("asked %v, gateway read private %v: checked with private reads %v", c.ask, c.gateway, got.Load())
		}
	}
}

// A process that stops while a check ends leaves no claim behind: a
// check whose read failed as it stopped is due again at once; one whose
// read came back is recorded.
func TestStoppingLeavesNoClaim(t *testing.T) {
	t.Parallel()
	s := openStore(t, filepath.Join(t.TempDir(), "g.db"))
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { return now }
	bg := context.Background()
	for _, c := range []struct {
		name string
		read func() (*engine.Rechecked, error)
		due  bool
	}{
		{"failed", func() (*engine.Rechecked, error) { return nil, errors.New("127.0.0.1: address is private") }, true},
		{"read", func() (*engine.Rechecked, error) { return &engine.Rechecked{Text: "baseline"}, nil }, false},
	} {
		w, err := s.Add(bg, "local", api.WatchAdd{URL: "https://docs.example/" + c.name}, time.Hour, false)
		if err != nil {
			t.Fatal(err)
		}
		ctx, stop := context.WithCancel(bg)
		rc := recheckFunc(func(context.Context) (*engine.Rechecked, error) {
			stop() // the process stops as the read ends
			return c.read()
		})
		s.CheckOne(ctx, func(string) engine.Rechecker { return rc }, "local", w.ID)
		r, err := s.get(bg, "local", w.ID)
		if err != nil {
			t.Fatal(err)
		}
		if c.due && (!r.NextAt.Equal(now) || r.Checks != 0) {
			t.Errorf("%s: next at %v after %d checks; want due at once (%v), unchecked", c.name, r.NextAt, r.Checks, now)
		}
		if !c.due && (r.Checks != 1 || r.text != "baseline" || !r.NextAt.Equal(now.Add(time.Hour))) {
			t.Errorf("%s: %d checks, text %q, next at %v: the read was not recorded", c.name, r.Checks, r.text, r.NextAt)
		}
	}
}
