package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"hark/gateway/store"
)

// riverClient is what the Queue uses of a River client, whichever its
// driver's transaction type.
type riverClient interface {
	insert(ctx context.Context, id string) (int64, error)
	StopAndCancel(ctx context.Context) error
}

type client[TTx any] struct{ *river.Client[TTx] }

func (c client[TTx]) insert(ctx context.Context, id string) (int64, error) {
	res, err := c.Insert(ctx, jobArgs{ID: id}, nil)
	if err != nil {
		return 0, err
	}
	return res.Job.ID, nil
}

// jobArgs is River's job: the ID of the hark_jobs row it runs.
type jobArgs struct {
	ID string `json:"id"`
}

func (jobArgs) Kind() string { return "hark_job" }

// InsertOpts: a job is retried until it ends (its tool's failure is a
// result, not an error River retries); the attempts bound only nodes
// dying under it again and again.
func (jobArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 10} }

type worker struct {
	river.WorkerDefaults[jobArgs]
	q *Queue
}

func (w *worker) Work(ctx context.Context, j *river.Job[jobArgs]) error {
	return w.q.work(ctx, j.Args.ID, j.Attempt)
}

// atLeast passes on the records of level min and above.
type atLeast struct {
	slog.Handler
	min slog.Level
}

func (h atLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h atLeast) WithAttrs(as []slog.Attr) slog.Handler {
	return atLeast{h.Handler.WithAttrs(as), h.min}
}

func (h atLeast) WithGroup(name string) slog.Handler {
	return atLeast{h.Handler.WithGroup(name), h.min}
}

// pgMigrateLock is the advisory lock under which one replica at a time
// runs River's migrations ("hkjb").
const pgMigrateLock = 0x686b6a62

func (q *Queue) openBackend(ctx context.Context) error {
	workers := river.NewWorkers()
	river.AddWorker(workers, &worker{q: q})
	cfg := &river.Config{
		ID:                q.node,
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: q.opts.Workers}},
		Workers:           workers,
		FetchPollInterval: q.opts.PollEvery,
		FetchCooldown:     q.opts.PollEvery / 4,
		// The tools bound themselves (research's own timeout, the
		// gateway's upstream timeout); River must not cut them shorter.
		JobTimeout: -1,
		// Completed River rows are bookkeeping: hark_jobs keeps results.
		CompletedJobRetentionPeriod: time.Hour,
		// River's own news ("client started") is not the operator's;
		// its warnings and errors are.
		Logger: slog.New(atLeast{q.opts.Logger.Handler(), slog.LevelWarn}),
	}
	q.addPeriodic(workers, cfg)
	q.st = &records{db: q.opts.DB}
	if err := Migrate(ctx, q.opts.DB); err != nil {
		return err
	}
	if q.opts.DB.Postgres() {
		// PostgreSQL also notifies (LISTEN/NOTIFY), but River debounces
		// it: with a 1 s poll a no-op job took 205 ms from submit to
		// done, with 50 ms 18 ms (BenchmarkRoundTrip).
		c, err := start(ctx, riverpgxv5.New(q.opts.DB.Pool()), cfg)
		if err != nil {
			return err
		}
		q.river = c
		return nil
	}
	// SQLite has no LISTEN/NOTIFY: the node polls.
	cfg.PollOnly = true
	c, err := start(ctx, riversqlite.New(q.opts.DB.SQL()), cfg)
	if err != nil {
		return err
	}
	q.river = c
	return nil
}

// Migrate brings River's tables and the jobs' own up to date (`hark serve
// --migrate-only` calls it; Open does).
func Migrate(ctx context.Context, db *store.DB) error {
	if db.Postgres() {
		if err := migrateRiverPG(ctx, db.Pool()); err != nil {
			return err
		}
	} else {
		m, err := rivermigrate.New(riversqlite.New(db.SQL()), nil)
		if err != nil {
			return fmt.Errorf("jobs: River migrations: %w", err)
		}
		if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
			return fmt.Errorf("jobs: River migrations: %w", err)
		}
	}
	if err := store.Migrate(ctx, db, Schema); err != nil {
		return fmt.Errorf("jobs: %w", err)
	}
	return nil
}

