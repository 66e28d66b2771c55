package gateway

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// usageStore keeps credits and the usage history in a ledger. A billable
// call reserves its credits before it runs (so concurrent calls cannot
// overrun the quota together) and is settled when it ends: kept on
// success, refunded on failure. Every answered call ends with exactly one
// settled row.
type usageStore struct {
	ledger ledger
	now    func() time.Time
}

// creditResync is how stale a workspace's in-memory credit count may get
// before it is read from the database again. Only writes by another
// process sharing gateway.db make it differ; this process's own writes
// keep it exact.
const creditResync = 10 * time.Second

// settleTimeout bounds the writes of one settle, retries included. It
// starts when the write starts: waiting for anything else never eats it.
const settleTimeout = 30 * time.Second

// creditCounter is a workspace's credits used in its current quota period,
// kept in memory so that every response can report them (X-Credits-Used)
// without a query. mu guards the fields only and is never held across a
// database call: a response reads the count in nanoseconds however busy
// the database is.
type creditCounter struct {
	mu         sync.Mutex
	period     time.Time // start of the period counted; zero until loaded
	synced     time.Time // when used was last read from the database
	used       int64
	changes    uint64 // counts this process's writes, so a re-read racing one is dropped
	refreshing bool
}

func (u *usageStore) init(ctx context.Context) error {
	if err := u.ledger.init(ctx); err != nil {
		return err
	}
	if _, err := u.ledger.refundAbandoned(ctx); err != nil {
		return err
	}
	return u.ledger.resetTotals(ctx)
}

// periodStart is the start of the workspace's current quota period (UTC).
func periodStart(now time.Time, period string) time.Time {
	now = now.UTC()
	if period == "day" {
		return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	}
	return time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// periodEnd is the start of the period after the one starting at p.
func periodEnd(p time.Time, period string) time.Time {
	if period == "day" {
		return p.AddDate(0, 0, 1)
	}
	return p.AddDate(0, 1, 0)
}

func periodName(p string) string {
	if p == "day" {
		return "day"
	}
	return "month"
}

// used is the workspace's credits in the current period, read from the
// database.
func (u *usageStore) used(ctx context.Context, ws *workspace) (int64, error) {
	return u.ledger.sum(ctx, ws.name, periodStart(u.now(), ws.quotaPeriod))
}

// load reads the count from the database and stores it unless one of
// this process's writes changed it meanwhile (the read may or may not
// include that write; the next re-read settles it).
func (u *usageStore) load(ctx context.Context, ws *workspace) (int64, error) {
	c := &ws.credits
	now := u.now()
	p := periodStart(now, ws.quotaPeriod)
	c.mu.Lock()
	changes := c.changes
	c.mu.Unlock()
	n, err := u.ledger.sum(ctx, ws.name, p)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refreshing = false
	if err != nil {
		return c.used, err
	}
	if c.changes == changes || !c.period.Equal(p) {
		c.period, c.used = p, n
	}
	c.synced = now
	return c.used, nil
}

// creditsUsed is the workspace's credits in its current period, from the
// in-memory count: what X-Credits-Used reports. A stale count is answered
// at once and re-read in the background; only a new period waits for the
// database.
func (u *usageStore) creditsUsed(ctx context.Context, ws *workspace) (int64, error) {
	c := &ws.credits
	now := u.now()
	c.mu.Lock()
	if !c.period.Equal(periodStart(now, ws.quotaPeriod)) {
		c.mu.Unlock()
		return u.load(ctx, ws)
	}
	used := c.used
	stale := now.Sub(c.synced) >= creditResync && !c.refreshing
	if stale {
		c.refreshing = true
	}
	c.mu.Unlock()
	if stale {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
			defer cancel()
			u.load(ctx, ws)
		}()
	}
	return used, nil
}

// add changes the count by a write of this process that counts in the
// period starting p.
func (c *creditCounter) add(p time.Time, delta int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.changes++
	if c.period.Equal(p) {
		c.used += delta
	}
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
// pending call holding cost credits, so concurrent calls see it. The
// check and the write are one statement of the ledger, so the quota holds
// on the database's figure without any lock here. Without a quota
// nothing is written until settle, which saves a write per call.
func (u *usageStore) reserve(ctx context.Context, ws *workspace, keyID, traceID, op string, cost int64) (*reservation, error) {
	res := &reservation{ws: ws, keyID: keyID, traceID: traceID, op: op, ts: u.now()}
	if ws.quota <= 0 {
		return res, nil
	}
	p := periodStart(res.ts, ws.quotaPeriod)
	id, used, ok, err := u.ledger.reserve(ctx, usageRow{ts: res.ts, workspace: ws.name, keyID: keyID, trace: traceID, op: op, credits: cost}, ws.quota, p)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &quotaError{workspace: ws.name, used: used, quota: ws.quota, cost: cost, period: periodName(ws.quotaPeriod),
			resetIn: periodEnd(p, ws.quotaPeriod).Sub(res.ts)}
	}
	res.id, res.held = id, cost
	ws.credits.add(p, cost)
	return res, nil
}

// settle ends a reserved call: credits are what it finally costs (0 to
// refund), callErr its failure if any. A write that fails (the database
// busy past its timeout) is retried until settleTimeout; an error means
// the usage history lacks the call, and the caller logs it.
func (u *usageStore) settle(res *reservation, credits int64, callErr error, d time.Duration) error {
	row := usageRow{ts: res.ts, workspace: res.ws.name, keyID: res.keyID, trace: res.traceID, op: res.op,
		credits: credits, status: "ok", durationMs: d.Milliseconds(),
		held: res.held, period: periodStart(res.ts, res.ws.quotaPeriod)}
	if callErr != nil {
		row.status, row.errMsg = "error", truncate(callErr.Error(), 500)
		if errors.Is(callErr, context.Canceled) {
			row.errMsg = "client closed the request"
		}
	}
	// Settling must happen even when the request's context has ended.
	ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
	defer cancel()
	var err error
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		if res.id == 0 {
			err = u.ledger.record(ctx, row)
		} else {
			err = u.ledger.settle(ctx, res.id, row)
		}
		if err == nil || ctx.Err() != nil {
			break
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
	}
	if err != nil {
		return fmt.Errorf("record credit usage of %s: %w", res.op, err)
	}
	// The row counts in the period the call started in; a count of another
	// period is not changed.
	res.ws.credits.add(periodStart(res.ts, res.ws.quotaPeriod), credits-res.held)
	return nil
}

// Usage returns the newest usage records of a workspace, newest first.
func (s *Server) Usage(ctx context.Context, workspace string, limit int) ([]UsageRecord, error) {
	if limit <= 0 {
		limit = 100
	}
	return s.usage.ledger.recent(ctx, workspace, limit)
}

// CreditsUsed is a workspace's credits in its current quota period.
func (s *Server) CreditsUsed(ctx context.Context, workspace string) (int64, error) {
	if ws := s.workspaces[workspace]; ws != nil {
		return s.usage.used(ctx, ws)
	}
	return 0, fmt.Errorf("unknown workspace %q", workspace)
}
