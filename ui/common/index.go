package common

import (
	"context"
	"time"
)

// Indexer is the embedded gateway's local search index, reached in
// process: indexing is not part of the gateway interface, so with a
// remote gateway Common.Index is nil and the TUI offers none of it.
type Indexer interface {
	// Index adds a folder, a file, a site or a sitemap, telling progress
	// of each page stored with the number so far. It stops with ctx.
	Index(ctx context.Context, target string, progress func(pages int, url string)) (int, error)
	// Sources lists what was indexed, newest first.
	Sources(ctx context.Context) ([]IndexSource, error)
	// Remove takes a source's pages out of the index.
	Remove(ctx context.Context, source string) (int, error)
	// Pages is how many pages the index holds.
	Pages(ctx context.Context) (int, error)
}

// IndexSource is one thing indexed and how many of its pages the index
// holds.
type IndexSource struct {
	Source  string
	Pages   int
	Indexed time.Time
}

// IndexMsg asks the root to show Search with the index prompt, or with
// the list of indexed sources.
type IndexMsg struct {
	Sources bool
}

// PageReader is an Indexer that gives back the text it holds for a page,
// without a tool call: how a page no gateway fetches (a file:// page of
// `hark index DIR`) is read.
type PageReader interface {
	IndexedPage(ctx context.Context, url string) (title, text string, err error)
}
