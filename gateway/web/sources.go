package web

import (
	"context"
	"errors"
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
	// SourceCopy, when not nil, is told of every file a folder's walk
	// skipped as the source copy of an HTML page in the folder (path),
	// and of that page.
	SourceCopy func(path, page string)
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
// reached again) counts once. Progress is told under the run's lock, one
// page at a time and in order: callers keep no lock of their own.
func (r *indexRun) add(u string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen[u] {
		return
	}
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	r.seen[u] = true
	r.urls = append(r.urls, u)
	if r.progress != nil {
		r.progress(len(r.urls), u)
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

// Sources lists what was indexed, newest first, with how many pages of
// each the index holds.
func (e *Engine) Sources(ctx context.Context) ([]Source, error) {
	return e.store.sources(ctx)
}

// RemoveSource takes a source's pages out of the index (those no other
// source also holds) and forgets the source. It returns how many pages
// it removed.
func (e *Engine) RemoveSource(ctx context.Context, source string) (int, error) {
	return e.store.removeSource(ctx, source)
}
