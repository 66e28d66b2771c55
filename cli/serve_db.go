package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/embedded"
	"hark/gateway/store"
)

// serveDB is where `hark serve` keeps what replicas share (usage, quotas,
// rate limits, API keys): --database, else HARK_DATABASE_URL, else
// gateway.toml's database_url; empty is the embedded gateway.db.
type serveDB struct {
	url         string
	migrateOnly bool
}

// fromOutside reports whether a database URL is given other than by
// gateway.toml (--database, HARK_DATABASE_URL).
func (d serveDB) fromOutside() bool { return d.url != "" || os.Getenv("HARK_DATABASE_URL") != "" }

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

// openPostgres connects to the PostgreSQL of a postgres:// URL, or
// returns nil for an empty URL (gateway.db). A URL that cannot be read
// is the caller's mistake (exit 2), like one that is not postgres://; a
// database that does not answer is exit 6.
func openPostgres(ctx context.Context, dbURL, source string, maxConns int) (*store.DB, error) {
	if dbURL == "" {
		return nil, nil
	}
	db, err := store.OpenPostgres(ctx, dbURL, maxConns)
	var ue *store.URLError
	switch {
	case errors.As(err, &ue):
		return nil, usagef("%s: %v", source, err)
	case err != nil:
		return nil, dataError{err}
	}
	return db, nil
}

// openStore opens the shared database, PostgreSQL's or dataDir's
// gateway.db, with every table up to date; where names it for messages
// (no password).
func openStore(ctx context.Context, dbURL, source, dataDir string) (db *store.DB, where string, closeFn func(), err error) {
	if dbURL != "" {
		db, err := openPostgres(ctx, dbURL, source, 2)
		if err != nil {
			return nil, "", nil, err
		}
		if err := embedded.Migrate(ctx, db); err != nil {
			db.Close()
			return nil, "", nil, dataError{err}
		}
		return db, "PostgreSQL " + redactedURL(dbURL), db.Close, nil
	}
	raw, err := store.OpenDB(dataDir)
	if err != nil {
		return nil, "", nil, dataError{err}
	}
	db = store.FromSQLite(raw)
	if err := embedded.Migrate(ctx, db); err != nil {
		raw.Close()
		return nil, "", nil, dataError{err}
	}
	return db, filepath.Join(dataDir, store.DBFile), func() { raw.Close() }, nil
}

// migrateOnly brings the database's tables up to date, SQLite's or
// PostgreSQL's, and reports each owner's version.
func migrateOnly(ctx context.Context, a *App, dbURL, source, dataDir string) error {
	db, where, closeStore, err := openStore(ctx, dbURL, source, dataDir)
	if err != nil {
		return err
	}
	defer closeStore()
	versions, err := store.Versions(ctx, db)
	if err != nil {
		return dataError{err}
	}
	fmt.Fprintf(a.stdout, "%s: every table up to date\n", where)
	schemas := embedded.Schemas(db)
	width := 0
	for _, s := range schemas {
		width = max(width, len(s.Owner))
	}
	for _, s := range schemas {
		last := ""
		if v := versions[s.Owner]; v > 0 && v <= len(s.Migrations) {
			last = s.Migrations[v-1].Name
		}
		fmt.Fprintf(a.stdout, "  %-*s  version %d  %s\n", width, s.Owner, versions[s.Owner], last)
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
