// Package usage is what the gateway's calls cost and what they spent: the
// usage ledger (a row per call, reserved before it runs and settled when
// it ends), each workspace's credits in its quota period, and the costs
// of the tools it bills. Its SQL is written once for gateway.db and
// PostgreSQL (gateway/store). It knows nothing of HTTP.
package usage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"hark/gateway/store"
)

// Ledger keeps the usage ledger (gateway_usage) and each workspace's
// credits per quota period (gateway_credit_totals), in gateway.db or in
// a team's PostgreSQL. A quota check and its reservation are one
// transaction whose UPDATE … WHERE used + cost <= quota takes the totals
// row's lock, so replicas on one database (or processes on one
// gateway.db) reserve in turn and never overrun a quota together.
//
// A totals row is kept exact by every transaction that changes the
// credits of the rows it counts (reserve, settle, record, refunds): a row
// counts in every total of its workspace whose period began at or before
// it. Nothing ever rebuilds them, so no replica races another doing so.
type Ledger struct {
	db     *store.DB
	host   string
	holder string // this process, on its pending rows: "host/pid:start"
}

// NewLedger is the ledger of db; its tables are Schema's.
func NewLedger(db *store.DB) *Ledger {
	host, _ := os.Hostname()
	return &Ledger{db: db, host: host, holder: host + "/" + processHolder(os.Getpid())}
}

// Row is one call's row as written.
type Row struct {
	Time                      time.Time
	Workspace, KeyID, TraceID string
	Op, Status, Error         string
	Credits, DurationMs       int64
	// LeaseUntil is a reservation's lease: past it, unless renewed, any
	// gateway refunds the row.
	LeaseUntil time.Time
}

// Record is one row of the usage history.
type Record struct {
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

// Sum is a workspace's credits since from.
func (l *Ledger) Sum(ctx context.Context, workspace string, from time.Time) (int64, error) {
	var n int64
	err := l.db.QueryRow(ctx,
		`SELECT COALESCE(SUM(credits),0) FROM gateway_usage WHERE workspace=? AND ts>=?`,
		workspace, from.UnixMilli()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("read credit usage: %w", err)
	}
	return n, nil
}

// reserve writes r as pending if the workspace's credits in the period
// starting from, plus r.Credits, stay within quota, atomically with that
// check, and returns the credits used with it; otherwise it writes
// nothing and returns ok false and the credits used. Either figure is the
// database's at that moment, every replica's calls counted.
func (l *Ledger) reserve(ctx context.Context, r Row, quota int64, from time.Time) (id, used int64, ok bool, err error) {
	p := from.UnixMilli()
	err = l.db.Tx(ctx, func(tx *store.Tx) error {
		ok = false
		take := func() error {
			return tx.QueryRow(ctx,
				`UPDATE gateway_credit_totals SET used=used+? WHERE workspace=? AND period_start=? AND used+?<=? RETURNING used`,
				r.Credits, r.Workspace, p, r.Credits, quota).Scan(&used)
		}
		// Each statement sees what other transactions committed before
		// it (read committed), so the row may appear, or change, between
		// a take that missed it and the read after: then take again.
		for attempt := 0; ; attempt++ {
			err := take()
			if !errors.Is(err, sql.ErrNoRows) {
				if err != nil {
					return err
				}
				break
			}
			err = tx.QueryRow(ctx, `SELECT used FROM gateway_credit_totals WHERE workspace=? AND period_start=?`, r.Workspace, p).Scan(&used)
			switch {
			case errors.Is(err, sql.ErrNoRows): // the period's first reservation
				if err := l.startPeriod(ctx, tx, r.Workspace, p); err != nil {
					return err
				}
			case err != nil:
				return err
			case used+r.Credits > quota || attempt >= 5:
				return nil // over the quota
			}
		}
		ok = true
		return tx.QueryRow(ctx,
			`INSERT INTO gateway_usage(ts,workspace,key_id,trace_id,operation,credits,status,holder,lease_until)
			 VALUES(?,?,?,?,?,?,'pending',?,?) RETURNING id`,
			r.Time.UnixMilli(), r.Workspace, r.KeyID, r.TraceID, r.Op, r.Credits, l.holder, r.LeaseUntil.UnixMilli()).Scan(&id)
	})
	if err != nil {
		return 0, 0, false, fmt.Errorf("record credit usage: %w", err)
	}
	if !ok {
		return 0, used, false, nil
	}
	return id, used, true, nil
}

// startPeriod makes the totals row of a workspace's period from the
// ledger, once: a concurrent reservation waits on the uncommitted insert,
// then uses the row. The workspace's other totals are of periods that
// will not come back (or of a period kind it no longer has), and one kept
// would go stale, so they go.
func (l *Ledger) startPeriod(ctx context.Context, tx *store.Tx, workspace string, p int64) error {
	res, err := tx.Exec(ctx,
		`INSERT INTO gateway_credit_totals(workspace,period_start,used)
		 SELECT ?,?,COALESCE(SUM(credits),0) FROM gateway_usage WHERE workspace=? AND ts>=?
		 ON CONFLICT(workspace,period_start) DO NOTHING`, workspace, p, workspace, p)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		_, err = tx.Exec(ctx, `DELETE FROM gateway_credit_totals WHERE workspace=? AND period_start<>?`, workspace, p)
	}
	return err
}

