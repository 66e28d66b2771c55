package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Migration is one step of an owner's tables, written for both
// databases. An empty SQL leaves that database as it is (a table only
// PostgreSQL needs, such as the shared rate limiter's).
type Migration struct {
	Name     string
	SQLite   string
	Postgres string
	// Func, when set, runs after the SQL in the same transaction, for a
	// step SQL cannot say on its own (SQLite has no ADD COLUMN IF NOT
	// EXISTS).
	Func func(ctx context.Context, tx *Tx) error
}

// Schema is the tables of one owner (usage, auth, limits, jobs, web,
// research) as a list of migrations: entry i takes them from version i
// to i+1. Append only: never edit or reorder an entry that has shipped,
// since databases record the version each owner's tables are at.
type Schema struct {
	Owner      string
	Migrations []Migration
}

// Version is the version the schema's migrations reach.
func (s Schema) Version() int { return len(s.Migrations) }

// legacyOwners are the owners of the one numbered list of migrations
// that databases recorded in schema_migrations before each owner kept
// its own: version i there is version 1 of legacyOwners[i-1]. The web
// index's migration made only PostgreSQL's tables then (gateway.db's
// were made by the engine), so on SQLite it counts as not applied.
var legacyOwners = []struct {
	owner      string
	sqliteDone bool
}{{"usage", true}, {"auth", true}, {"limits", true}, {"web", false}, {"jobs", true}}

// legacyMarker is written to schema_migrations once the owners' versions
// live in hark_schema, so that a hark from before refuses the database
// ("newer than this hark knows") instead of migrating it again.
const legacyMarker = 6

// pgMigrateLock is the advisory lock that lets one replica at a time
// migrate, so that replicas starting together do not race ("hkgw").
const pgMigrateLock = 0x686b6777

// TooNewError is a database whose tables a newer hark has migrated.
type TooNewError struct {
	Owner        string
	Version, Max int
}

func (e *TooNewError) Error() string {
	return fmt.Sprintf("the database's %s tables are at version %d, newer than this hark knows (%d): upgrade hark", e.Owner, e.Version, e.Max)
}

