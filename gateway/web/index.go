package web

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Index adds content to the local search index and reports how many pages
// it added or refreshed. target is one of:
//
//   - a directory: every .html, .htm, .xhtml, .md, .markdown and .txt file
//     under it, stored with a file:// URL, except the .txt files that are
//     source copies of its HTML pages (Sphinx's _sources/<page>.rst.txt,
//     a manual's <stem>.txt beside <stem>.html), which
//     IndexOptions.SourceCopy is told of;
//   - a file of one of those kinds;
//   - a sitemap URL (path ending in .xml or naming "sitemap"): every page it
//     and its child sitemaps list, up to Config.IndexLimit;
//   - any other http(s) URL: the site crawled from there, under the start
//     URL's folder (the whole site with Config.IndexWholeSite),
//     Config.IndexDepth links deep, up to Config.IndexLimit pages; a
//     server's folder listing is followed, never indexed.
//
// Pages that fail are skipped; an error is returned only when nothing at
// all could be read.
func (e *Engine) Index(ctx context.Context, target string) (int, error) {
	return e.IndexWithProgress(ctx, target, nil)
}

func (e *Engine) index(ctx context.Context, target string) (int, error) {
	target = strings.TrimSpace(target)
	if target == "" {
		return 0, fmt.Errorf("index: give a URL, a sitemap URL or a directory")
	}
	st, statErr := os.Stat(target)
	if statErr == nil {
		if st.IsDir() {
			return e.indexDir(ctx, target)
		}
		ok, err := e.indexFile(ctx, target)
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, fmt.Errorf("index %s: not an HTML, markdown or text file", target)
		}
		return 1, nil
	}
	u, err := parseHTTPURL(target)
	if err != nil {
		if !strings.Contains(target, "://") {
			// A path: say what is wrong with it (and keep the file
			// error, which callers tell apart).
			return 0, fmt.Errorf("index: %w (give a folder, a file, a URL or a sitemap URL)", statErr)
		}
		return 0, fmt.Errorf("index %s: %v", target, err)
	}
	lower := strings.ToLower(u.Path)
	if strings.HasSuffix(lower, ".xml") || strings.Contains(lower, "sitemap") {
		return e.indexSitemap(ctx, u.String())
	}
	depth, limit, wholeSite := e.indexScope(ctx)
	t := &traversal{start: u, maxDepth: depth, maxBreadth: 500, limit: limit, allowExternal: false, extract: true}
	if !wholeSite {
		t.under = folderOf(u)
	}
	visits, err := e.walk(ctx, t)
	if err != nil {
		return len(visits), fmt.Errorf("index %s: %w", target, err)
	}
	return len(visits), nil
}

func (e *Engine) indexSitemap(ctx context.Context, target string) (int, error) {
	urls, err := e.readSitemaps(ctx, []string{target})
	if err != nil {
		return 0, fmt.Errorf("index %s: %w", target, err)
	}
	if _, limit, _ := e.indexScope(ctx); len(urls) > limit {
		urls = urls[:limit]
	}
	var n atomic.Int64
	var firstErr atomic.Value
	jobs := make(chan string)
	var wg sync.WaitGroup
	for w := 0; w < e.cfg.Concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range jobs {
				p, err := e.readPage(ctx, u, indexed)
				if err != nil {
					firstErr.CompareAndSwap(nil, fmt.Errorf("%s: %v", u, err))
					continue
				}
				if !p.NoIndex {
					n.Add(1)
				}
			}
		}()
	}
	for _, u := range urls {
		select {
		case jobs <- u:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return int(n.Load()), err
	}
	if n.Load() == 0 && len(urls) > 0 {
		return 0, fmt.Errorf("index %s: no page could be read; first failure: %v", target, firstErr.Load())
	}
	return int(n.Load()), nil
}

var fileKinds = map[string]string{
	".html": "text/html", ".htm": "text/html", ".xhtml": "application/xhtml+xml",
	".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain",
}

