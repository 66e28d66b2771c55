package gateway

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"
)

// usageStore keeps credits and the usage history in SQLite. A billable
// call reserves its credits before it runs (so concurrent calls cannot
// overrun the quota together) and is settled when it ends: kept on
// success, refunded on failure.
type usageStore struct {
	db  *sql.DB
	now func() time.Time
}

// creditResync is how stale a workspace's in-memory credit count may get
// before it is read from the database again. Only writes by another
// process sharing gateway.db make it differ; this process's own writes
// keep it exact.
const creditResync = 10 * time.Second

// creditCounter is a workspace's credits used in its current quota period,
// kept in memory so that every response can report them (X-Credits-Used)
// without a query. The database stays the truth: the count is read from it
// when a period starts, when older than creditResync, and on every
// reservation of a workspace with a quota. mu also serialises this
// process's usage writes of the workspace, which change the count by what
// they write.
type creditCounter struct {
	mu     sync.Mutex
	period time.Time // start of the period counted; zero until loaded
	synced time.Time // when used was last read from the database
	used   int64
}

// UsageRecord is one row of the usage history.
type UsageRecord struct {
	ID         int64
	Time       time.Time
	Workspace  string
	KeyID      string // first 8 hex digits of the key's SHA-256
	TraceID    string
	Operation  string // tool slug, tts, stt, tts_stream, stt_stream
	Credits    int64
	Status     string // pending, ok, error
	Error      string
	DurationMs int64
}

const usageSchema = `
CREATE TABLE IF NOT EXISTS gateway_usage (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	ts          INTEGER NOT NULL,
	workspace   TEXT    NOT NULL,
	key_id      TEXT    NOT NULL,
	trace_id    TEXT    NOT NULL,
	operation   TEXT    NOT NULL,
	credits     INTEGER NOT NULL,
	status      TEXT    NOT NULL,
	error       TEXT    NOT NULL DEFAULT '',
	duration_ms INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS gateway_usage_ws_ts ON gateway_usage(workspace, ts);
`

func (u *usageStore) init(ctx context.Context) error {
	if _, err := u.db.ExecContext(ctx, usageSchema); err != nil {
		return fmt.Errorf("create usage tables: %w", err)
	}
	return nil
}

// periodStart is the start of the workspace's current quota period (UTC).
func periodStart(now time.Time, period string) time.Time {
	now = now.UTC()
	if period == "day" {
		return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	}
	return time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
}

func periodName(p string) string {
	if p == "day" {
		return "day"
	}
	return "month"
}

// sum reads the workspace's credits since the start of a period.
func (u *usageStore) sum(ctx context.Context, ws *workspace, from time.Time) (int64, error) {
	var n int64
	err := u.db.QueryRowContext(ctx,
		`SELECT COALESCE(SUM(credits),0) FROM gateway_usage WHERE workspace=? AND ts>=?`,
		ws.name, from.UnixMilli()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("read credit usage: %w", err)
	}
	return n, nil
}

// used is the workspace's credits in the current period, read from the
// database.
func (u *usageStore) used(ctx context.Context, ws *workspace) (int64, error) {
	return u.sum(ctx, ws, periodStart(u.now(), ws.quotaPeriod))
}

// syncLocked brings ws.credits up to date: read from the database when
// force is set, at a new period, or when the count is older than
// creditResync. ws.credits.mu is held.
func (u *usageStore) syncLocked(ctx context.Context, ws *workspace, force bool) error {
	c := &ws.credits
	now := u.now()
	p := periodStart(now, ws.quotaPeriod)
	if !force && c.period.Equal(p) && now.Sub(c.synced) < creditResync {
		return nil
	}
	n, err := u.sum(ctx, ws, p)
	if err != nil {
		return err
	}
	c.period, c.synced, c.used = p, now, n
	return nil
}

// creditsUsed is the workspace's credits in its current period, from the
// in-memory count: what X-Credits-Used reports.
func (u *usageStore) creditsUsed(ctx context.Context, ws *workspace) (int64, error) {
	ws.credits.mu.Lock()
	defer ws.credits.mu.Unlock()
	if err := u.syncLocked(ctx, ws, false); err != nil {
		return 0, err
	}
	return ws.credits.used, nil
}

// reservation is a billable call in progress.
type reservation struct {
	id                 int64 // 0 when no pending row was written
	held               int64 // credits the pending row holds
	ws                 *workspace
	keyID, traceID, op string
	ts                 time.Time
}