// Migrate brings each schema's tables to its latest version, in one
// transaction (on SQLite an IMMEDIATE one, on PostgreSQL under an
// advisory lock, so that processes and replicas starting together migrate
// in turn), recording each owner's version. A database whose tables of
// one of these owners are newer than this hark knows is refused
// untouched. When every owner is current already it writes nothing.
func Migrate(ctx context.Context, db *DB, schemas ...Schema) error {
	for _, s := range schemas {
		if s.Owner == "" {
			return errors.New("store: a schema without an owner")
		}
	}
	if current, err := db.upToDate(ctx, schemas); err != nil || current {
		return err
	}
	err := db.Tx(ctx, func(tx *Tx) error {
		if db.Postgres() {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(?)`, pgMigrateLock); err != nil {
				return err
			}
		}
		versions, err := ensureSchemaTable(ctx, tx)
		if err != nil {
			return err
		}
		for _, s := range schemas {
			v := versions[s.Owner]
			if v > s.Version() {
				return &TooNewError{Owner: s.Owner, Version: v, Max: s.Version()}
			}
			for ; v < s.Version(); v++ {
				m := s.Migrations[v]
				if q := m.sql(tx.dialect); q != "" {
					if _, err := tx.Exec(ctx, q); err != nil {
						return fmt.Errorf("%s migration %d (%s): %w", s.Owner, v+1, m.Name, err)
					}
				}
				if m.Func != nil {
					if err := m.Func(ctx, tx); err != nil {
						return fmt.Errorf("%s migration %d (%s): %w", s.Owner, v+1, m.Name, err)
					}
				}
			}
			if _, err := tx.Exec(ctx, `INSERT INTO hark_schema(owner, version) VALUES(?, ?)
				ON CONFLICT(owner) DO UPDATE SET version = excluded.version`, s.Owner, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("migrate %s: %w", db.dialect, err)
	}
	return nil
}

func (m Migration) sql(d Dialect) string {
	if d == Postgres {
		return m.Postgres
	}
	return m.SQLite
}

// upToDate reads, without a write lock, whether every schema is at its
// version already: the common case of every start after the first.
func (db *DB) upToDate(ctx context.Context, schemas []Schema) (bool, error) {
	versions, err := readVersions(ctx, db.Query)
	if err != nil {
		return false, nil // no hark_schema yet: the transaction makes it
	}
	for _, s := range schemas {
		switch v := versions[s.Owner]; {
		case v > s.Version():
			return false, fmt.Errorf("migrate %s: %w", db.dialect, &TooNewError{Owner: s.Owner, Version: v, Max: s.Version()})
		case v < s.Version():
			return false, nil
		}
	}
	return true, nil
}

// Check reports whether every schema's tables are at the version this
// hark knows, without changing anything: an error names an owner behind
// or ahead (readiness).
func Check(ctx context.Context, db *DB, schemas ...Schema) error {
	versions, err := readVersions(ctx, db.Query)
	if err != nil {
		return fmt.Errorf("the database has no recorded migrations: %w", err)
	}
	for _, s := range schemas {
		switch v := versions[s.Owner]; {
		case v > s.Version():
			return &TooNewError{Owner: s.Owner, Version: v, Max: s.Version()}
		case v < s.Version():
			return fmt.Errorf("the database's %s tables are at version %d, this hark's are at %d: run hark serve --migrate-only", s.Owner, v, s.Version())
		}
	}
	return nil
}

// Versions reads each owner's version, as recorded (none before any
// migration).
func Versions(ctx context.Context, db *DB) (map[string]int, error) {
	v, err := readVersions(ctx, db.Query)
	if err != nil {
		return map[string]int{}, nil
	}
	return v, nil
}

func readVersions(ctx context.Context, query func(context.Context, string, ...any) (*sql.Rows, error)) (map[string]int, error) {
	rows, err := query(ctx, `SELECT owner, version FROM hark_schema`)
	if err != nil {
		return nil, err
	}
	type ov struct {
		owner   string
		version int
	}
	list, err := Rows(rows, func(scan func(...any) error) (ov, error) {
		var r ov
		return r, scan(&r.owner, &r.version)
	})
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, r := range list {
		out[r.owner] = r.version
	}
	return out, nil
}

// ensureSchemaTable makes hark_schema, filling it from schema_migrations
// the first time (a database of a hark that kept one numbered list), and
// marks schema_migrations so that such a hark refuses the database from
// now on. It returns the owners' versions.
func ensureSchemaTable(ctx context.Context, tx *Tx) (map[string]int, error) {
	has, err := tx.hasTable(ctx, "hark_schema")
	if err != nil {
		return nil, err
	}
	if has {
		return readVersions(ctx, tx.Query)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE hark_schema (owner TEXT PRIMARY KEY, version INTEGER NOT NULL)`); err != nil {
		return nil, err
	}
	legacy := 0
	if has, err := tx.hasTable(ctx, "schema_migrations"); err != nil {
		return nil, err
	} else if has {
		if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&legacy); err != nil {
			return nil, err
		}
	} else {
		applied := `TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))`
		if tx.dialect == Postgres {
			applied = `TIMESTAMPTZ NOT NULL DEFAULT now()`
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at `+applied+`)`); err != nil {
			return nil, err
		}
	}
	if legacy > legacyMarker {
		return nil, &TooNewError{Owner: "gateway", Version: legacy, Max: legacyMarker}
	}
	versions := map[string]int{}
	for i, o := range legacyOwners {
		if i < legacy && (o.sqliteDone || tx.dialect == Postgres) {
			versions[o.owner] = 1
			if _, err := tx.Exec(ctx, `INSERT INTO hark_schema(owner, version) VALUES(?, 1)`, o.owner); err != nil {
				return nil, err
			}
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations(version) VALUES(?) ON CONFLICT(version) DO NOTHING`, legacyMarker); err != nil {
		return nil, err
	}
	return versions, nil
}

// hasTable reports whether the database has a table of this name.
func (tx *Tx) hasTable(ctx context.Context, name string) (bool, error) {
	q := `SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = ?`
	if tx.dialect == Postgres {
		q = `SELECT to_regclass(?) IS NOT NULL`
	}
	var has bool
	err := tx.QueryRow(ctx, q, name).Scan(&has)
	return has, err
}
