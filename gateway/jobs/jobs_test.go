package jobs

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"hark/gateway/store"
)

func openSQLite(t testing.TB, dir string) *store.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "jobs.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return store.FromSQLite(db)
}

func fast(o Options) Options {
	o.BeatEvery, o.StaleAfter, o.PollEvery = 50*time.Millisecond, 400*time.Millisecond, 20*time.Millisecond
	return o
}

// A job runs, logs its progress, and its output and events are read back.
func TestSubmitWaitEvents(t *testing.T) {
	db := openSQLite(t, t.TempDir())
	ctx := context.Background()
	q, err := Open(ctx, fast(Options{DB: db, Run: func(ctx context.Context, j *Job) (any, error) {
		if j.Tool == "fail" {
			return nil, errors.New("no such thing")
		}
		return map[string]string{"echo": string(j.Input)}, nil
	}}))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close(ctx)
	j, err := q.Submit(ctx, Spec{Workspace: "w", Tool: "echo", Input: []byte(`{"x":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	done, out, err := q.Wait(wctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if done.State != StateCompleted || string(done.Output) != `{"echo":"{\"x\":1}"}` || out == nil {
		t.Fatalf("job %+v out %v", done, out)
	}
	evs, _, err := q.Events(ctx, "w", j.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 || evs[0].Kind != "queued" || evs[1].Kind != "started" || evs[2].Kind != "completed" {
		t.Fatalf("events %+v", evs)
	}
	if _, err := q.Get(ctx, "other", j.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another workspace read the job: %v", err)
	}
	f, _ := q.Submit(ctx, Spec{Workspace: "w", Tool: "fail", Input: []byte(`{}`)})
	done, _, err = q.Wait(wctx, f.ID)
	if done.State != StateFailed || done.Code != 500 || done.Error != "no such thing" || err == nil {
		t.Fatalf("failed job %+v %v", done, err)
	}
}

// A job whose node stops (Close in the middle) runs again on the next
// node: here a second Queue on the same file, as after a restart.
func TestRestartRunsJobAgain(t *testing.T) {
	dir := t.TempDir()
	db := openSQLite(t, dir)
	ctx := context.Background()
	started := make(chan struct{}, 1)
	var runs atomic.Int32
	slow := func(ctx context.Context, j *Job) (any, error) {
		runs.Add(1)
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	q1, err := Open(ctx, fast(Options{DB: db, Run: slow}))
	if err != nil {
		t.Fatal(err)
	}
	j, err := q1.Submit(ctx, Spec{Workspace: "w", Tool: "slow", Input: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	q1.Close(ctx)
	q2, err := Open(ctx, fast(Options{DB: db, Run: func(ctx context.Context, j *Job) (any, error) { return "done", nil }}))
	if err != nil {
		t.Fatal(err)
	}
	defer q2.Close(ctx)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	done, _, err := q2.Wait(wctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if done.State != StateCompleted || string(done.Output) != `"done"` || !strings.HasPrefix(done.Node, q2.Node()+"/") {
		t.Fatalf("job %+v", done)
	}
}

// Ended jobs older than the retention go, with their logs; running ones
// stay whatever their age.
func TestPrune(t *testing.T) {
	db := openSQLite(t, t.TempDir())
	ctx := context.Background()
	q, err := Open(ctx, fast(Options{DB: db, Run: func(context.Context, *Job) (any, error) { return 1, nil }}))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close(ctx)
	j, _ := q.Submit(ctx, Spec{Workspace: "w", Tool: "t", Input: []byte(`{}`)})
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, _, err := q.Wait(wctx, j.ID); err != nil {
		t.Fatal(err)
	}
	old := &Job{ID: "old-running", Workspace: "w", Tool: "t", Input: []byte(`{}`)}
	if err := q.st.create(ctx, old); err != nil {
		t.Fatal(err)
	}
	if err := q.st.prune(ctx, time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Get(ctx, "w", j.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ended job kept: %v", err)
	}
	if evs, _ := q.st.events(ctx, j.ID, 0); len(evs) != 0 {
		t.Fatalf("its log kept: %v", evs)
	}
	if _, err := q.Get(ctx, "w", old.ID); err != nil {
		t.Fatalf("a queued job was pruned: %v", err)
	}
}

// A cancelled job stops where it runs, within a beat, and ends failed.
func TestCancel(t *testing.T) {
	db := openSQLite(t, t.TempDir())
	ctx := context.Background()
	started, stopped := make(chan struct{}), make(chan struct{})
	q, err := Open(ctx, fast(Options{DB: db, Run: func(ctx context.Context, j *Job) (any, error) {
		close(started)
		<-ctx.Done()
		close(stopped)
		return nil, ctx.Err()
	}}))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close(ctx)
	j, _ := q.Submit(ctx, Spec{Workspace: "w", Tool: "t", Input: []byte(`{}`)})
	<-started
	if _, err := q.Cancel(ctx, "other", j.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another workspace cancelled it: %v", err)
	}
	got, err := q.Cancel(ctx, "w", j.ID)
	if err != nil || got.State != StateFailed || got.Code != CodeCancelled {
		t.Fatalf("%v %+v", err, got)
	}
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the running job did not stop")
	}
	evs, _ := q.st.events(ctx, j.ID, 0)
	if last := evs[len(evs)-1]; last.Kind != "failed" || last.Msg != MsgCancelled {
		t.Fatalf("log ends %+v", last)
	}
}

// A lazy queue touches nothing until used: its tables appear at the
// first call, and a job left queued then runs.
func TestLazyStartsAtFirstUse(t *testing.T) {
	db := openSQLite(t, t.TempDir())
	ctx := context.Background()
	q, err := Open(ctx, fast(Options{DB: db, Lazy: true, Run: func(context.Context, *Job) (any, error) { return "ok", nil }}))
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM sqlite_master WHERE name IN ('hark_jobs', 'river_job')`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d tables before first use (%v)", n, err)
	}
	j, err := q.Submit(ctx, Spec{Workspace: "w", Tool: "t", Input: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if done, _, err := q.Wait(wctx, j.ID); err != nil || done.State != StateCompleted {
		t.Fatalf("%v %+v", err, done)
	}
	if err := q.Close(ctx); err != nil {
		t.Fatal(err)
	}
	unused, _ := Open(ctx, Options{DB: db, Lazy: true, Run: func(context.Context, *Job) (any, error) { return nil, nil }})
	if err := unused.Close(ctx); err != nil {
		t.Fatalf("closing an unused lazy queue: %v", err)
	}
}

// A wait that begins after this node ran the job to its end (a fast job
// a call submitted, then waited on) still gets the tool's own output.
func TestWaitAfterTheEnd(t *testing.T) {
	db := openSQLite(t, t.TempDir())
	ctx := context.Background()
	q, err := Open(ctx, fast(Options{DB: db, Run: func(ctx context.Context, j *Job) (any, error) {
		return map[string]string{"echo": string(j.Input)}, nil
	}}))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close(ctx)
	j, err := q.Submit(ctx, Spec{Workspace: "w", Tool: "echo", Input: []byte(`{"x":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := q.Get(ctx, "w", j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Done() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job did not end: %+v", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	done, out, err := q.Wait(wctx, j.ID)
	if err != nil || done == nil || done.State != StateCompleted || out == nil {
		t.Fatalf("job %+v out %v err %v", done, out, err)
	}
}

// A job's meta travels with it to the run (Job.Meta), Ended is told of
// its end once, and a hark_jobs table made before the meta column gets
// it when the queue opens (the jobs' second migration).
func TestMetaTravelsAndEndedIsTold(t *testing.T) {
	db := openSQLite(t, t.TempDir())
	ctx := context.Background()
	if _, err := db.Exec(ctx, tables); err != nil { // an older hark's table, without meta
		t.Fatal(err)
	}
	seen := make(chan Meta, 1)
	ended := make(chan *Job, 2)
	q, err := Open(ctx, fast(Options{DB: db,
		Run: func(ctx context.Context, j *Job) (any, error) {
			seen <- j.Meta
			return nil, errors.New("bad input")
		},
		Classify: func(error) (int, string) { return 400, "invalid url: bad input" },
		Ended:    func(ctx context.Context, j *Job) { ended <- j },
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close(ctx)
	j, err := q.Submit(ctx, Spec{Workspace: "w", Tool: "crawl", Input: []byte(`{}`), Meta: Meta{AllowPrivate: true, Charged: 5}})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, _, err := q.Wait(wctx, j.ID); err == nil {
		t.Fatal("the job did not fail")
	}
	if m := <-seen; m != (Meta{AllowPrivate: true, Charged: 5}) {
		t.Errorf("the run saw meta %+v", m)
	}
	e := <-ended
	if e.ID != j.ID || e.State != StateFailed || e.Code != 400 || e.Meta.Charged != 5 {
		t.Errorf("Ended was told %+v", e)
	}
	select {
	case e := <-ended:
		t.Errorf("Ended told twice: %+v", e)
	case <-time.After(200 * time.Millisecond):
	}
	if got, err := q.Get(ctx, "w", j.ID); err != nil || got.Meta != (Meta{AllowPrivate: true, Charged: 5}) {
		t.Errorf("read back: %+v %v", got, err)
	}
}