// indexDir indexes the files under dir, except the source copies of its
// HTML pages (sourceCopyOf), which it counts in the index run.
func (e *Engine) indexDir(ctx context.Context, dir string) (int, error) {
	var files []string
	pages := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable entries are skipped
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && path != dir {
				return filepath.SkipDir
			}
			return nil
		}
		files = append(files, path)
		if ct := fileKinds[strings.ToLower(filepath.Ext(path))]; ct == "text/html" || ct == "application/xhtml+xml" {
			pages[path] = true
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("index %s: %w", dir, err)
	}
	n := 0
	for _, path := range files {
		if ctx.Err() != nil {
			return n, fmt.Errorf("index %s: %w", dir, ctx.Err())
		}
		if page := sourceCopyOf(path, pages); page != "" {
			if run, ok := ctx.Value(indexRunKey{}).(*indexRun); ok && run.opts.SourceCopy != nil {
				run.opts.SourceCopy(path, page)
			}
			continue
		}
		ok, err := e.indexFile(ctx, path)
		if err != nil {
			return n, fmt.Errorf("index %s: %w", dir, err)
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// sourceCopyOf is the HTML page of pages that the text file path is the
// source copy of, or "" when it is none's. Sphinx keeps each page's
// source as _sources/<page>.rst.txt (or .md.txt, .ipynb.txt, or
// <page>.txt in older versions) under the folder of <page>.html; git's
// and other manuals ship <stem>.txt beside <stem>.html. A copy is the
// page's text again: indexed, it takes a search result, and a page
// research reads, from another page.
func sourceCopyOf(path string, pages map[string]bool) string {
	if !strings.EqualFold(filepath.Ext(path), ".txt") {
		return ""
	}
	stem := strings.TrimSuffix(path, filepath.Ext(path))
	dir, name := filepath.Split(stem)
	candidates := []string{stem}
	// _sources/library/os.rst.txt is library/os.html's source, under the
	// _sources folder's parent.
	sep := string(filepath.Separator)
	if i := strings.LastIndex(path, sep+"_sources"+sep); i >= 0 {
		rel := strings.TrimSuffix(path[i+len(sep+"_sources"+sep):], filepath.Ext(path))
		if ext := strings.ToLower(filepath.Ext(rel)); sourceExts[ext] {
			rel = strings.TrimSuffix(rel, filepath.Ext(rel))
		}
		candidates = append(candidates, filepath.Join(path[:i], rel))
	}
	// foo.rst.txt beside foo.html.
	if ext := strings.ToLower(filepath.Ext(name)); sourceExts[ext] {
		candidates = append(candidates, filepath.Join(dir, strings.TrimSuffix(name, filepath.Ext(name))))
	}
	for _, c := range candidates {
		for _, ext := range []string{".html", ".htm", ".xhtml"} {
			if pages[c+ext] {
				return c + ext
			}
		}
	}
	return ""
}

// sourceExts are the extensions of a page's source that a source copy
// keeps before its ".txt".
var sourceExts = map[string]bool{".rst": true, ".rest": true, ".md": true, ".markdown": true, ".ipynb": true, ".txt": true, ".adoc": true, ".asciidoc": true}

// indexFile indexes one local file; ok is false for kinds it does not read.
func (e *Engine) indexFile(ctx context.Context, path string) (ok bool, err error) {
	ct, known := fileKinds[strings.ToLower(filepath.Ext(path))]
	if !known {
		return false, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return false, err
	}
	st, err := os.Stat(abs)
	if err != nil || st.Size() > e.cfg.MaxPageBytes {
		return false, nil
	}
	body, err := os.ReadFile(abs)
	if err != nil {
		return false, nil
	}
	u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	fp := &fetchedPage{URL: u, Requested: u, ContentType: ct, Body: body, Header: map[string][]string{}, Fetched: st.ModTime().UTC()}
	if fp.Fetched.IsZero() {
		fp.Fetched = time.Now().UTC()
	}
	p, err := parsePage(fp, indexed)
	if err != nil {
		return false, nil
	}
	if p.NoIndex {
		return false, nil
	}
	if err := e.store.put(ctx, p); err != nil {
		return false, fmt.Errorf("index %s: %w", path, err)
	}
	return true, nil
}

// IndexedPages returns how many pages the search index holds.
func (e *Engine) IndexedPages(ctx context.Context) (int, error) {
	return e.store.count(ctx)
}
