package usage

import (
	"context"

	"hark/gateway/store"
)

// Schema is the ledger's tables, for both databases.
var Schema = store.Schema{Owner: "usage", Migrations: []store.Migration{
	{Name: "usage ledger and credit totals", SQLite: sqliteSchema, Postgres: pgSchema, Func: addHolderColumn},
	{Name: "credit totals recounted from the ledger, then kept exact by every write",
		SQLite: recountTotals, Postgres: recountTotals},
	{Name: "reservations carry a lease their gateway renews", SQLite: leases, Postgres: leases},
}}

// leases: a pending row's lease_until (unix ms) is pushed on by its live
// gateway; past it, any gateway refunds the row. Rows written before
// leases have 0, and are refunded by the rule of their day (a dead
// process of this machine).
const leases = `ALTER TABLE gateway_usage ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0;
CREATE INDEX gateway_usage_lease ON gateway_usage(lease_until) WHERE status = 'pending';`

// sqliteSchema: the usage ledger, and the credits of a workspace with a
// quota in one quota period, kept with every reservation and settlement so
// that the quota check costs the same on the first call of a period and on
// the millionth. IF NOT EXISTS: a gateway.db of a hark before migrations
// already has the tables.
const sqliteSchema = `
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

// pgSchema: sqliteSchema's tables on PostgreSQL, with the holder column
// from the start.
const pgSchema = `CREATE TABLE gateway_usage (
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

// recountTotals: gateway.db's totals were emptied at every start and
// its refunds did not change them, so an older file's may be off; from
// here on every write keeps them (see Ledger).
const recountTotals = `UPDATE gateway_credit_totals SET used = (
	SELECT COALESCE(SUM(u.credits), 0) FROM gateway_usage u
	WHERE u.workspace = gateway_credit_totals.workspace AND u.ts >= gateway_credit_totals.period_start)`

// addHolderColumn gives gateway.db's gateway_usage its holder column,
// which names the process of a pending row so that a later start can
// refund the rows of one that was killed. SQLite has no ADD COLUMN IF NOT
// EXISTS, and a gateway.db of a hark before holders has the table
// without it. PostgreSQL's table has it from the start.
func addHolderColumn(ctx context.Context, tx *store.Tx) error {
	if tx.Dialect() != store.SQLite {
		return nil
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM pragma_table_info('gateway_usage') WHERE name='holder'`).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `ALTER TABLE gateway_usage ADD COLUMN holder TEXT NOT NULL DEFAULT ''`)
	return err
}