// addToTotals changes the totals that count a row of ts by delta.
const addToTotals = `UPDATE gateway_credit_totals SET used=used+? WHERE workspace=? AND period_start<=?`

// record writes a settled row of a call that reserved nothing.
func (l *Ledger) record(ctx context.Context, r Row) error {
	return l.db.Tx(ctx, func(tx *store.Tx) error {
		if _, err := tx.Exec(ctx,
			`INSERT INTO gateway_usage(ts,workspace,key_id,trace_id,operation,credits,status,error,duration_ms) VALUES(?,?,?,?,?,?,?,?,?)`,
			r.Time.UnixMilli(), r.Workspace, r.KeyID, r.TraceID, r.Op, r.Credits, r.Status, r.Error, r.DurationMs); err != nil {
			return err
		}
		if r.Credits == 0 {
			return nil
		}
		_, err := tx.Exec(ctx, addToTotals, r.Credits, r.Workspace, r.Time.UnixMilli())
		return err
	})
}

// settle ends the pending row id, which held held credits, as r says. A
// row another process refunded meanwhile (it took this one for dead) is
// charged again: the call was served.
func (l *Ledger) settle(ctx context.Context, id, held int64, r Row) error {
	return l.db.Tx(ctx, func(tx *store.Tx) error {
		res, err := tx.Exec(ctx,
			`UPDATE gateway_usage SET credits=?, status=?, error=?, duration_ms=? WHERE id=? AND status='pending'`,
			r.Credits, r.Status, r.Error, r.DurationMs, id)
		if err != nil {
			return err
		}
		delta := r.Credits - held
		if n, _ := res.RowsAffected(); n == 0 {
			if _, err := tx.Exec(ctx, `UPDATE gateway_usage SET credits=?, status=?, error=?, duration_ms=? WHERE id=?`,
				r.Credits, r.Status, r.Error, r.DurationMs, id); err != nil {
				return err
			}
			delta = r.Credits // the refund took back what it held
		}
		if delta == 0 {
			return nil
		}
		_, err = tx.Exec(ctx, addToTotals, delta, r.Workspace, r.Time.UnixMilli())
		return err
	})
}

