package gateway

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ledger is where usage rows live. The gateway counts through it alone,
// so that another database (PostgreSQL for a team gateway) slots in as a
// second implementation. Every method is one short statement or
// transaction; none is called with a lock held.
type ledger interface {
	init(ctx context.Context) error
	// sum is a workspace's credits since from.
	sum(ctx context.Context, workspace string, from time.Time) (int64, error)
	// reserve writes row as pending if the workspace's credits since from
	// plus row.credits stay within quota, atomically with that check;
	// otherwise it writes nothing and returns ok false and the credits used.
	reserve(ctx context.Context, row usageRow, quota int64, from time.Time) (id, used int64, ok bool, err error)
	// record writes a settled row; settle settles a pending one.
	record(ctx context.Context, row usageRow) error
	settle(ctx context.Context, id int64, row usageRow) error
	// recent lists a workspace's newest rows.
	recent(ctx context.Context, workspace string, limit int) ([]UsageRecord, error)
	// refundAbandoned refunds the pending rows of gateways that are no
	// longer running (killed mid-call) and returns how many.
	refundAbandoned(ctx context.Context) (int64, error)
	// resetTotals drops what the ledger keeps derived from its rows
	// (running totals), so that it is recomputed from them.
	resetTotals(ctx context.Context) error
}

// usageRow is one call's row as written.
type usageRow struct {
	ts                      time.Time
	workspace, keyID, trace string
	op, status, errMsg      string
	credits, durationMs     int64
	// For settle: the credits the pending row held, and the start of the
	// quota period it counts in.
	held   int64
	period time.Time
}

// sqliteLedger keeps the ledger in gateway.db's gateway_usage.
type sqliteLedger struct {
	db     *sql.DB
	holder string // this process, on its pending rows
}

func newSQLiteLedger(db *sql.DB) *sqliteLedger {
	return &sqliteLedger{db: db, holder: processHolder(os.Getpid())}
}

// NewSQLiteLedger is gateway.db's ledger (see OpenDB): what New uses when
// Options.Ledger is nil, and what `hark serve keys` and --migrate-only
// open without a postgres:// URL.
func NewSQLiteLedger(db *sql.DB) UsageLedger { return newSQLiteLedger(db) }

func (l *sqliteLedger) init(ctx context.Context) error {
	_, err := l.Migrate(ctx)
	return err
}

// resetTotals empties the derived totals; the next reservation of each
// period recomputes its row from gateway_usage.
func (l *sqliteLedger) resetTotals(ctx context.Context) error {
	if _, err := l.db.ExecContext(ctx, `DELETE FROM gateway_credit_totals`); err != nil {
		return fmt.Errorf("reset credit totals: %w", err)
	}
	return nil
}

func (l *sqliteLedger) sum(ctx context.Context, workspace string, from time.Time) (int64, error) {
	var n int64
	err := l.db.QueryRowContext(ctx,
		`SELECT COALESCE(SUM(credits),0) FROM gateway_usage WHERE workspace=? AND ts>=?`,
		workspace, from.UnixMilli()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("read credit usage: %w", err)
	}
	return n, nil
}

