package cli

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"hark/gateway"
)

// serveDB is where `hark serve` keeps usage and quotas: --database, else
// HARK_DATABASE_URL, else gateway.toml's database_url; empty is the
// embedded gateway.db.
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

// openLedger opens the PostgreSQL ledger of a postgres:// URL and brings
// its schema up to date; with an empty URL it returns nil (gateway.db's).
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

// migrateOnly applies the database's migrations and reports its version.
func migrateOnly(ctx context.Context, a *App, dbURL, dataDir string) error {
	if dbURL == "" {
		fmt.Fprintf(a.stdout, "%s: SQLite makes its tables when the gateway opens it; versioned migrations are PostgreSQL's (give --database postgres://…)\n",
			filepath.Join(dataDir, gateway.DBFile))
		return nil
	}
	_, closeLedger, v, err := openLedger(ctx, dbURL, 1)
	if err != nil {
		return err
	}
	closeLedger()
	fmt.Fprintf(a.stdout, "%s: schema at version %d (this hark's latest: %d)\n", redactedURL(dbURL), v, gateway.PGSchemaVersion)
	return nil
}
