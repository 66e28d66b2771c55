package web

import (
	"context"
	"errors"
	"fmt"
)

// IndexedPage returns the title and content the index holds for a page
// (one read by extract or crawl, or a file of `hark index DIR`), for a
// client that shows a page no gateway fetches, such as a file:// URL,
// without a tool call. The content is the extractor's markdown, links and
// headings kept, when the index has it (markdown is true), else the page's
// text (pages indexed before the index kept markdown).
func (e *Engine) IndexedPage(ctx context.Context, url string) (title, content string, markdown bool, err error) {
	title, text, md, _, err := e.store.page(ctx, url)
	if errors.Is(err, errNotIndexed) {
		return "", "", false, fmt.Errorf("%s is not in the search index (any more)", url)
	}
	if err != nil {
		return "", "", false, err
	}
	if md != "" {
		return title, md, true, nil
	}
	return title, text, false, nil
}

// IndexedText is the kept text the index holds for a page: the text a
// research report's passages point into (offsets are into it, not into
// the markdown IndexedPage prefers).
func (e *Engine) IndexedText(ctx context.Context, url string) (string, error) {
	_, text, _, _, err := e.store.page(ctx, url)
	if errors.Is(err, errNotIndexed) {
		return "", fmt.Errorf("%s is not in the search index (any more)", url)
	}
	return text, err
}
