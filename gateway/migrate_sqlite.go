package gateway

import (
	"context"
	"database/sql"
	"fmt"
)

// gateway.db's SQL of the migrations (see migrations).

// usageSchema: the usage ledger, and the credits of a workspace with a
// quota in one quota period, kept with every reservation and settlement so
// that the quota check costs the same on the first call of a period and on
// the millionth. The totals are derived from gateway_usage: emptied at
// every start, recomputed at a period's first reservation. IF NOT EXISTS:
// a gateway.db of a hark before migrations already has the tables.
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
CREATE TABLE IF NOT EXISTS gateway_credit_totals (
	workspace    TEXT    NOT NULL,
	period_start INTEGER NOT NULL,
	used         INTEGER NOT NULL,
	PRIMARY KEY (workspace, period_start)
);
`

// sqliteKeysSchema: API keys kept in the database, so that they can be
// added and revoked while the gateway runs. Only the key's SHA-256 is
// stored; id is its first 8 hex digits, the key_id of the usage history.
// gateway.toml's keys are copied in at start (source 'gateway.toml'). A
// revoked key keeps its row, so that seeding it again does not revive it.
const sqliteKeysSchema = `
CREATE TABLE gateway_keys (
	id         TEXT    PRIMARY KEY,
	key_sha256 TEXT    NOT NULL UNIQUE,
	workspace  TEXT    NOT NULL,
	name       TEXT    NOT NULL DEFAULT '',
	source     TEXT    NOT NULL,
	created_ms INTEGER NOT NULL,
	revoked_ms INTEGER
);
`

// Migrate brings gateway.db to SchemaVersion in one IMMEDIATE transaction
// (OpenDB's _txlock), so that processes sharing the file migrate in turn,
// and returns the version.
func (l *sqliteLedger) Migrate(ctx context.Context) (version int, err error) {
	if err := checkMigrations(); err != nil {
		return 0, err
	}
	err = func() error {
		tx, err := l.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    INTEGER PRIMARY KEY,
			applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))`); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version),0) FROM schema_migrations`).Scan(&version); err != nil {
			return err
		}
		if version > len(migrations) {
			return tooNew(version)
		}
		for ; version < len(migrations); version++ {
			m := migrations[version]
			if m.SQLite != "" {
				if _, err := tx.ExecContext(ctx, m.SQLite); err != nil {
					return fmt.Errorf("migration %d (%s): %w", m.Version, m.Name, err)
				}
			}
			if m.Version == 1 {
				if err := addHolderColumn(ctx, tx); err != nil {
					return fmt.Errorf("migration 1 (%s): %w", m.Name, err)
				}
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version) VALUES(?)`, m.Version); err != nil {
				return fmt.Errorf("migration %d (%s): %w", m.Version, m.Name, err)
			}
		}
		return tx.Commit()
	}()
	if err != nil {
		return 0, fmt.Errorf("migrate gateway.db: %w", err)
	}
	return version, nil
}

// addHolderColumn gives gateway_usage its holder column, which names the
// process of a pending row so that a later start can refund the rows of
// one that was killed. SQLite has no ADD COLUMN IF NOT EXISTS, and a
// gateway.db of a hark before holders has the table without it.
func addHolderColumn(ctx context.Context, tx *sql.Tx) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('gateway_usage') WHERE name='holder'`).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `ALTER TABLE gateway_usage ADD COLUMN holder TEXT NOT NULL DEFAULT ''`)
	return err
}
