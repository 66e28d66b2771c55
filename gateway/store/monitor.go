package store

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Monitor keeps a gateway's log readable while its database is down.
// Whatever logs a warning or an error through Quiet (River's poll loop
// logs one 20 times a second while PostgreSQL is down) makes the monitor
// ask the database, at most once a second; if it does not answer, the
// outage is logged once, then warnings and errors are counted instead of
// logged, with a summary at growing intervals (10 s, 20 s, 40 s, … at
// most 5 min), and "recovered" when a ping answers again. While the
// database answers it costs nothing: it pings only to judge a warning,
// and through an outage.
type Monitor struct {
	db  *DB
	log *slog.Logger // where the outage's own lines go

	// FirstSummary is the wait before the first summary (default 10 s);
	// PingEvery the pace of pings through an outage (default 1 s). Tests
	// shorten them.
	FirstSummary, PingEvery time.Duration

	mu         sync.Mutex
	down       bool
	since      time.Time // the outage's start
	suppressed int       // records counted since the last line
	lastErr    string    // the last ping's error
	nextLine   time.Time // the next summary
	gap        time.Duration
	checked    time.Time // the last ping that judged a warning
	wake       chan struct{}
}

// NewMonitor watches db and writes its lines to log.
func NewMonitor(db *DB, log *slog.Logger) *Monitor {
	return &Monitor{db: db, log: log, FirstSummary: 10 * time.Second, PingEvery: time.Second, wake: make(chan struct{}, 1)}
}

// Down reports whether the database is known not to answer.
func (m *Monitor) Down() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.down
}

// ping asks the database, within a second.
func (m *Monitor) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return m.db.SQL().PingContext(ctx)
}

// judge is called before a warning or an error is logged: it reports
// whether to hold the record back, as part of an outage.
func (m *Monitor) judge(ctx context.Context) bool {
	if !m.Outage(ctx) {
		return false
	}
	m.mu.Lock()
	m.suppressed++
	m.mu.Unlock()
	return true
}

// Outage reports whether the database is down, asking it (at most once a
// second) when it is not known to be; the outage's first line is logged
// when a call finds it. A request refused for the outage asks it before
// its own line is written: one warning for the outage, not one per
// request.
func (m *Monitor) Outage(ctx context.Context) bool {
	m.mu.Lock()
	if m.down {
		m.mu.Unlock()
		return true
	}
	if time.Since(m.checked) < time.Second {
		m.mu.Unlock()
		return false
	}
	m.checked = time.Now()
	m.mu.Unlock()
	err := m.ping(context.WithoutCancel(ctx))
	if err == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.down {
		m.down, m.since, m.lastErr = true, time.Now(), err.Error()
		m.gap = m.FirstSummary
		m.nextLine = m.since.Add(m.gap)
		m.log.Error("database unavailable: its errors are counted, not logged, until it answers again", "dialect", m.db.Dialect().String(), "error", m.lastErr)
		select {
		case m.wake <- struct{}{}:
		default:
		}
	}
	return true
}

// Run pings through an outage until the database answers, summing up at
// growing intervals; it returns when ctx ends.
func (m *Monitor) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.wake:
		}
		t := time.NewTicker(m.PingEvery)
		for m.Down() {
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			err := m.ping(ctx)
			m.mu.Lock()
			now := time.Now()
			switch {
			case err == nil:
				m.down = false
				m.log.Info("database recovered", "dialect", m.db.Dialect().String(), "after", now.Sub(m.since).Round(time.Millisecond).String(),
					"suppressed", m.suppressed)
				m.suppressed = 0
			case !now.Before(m.nextLine):
				m.lastErr = err.Error()
				m.log.Warn("database still unavailable", "dialect", m.db.Dialect().String(), "for", now.Sub(m.since).Round(time.Second).String(),
					"suppressed", m.suppressed, "error", m.lastErr)
				m.suppressed = 0
				m.gap = min(2*m.gap, 5*time.Minute)
				m.nextLine = now.Add(m.gap)
			}
			m.mu.Unlock()
		}
		t.Stop()
	}
}

// Quiet is h, with its warnings and errors held back while the database
// is down (counted in the monitor's summaries). Other records pass.
func (m *Monitor) Quiet(h slog.Handler) slog.Handler { return &quiet{Handler: h, m: m} }

type quiet struct {
	slog.Handler
	m *Monitor
}

func (q *quiet) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn && q.m.judge(ctx) {
		return nil
	}
	return q.Handler.Handle(ctx, r)
}

func (q *quiet) WithAttrs(as []slog.Attr) slog.Handler {
	return &quiet{Handler: q.Handler.WithAttrs(as), m: q.m}
}

func (q *quiet) WithGroup(name string) slog.Handler {
	return &quiet{Handler: q.Handler.WithGroup(name), m: q.m}
}
