package gateway

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// PostgreSQL's SQL of the migrations (see migrations).

// pgUsageSchema: the usage ledger and the per-period credit totals (see
// usageSchema for gateway.db's same tables).
const pgUsageSchema = `CREATE TABLE gateway_usage (
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
	);`

// pgKeysSchema: see sqliteKeysSchema.
const pgKeysSchema = `CREATE TABLE gateway_keys (
		id         TEXT   PRIMARY KEY,
		key_sha256 TEXT   NOT NULL UNIQUE,
		workspace  TEXT   NOT NULL,
		name       TEXT   NOT NULL DEFAULT '',
		source     TEXT   NOT NULL,
		created_ms BIGINT NOT NULL,
		revoked_ms BIGINT
	);`

// pgRateSchema: one token bucket per API key, shared by every replica so
// that a key's rate holds across them (see pgRateLimiter).
const pgRateSchema = `CREATE TABLE gateway_rate_buckets (
		key_sha256 TEXT   PRIMARY KEY,
		tokens     DOUBLE PRECISION NOT NULL,
		last_ms    BIGINT NOT NULL,
		granted    BOOLEAN NOT NULL DEFAULT false
	);`

// pgMigrateLock is the advisory lock that lets one replica at a time
// migrate, so that replicas starting together do not race ("hkgw").
const pgMigrateLock = 0x686b6777

// Migrate brings the database to SchemaVersion in one transaction,
// recording each version applied in schema_migrations, and returns the
// version. A database from a newer hark is refused untouched.
func (l *PGLedger) Migrate(ctx context.Context) (version int, err error) {
	if err := checkMigrations(); err != nil {
		return 0, err
	}
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
		if version > len(migrations) {
			return tooNew(version)
		}
		for ; version < len(migrations); version++ {
			m := migrations[version]
			if m.Postgres != "" {
				if _, err := tx.Exec(ctx, m.Postgres); err != nil {
					return fmt.Errorf("migration %d (%s): %w", m.Version, m.Name, err)
				}
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations(version) VALUES($1)`, m.Version); err != nil {
				return fmt.Errorf("migration %d (%s): %w", m.Version, m.Name, err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("migrate PostgreSQL: %w", err)
	}
	return version, nil
}