// reserve checks the quota and, for a workspace with a quota, records a
// pending call holding cost credits, so concurrent calls see it. Without a
// quota nothing is written until settle, which saves a write per call.
func (u *usageStore) reserve(ctx context.Context, ws *workspace, keyID, traceID, op string, cost int64) (*reservation, error) {
	res := &reservation{ws: ws, keyID: keyID, traceID: traceID, op: op, ts: u.now()}
	if ws.quota <= 0 {
		return res, nil
	}
	ws.credits.mu.Lock()
	defer ws.credits.mu.Unlock()
	if err := u.syncLocked(ctx, ws, true); err != nil {
		return nil, err
	}
	used := ws.credits.used
	if used+cost > ws.quota {
		return nil, &quotaError{workspace: ws.name, used: used, quota: ws.quota, cost: cost, period: periodName(ws.quotaPeriod)}
	}
	r, err := u.db.ExecContext(ctx,
		`INSERT INTO gateway_usage(ts,workspace,key_id,trace_id,operation,credits,status) VALUES(?,?,?,?,?,?,'pending')`,
		res.ts.UnixMilli(), ws.name, keyID, traceID, op, cost)
	if err != nil {
		return nil, fmt.Errorf("record credit usage: %w", err)
	}
	if res.id, err = r.LastInsertId(); err != nil {
		return nil, fmt.Errorf("record credit usage: %w", err)
	}
	res.held = cost
	ws.credits.used += cost
	return res, nil
}

// settle ends a reserved call: credits are what it finally costs (0 to
// refund), callErr its failure if any. An error means the usage history
// lacks the call (the database failed); the caller logs it.
func (u *usageStore) settle(res *reservation, credits int64, callErr error, d time.Duration) error {
	status, msg := "ok", ""
	if callErr != nil {
		status, msg = "error", truncate(callErr.Error(), 500)
	}
	// Settling must happen even when the request's context has ended.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := &res.ws.credits
	c.mu.Lock()
	defer c.mu.Unlock()
	var err error
	if res.id == 0 {
		_, err = u.db.ExecContext(ctx,
			`INSERT INTO gateway_usage(ts,workspace,key_id,trace_id,operation,credits,status,error,duration_ms) VALUES(?,?,?,?,?,?,?,?,?)`,
			res.ts.UnixMilli(), res.ws.name, res.keyID, res.traceID, res.op, credits, status, msg, d.Milliseconds())
	} else {
		_, err = u.db.ExecContext(ctx,
			`UPDATE gateway_usage SET credits=?, status=?, error=?, duration_ms=? WHERE id=?`,
			credits, status, msg, d.Milliseconds(), res.id)
	}
	if err != nil {
		return fmt.Errorf("record credit usage of %s: %w", res.op, err)
	}
	// The row counts in the period the call started in; a count of another
	// period is not changed.
	if c.period.Equal(periodStart(res.ts, res.ws.quotaPeriod)) {
		c.used += credits - res.held
	}
	return nil
}

// Usage returns the newest usage records of a workspace, newest first.
func (s *Server) Usage(ctx context.Context, workspace string, limit int) ([]UsageRecord, error) {
	if limit <= 0 {
		limit = 100
	}
	rows, err := s.usage.db.QueryContext(ctx,
		`SELECT id,ts,workspace,key_id,trace_id,operation,credits,status,error,duration_ms
		 FROM gateway_usage WHERE workspace=? ORDER BY id DESC LIMIT ?`, workspace, limit)
	if err != nil {
		return nil, fmt.Errorf("read usage: %w", err)
	}
	defer rows.Close()
	var out []UsageRecord
	for rows.Next() {
		var r UsageRecord
		var ts int64
		if err := rows.Scan(&r.ID, &ts, &r.Workspace, &r.KeyID, &r.TraceID, &r.Operation, &r.Credits, &r.Status, &r.Error, &r.DurationMs); err != nil {
			return nil, fmt.Errorf("read usage: %w", err)
		}
		r.Time = time.UnixMilli(ts).UTC()
		out = append(out, r)
	}
	return out, rows.Err()
}

// CreditsUsed is a workspace's credits in its current quota period.
func (s *Server) CreditsUsed(ctx context.Context, workspace string) (int64, error) {
	for _, k := range s.keys {
		if k.ws.name == workspace {
			return s.usage.used(ctx, k.ws)
		}
	}
	return 0, fmt.Errorf("unknown workspace %q", workspace)
}
