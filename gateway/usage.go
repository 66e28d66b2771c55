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
	mu  sync.Mutex // serialises check-and-reserve
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

// used is the workspace's credits in the current period.
func (u *usageStore) used(ctx context.Context, ws *workspace) (int64, error) {
	var n int64
	err := u.db.QueryRowContext(ctx,
		`SELECT COALESCE(SUM(credits),0) FROM gateway_usage WHERE workspace=? AND ts>=?`,
		ws.name, periodStart(u.now(), ws.quotaPeriod).UnixMilli()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("read credit usage: %w", err)
	}
	return n, nil
}

// reservation is a billable call in progress.
type reservation struct {
	id                 int64 // 0 when no pending row was written
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
	u.mu.Lock()
	defer u.mu.Unlock()
	used, err := u.used(ctx, ws)
	if err != nil {
		return nil, err
	}
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
	return res, nil
}

// settle ends a reserved call: credits are what it finally costs (0 to
// refund), callErr its failure if any.
func (u *usageStore) settle(res *reservation, credits int64, callErr error, d time.Duration) {
	status, msg := "ok", ""
	if callErr != nil {
		status, msg = "error", truncate(callErr.Error(), 500)
	}
	// Settling must happen even when the request's context has ended.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if res.id == 0 {
		_, _ = u.db.ExecContext(ctx,
			`INSERT INTO gateway_usage(ts,workspace,key_id,trace_id,operation,credits,status,error,duration_ms) VALUES(?,?,?,?,?,?,?,?,?)`,
			res.ts.UnixMilli(), res.ws.name, res.keyID, res.traceID, res.op, credits, status, msg, d.Milliseconds())
		return
	}
	_, _ = u.db.ExecContext(ctx,
		`UPDATE gateway_usage SET credits=?, status=?, error=?, duration_ms=? WHERE id=?`,
		credits, status, msg, d.Milliseconds(), res.id)
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
