package cli

import (
	"context"

	"hark/gateway/config"
	"hark/gateway/embedded"
	"hark/gateway/research/doc"
	"hark/gateway/web"
)

// indexTo is the web engine `hark index` adds pages with, and where its
// index is for messages: the data directory's (the embedded gateway's),
// or with dbURL the search index in a team gateway's PostgreSQL, which
// every `hark serve --database` replica searches.
func (a *App) indexTo(ctx context.Context, dbURL string, allowPrivate bool) (e *web.Engine, where string, closeIndex func(), err error) {
	if dbURL == "" {
		e, err := a.localWeb()
		return e, a.cfg.DataDir, func() {}, err
	}
	if err := config.CheckDatabaseURL(dbURL); err != nil {
		return nil, "", nil, usagef("--database: %v", err)
	}
	db, err := openPostgres(ctx, dbURL, "--database", 0)
	if err != nil {
		return nil, "", nil, err
	}
	// web.New brings the index's tables up to date, as hark serve would.
	cfg := web.Config{Postgres: db, AllowPrivate: allowPrivate, UserAgent: embedded.UserAgent, Parse: doc.Parse}
	m, err := a.localModel(ctx)
	if err != nil {
		db.Close()
		return nil, "", nil, usageError{err}
	}
	if m != nil && m.Embeds() {
		cfg.Embedder = m // the team's vectors, as its replicas search them
	}
	e, err = web.New(cfg)
	if err != nil {
		db.Close()
		return nil, "", nil, dataError{err}
	}
	return e, "PostgreSQL " + redactedURL(dbURL), func() { e.Close(); db.Close() }, nil
}
