// Package store is the gateway's database: gateway.db (SQLite) on one
// machine, or a team's PostgreSQL shared by replicas, behind one type, so
// that each statement is written once, with ? placeholders, and rebound
// for PostgreSQL. It also applies the migrations that each owner of
// tables (usage, auth, limits, jobs, the web index, research) declares
// for both databases. It holds no table of its own beyond the record of
// those migrations, and knows nothing of what the tables mean.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
)

// Dialect is which database a DB is.
type Dialect int

const (
	SQLite Dialect = iota
	Postgres
)

func (d Dialect) String() string {
	if d == Postgres {
		return "PostgreSQL"
	}
	return "SQLite"
}

// DB is the gateway's database. Its Exec, Query and QueryRow take
// statements written with ? placeholders, as SQLite reads them, and
// rebind them to $1, $2, … on PostgreSQL. A statement that only one
// database has a use for goes to SQL() as it is.
type DB struct {
	db      *sql.DB
	dialect Dialect
	pool    *pgxpool.Pool // PostgreSQL's; nil on SQLite
	owned   bool          // Close closes db (OpenPostgres's)
}

// FromSQLite is gateway.db's handle (see OpenDB) as a DB. Close leaves it
// open: whoever opened it closes it.
func FromSQLite(db *sql.DB) *DB { return &DB{db: db, dialect: SQLite} }

// OpenPostgres connects to a postgres:// URL with at most maxConns
// connections (0: the pool's default) and checks that it answers. Its
// errors never quote the URL, which may hold a password.
func OpenPostgres(ctx context.Context, url string, maxConns int) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's message may quote the URL, password included.
		return nil, &URLError{}
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
	// database/sql over the pool: its connections are the pool's, lent
	// for a statement or a transaction and given back.
	return &DB{db: stdlib.OpenDBFromPool(pool), dialect: Postgres, pool: pool, owned: true}, nil
}

// URLError is a database URL that cannot be read. It is the caller's
// mistake (a usage error), and its message holds no part of the URL.
type URLError struct{}

func (*URLError) Error() string {
	return "database URL: not a valid postgres:// URL (postgres://user[:password]@host[:port]/database[?sslmode=…])"
}

// Close closes what OpenPostgres opened; a DB of FromSQLite is left open.
func (db *DB) Close() {
	if db.owned {
		db.db.Close()
		db.pool.Close()
	}
}

// Dialect says which database this is.
func (db *DB) Dialect() Dialect { return db.dialect }

// Postgres reports whether this is PostgreSQL, shared by replicas.
func (db *DB) Postgres() bool { return db.dialect == Postgres }

// SQL is the database/sql handle, for statements that need no rebinding.
func (db *DB) SQL() *sql.DB { return db.db }

// Pool is PostgreSQL's connection pool, for what speaks pgx itself
// (River's driver, the search index's array statements); nil on SQLite.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// Rebind turns ? placeholders into PostgreSQL's $1, $2, … No statement
// of hark's has a ? inside a string literal.
func (db *DB) Rebind(query string) string { return rebind(db.dialect, query) }

func rebind(d Dialect, query string) string {
	if d != Postgres || !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 8)
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

// Exec runs a statement.
func (db *DB) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return db.db.ExecContext(ctx, db.Rebind(query), args...)
}

// Query runs a query.
func (db *DB) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return db.db.QueryContext(ctx, db.Rebind(query), args...)
}

// QueryRow runs a query of one row.
func (db *DB) QueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return db.db.QueryRowContext(ctx, db.Rebind(query), args...)
}

// Tx runs f in a transaction, committed when f returns nil. On SQLite
// it is IMMEDIATE (OpenDB's _txlock): it holds the write lock from its
// start, so a read and the write that depends on it are one step for
// every process sharing the file. On PostgreSQL it is READ COMMITTED: an
// UPDATE that waited for a row's lock checks its WHERE again on the row
// as the other transaction left it.
func (db *DB) Tx(ctx context.Context, f func(*Tx) error) error {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := f(&Tx{tx: tx, dialect: db.dialect}); err != nil {
		return err
	}
	return tx.Commit()
}

// Tx is a transaction of a DB; its statements are rebound as the DB's.
type Tx struct {
	tx      *sql.Tx
	dialect Dialect
}

// Dialect says which database this is.
func (tx *Tx) Dialect() Dialect { return tx.dialect }

// Exec runs a statement.
func (tx *Tx) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return tx.tx.ExecContext(ctx, rebind(tx.dialect, query), args...)
}

// Query runs a query.
func (tx *Tx) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return tx.tx.QueryContext(ctx, rebind(tx.dialect, query), args...)
}

// QueryRow runs a query of one row.
func (tx *Tx) QueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return tx.tx.QueryRowContext(ctx, rebind(tx.dialect, query), args...)
}

// IsUniqueViolation reports whether err is a UNIQUE or PRIMARY KEY
// constraint refusing a row, on either database.
func IsUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "23505" // unique_violation
	}
	return strings.Contains(err.Error(), "UNIQUE constraint failed") || strings.Contains(err.Error(), "PRIMARY KEY constraint failed")
}

// Rows reads every row of rows with read, which scans one, and closes
// rows.
func Rows[T any](rows *sql.Rows, read func(scan func(dest ...any) error) (T, error)) ([]T, error) {
	defer rows.Close()
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
