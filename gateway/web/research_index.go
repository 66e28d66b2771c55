package web

// What research (gateway/research) reads of the engine: the index's
// search and kept pages, and the fetcher. Research keeps its own tasks.

import (
	"context"
	"time"

	"hark/api"
)

// SearchIndex searches the local index for research: results name their
// pages' headings rather than quoting them, since research then reads
// each page whole with Kept.
func (e *Engine) SearchIndex(ctx context.Context, in api.SearchInput) (*api.SearchOutput, error) {
	return e.searchIndex(ctx, in, true)
}

// Pages is how many pages the index holds.
func (e *Engine) Pages(ctx context.Context) (int, error) {
	return e.store.count(ctx)
}

// Kept is a page's title, text and markdown ("" for pages indexed
// before the index kept it), as the index holds them, and the page as
// Config.Parse read it when it was indexed (nil without one).
func (e *Engine) Kept(ctx context.Context, u string) (title, body, markdown string, parsed []byte, err error) {
	return e.store.page(ctx, u)
}

// Read fetches a page (and so indexes it) and returns where it was read
// from after redirects, its title, text and markdown, and the page as
// Config.Parse read it when it was indexed (nil when it was not).
func (e *Engine) Read(ctx context.Context, u string) (url, title, body, markdown string, parsed []byte, err error) {
	p, err := e.readPage(ctx, u, indexed)
	if err != nil {
		return "", "", "", "", nil, err
	}
	return p.URL, p.Title, p.Text, p.Markdown, p.Parsed, nil
}

// SamePage is the identity of the page at u: fs.html and fs.md, a
// directory and its index.html, are one page (samePage).
func (e *Engine) SamePage(u string) string { return samePage(u) }

// Put indexes a page read elsewhere, as if fetched now. Research's tests
// seed the index with it.
func (e *Engine) Put(ctx context.Context, u, title, body, markdown string) error {
	return e.store.put(ctx, &page{URL: u, Title: title, Text: body, Markdown: markdown, Fetched: time.Now().UTC()})
}

// ReadHTML extracts an HTML page's title, text and markdown as the
// engine would index it. Research's tests read the extraction corpus
// with it.
func ReadHTML(pageURL string, body []byte) (title, text, markdown string, err error) {
	p, err := parseHTML(pageURL, body, "", time.Now(), indexed)
	if err != nil {
		return "", "", "", err
	}
	return p.Title, p.Text, p.Markdown, nil
}
