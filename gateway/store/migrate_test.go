package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"hark/gateway/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// eachDB runs f on a fresh gateway.db and a fresh PostgreSQL database.
func eachDB(t *testing.T, f func(t *testing.T, db *DB)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		raw, err := OpenDB(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { raw.Close() })
		f(t, FromSQLite(raw))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		db, err := OpenPostgres(context.Background(), pgtest.Fresh(t), 4)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(db.Close)
		f(t, db)
	})
}

func versions(t *testing.T, db *DB) map[string]int {
	t.Helper()
	v, err := Versions(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Each owner's migrations run once, in order, in one transaction with
// the others', and are recorded per owner; an owner's new migration runs
// alone; a failing one leaves everything as it was; tables of a newer
// hark are refused untouched.
func TestMigrate(t *testing.T) {
	eachDB(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		birds := Schema{Owner: "birds", Migrations: []Migration{
			{Name: "birds", SQLite: `CREATE TABLE birds (name TEXT PRIMARY KEY)`, Postgres: `CREATE TABLE birds (name TEXT PRIMARY KEY)`},
		}}
		ran := 0
		fish := Schema{Owner: "fish", Migrations: []Migration{
			{Name: "fish", SQLite: `CREATE TABLE fish (name TEXT)`, Postgres: `CREATE TABLE fish (name TEXT)`,
				Func: func(ctx context.Context, tx *Tx) error {
					ran++
					_, err := tx.Exec(ctx, `INSERT INTO fish(name) VALUES (?)`, "carp")
					return err
				}},
			{Name: "only PostgreSQL's", Postgres: `CREATE INDEX fish_name ON fish(name)`},
		}}
		for range 2 {
			if err := Migrate(ctx, db, birds, fish); err != nil {
				t.Fatal(err)
			}
		}
		if v := versions(t, db); v["birds"] != 1 || v["fish"] != 2 || ran != 1 {
			t.Fatalf("versions %v, Func ran %d times", v, ran)
		}
		birds.Migrations = append(birds.Migrations, Migration{Name: "wings",
			SQLite: `ALTER TABLE birds ADD COLUMN wings INTEGER NOT NULL DEFAULT 2`, Postgres: `ALTER TABLE birds ADD COLUMN wings INTEGER NOT NULL DEFAULT 2`})
		if err := Migrate(ctx, db, birds); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(ctx, `INSERT INTO birds(name, wings) VALUES (?, ?)`, "wren", 2); err != nil {
			t.Fatal(err)
		}
		// A failing migration: nothing of the transaction stays.
		bad := birds
		bad.Migrations = append(bad.Migrations[:2:2],
			Migration{Name: "legs", SQLite: `ALTER TABLE birds ADD COLUMN legs INTEGER`, Postgres: `ALTER TABLE birds ADD COLUMN legs INTEGER`},
			Migration{Name: "broken", SQLite: `CREATE TABLE nonsense (`, Postgres: `CREATE TABLE nonsense (`})
		if err := Migrate(ctx, db, bad); err == nil || !strings.Contains(err.Error(), "birds migration 4 (broken)") {
			t.Fatalf("a broken migration: %v", err)
		}
		if v := versions(t, db); v["birds"] != 2 {
			t.Fatalf("after a failed migration: %v", v)
		}
		if _, err := db.Exec(ctx, `INSERT INTO birds(name, legs) VALUES (?, ?)`, "kiwi", 2); err == nil {
			t.Fatal("the failed transaction's column stayed")
		}
		// Tables of a newer hark.
		if _, err := db.Exec(ctx, `UPDATE hark_schema SET version = 99 WHERE owner = 'fish'`); err != nil {
			t.Fatal(err)
		}
		var tooNew *TooNewError
		if err := Migrate(ctx, db, birds, fish); !errors.As(err, &tooNew) || !strings.Contains(err.Error(), "fish tables are at version 99, newer than this hark knows (2)") {
			t.Fatalf("a newer schema: %v", err)
		}
	})
}

// A database of a hark that kept one numbered list (schema_migrations)
// gets each owner's version from it, the web index's only on PostgreSQL
// (gateway.db's index tables were not that list's), and a mark that makes
// such a hark refuse the database from then on.
func TestMigrateFromOneList(t *testing.T) {
	eachDB(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		applied := `TEXT NOT NULL DEFAULT ''`
		if db.Postgres() {
			applied = `TIMESTAMPTZ NOT NULL DEFAULT now()`
		}
		if _, err := db.Exec(ctx, `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at `+applied+`)`); err != nil {
			t.Fatal(err)
		}
		for v := 1; v <= 5; v++ {
			if _, err := db.Exec(ctx, `INSERT INTO schema_migrations(version) VALUES (?)`, v); err != nil {
				t.Fatal(err)
			}
		}
		web := Schema{Owner: "web", Migrations: []Migration{{Name: "index", SQLite: `CREATE TABLE IF NOT EXISTS idx (x INTEGER)`, Postgres: `CREATE TABLE idx_pg_only_if_new (x INTEGER)`}}}
		usage := Schema{Owner: "usage", Migrations: []Migration{{Name: "v1"}, {Name: "v2", SQLite: `CREATE TABLE usage_v2 (x INTEGER)`, Postgres: `CREATE TABLE usage_v2 (x INTEGER)`}}}
		if err := Migrate(ctx, db, web, usage); err != nil {
			t.Fatal(err)
		}
		v := versions(t, db)
		want := map[string]int{"usage": 2, "auth": 1, "limits": 1, "web": 1, "jobs": 1}
		for owner, n := range want {
			if v[owner] != n {
				t.Errorf("%s at %d, want %d (all: %v)", owner, v[owner], n, v)
			}
		}
		var webRan bool
		q := `SELECT count(*) > 0 FROM sqlite_master WHERE name = 'idx'`
		if db.Postgres() {
			q = `SELECT to_regclass('idx_pg_only_if_new') IS NOT NULL`
		}
		if err := db.QueryRow(ctx, q).Scan(&webRan); err != nil || webRan == db.Postgres() {
			t.Errorf("the web index's migration ran: %v (%v); want it on SQLite only", webRan, err)
		}
		var marker int
		if err := db.QueryRow(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&marker); err != nil || marker != legacyMarker {
			t.Errorf("schema_migrations at %d (%v), want the mark %d", marker, err, legacyMarker)
		}
	})
}

