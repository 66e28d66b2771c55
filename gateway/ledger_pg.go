package gateway

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// UsageLedger is the database a Server keeps what its replicas share in:
// credits and the usage history, API keys, the schema's migrations. nil in
// Options is gateway.db's (NewSQLiteLedger); OpenPGLedger gives
// PostgreSQL's, which several replicas share so that a workspace's quota,
// a key's rate and its revocation hold across them.
type UsageLedger interface {
	ledger
	keyStore
	migrator
}

// PGLedger keeps the usage ledger and the credit totals in PostgreSQL.
// Every quota check and reservation is one transaction whose UPDATE …
// WHERE used + cost <= quota takes the totals row's lock, so replicas on
// one database reserve in turn and never overrun the quota together.
type PGLedger struct {
	pool   *pgxpool.Pool
	holder string // this process, on its pending rows
}

// OpenPGLedger connects to a postgres:// URL with at most maxConns
// connections (0: the pool's default) and checks that it answers. Call
// Migrate (New does, through init) before use, and Close at the end.
func OpenPGLedger(ctx context.Context, url string, maxConns int) (*PGLedger, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's message may quote the URL, password included.
		return nil, errors.New("database URL: not a valid postgres:// URL (postgres://user[:password]@host[:port]/database[?sslmode=…])")
	}
	if maxConns > 0 {
		cfg.MaxConns = int32(maxConns)
	}
	cfg.MaxConnIdleTime = 30 * time.Second
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to PostgreSQL at %s:%d: %w", cfg.ConnConfig.Host, cfg.ConnConfig.Port, err)
	}
	host, _ := os.Hostname()
	return &PGLedger{pool: pool, holder: host + "/" + processHolder(os.Getpid())}, nil
}

// Close closes the connections.
func (l *PGLedger) Close() { l.pool.Close() }

func (l *PGLedger) init(ctx context.Context) error {
	_, err := l.Migrate(ctx)
	return err
}

// resetTotals keeps the totals: unlike gateway.db's, they are changed only
// in the transactions that change the rows (refunds included), so they
// never drift, and emptying them while another replica reserves would
// race with it.
func (l *PGLedger) resetTotals(context.Context) error { return nil }

func (l *PGLedger) sum(ctx context.Context, workspace string, from time.Time) (int64, error) {
	var n int64
	err := l.pool.QueryRow(ctx,
		`SELECT COALESCE(SUM(credits),0) FROM gateway_usage WHERE workspace=$1 AND ts>=$2`,
		workspace, from.UnixMilli()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("read credit usage: %w", err)
	}
	return n, nil
}

func (l *PGLedger) reserve(ctx context.Context, r usageRow, quota int64, from time.Time) (id, used int64, ok bool, err error) {
	err = pgx.BeginFunc(ctx, l.pool, func(tx pgx.Tx) error {
		p := from.UnixMilli()
		// A period's first reservation makes its row from the ledger; a
		// concurrent one waits on the uncommitted insert, then uses it.
		if _, err := tx.Exec(ctx,
			`INSERT INTO gateway_credit_totals(workspace,period_start,used)
			 SELECT $1,$2,COALESCE(SUM(credits),0) FROM gateway_usage WHERE workspace=$1 AND ts>=$2
			 ON CONFLICT (workspace,period_start) DO NOTHING`, r.workspace, p); err != nil {
			return err
		}
		// Read committed: an UPDATE that waited for the row's lock checks
		// its WHERE again on the row as the other replica left it.
		err := tx.QueryRow(ctx,
			`UPDATE gateway_credit_totals SET used=used+$3 WHERE workspace=$1 AND period_start=$2 AND used+$3<=$4 RETURNING used`,
			r.workspace, p, r.credits, quota).Scan(&used)
		if errors.Is(err, pgx.ErrNoRows) {
			return tx.QueryRow(ctx, `SELECT used FROM gateway_credit_totals WHERE workspace=$1 AND period_start=$2`,
				r.workspace, p).Scan(&used)
		}
		if err != nil {
			return err
		}
		ok = true
		return tx.QueryRow(ctx,
			`INSERT INTO gateway_usage(ts,workspace,key_id,trace_id,operation,credits,status,holder)
			 VALUES($1,$2,$3,$4,$5,$6,'pending',$7) RETURNING id`,
			r.ts.UnixMilli(), r.workspace, r.keyID, r.trace, r.op, r.credits, l.holder).Scan(&id)
	})
	if err != nil {
		return 0, 0, false, fmt.Errorf("record credit usage: %w", err)
	}
	if !ok {
		return 0, used, false, nil
	}
	return id, 0, true, nil
}

