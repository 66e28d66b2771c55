package web

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// An index run remembers the pages it stored, so that what `hark index`
// (or the TUI) added can be listed by source, re-indexed and removed.

type indexRunKey struct{}

// indexRun collects the URLs stored during one Index call and tells its
// progress function about each.
type indexRun struct {
	mu       sync.Mutex
	urls     []string
	seen     map[string]bool
	progress func(pages int, url string)
	opts     IndexOptions
}

// IndexOptions tune one Index call. Zero fields keep the engine's Config,
// so that the one engine the gateway owns serves `hark index --depth 3`
// and the TUI alike.
type IndexOptions struct {
	Depth     int  // Config.IndexDepth for this call
	Limit     int  // Config.IndexLimit for this call
	WholeSite bool // Config.IndexWholeSite, or this
	// Progress, when not nil, is told of every page stored, with the
	// number so far.
	Progress func(pages int, url string)
}

// indexScope is the depth, page limit and whole-site switch of the index run
// ctx carries (the engine's Config outside one).
func (e *Engine) indexScope(ctx context.Context) (depth, limit int, wholeSite bool) {
	depth, limit, wholeSite = e.cfg.IndexDepth, e.cfg.IndexLimit, e.cfg.IndexWholeSite
	if r, ok := ctx.Value(indexRunKey{}).(*indexRun); ok {
		if r.opts.Depth > 0 {
			depth = r.opts.Depth
		}
		if r.opts.Limit > 0 {
			limit = r.opts.Limit
		}
		wholeSite = wholeSite || r.opts.WholeSite
	}
	return depth, limit, wholeSite
}

// add records a page stored; a page stored twice (a redirect's target
// reached again) counts once.
func (r *indexRun) add(u string) {
	r.mu.Lock()
	if r.seen[u] {
		r.mu.Unlock()
		return
	}
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	r.seen[u] = true
	r.urls = append(r.urls, u)
	n := len(r.urls)
	r.mu.Unlock()
	if r.progress != nil {
		r.progress(n, u)
	}
}

// Source is one thing indexed: a folder, a file, a site or a sitemap, as
// given to Index (folders and files as absolute paths).
type Source struct {
	Source  string    `json:"source"`
	Pages   int       `json:"pages"`
	Indexed time.Time `json:"indexed"`
}

// ErrNoSource is returned for a source that was never indexed.
var ErrNoSource = errors.New("no such source in the index")

// sourceName is how a target is remembered: a path made absolute.
func sourceName(target string) string {
	target = strings.TrimSpace(target)
	if strings.Contains(target, "://") {
		return target
	}
	if abs, err := filepath.Abs(target); err == nil {
		return abs
	}
	return target
}

// IndexWithProgress is Index, telling progress (when not nil) of every
// page stored, with the number so far. The pages are remembered as the
// target's (see Sources): indexing it again replaces that list.
func (e *Engine) IndexWithProgress(ctx context.Context, target string, progress func(pages int, url string)) (int, error) {
	return e.IndexWith(ctx, target, IndexOptions{Progress: progress})
}

// IndexWith is Index with the options of this call.
func (e *Engine) IndexWith(ctx context.Context, target string, o IndexOptions) (int, error) {
	run := &indexRun{progress: o.Progress, opts: o}
	n, err := e.index(context.WithValue(ctx, indexRunKey{}, run), target)
	run.mu.Lock()
	urls := run.urls
	run.mu.Unlock()
	if len(urls) > 0 || err == nil {
		// What was stored is kept even when the run stopped part way;
		// only a whole run drops the pages the source no longer has.
		if rerr := e.store.recordSource(context.WithoutCancel(ctx), sourceName(target), urls, err == nil); rerr != nil && err == nil {
			err = rerr
		}
	}
	return n, err
}

func (s *store) recordSource(ctx context.Context, source string, urls []string, whole bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO web_sources(source, indexed) VALUES (?, ?)
		ON CONFLICT(source) DO UPDATE SET indexed = excluded.indexed`, source, time.Now().Unix()); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE IF NOT EXISTS run_urls(url TEXT PRIMARY KEY)`); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM run_urls`); err != nil {
		return err
	}
	for _, u := range urls {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO run_urls(url) VALUES (?)`, u); err != nil {
			return err
		}
	}
	if whole {
		// Pages the source had and no longer has (a file deleted, a page
		// gone from the sitemap), unless another source holds them.
		if _, err := tx.ExecContext(ctx, `DELETE FROM web_pages WHERE url IN (
			SELECT url FROM web_source_pages WHERE source = ?
			EXCEPT SELECT url FROM run_urls
			EXCEPT SELECT url FROM web_source_pages WHERE source <> ?)`, source, source); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM web_source_pages WHERE source = ?`, source); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO web_source_pages(source, url) SELECT ?, url FROM run_urls`, source); err != nil {
		return err
	}
	return tx.Commit()
}

// Sources lists what was indexed, newest first, with how many pages of
// each the index holds.
func (e *Engine) Sources(ctx context.Context) ([]Source, error) {
	rows, err := e.store.db.QueryContext(ctx, `SELECT s.source, s.indexed,
		(SELECT count(*) FROM web_source_pages sp JOIN web_pages p ON p.url = sp.url WHERE sp.source = s.source)
		FROM web_sources s ORDER BY s.indexed DESC, s.source`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Source{}
	for rows.Next() {
		var src Source
		var at int64
		if err := rows.Scan(&src.Source, &at, &src.Pages); err != nil {
			return nil, err
		}
		src.Indexed = time.Unix(at, 0)
		out = append(out, src)
	}
	return out, rows.Err()
}

// RemoveSource takes a source's pages out of the index (those no other
// source also holds) and forgets the source. It returns how many pages
// it removed.
func (e *Engine) RemoveSource(ctx context.Context, source string) (int, error) {
	s := e.store
	s.mu.Lock()
	defer s.mu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var one int
	if err := tx.QueryRowContext(ctx, `SELECT 1 FROM web_sources WHERE source = ?`, source).Scan(&one); errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("%s: %w", source, ErrNoSource)
	} else if err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM web_pages WHERE url IN (
		SELECT url FROM web_source_pages WHERE source = ?
		EXCEPT SELECT url FROM web_source_pages WHERE source <> ?)`, source, source)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	if _, err := tx.ExecContext(ctx, `DELETE FROM web_source_pages WHERE source = ?`, source); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM web_sources WHERE source = ?`, source); err != nil {
		return 0, err
	}
	return int(n), tx.Commit()
}
