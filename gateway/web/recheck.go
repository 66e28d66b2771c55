package web

import (
	"context"
	"net/http"
	"time"

	"hark/gateway/engine"
)

// Recheck reads a watched page again, politely: robots.txt and the
// host's pace as every fetch, and a conditional request (If-None-Match,
// If-Modified-Since from what the last read answered), so that an
// unchanged page costs its site a 304. The page is not indexed: a watch
// measures it, it does not search it.
func (e *Engine) Recheck(ctx context.Context, url, etag, lastModified string) (*engine.Rechecked, error) {
	cond := http.Header{}
	if etag != "" {
		cond.Set("If-None-Match", etag)
	}
	if lastModified != "" {
		cond.Set("If-Modified-Since", lastModified)
	}
	fp, err := e.fetch.fetchIf(ctx, url, pageTypes, cond)
	if err != nil {
		return nil, err
	}
	out := &engine.Rechecked{NotModified: fp.NotModified, ETag: fp.Header.Get("ETag"), LastModified: fp.Header.Get("Last-Modified")}
	if fp.NotModified {
		if out.ETag == "" {
			out.ETag = etag
		}
		if out.LastModified == "" {
			out.LastModified = lastModified
		}
		return out, nil
	}
	if weakLastModified(out.LastModified, fp.Header.Get("Date")) {
		out.LastModified = ""
	}
	p, err := parsePage(fp, indexed)
	if err != nil {
		return nil, err
	}
	out.Text = p.Text
	return out, nil
}

// weakLastModified reports a Last-Modified less than a second before
// the answer's Date (RFC 9110 8.8.2.2): the page may change again within
// that second, and a server that compares seconds would answer the next
// If-Modified-Since with a 304 though the page changed. Such a date is
// not asked with.
func weakLastModified(lastModified, date string) bool {
	lm, err := http.ParseTime(lastModified)
	if err != nil {
		return false
	}
	d, err := http.ParseTime(date)
	return err == nil && d.Sub(lm) < time.Second
}
