// Package jobs runs the gateway's long work (research, crawl) as durable
// jobs in River (github.com/riverqueue/river), on the gateway's database:
// PostgreSQL for a team of replicas, SQLite (gateway.db) for the embedded
// default. Each job has an ID, a state and an event log, all in the
// database, so that any replica can list a job, replay its log and follow
// it while another runs it.
//
// River decides which node runs a job. It has no heartbeat of its own (a
// job of a dead node is rescued after an hour), so a running job here
// beats every BeatEvery, and every node's reaper gives a job whose node
// stopped beating back to River at once: a killed replica's job is
// retried on another within Options.StaleAfter. A job runs from the start again;
// its tools write pages by URL and its result once, so a retry duplicates
// nothing.
package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"hark/api"
	"hark/gateway/store"
)

// Job states.
const (
	StateQueued    = "queued"    // waiting for a node
	StateRunning   = "running"   // a node runs it
	StateCompleted = "completed" // Output holds the tool's output
	StateFailed    = "failed"    // Code and Error say why
)

// A cancelled job fails with this status (nginx's "client closed
// request", as the gateway logs a call whose client left) and message.
const (
	CodeCancelled = api.JobCancelled
	MsgCancelled  = "cancelled by the client"
)

// ErrNotFound is a job ID that names no job (of the caller's workspace).
var ErrNotFound = errors.New("no job has this id")

// Job is one job as the database holds it.
type Job struct {
	ID        string          `json:"id"`
	Workspace string          `json:"-"`
	Tool      string          `json:"tool"`
	State     string          `json:"state"`
	Attempt   int             `json:"attempt"`
	Node      string          `json:"node,omitempty"`
	Input     json.RawMessage `json:"inputs,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`
	Code      int             `json:"code,omitempty"` // the HTTP status the failure maps to
	Error     string          `json:"error,omitempty"`
	Created   time.Time       `json:"created"`
	Updated   time.Time       `json:"updated"`
	// Meta is what travels with the job besides its inputs (Spec.Meta).
	Meta Meta `json:"-"`
}

// Meta is what a job carries besides its tool's inputs, so that whichever
// node or process runs it does as the one it was submitted to would:
// the submitting gateway's reading of private addresses (the embedded
// gateway's --allow-private, which a later hark process may lack), and
// the credits charged when it was submitted (a detached job; a failure
// on the caller's input gives them back). It is kept as JSON in the meta
// column.
type Meta struct {
	AllowPrivate bool  `json:"allow_private,omitempty"`
	Charged      int64 `json:"charged,omitempty"`
}

// Done reports whether the job has ended.
func (j *Job) Done() bool { return j.State == StateCompleted || j.State == StateFailed }

// Event is one entry of a job's log.
type Event struct {
	Seq  int       `json:"seq"`
	Time time.Time `json:"time"`
	Kind string    `json:"kind"` // queued, started, progress, retry, completed, failed
	Msg  string    `json:"msg"`
}

// RunFunc runs a job's tool and returns its output. A failure's
// classification (HTTP status and message) comes from Options.Classify.
type RunFunc func(ctx context.Context, j *Job) (any, error)

// Options configure a Queue.
type Options struct {
	// DB is the gateway's database: gateway.db (the embedded default),
	// or a team's PostgreSQL. Required.
	DB  *store.DB
	Run RunFunc // required
	// Classify maps a failure to its HTTP status and message; nil: 500.
	Classify func(error) (int, string)
	Workers  int          // jobs run at once on this node; default 4
	Logger   *slog.Logger // nil discards
	// BeatEvery is how often a running job says it is alive (default
	// 1 s); StaleAfter without a beat, another node retries it (default
	// 6 s: a beat is one small UPDATE, and a node wrongly taken for dead
	// only loses its claim and stops, so nothing is done twice). Tests
	// shorten both.
	BeatEvery, StaleAfter time.Duration
	// Lazy starts the workers at the first use of the Queue rather than
	// in Open: the embedded gateway of a command that runs no job pays
	// nothing for them. A server starts them at once, so that the jobs a
	// stopped server left resume without a client asking.
	Lazy bool
	// Ended, when set, is told of a job's end once, by the node that
	// recorded it (the gateway gives back what a detached job was
	// charged when it failed on its caller's input).
	Ended func(ctx context.Context, j *Job)
	// PollEvery is how often the node looks for new jobs (default 50 ms:
	// 20 small queries a second, against 200 ms more per synchronous
	// call at River's 1 s) and a local waiter for its job's end.
	PollEvery time.Duration
	// Periodic is work run on a schedule, once per period across the
	// replicas (periodic.go).
	Periodic []Periodic
}