// Recent lists a workspace's newest rows, newest first.
func (l *Ledger) Recent(ctx context.Context, workspace string, limit int) ([]Record, error) {
	rows, err := l.db.Query(ctx,
		`SELECT id,ts,workspace,key_id,trace_id,operation,credits,status,error,duration_ms FROM gateway_usage WHERE workspace=? ORDER BY id DESC LIMIT ?`,
		workspace, limit)
	if err != nil {
		return nil, fmt.Errorf("read usage: %w", err)
	}
	out, err := store.Rows(rows, func(scan func(dest ...any) error) (Record, error) {
		var r Record
		var ts int64
		err := scan(&r.ID, &ts, &r.Workspace, &r.KeyID, &r.TraceID, &r.Operation, &r.Credits, &r.Status, &r.Error, &r.DurationMs)
		r.Time = time.UnixMilli(ts).UTC()
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("read usage: %w", err)
	}
	return out, nil
}

// Pending is the number of pending rows: every process's reservations of
// calls under way (or of processes that died mid-call, until refunded).
func (l *Ledger) Pending(ctx context.Context) (int64, error) {
	var n int64
	if err := l.db.QueryRow(ctx, `SELECT count(*) FROM gateway_usage WHERE status='pending'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("read pending usage: %w", err)
	}
	return n, nil
}

// MsgAbandoned is the error of a pending row refunded after its gateway
// died.
const MsgAbandoned = "gateway stopped before the call ended; refunded"

// renewLeases pushes the leases of this process's pending rows on to
// until, and returns how many it renewed.
func (l *Ledger) renewLeases(ctx context.Context, until time.Time) (int64, error) {
	res, err := l.db.Exec(ctx, `UPDATE gateway_usage SET lease_until=? WHERE status='pending' AND holder=? AND lease_until>0`,
		until.UnixMilli(), l.holder)
	if err != nil {
		return 0, fmt.Errorf("renew reservations: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// refundExpired refunds the pending rows, any process's, whose lease
// ended before now, and takes their credits out of the totals: their
// gateway stopped renewing them (killed, or cut off from the database
// for longer than a lease). Each row is refunded only if it is still
// pending and expired, so gateways sweeping together refund it once.
func (l *Ledger) refundExpired(ctx context.Context, now time.Time) (int64, error) {
	// A read first, on the pending rows' index: the common round finds
	// nothing, and takes no write lock for it (gateway.db's transactions
	// take the file's at their start).
	var expired int64
	if err := l.db.QueryRow(ctx, `SELECT count(*) FROM gateway_usage WHERE status='pending' AND lease_until>0 AND lease_until<?`,
		now.UnixMilli()).Scan(&expired); err != nil || expired == 0 {
		if err != nil {
			return 0, fmt.Errorf("refund expired reservations: %w", err)
		}
		return 0, nil
	}
	var n int64
	err := l.db.Tx(ctx, func(tx *store.Tx) error {
		n = 0
		rows, err := tx.Query(ctx, `SELECT id, workspace, ts, credits FROM gateway_usage
			WHERE status='pending' AND lease_until>0 AND lease_until<? ORDER BY lease_until LIMIT 1000`, now.UnixMilli())
		if err != nil {
			return err
		}
		ps, err := store.Rows(rows, scanPending)
		if err != nil {
			return err
		}
		for _, p := range ps {
			res, err := tx.Exec(ctx, `UPDATE gateway_usage SET status='error', credits=0, error=? WHERE id=? AND status='pending' AND lease_until<?`,
				MsgAbandoned, p.id, now.UnixMilli())
			if err != nil {
				return err
			}
			if k, _ := res.RowsAffected(); k == 0 {
				continue
			}
			n++
			if _, err := tx.Exec(ctx, addToTotals, -p.credits, p.ws, p.ts); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("refund expired reservations: %w", err)
	}
	return n, nil
}

// pending is a pending row as a refund reads it.
type pending struct {
	id          int64
	ws          string
	ts, credits int64
}

func scanPending(scan func(dest ...any) error) (pending, error) {
	var p pending
	return p, scan(&p.id, &p.ws, &p.ts, &p.credits)
}

// refundAbandoned refunds the pending rows of this machine's processes
// that no longer run, and takes their credits out of the totals; it
// returns how many. A leased row among them is refunded at once, not
// when its lease runs out: a dead process renews nothing (a gateway
// killed and started again finds its calls refunded as it starts).
// Another machine's rows cannot be judged from here: their lease ends
// them, or (written before leases) a gateway starting there.
func (l *Ledger) refundAbandoned(ctx context.Context) (int64, error) {
	rows, err := l.db.Query(ctx, `SELECT DISTINCT holder FROM gateway_usage WHERE status='pending'`)
	if err != nil {
		return 0, fmt.Errorf("read pending usage: %w", err)
	}
	holders, err := store.Rows(rows, func(scan func(dest ...any) error) (string, error) {
		var h string
		return h, scan(&h)
	})
	if err != nil {
		return 0, fmt.Errorf("read pending usage: %w", err)
	}
	var total int64
	for _, h := range holders {
		host, proc, ok := strings.Cut(h, "/")
		if !ok { // a gateway.db row of a hark before hosts were named
			host, proc = l.host, h
		}
		if host != l.host || holderAlive(proc) {
			continue
		}
		n, err := l.refundHolder(ctx, h)
		total += n
		if err != nil {
			return total, fmt.Errorf("refund abandoned usage: %w", err)
		}
	}
	return total, nil
}

// refundHolder refunds the pending rows of one holder, each only if it is
// still pending, with its credits taken out of the totals that count it.
func (l *Ledger) refundHolder(ctx context.Context, holder string) (int64, error) {
	var n int64
	err := l.db.Tx(ctx, func(tx *store.Tx) error {
		n = 0
		rows, err := tx.Query(ctx, `SELECT id, workspace, ts, credits FROM gateway_usage WHERE status='pending' AND holder=?`, holder)
		if err != nil {
			return err
		}
		ps, err := store.Rows(rows, scanPending)
		if err != nil {
			return err
		}
		for _, p := range ps {
			res, err := tx.Exec(ctx, `UPDATE gateway_usage SET status='error', credits=0, error=? WHERE id=? AND status='pending'`, MsgAbandoned, p.id)
			if err != nil {
				return err
			}
			if k, _ := res.RowsAffected(); k == 0 {
				continue
			}
			n++
			if _, err := tx.Exec(ctx, addToTotals, -p.credits, p.ws, p.ts); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

// processHolder names a process as "pid:start", its start time in clock
// ticks since boot (Linux), so that a reused pid is not mistaken for it.
func processHolder(pid int) string {
	return strconv.Itoa(pid) + ":" + processStart(pid)
}

func processStart(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The command name (field 2) may hold spaces; fields after its ")".
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		if f := strings.Fields(s[i+1:]); len(f) > 19 {
			return f[19] // field 22, starttime
		}
	}
	return ""
}

// holderAlive reports whether the process of a holder ("pid:start") of
// this machine still runs. Rows without a holder were written by a hark
// before holders; they count as abandoned.
func holderAlive(h string) bool {
	pidStr, start, ok := strings.Cut(h, ":")
	pid, err := strconv.Atoi(pidStr)
	if !ok || err != nil || pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return processHolder(pid) == h
	}
	if _, err := os.Stat("/proc/self/stat"); err == nil {
		return start != "" && processStart(pid) == start
	}
	p, err := os.FindProcess(pid) // no /proc: the pid alone
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// ReportRow is one group of a usage report: a workspace, a key, a tool,
// or a combination, with its settled calls, their errors and credits.
type ReportRow struct {
	Workspace string `json:"workspace,omitempty"`
	KeyID     string `json:"key_id,omitempty"`
	Tool      string `json:"tool,omitempty"`
	Calls     int64  `json:"calls"`
	Errors    int64  `json:"errors"`
	Credits   int64  `json:"credits"`
}

// ReportBy are what a report may group by, as its columns.
var ReportBy = map[string]string{"workspace": "workspace", "key": "key_id", "tool": "operation"}

// Report sums the settled calls from from to to (not included) by the
// groups of by (workspace, key, tool; in that order of precedence),
// workspace "" meaning every workspace's. Pending calls are not in it yet.
func (l *Ledger) Report(ctx context.Context, from, to time.Time, workspace string, by []string) ([]ReportRow, error) {
	var cols []string
	for _, name := range []string{"workspace", "key", "tool"} {
		for _, b := range by {
			if b == name {
				cols = append(cols, ReportBy[name])
			}
		}
	}
	for _, b := range by {
		if ReportBy[b] == "" {
			return nil, fmt.Errorf("by: %q is not workspace, key or tool", b)
		}
	}
	sel := strings.Join(cols, ", ")
	if sel != "" {
		sel += ", "
	}
	q := `SELECT ` + sel + `count(*), COALESCE(SUM(CASE WHEN status = 'error' THEN 1 ELSE 0 END), 0), COALESCE(SUM(credits), 0)
		FROM gateway_usage WHERE status <> 'pending' AND ts >= ? AND ts < ?`
	args := []any{from.UnixMilli(), to.UnixMilli()}
	if workspace != "" {
		q += ` AND workspace = ?`
		args = append(args, workspace)
	}
	if len(cols) > 0 {
		q += ` GROUP BY ` + strings.Join(cols, ", ") + ` ORDER BY ` + strings.Join(cols, ", ")
	}
	rows, err := l.db.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("usage report: %w", err)
	}
	out, err := store.Rows(rows, func(scan func(...any) error) (ReportRow, error) {
		var r ReportRow
		dest := []any{}
		for _, c := range cols {
			switch c {
			case "workspace":
				dest = append(dest, &r.Workspace)
			case "key_id":
				dest = append(dest, &r.KeyID)
			case "operation":
				dest = append(dest, &r.Tool)
			}
		}
		return r, scan(append(dest, &r.Calls, &r.Errors, &r.Credits)...)
	})
	if err != nil {
		return nil, fmt.Errorf("usage report: %w", err)
	}
	return out, nil
}