// migrateRiverPG brings River's tables up to date on a team's PostgreSQL.
// River's migrations cannot share one transaction (one adds an enum value
// the next uses), so replicas starting together take turns under a
// session lock held on one connection while the migrations use another:
// a pool of its own, whatever the caller's pool allows.
func migrateRiverPG(ctx context.Context, pool *pgxpool.Pool) error {
	cfg := pool.Config()
	cfg.MinConns, cfg.MaxConns = 0, 2
	own, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("jobs: %w", err)
	}
	defer own.Close()
	conn, err := own.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("jobs: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, pgMigrateLock); err != nil {
		return fmt.Errorf("jobs: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, pgMigrateLock)
	m, err := rivermigrate.New(riverpgxv5.New(own), nil)
	if err != nil {
		return fmt.Errorf("jobs: River migrations: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("jobs: River migrations: %w", err)
	}
	return nil
}

func start[TTx any](ctx context.Context, drv riverdriver.Driver[TTx], cfg *river.Config) (riverClient, error) {
	c, err := river.NewClient(drv, cfg)
	if err != nil {
		return nil, fmt.Errorf("jobs: River client: %w", err)
	}
	// Start under a context of its own: the workers live until Close,
	// not until the caller's ctx ends.
	if err := c.Start(context.WithoutCancel(ctx)); err != nil {
		return nil, fmt.Errorf("jobs: start River: %w", err)
	}
	return client[TTx]{c}, nil
}

// work runs one job on this node, if no live node runs it already.
func (q *Queue) work(ctx context.Context, id string, attempt int) error {
	// The claim is this run's, not this node's: a run the reaper took
	// for dead (its beats held up past StaleAfter) and a new run of the
	// same job on the same node are told apart, and only one ends it.
	owner := q.node + "/" + randomID()[:8]
	stale := time.Now().Add(-q.opts.StaleAfter)
	ok, err := q.st.claim(ctx, id, owner, attempt, stale)
	if err != nil {
		return err
	}
	if !ok {
		j, err := q.st.get(ctx, "", id)
		if errors.Is(err, ErrNotFound) || err == nil && j.Done() {
			return nil // ended already (or never recorded): nothing to run
		}
		if err != nil {
			return err
		}
		return river.JobSnooze(q.opts.StaleAfter) // a live node runs it
	}
	j, err := q.st.get(ctx, "", id)
	if err != nil {
		return err
	}
	what := "started"
	if attempt > 1 {
		what = fmt.Sprintf("started again (attempt %d)", attempt)
	}
	_ = q.st.event(ctx, id, "started", what+" on "+q.node)

	// Beat while the tool runs; a lost claim (another node's reaper took
	// the job, taking this node for dead) stops the work here.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lost := make(chan struct{})
	beatDone := make(chan struct{})
	go func() {
		defer close(beatDone)
		t := time.NewTicker(q.opts.BeatEvery)
		defer t.Stop()
		for {
			select {
			case <-wctx.Done():
				return
			case <-t.C:
				if mine, err := q.st.beat(wctx, id, owner); err == nil && !mine {
					close(lost)
					cancel()
					return
				}
			}
		}
	}()
	out, runErr := q.opts.Run(wctx, j)
	cancel()
	<-beatDone
	select {
	case <-lost:
		return nil // the node that took it over records its end
	default:
	}
	fin := context.WithoutCancel(ctx)
	if ctx.Err() != nil {
		// This node is stopping: the job goes back to the queue, and
		// River retries it (here after a restart, or on another node).
		_ = q.st.requeue(fin, id, owner)
		_ = q.st.event(fin, id, "retry", q.node+" stopped; the job goes back to the queue")
		return ctx.Err()
	}
	state, code, msg := StateCompleted, 0, ""
	var raw []byte
	if runErr != nil {
		state = StateFailed
		code, msg = q.opts.Classify(runErr)
	} else if raw, err = json.Marshal(out); err != nil {
		state, code, msg = StateFailed, 500, "encode output: "+err.Error()
	}
	kind, eventMsg := "completed", "completed"
	if state == StateFailed {
		kind, eventMsg = "failed", msg
	}
	q.keep(id, result{out: out, err: runErr})
	mine, err := q.st.finish(fin, id, owner, state, raw, code, msg, kind, eventMsg)
	if err != nil {
		return err
	}
	if !mine {
		return nil
	}
	if q.opts.Ended != nil {
		ended := *j
		ended.State, ended.Code, ended.Error = state, code, msg
		q.opts.Ended(fin, &ended)
	}
	q.notify(id, result{out: out, err: runErr})
	return nil
}

// Retention is how long an ended job and its log are kept.
const Retention = 30 * 24 * time.Hour

// reap gives the jobs of nodes that stopped beating back to River.
func (q *Queue) reap() {
	defer q.reaper.Done()
	t := time.NewTicker(q.opts.BeatEvery)
	defer t.Stop()
	var pruned time.Time
	for {
		select {
		case <-q.ctx.Done():
			return
		case <-t.C:
		}
		if time.Since(pruned) > time.Hour {
			pruned = time.Now()
			if err := q.st.prune(q.ctx, pruned.Add(-Retention)); err != nil {
				q.opts.Logger.Warn("jobs: prune", "error", err.Error())
			}
		}
		before := time.Now().Add(-q.opts.StaleAfter)
		orphans, err := q.st.stale(q.ctx, before)
		if err != nil {
			continue
		}
		for _, o := range orphans {
			if ok, err := q.st.release(q.ctx, o, before); ok {
				_ = q.st.event(q.ctx, o.id, "retry", fmt.Sprintf("%s stopped beating %s ago; the job goes back to the queue", o.node, q.opts.StaleAfter))
				if err != nil {
					q.opts.Logger.Warn("job release", "job", o.id, "error", err.Error())
				}
			}
		}
	}
}