// Queue submits, runs and reports jobs.
type Queue struct {
	opts  Options
	st    *records
	node  string
	river riverClient

	ctx    context.Context // ends at Close
	cancel context.CancelFunc
	reaper sync.WaitGroup

	once     sync.Once // start
	started  bool
	live     atomic.Bool // started, for readers outside once
	startErr error

	mu      sync.Mutex
	waiters map[string][]chan result // local waiters of jobs this node runs
	ended   map[string]result        // the ends of jobs this node ran, from before finish records them, for waiters (kept endedFor)
}

// result is a job's end as this node saw it: the tool's own output and
// error values, which a waiter on this node uses instead of their JSON.
type result struct {
	out any
	err error
	at  time.Time // when the job ended here
}

// endedFor is how long this node holds a job's end for a waiter that
// comes after it: a call that submits and then waits may find the job
// run and ended before its wait began.
const endedFor = time.Minute

// Open creates the tables (River's through its migrations, and the jobs'
// own) and starts this node's workers and reaper.
func Open(ctx context.Context, opts Options) (*Queue, error) {
	if opts.DB == nil {
		return nil, errors.New("jobs: Options.DB is required")
	}
	if opts.Run == nil {
		return nil, errors.New("jobs: Options.Run is required")
	}
	if opts.Workers <= 0 {
		opts.Workers = 4
	}
	if opts.BeatEvery <= 0 {
		opts.BeatEvery = time.Second
	}
	if opts.StaleAfter <= 0 {
		opts.StaleAfter = 6 * time.Second
	}
	if opts.PollEvery <= 0 {
		opts.PollEvery = 50 * time.Millisecond
	}
	if opts.Classify == nil {
		opts.Classify = func(err error) (int, string) { return 500, err.Error() }
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	host, _ := os.Hostname()
	q := &Queue{opts: opts, node: fmt.Sprintf("%s/%d/%s", host, os.Getpid(), randomID()[:8]), waiters: map[string][]chan result{}, ended: map[string]result{}}
	q.ctx, q.cancel = context.WithCancel(context.Background())
	if opts.Lazy {
		return q, nil
	}
	if err := q.start(ctx); err != nil {
		return nil, err
	}
	return q, nil
}

// start migrates and starts the workers and the reaper, once.
func (q *Queue) start(ctx context.Context) error {
	q.once.Do(func() {
		if q.startErr = q.openBackend(context.WithoutCancel(ctx)); q.startErr != nil {
			return
		}
		q.started = true
		q.live.Store(true)
		q.reaper.Add(1)
		go q.reap()
	})
	return q.startErr
}

// Node names this process among the nodes that run jobs.
func (q *Queue) Node() string { return q.node }

// Close stops this node: running jobs are given back to the queue for
// another node (or this one's next start) to run again.
func (q *Queue) Close(ctx context.Context) error {
	q.once.Do(func() {}) // a lazy queue never used stays unstarted
	q.cancel()
	if !q.started {
		return nil
	}
	q.reaper.Wait()
	return q.river.StopAndCancel(ctx)
}

// Spec is what Submit runs.
type Spec struct {
	Workspace string
	Tool      string
	Input     json.RawMessage // the tool's validated inputs
	Meta      Meta
}

// Submit records a job and queues it; it returns at once.
func (q *Queue) Submit(ctx context.Context, sp Spec) (*Job, error) {
	if err := q.start(ctx); err != nil {
		return nil, err
	}
	j := &Job{ID: randomID(), Workspace: sp.Workspace, Tool: sp.Tool, State: StateQueued, Input: sp.Input, Meta: sp.Meta}
	if err := q.st.create(ctx, j); err != nil {
		return nil, err
	}
	_ = q.st.event(ctx, j.ID, "queued", sp.Tool+" queued")
	riverID, err := q.river.insert(ctx, j.ID)
	if err != nil {
		_, _ = q.st.exec(context.WithoutCancel(ctx), `UPDATE hark_jobs SET state = ?, error = ?, code = 500 WHERE id = ?`, StateFailed, "could not queue: "+err.Error(), j.ID)
		return nil, fmt.Errorf("queue job: %w", err)
	}
	if err := q.st.setRiverID(ctx, j.ID, riverID); err != nil {
		return nil, fmt.Errorf("queue job: %w", err)
	}
	return q.st.get(ctx, "", j.ID)
}

// Get reads a job of workspace.
func (q *Queue) Get(ctx context.Context, workspace, id string) (*Job, error) {
	if err := q.start(ctx); err != nil {
		return nil, err
	}
	return q.st.get(ctx, workspace, id)
}

// Cancel stops a queued or running job of workspace; it returns the job
// as it now stands (an ended job is left as it ended).
func (q *Queue) Cancel(ctx context.Context, workspace, id string) (*Job, error) {
	if err := q.start(ctx); err != nil {
		return nil, err
	}
	if _, err := q.st.get(ctx, workspace, id); err != nil {
		return nil, err
	}
	if _, err := q.st.cancel(ctx, workspace, id); err != nil {
		return nil, fmt.Errorf("cancel job: %w", err)
	}
	return q.st.get(ctx, workspace, id)
}

// List lists workspace's jobs, newest first; active keeps the queued and
// running ones.
func (q *Queue) List(ctx context.Context, workspace string, active bool, limit int) ([]Job, error) {
	if err := q.start(ctx); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = 50
	}
	return q.st.list(ctx, workspace, active, limit)
}

