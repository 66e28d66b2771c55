package cli

import (
	"context"

	"hark/gateway"
	"hark/gateway/config"
	"hark/gateway/embedded"
	"hark/gateway/web"
)

// indexTo is the web engine `hark index` adds pages with, and where its
// index is for messages: the data directory's (the embedded gateway's),
// or with dbURL the search index in a team gateway's PostgreSQL, which
// every `hark serve --database` replica searches. The database's schema
// is brought up to date first, as hark serve would.
func (a *App) indexTo(ctx context.Context, dbURL string, allowPrivate bool) (e *web.Engine, where string, closeIndex func(), err error) {
	if dbURL == "" {
		e, err := a.localWeb()
		return e, a.cfg.DataDir, func() {}, err
	}
	if err := config.CheckDatabaseURL(dbURL); err != nil {
		return nil, "", nil, usagef("--database: %v", err)
	}
	l, err := gateway.OpenPGLedger(ctx, dbURL, 0)
	if err != nil {
		return nil, "", nil, dataError{err}
	}
	if _, err := l.Migrate(ctx); err != nil {
		l.Close()
		return nil, "", nil, dataError{err}
	}
	e, err = web.New(web.Config{Postgres: l.Pool(), AllowPrivate: allowPrivate, UserAgent: embedded.UserAgent})
	if err != nil {
		l.Close()
		return nil, "", nil, dataError{err}
	}
	return e, "PostgreSQL " + redactedURL(dbURL), func() { e.Close(); l.Close() }, nil
}
