package cli

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"hark/gateway"
	"hark/gateway/auth"
	"hark/gateway/config"
)

// serveDB is where `hark serve` keeps what replicas share (usage, quotas,
// rate limits, API keys): --database, else HARK_DATABASE_URL, else
// gateway.toml's database_url; empty is the embedded gateway.db.
type serveDB struct {
	url         string
	migrateOnly bool
}

// resolve picks the URL and names where it came from, for messages.
func (d serveDB) resolve(fromConfig string) (u, source string) {
	if d.url != "" {
		return d.url, "--database"
	}
	if v := os.Getenv("HARK_DATABASE_URL"); v != "" {
		return v, "HARK_DATABASE_URL"
	}
	return fromConfig, "database_url in gateway.toml"
}

// redactedURL shows a database URL without its password.
func redactedURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unreadable URL)"
	}
	return p.Redacted()
}

// serveConfigPath is --config, else the default gateway.toml.
func serveConfigPath(p string) (string, error) {
	if p != "" {
		return p, nil
	}
	p, err := config.DefaultPath()
	if err != nil {
		return "", usagef("%v; give --config FILE", err)
	}
	return p, nil
}

// serveDataDir is --data-dir, else gateway.toml's, else hark's own.
func serveDataDir(a *App, gcfg *config.Config) string {
	dataDir := a.flags.DataDir
	if dataDir == "" {
		dataDir = gcfg.DataDir
	}
	if dataDir == "" && a.cfg != nil {
		dataDir = a.cfg.DataDir
	}
	return dataDir
}

// openLedger opens the PostgreSQL ledger of a postgres:// URL and brings
// its schema up to date; with an empty URL it returns nil (gateway.db's,
// which gateway.New migrates).
func openLedger(ctx context.Context, dbURL string, maxConns int) (gateway.UsageLedger, func(), int, error) {
	if dbURL == "" {
		return nil, func() {}, 0, nil
	}
	l, err := gateway.OpenPGLedger(ctx, dbURL, maxConns)
	if err != nil {
		return nil, nil, 0, dataError{err}
	}
	v, err := l.Migrate(ctx)
	if err != nil {
		l.Close()
		return nil, nil, 0, dataError{err}
	}
	// jobs: River's tables and the jobs' own (gateway/jobs).
	if err := l.MigrateJobs(ctx); err != nil {
		l.Close()
		return nil, nil, 0, dataError{err}
	}
	return l, l.Close, v, nil
}

// openStore opens the shared database, PostgreSQL's or dataDir's
// gateway.db, migrated; where names it for messages (no password).
func openStore(ctx context.Context, dbURL, dataDir string) (store gateway.UsageLedger, where string, version int, closeFn func(), err error) {
	if dbURL != "" {
		l, closeL, v, err := openLedger(ctx, dbURL, 2)
		if err != nil {
			return nil, "", 0, nil, err
		}
		return l, redactedURL(dbURL), v, closeL, nil
	}
	db, err := gateway.OpenDB(dataDir)
	if err != nil {
		return nil, "", 0, nil, dataError{err}
	}
	l := gateway.NewSQLiteLedger(db)
	v, err := gateway.Migrate(ctx, l)
	if err != nil {
		db.Close()
		return nil, "", 0, nil, dataError{err}
	}
	return l, filepath.Join(dataDir, gateway.DBFile), v, func() { db.Close() }, nil
}

// migrateOnly applies the database's migrations, SQLite's or
// PostgreSQL's, and reports its version and the migrations it knows.
func migrateOnly(ctx context.Context, a *App, dbURL, dataDir string) error {
	_, where, v, closeStore, err := openStore(ctx, dbURL, dataDir)
	if err != nil {
		return err
	}
	closeStore()
	fmt.Fprintf(a.stdout, "%s: schema at version %d (this hark's latest: %d)\n", where, v, gateway.SchemaVersion)
	for _, m := range gateway.Migrations() {
		fmt.Fprintf(a.stdout, "  %3d  %s\n", m.Version, m.Name)
	}
	return nil
}

// writeNewConfig creates a gateway.toml at path with one local workspace
// and a new key, and returns the key: the one time it is shown, since the
// file keeps only its SHA-256.
func writeNewConfig(path string) (string, error) {
	key, err := auth.NewAPIKey()
	if err != nil {
		return "", err
	}
	if err := config.WriteNew(path, auth.HashKey(key)); err != nil {
		return "", err
	}
	return key, nil
}