// Events returns a job's log entries after seq after, waiting up to wait
// for the first new one while the job runs (a long poll: every replica
// answers it from the database).
func (q *Queue) Events(ctx context.Context, workspace, id string, after int, wait time.Duration) ([]Event, *Job, error) {
	if err := q.start(ctx); err != nil {
		return nil, nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		j, err := q.st.get(ctx, workspace, id)
		if err != nil {
			return nil, nil, err
		}
		evs, err := q.st.events(ctx, id, after)
		if err != nil {
			return nil, nil, err
		}
		if len(evs) > 0 || j.Done() || !time.Now().Before(deadline) {
			return evs, j, nil
		}
		select {
		case <-ctx.Done():
			return evs, j, nil
		case <-time.After(max(q.opts.PollEvery, eventPoll)):
		}
	}
}

// eventPoll is how often a long poll of a log looks again: two small
// queries per follower each time.
const eventPoll = 250 * time.Millisecond

// Wait waits for a job to end and returns it, with the tool's own output
// and error values when this node ran it (out and err are then set).
func (q *Queue) Wait(ctx context.Context, id string) (j *Job, out any, err error) {
	if err := q.start(ctx); err != nil {
		return nil, nil, err
	}
	ch := make(chan result, 1)
	q.mu.Lock()
	q.waiters[id] = append(q.waiters[id], ch)
	q.mu.Unlock()
	defer q.unwait(id, ch)
	tick := time.NewTicker(q.opts.PollEvery)
	defer tick.Stop()
	for {
		select {
		case r := <-ch:
			j, gerr := q.st.get(context.WithoutCancel(ctx), "", id)
			if gerr != nil {
				return nil, nil, gerr
			}
			return j, r.out, r.err
		case <-tick.C:
			j, gerr := q.st.get(ctx, "", id)
			if gerr != nil {
				return nil, nil, gerr
			}
			if j.Done() {
				q.mu.Lock()
				r, ok := q.ended[id]
				q.mu.Unlock()
				if ok {
					return j, r.out, r.err
				}
				return j, nil, nil
			}
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
}

func (q *Queue) unwait(id string, ch chan result) {
	q.mu.Lock()
	defer q.mu.Unlock()
	ws := q.waiters[id]
	for i, c := range ws {
		if c == ch {
			ws = append(ws[:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(q.waiters, id)
		delete(q.ended, id)
	} else {
		q.waiters[id] = ws
	}
}

// keep holds a job's end for its local waiters, those waiting now and
// those that come within endedFor; this node keeps it before it records
// the end, so that a waiter that sees the end in the database first
// still gets the values. Ends older than endedFor that no waiter took
// are let go here.
func (q *Queue) keep(id string, r result) {
	q.mu.Lock()
	defer q.mu.Unlock()
	r.at = time.Now()
	for k, e := range q.ended {
		if len(q.waiters[k]) == 0 && r.at.Sub(e.at) > endedFor {
			delete(q.ended, k)
		}
	}
	q.ended[id] = r
}

func (q *Queue) notify(id string, r result) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, ch := range q.waiters[id] {
		select {
		case ch <- r:
		default:
		}
	}
}

// Counts is the number of jobs of every workspace by state; nil before
// this node's queue has started (a lazy one not yet used).
func (q *Queue) Counts(ctx context.Context) (map[string]int, error) {
	if !q.live.Load() {
		return nil, nil
	}
	return q.st.counts(ctx)
}

// Progress appends a step of a running job to its log.
func (q *Queue) Progress(ctx context.Context, id, msg string) {
	_ = q.st.event(context.WithoutCancel(ctx), id, "progress", msg)
}

// randomID is a job's ID in the form of research's request_id (a UUID's
// layout), which a research job's report carries.
func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
