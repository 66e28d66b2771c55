package gateway

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"hark/gateway/config"
)

// On gateway.db too, a key added by another process (`hark serve keys`
// opens the file itself) works within a second, and stops within a second
// of its revocation; list shows no secret, and bad input names its field.
func TestSQLiteKeysAddRevoke(t *testing.T) {
	dir := t.TempDir()
	g := startGatewayIn(t, dir)
	db, err := OpenDB(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	admin := NewSQLiteLedger(db)
	ctx := context.Background()
	cfg := g.cfg
	if _, _, err := AddKey(ctx, admin, cfg, "nosuch", "", time.Now()); err == nil || !strings.Contains(err.Error(), `workspace: "nosuch" is not a workspace of gateway.toml`) {
		t.Fatalf("unknown workspace: %v", err)
	}
	if _, _, err := AddKey(ctx, admin, cfg, "partial", "bob\tand\nalice", time.Now()); err == nil || !strings.Contains(err.Error(), "name: must be text without control characters") {
		t.Fatalf("a name with a tab: %v", err)
	}
	key, info, err := AddKey(ctx, admin, cfg, "partial", "bob", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, g.testGW, key, 200, time.Second)
	keys, err := ListKeys(ctx, admin, cfg)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, k := range keys {
		found = found || (k.ID == info.ID && k.Name == "bob" && k.Workspace == "partial" && k.Revoked.IsZero())
	}
	if !found || len(keys) != 6 {
		t.Fatalf("ListKeys = %+v", keys)
	}
	if _, err := RevokeKey(ctx, admin, cfg, "0000beef", time.Now()); err == nil || !strings.Contains(err.Error(), `key ID: no key "0000beef"`) {
		t.Fatalf("unknown ID: %v", err)
	}
	if _, err := RevokeKey(ctx, admin, cfg, info.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, g.testGW, key, http.StatusUnauthorized, time.Second)
	// The other keys still work.
	if status, _, _ := g.call(t, "POST", invokePath("vendor_search"), g.key, `{"inputs":{"query":"q"}}`); status != 200 {
		t.Fatalf("the local key answers %d", status)
	}
}

// gwIn is a test gateway whose gateway.db is in a known directory.
type gwIn struct {
	*testGW
	cfg *config.Config
}

func startGatewayIn(t *testing.T, dir string) gwIn {
	var cfg *config.Config
	g := startGatewayWith(t, dir, func(c *config.Config) { cfg = c })
	return gwIn{g, cfg}
}

// gateway.db gets the same versioned migrations as PostgreSQL: applied
// once, recorded, a gateway.db of a hark before them (usage tables, no
// holder column) brought up to date with its rows, and a newer schema
// refused.
func TestSQLiteMigrations(t *testing.T) {
	ctx := context.Background()
	db, err := OpenDB(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(usageSchema); err != nil { // an older hark's tables
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO gateway_usage(ts,workspace,key_id,trace_id,operation,credits,status) VALUES(1,'w','k','t','vendor_search',3,'ok')`); err != nil {
		t.Fatal(err)
	}
	l := newSQLiteLedger(db)
	for range 2 {
		if v, err := Migrate(ctx, l); err != nil || v != SchemaVersion {
			t.Fatalf("Migrate = %d, %v; want %d", v, err, SchemaVersion)
		}
	}
	var n, credits int
	if err := db.QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != SchemaVersion {
		t.Fatalf("schema_migrations holds %d rows (%v)", n, err)
	}
	if err := db.QueryRow(`SELECT SUM(credits) FROM gateway_usage WHERE holder=''`).Scan(&credits); err != nil || credits != 3 {
		t.Fatalf("the older rows: %d credits (%v)", credits, err)
	}
	if _, err := db.Exec(`INSERT INTO schema_migrations(version) VALUES(99)`); err != nil {
		t.Fatal(err)
	}
	if _, err := Migrate(ctx, l); err == nil || !strings.Contains(err.Error(), "version 99, newer than this hark knows") {
		t.Fatalf("a newer schema: %v", err)
	}
}

// Every migration has its number, and the numbers follow the list.
func TestMigrationsNumbered(t *testing.T) {
	if err := checkMigrations(); err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations {
		if m.Name == "" || (m.SQLite == "" && m.Postgres == "") {
			t.Errorf("migration %d: a name and SQL for at least one backend are required", m.Version)
		}
	}
}