func (l *PGLedger) record(ctx context.Context, r usageRow) error {
	_, err := l.pool.Exec(ctx,
		`INSERT INTO gateway_usage(ts,workspace,key_id,trace_id,operation,credits,status,error,duration_ms) VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9)`,
		r.ts.UnixMilli(), r.workspace, r.keyID, r.trace, r.op, r.credits, r.status, r.errMsg, r.durationMs)
	return err
}

func (l *PGLedger) settle(ctx context.Context, id int64, r usageRow) error {
	return pgx.BeginFunc(ctx, l.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx,
			`UPDATE gateway_usage SET credits=$1, status=$2, error=$3, duration_ms=$4 WHERE id=$5`,
			r.credits, r.status, r.errMsg, r.durationMs, id); err != nil {
			return err
		}
		if r.credits == r.held {
			return nil
		}
		_, err := tx.Exec(ctx,
			`UPDATE gateway_credit_totals SET used=used+$1 WHERE workspace=$2 AND period_start=$3`,
			r.credits-r.held, r.workspace, r.period.UnixMilli())
		return err
	})
}

func (l *PGLedger) recent(ctx context.Context, workspace string, limit int) ([]UsageRecord, error) {
	rows, err := l.pool.Query(ctx,
		`SELECT `+usageColumns+` FROM gateway_usage WHERE workspace=$1 ORDER BY id DESC LIMIT $2`, workspace, limit)
	if err != nil {
		return nil, fmt.Errorf("read usage: %w", err)
	}
	defer rows.Close()
	return readUsage(rows)
}

// refundAbandoned refunds the pending rows of dead processes of this
// machine only: a replica on another machine cannot be seen from here,
// and its rows are refunded when a replica starts there.
func (l *PGLedger) refundAbandoned(ctx context.Context) (int64, error) {
	host, _, _ := strings.Cut(l.holder, "/")
	rows, err := l.pool.Query(ctx, `SELECT DISTINCT holder FROM gateway_usage WHERE status='pending' AND holder LIKE $1`,
		likeEscape(host)+"/%")
	if err != nil {
		return 0, fmt.Errorf("read pending usage: %w", err)
	}
	var dead []string
	for rows.Next() {
		var h string
		if rows.Scan(&h) == nil && !holderAlive(strings.TrimPrefix(h, host+"/")) {
			dead = append(dead, h)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("read pending usage: %w", err)
	}
	var total int64
	for _, h := range dead {
		err := pgx.BeginFunc(ctx, l.pool, func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, `UPDATE gateway_usage u SET status='error', credits=0, error=$1
				FROM (SELECT id, credits FROM gateway_usage WHERE status='pending' AND holder=$2 FOR UPDATE) old
				WHERE u.id=old.id RETURNING u.workspace, u.ts, old.credits`, msgAbandoned, h)
			if err != nil {
				return err
			}
			type refund struct {
				ws          string
				ts, credits int64
			}
			var rs []refund
			for rows.Next() {
				var r refund
				if err := rows.Scan(&r.ws, &r.ts, &r.credits); err != nil {
					rows.Close()
					return err
				}
				rs = append(rs, r)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			// A row counts in every total of a period that began at or
			// before it (the totals are SUM(credits) WHERE ts >= start).
			for _, r := range rs {
				if _, err := tx.Exec(ctx, `UPDATE gateway_credit_totals SET used=used-$1 WHERE workspace=$2 AND period_start<=$3`,
					r.credits, r.ws, r.ts); err != nil {
					return err
				}
			}
			total += int64(len(rs))
			return nil
		})
		if err != nil {
			return total, fmt.Errorf("refund abandoned usage: %w", err)
		}
	}
	return total, nil
}

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
