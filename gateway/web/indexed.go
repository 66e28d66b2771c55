package web

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// IndexedPage returns the title and text the index holds for a page (one
// read by extract or crawl, or a file of `hark index DIR`), for a client
// that shows a page no gateway fetches, such as a file:// URL, without a
// tool call.
func (e *Engine) IndexedPage(ctx context.Context, url string) (title, text string, err error) {
	// The text search returns as raw_content.
	err = e.db.QueryRowContext(ctx, `SELECT body, title FROM web_pages WHERE url = ?`, url).Scan(&text, &title)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", fmt.Errorf("%s is not in the search index (any more)", url)
	}
	return title, text, err
}
