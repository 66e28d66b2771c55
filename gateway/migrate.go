package gateway

import (
	"context"
	"fmt"

	"hark/gateway/jobs"
)

// Migration is one version of the gateway's schema, written for both
// backends: entry i of migrations takes a database from version i to i+1.
// Append only; never edit or reorder an entry that has shipped, since
// databases record the versions they applied (schema_migrations).
//
// Another part of the gateway adds its tables by appending an entry here,
// with the SQL for each backend; an empty SQL leaves that backend as it is
// (a table only PostgreSQL needs, such as the shared rate limiter's).
type Migration struct {
	Version  int
	Name     string
	SQLite   string
	Postgres string
}

// migrations are the schema's versions, in order.
var migrations = []Migration{
	{1, "usage ledger and credit totals", usageSchema, pgUsageSchema},
	{2, "API keys added and revoked while the gateway runs", sqliteKeysSchema, pgKeysSchema},
	{3, "rate limiter buckets shared by replicas", "", pgRateSchema},
	{4, "search index pages and postings shared by replicas", "", pgIndexMigration},
	{5, "jobs and their event logs (River's own tables: its migrations)", jobs.Schema, jobs.Schema},
}

// SchemaVersion is the version this hark's migrations reach, on either
// backend.
var SchemaVersion = len(migrations)

// Migrations lists the schema's versions, for `hark serve --migrate-only`.
func Migrations() []Migration { return append([]Migration(nil), migrations...) }

// checkMigrations guards the list's numbering: an entry appended with a
// wrong version would otherwise be applied under another's number.
func checkMigrations() error {
	for i, m := range migrations {
		if m.Version != i+1 {
			return fmt.Errorf("gateway migrations: entry %d (%q) has version %d, want %d", i, m.Name, m.Version, i+1)
		}
	}
	return nil
}

// migrator is a backend that applies migrations: each backend's runner
// records what it applied in its own schema_migrations table.
type migrator interface {
	Migrate(ctx context.Context) (version int, err error)
}

// tooNew is the error for a database migrated by a newer hark.
func tooNew(version int) error {
	return fmt.Errorf("the database's schema is version %d, newer than this hark knows (%d): upgrade hark", version, len(migrations))
}

// Migrate brings the database of l (gateway.db's ledger, or PostgreSQL's)
// to SchemaVersion and returns the version it is at.
func Migrate(ctx context.Context, l UsageLedger) (int, error) {
	m, ok := l.(migrator)
	if !ok {
		return 0, fmt.Errorf("gateway: %T has no migrations", l)
	}
	return m.Migrate(ctx)
}