// A database a hark newer than the one list's left (a version past the
// mark) is refused.
func TestMigrateRefusesAnUnknownList(t *testing.T) {
	eachDB(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		if _, err := db.Exec(ctx, `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY)`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(ctx, `INSERT INTO schema_migrations(version) VALUES (99)`); err != nil {
			t.Fatal(err)
		}
		err := Migrate(ctx, db, Schema{Owner: "usage", Migrations: []Migration{{Name: "v1"}}})
		if err == nil || !strings.Contains(err.Error(), "version 99, newer than this hark knows") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestRebind(t *testing.T) {
	t.Parallel()
	q := `SELECT a FROM t WHERE b = ? AND c IN (?, ?)`
	if got := rebind(Postgres, q); got != `SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)` {
		t.Errorf("PostgreSQL: %s", got)
	}
	if got := rebind(SQLite, q); got != q {
		t.Errorf("SQLite: %s", got)
	}
}

// A bad URL is refused with a message that names the rule and does not
// echo the password; it is a URLError, the caller's mistake.
func TestOpenPostgresBadURL(t *testing.T) {
	t.Parallel()
	_, err := OpenPostgres(context.Background(), "postgres://u:s3cret@[::1/db", 1)
	var ue *URLError
	if !errors.As(err, &ue) || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "database URL") {
		t.Fatalf("err = %v", err)
	}
}
