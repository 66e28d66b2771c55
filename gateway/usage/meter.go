package usage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Meter bills calls on a ledger. A billable call reserves its credits
// before it runs (so concurrent calls cannot overrun the quota together)
// and is settled when it ends: kept on success, refunded on failure.
// Every answered call ends with exactly one settled row.
type Meter struct {
	ledger *Ledger
	now    func() time.Time
	open   atomic.Int64 // reservations written and not yet settled
	lease  time.Duration
	// redact keeps secrets out of the error a row records (RedactWith).
	redact func(string) string
}

// RedactWith makes every error the ledger records pass through redact
// first, so that an API key or a vendor secret a failed call's message
// holds (a key sent as a voice, a crawl URL holding one) is never
// stored. Call it before the meter bills.
func (m *Meter) RedactWith(redact func(string) string) { m.redact = redact }

// DefaultLease is a reservation's lease unless the config says otherwise
// (limits.reservation_lease).
const DefaultLease = 30 * time.Second

// Open is the number of this meter's reservations of calls under way.
func (m *Meter) Open() int64 { return m.open.Load() }

// NewMeter bills on l with the clock now (nil: time.Now); a reservation
// is refunded by any gateway once lease (0: DefaultLease) passes without
// Run renewing it.
func NewMeter(l *Ledger, now func() time.Time, lease time.Duration) *Meter {
	if now == nil {
		now = time.Now
	}
	if lease <= 0 {
		lease = DefaultLease
	}
	return &Meter{ledger: l, now: now, lease: lease}
}

// Run keeps the leases until ctx ends: every sixth of a lease it renews
// this gateway's reservations, and refunds every gateway's whose lease
// ran out, so that a gateway killed mid-call has its reservations
// refunded by the others within a lease and a sixth (the stated time,
// docs/gateway.md). A failed round is retried at the next; refunds are
// logged.
func (m *Meter) Run(ctx context.Context, log *slog.Logger) {
	t := time.NewTicker(m.lease / 6)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		m.Sweep(ctx, log)
	}
}

// Sweep is one round of Run.
func (m *Meter) Sweep(ctx context.Context, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, m.lease/6)
	defer cancel()
	now := m.now()
	if m.open.Load() > 0 {
		if _, err := m.ledger.renewLeases(ctx, now.Add(m.lease)); err != nil && ctx.Err() == nil {
			log.Warn("reservations not renewed; retried shortly", "error", err.Error())
		}
	}
	n, err := m.ledger.refundExpired(ctx, now)
	if n > 0 {
		log.Info("refunded the reservations of gateways that stopped renewing them", "reservations", n, "lease", m.lease.String())
	}
	if err != nil && ctx.Err() == nil {
		log.Warn("expired reservations not refunded; retried shortly", "error", err.Error())
	}
}

// Ledger is the meter's ledger.
func (m *Meter) Ledger() *Ledger { return m.ledger }

// Start refunds the pending rows of this machine's gateways that were
// killed mid-call. The ledger's tables must be migrated (Schema).
func (m *Meter) Start(ctx context.Context) error {
	_, err := m.ledger.refundAbandoned(ctx)
	return err
}

// creditResync is how stale a workspace's in-memory credit count may get
// before it is read from the database again. Only writes by another
// process sharing the database make it differ; this process's own writes
// keep it exact.
const creditResync = 10 * time.Second

// settleTimeout bounds the writes of one settle, retries included. It
// starts when the write starts: waiting for anything else never eats it.
const settleTimeout = 30 * time.Second

// Account is a workspace as billing sees it: its name, its quota and the
// period the quota renews on, and its credits in the current period, kept
// in memory so that every response can report them (X-Credits-Used)
// without a query. mu guards the fields only and is never held across a
// database call: a response reads the count in nanoseconds however busy
// the database is.
type Account struct {
	Name string
	// Quota (credits per period; 0 is unlimited) and Period ("day", or
	// "month", the default) are set before the account is used; after,
	// SetLimits changes them and Limits reads them.
	Quota  int64
	Period string

	mu         sync.Mutex
	period     time.Time // start of the period counted; zero until loaded
	synced     time.Time // when used was last read from the database
	used       int64
	changes    uint64 // counts this process's writes, so a re-read racing one is dropped
	refreshing bool
}

// Limits is the account's quota and quota period.
func (a *Account) Limits() (quota int64, period string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.Quota, a.Period
}

// SetLimits changes the quota and its period (workspaces set): the next
// reservation checks the new quota; a new period starts its count from
// the ledger.
func (a *Account) SetLimits(quota int64, period string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.Quota, a.Period = quota, period
}

// PeriodStart is the start of the quota period holding now (UTC).
func PeriodStart(now time.Time, period string) time.Time {
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

// Used is the account's credits in the current period, read from the
// database.
func (m *Meter) Used(ctx context.Context, a *Account) (int64, error) {
	_, period := a.Limits()
	return m.ledger.Sum(ctx, a.Name, PeriodStart(m.now(), period))
}

// Load reads the count from the database and stores it unless one of
// this process's writes changed it meanwhile (the read may or may not
// include that write; the next re-read settles it).
func (m *Meter) Load(ctx context.Context, a *Account) (int64, error) {
	now := m.now()
	_, period := a.Limits()
	p := PeriodStart(now, period)
	a.mu.Lock()
	changes := a.changes
	a.mu.Unlock()
	n, err := m.ledger.Sum(ctx, a.Name, p)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.refreshing = false
	if err != nil {
		return a.used, err
	}
	if a.changes == changes || !a.period.Equal(p) {
		a.period, a.used = p, n
	}
	a.synced = now
	return a.used, nil
}

// CreditsUsed is the account's credits in its current period, from the
// in-memory count: what X-Credits-Used reports. A stale count is answered
// at once and re-read in the background; only a new period waits for the
// database.
func (m *Meter) CreditsUsed(ctx context.Context, a *Account) (int64, error) {
	now := m.now()
	a.mu.Lock()
	if !a.period.Equal(PeriodStart(now, a.Period)) { // a.mu is held
		a.mu.Unlock()
		return m.Load(ctx, a)
	}
	used := a.used
	stale := now.Sub(a.synced) >= creditResync && !a.refreshing
	if stale {
		a.refreshing = true
	}
	a.mu.Unlock()
	if stale {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
			defer cancel()
			m.Load(ctx, a)
		}()
	}
	return used, nil
}

