package gateway

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// pgMigrations are the PostgreSQL schema's versions, in order: entry i
// takes the schema from version i to i+1. Append only; never edit one
// that has shipped, since databases record that they applied it.
var pgMigrations = []string{
	// 1: the usage ledger and the per-period credit totals (see
	// usageSchema for gateway.db's same tables).
	`CREATE TABLE gateway_usage (
		id          BIGSERIAL PRIMARY KEY,
		ts          BIGINT NOT NULL,
		workspace   TEXT   NOT NULL,
		key_id      TEXT   NOT NULL,
		trace_id    TEXT   NOT NULL,
		operation   TEXT   NOT NULL,
		credits     BIGINT NOT NULL,
		status      TEXT   NOT NULL,
		error       TEXT   NOT NULL DEFAULT '',
		duration_ms BIGINT NOT NULL DEFAULT 0,
		holder      TEXT   NOT NULL DEFAULT ''
	);
	CREATE INDEX gateway_usage_ws_ts ON gateway_usage(workspace, ts);
	CREATE INDEX gateway_usage_pending ON gateway_usage(holder) WHERE status = 'pending';
	CREATE TABLE gateway_credit_totals (
		workspace    TEXT   NOT NULL,
		period_start BIGINT NOT NULL,
		used         BIGINT NOT NULL,
		PRIMARY KEY (workspace, period_start)
	);`,
	// index: the search index's pages and postings (migrate_pg_index.go).
	pgIndexMigration,
}

// PGSchemaVersion is the schema version this hark's migrations reach.
var PGSchemaVersion = len(pgMigrations)

// pgMigrateLock is the advisory lock that lets one replica at a time
// migrate, so that replicas starting together do not race ("hkgw").
const pgMigrateLock = 0x686b6777

// Migrate brings the database to PGSchemaVersion in one transaction,
// recording each version applied in schema_migrations, and returns the
// version. A database from a newer hark is refused untouched.
func (l *PGLedger) Migrate(ctx context.Context) (version int, err error) {
	err = pgx.BeginFunc(ctx, l.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, pgMigrateLock); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    INTEGER PRIMARY KEY,
			applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(version),0) FROM schema_migrations`).Scan(&version); err != nil {
			return err
		}
		if version > len(pgMigrations) {
			return fmt.Errorf("the database's schema is version %d, newer than this hark knows (%d): upgrade hark", version, len(pgMigrations))
		}
		for ; version < len(pgMigrations); version++ {
			if _, err := tx.Exec(ctx, pgMigrations[version]); err != nil {
				return fmt.Errorf("migration %d: %w", version+1, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations(version) VALUES($1)`, version+1); err != nil {
				return fmt.Errorf("migration %d: %w", version+1, err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("migrate PostgreSQL: %w", err)
	}
	return version, nil
}