func (l *sqliteLedger) reserve(ctx context.Context, r usageRow, quota int64, from time.Time) (id, used int64, ok bool, err error) {
	// One IMMEDIATE transaction (the DSN's _txlock): the check and the
	// insert are atomic across every process sharing the file.
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, false, fmt.Errorf("record credit usage: %w", err)
	}
	defer tx.Rollback()
	p := from.UnixMilli()
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO gateway_credit_totals(workspace,period_start,used)
		 SELECT ?,?,COALESCE(SUM(credits),0) FROM gateway_usage WHERE workspace=? AND ts>=?
		 ON CONFLICT(workspace,period_start) DO NOTHING`, r.workspace, p, r.workspace, p); err != nil {
		return 0, 0, false, fmt.Errorf("record credit usage: %w", err)
	}
	res, err := tx.ExecContext(ctx,
		`UPDATE gateway_credit_totals SET used=used+? WHERE workspace=? AND period_start=? AND used+?<=?`,
		r.credits, r.workspace, p, r.credits, quota)
	if err != nil {
		return 0, 0, false, fmt.Errorf("record credit usage: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err == nil {
			err = tx.QueryRowContext(ctx, `SELECT used FROM gateway_credit_totals WHERE workspace=? AND period_start=?`, r.workspace, p).Scan(&used)
		}
		return 0, used, false, err
	}
	res, err = tx.ExecContext(ctx,
		`INSERT INTO gateway_usage(ts,workspace,key_id,trace_id,operation,credits,status,holder) VALUES(?,?,?,?,?,?,'pending',?)`,
		r.ts.UnixMilli(), r.workspace, r.keyID, r.trace, r.op, r.credits, l.holder)
	if err == nil {
		id, err = res.LastInsertId()
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return 0, 0, false, fmt.Errorf("record credit usage: %w", err)
	}
	return id, 0, true, nil
}

func (l *sqliteLedger) record(ctx context.Context, r usageRow) error {
	_, err := l.db.ExecContext(ctx,
		`INSERT INTO gateway_usage(ts,workspace,key_id,trace_id,operation,credits,status,error,duration_ms) VALUES(?,?,?,?,?,?,?,?,?)`,
		r.ts.UnixMilli(), r.workspace, r.keyID, r.trace, r.op, r.credits, r.status, r.errMsg, r.durationMs)
	return err
}

func (l *sqliteLedger) settle(ctx context.Context, id int64, r usageRow) error {
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx,
		`UPDATE gateway_usage SET credits=?, status=?, error=?, duration_ms=? WHERE id=?`,
		r.credits, r.status, r.errMsg, r.durationMs, id); err != nil {
		return err
	}
	if r.credits != r.held {
		if _, err := tx.ExecContext(ctx,
			`UPDATE gateway_credit_totals SET used=used+? WHERE workspace=? AND period_start=?`,
			r.credits-r.held, r.workspace, r.period.UnixMilli()); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func (l *sqliteLedger) recent(ctx context.Context, workspace string, limit int) ([]UsageRecord, error) {
	rows, err := l.db.QueryContext(ctx,
		`SELECT `+usageColumns+` FROM gateway_usage WHERE workspace=? ORDER BY id DESC LIMIT ?`, workspace, limit)
	if err != nil {
		return nil, fmt.Errorf("read usage: %w", err)
	}
	defer rows.Close()
	return readUsage(rows)
}

// usageColumns are what recent reads of a usage row, in readUsage's
// order.
const usageColumns = `id,ts,workspace,key_id,trace_id,operation,credits,status,error,duration_ms`

// dbRows are a query's rows, from database/sql or pgx.
type dbRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// readRows reads every row of rows with read, which scans one.
func readRows[T any](rows dbRows, read func(scan func(dest ...any) error) (T, error)) ([]T, error) {
	var out []T
	for rows.Next() {
		v, err := read(rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// readUsage reads the usage records of rows of usageColumns.
func readUsage(rows dbRows) ([]UsageRecord, error) {
	out, err := readRows(rows, func(scan func(dest ...any) error) (UsageRecord, error) {
		var r UsageRecord
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

// msgAbandoned is the error of a pending row refunded after its gateway
// died.
const msgAbandoned = "gateway stopped before the call ended; refunded"

func (l *sqliteLedger) refundAbandoned(ctx context.Context) (int64, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT DISTINCT holder FROM gateway_usage WHERE status='pending'`)
	if err != nil {
		return 0, fmt.Errorf("read pending usage: %w", err)
	}
	var dead []string
	for rows.Next() {
		var h string
		if rows.Scan(&h) == nil && !holderAlive(h) {
			dead = append(dead, h)
		}
	}
	rows.Close()
	var total int64
	for _, h := range dead {
		res, err := l.db.ExecContext(ctx,
			`UPDATE gateway_usage SET status='error', credits=0, error=? WHERE status='pending' AND holder=?`, msgAbandoned, h)
		if err != nil {
			return total, fmt.Errorf("refund abandoned usage: %w", err)
		}
		n, _ := res.RowsAffected()
		total += n
	}
	return total, nil
}

// processHolder names a process as "pid:start", its start time in clock
// ticks since boot (Linux), so that a reused pid is not mistaken for it.
// A SQLite file in WAL mode is shared only by processes of one machine,
// so a pid says enough.
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

// holderAlive reports whether the process of a holder still runs. Rows
// without a holder were written by a hark before holders; they count as
// abandoned.
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