// observe takes used, the database's count of the period starting p as
// a reservation read it, unless one of this process's writes changed the
// count since changes was read (then which came first is unknown, and
// the write's delta is added instead; the next re-read settles it). delta
// is the reservation's own write, 0 for a refusal.
func (a *Account) observe(p time.Time, used int64, changes uint64, delta int64, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if delta != 0 {
		defer func() { a.changes++ }()
	}
	if a.changes == changes || !a.period.Equal(p) {
		a.period, a.used, a.synced = p, used, now
		return
	}
	a.used += delta
}

// add changes the count by a write of this process that counts in the
// period starting p.
func (a *Account) add(p time.Time, delta int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.changes++
	if a.period.Equal(p) {
		a.used += delta
	}
}

// Reservation is a billable call in progress.
type Reservation struct {
	id                 int64 // 0 when no pending row was written
	held               int64 // credits the pending row holds
	account            *Account
	keyID, traceID, op string
	ts                 time.Time
	period             string // the account's quota period when it was made
}

// QuotaError is a call the workspace's credit quota cannot cover.
type QuotaError struct {
	Workspace   string
	Used, Quota int64
	Cost        int64
	Period      string // day or month
	// ResetIn is the time until the next period.
	ResetIn time.Duration
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("credit quota exhausted for workspace %q: %d of %d credits used this %s; this call costs %d",
		e.Workspace, e.Used, e.Quota, e.Period, e.Cost)
}

// Reserve checks the quota and, for an account with a quota, records a
// pending call holding cost credits, so concurrent calls see it. The
// check and the write are one transaction of the ledger, so the quota
// holds on the database's figure without any lock here. Without a quota
// nothing is written until Settle, which saves a write per call.
func (m *Meter) Reserve(ctx context.Context, a *Account, keyID, traceID, op string, cost int64) (*Reservation, error) {
	quota, period := a.Limits()
	res := &Reservation{account: a, keyID: keyID, traceID: traceID, op: op, ts: m.now(), period: period}
	if quota <= 0 {
		return res, nil
	}
	p := PeriodStart(res.ts, period)
	a.mu.Lock()
	changes := a.changes
	a.mu.Unlock()
	id, used, ok, err := m.ledger.reserve(ctx, Row{Time: res.ts, Workspace: a.Name, KeyID: keyID, TraceID: traceID, Op: op, Credits: cost,
		LeaseUntil: m.now().Add(m.lease)}, quota, p)
	if err != nil {
		return nil, err
	}
	// The reservation read the database's count, every replica's calls
	// in it: the in-memory count takes it, so that the credit headers of
	// this answer and the next ones agree with the database, and a 402's
	// message with its headers.
	if !ok {
		a.observe(p, used, changes, 0, m.now())
		return nil, &QuotaError{Workspace: a.Name, Used: used, Quota: quota, Cost: cost, Period: periodName(period),
			ResetIn: periodEnd(p, period).Sub(res.ts)}
	}
	res.id, res.held = id, cost
	m.open.Add(1)
	a.observe(p, used, changes, cost, m.now())
	return res, nil
}

// Settle ends a reserved call: credits are what it finally costs (0 to
// refund), callErr its failure if any. A write that fails (the database
// busy past its timeout) is retried until settleTimeout; an error means
// the usage history lacks the call, and the caller logs it.
func (m *Meter) Settle(res *Reservation, credits int64, callErr error, d time.Duration) error {
	row := Row{Time: res.ts, Workspace: res.account.Name, KeyID: res.keyID, TraceID: res.traceID, Op: res.op,
		Credits: credits, Status: "ok", DurationMs: d.Milliseconds()}
	if callErr != nil {
		msg := callErr.Error()
		if m.redact != nil {
			msg = m.redact(msg)
		}
		row.Status, row.Error = "error", truncate(msg, 500)
		if errors.Is(callErr, context.Canceled) {
			row.Error = "client closed the request"
		}
	}
	if res.id != 0 {
		defer m.open.Add(-1)
	}
	// Settling must happen even when the request's context has ended.
	ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
	defer cancel()
	var err error
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		if res.id == 0 {
			err = m.ledger.record(ctx, row)
		} else {
			err = m.ledger.settle(ctx, res.id, res.held, row)
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
	res.account.add(PeriodStart(res.ts, res.period), credits-res.held)
	return nil
}

// Refund gives back credits charged earlier (a detached job that failed
// on its caller's input): a settled row of its own, op "refund <tool>",
// with negative credits, counted in the period it is written in.
func (m *Meter) Refund(a *Account, traceID, op string, credits int64) error {
	res := &Reservation{account: a, traceID: traceID, op: "refund " + op, ts: m.now()}
	return m.Settle(res, -credits, nil, 0)
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// TTSCost is 1 credit per started 1000 characters.
func TTSCost(text string) int64 {
	return int64(max(1, (utf8.RuneCountInString(text)+999)/1000))
}

// STTCost is 1 credit per started minute of audio.
func STTCost(durationMs int) int64 {
	return int64(max(1, (durationMs+59999)/60000))
}
