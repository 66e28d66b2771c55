package web

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// FileText is the kept text of a local file as `hark index` keeps it
// (the text research's passages point into), read again now; for
// `hark research verify` on sources indexed from a folder.
func FileText(fileURL string, maxBytes int64) (string, error) {
	u, err := url.Parse(fileURL)
	if err != nil || u.Scheme != "file" {
		return "", fmt.Errorf("%s: not a file URL", fileURL)
	}
	ct, known := fileKinds[strings.ToLower(filepath.Ext(u.Path))]
	if !known {
		return "", fmt.Errorf("%s: not an HTML, markdown or text file", fileURL)
	}
	st, err := os.Stat(u.Path)
	if err != nil {
		return "", err
	}
	if st.Size() > maxBytes {
		return "", fmt.Errorf("%s: larger than %d bytes", fileURL, maxBytes)
	}
	body, err := os.ReadFile(u.Path)
	if err != nil {
		return "", err
	}
	fp := &fetchedPage{URL: fileURL, Requested: fileURL, ContentType: ct, Body: body, Header: map[string][]string{}, Fetched: time.Now().UTC()}
	p, err := parsePage(fp, indexed)
	if err != nil {
		return "", fmt.Errorf("%s: %w", fileURL, err)
	}
	return p.Text, nil
}

// PageText is a web page's text as the index keeps it (the text
// research's passages point into: its headline first, where extract's
// format=text leaves the headline out), read again now through this
// engine's fetcher, and neither indexed nor kept: what `hark research
// verify` and the TUI's v compare a report's quotes with, on the
// embedded gateway.
func (e *Engine) PageText(ctx context.Context, pageURL string) (string, error) {
	fp, err := e.fetch.fetch(ctx, pageURL, pageTypes)
	if err != nil {
		return "", fmt.Errorf("%s: %w", pageURL, err)
	}
	p, err := parsePage(fp, indexed)
	if err != nil {
		return "", fmt.Errorf("%s: %w", pageURL, err)
	}
	return p.Text, nil
}
