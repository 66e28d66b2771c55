package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"hark/api"
	"hark/gateway/web"
)

// One rule for addresses, in extract, crawl, map and index alike:
//   - a private, loopback or link-local address the gateway refuses is the
//     command line's to change: exit 2, with the way to allow it (the
//     embedded gateway's --allow-private, allow_private, HARK_ALLOW_PRIVATE;
//     a remote gateway's operator);
//   - a site that cannot be reached (its name does not resolve, its port
//     refuses) is the far side's: exit 4, as any site that cannot be read.

// refusedPrivate reports a failure that is the private-address guard's.
func refusedPrivate(msg string) bool {
	return strings.Contains(msg, web.ErrAddressRefused.Error())
}

// allowPrivate applies a command's --allow-private (when given) to the
// embedded gateway, before any call starts it; a remote gateway decides
// for itself, which the warning says.
func (a *App) allowPrivate(given bool) {
	if !given {
		return
	}
	if a.cfg.BaseURL != "" {
		fmt.Fprintf(a.stderr, "hark: warning: --allow-private applies to the embedded gateway; %s decides for itself\n", a.cfg.BaseURL)
	}
	a.cfg.AllowPrivate = true
}

// privateHint says how to let the gateway read private addresses.
func (a *App) privateHint() string {
	if a.cfg != nil && a.cfg.BaseURL != "" {
		return "the gateway at " + a.cfg.BaseURL + " does not read private and loopback addresses; that is its operator's setting"
	}
	return "--allow-private (or allow_private = true in the config, HARK_ALLOW_PRIVATE=1) lets the embedded gateway read private and loopback addresses, for an intranet or a server on this machine"
}

// resultSeen is what the last web call answered, whatever the output
// format printed: an extract's failures, for the address rule, and
// whether a search found nothing.
type resultSeen struct {
	mu          sync.Mutex
	failed      []api.FailedExtract
	searchEmpty bool
}

// observe is the client's OnResult: extract's failures are noted, and
// every result is kept in the library when it is on.
func (a *App) observe(r api.Result) {
	switch r.Tool {
	case api.ToolExtract:
		if out, err := api.DecodeExtract(json.RawMessage(r.Output)); err == nil {
			a.seen.mu.Lock()
			a.seen.failed = out.FailedResults
			a.seen.mu.Unlock()
		}
	case api.ToolSearch:
		if out, err := api.DecodeSearch(json.RawMessage(r.Output)); err == nil {
			a.seen.mu.Lock()
			a.seen.searchEmpty = len(out.Results) == 0
			a.seen.mu.Unlock()
		}
	}
	if a.cfg.Library {
		a.keep(r)
	}
}

// siteRule applies the address rule to the outcome of a web tool's call.
func (a *App) siteRule(ctx context.Context, tool string, err error) error {
	var ae *api.Error
	switch {
	case tool == api.ToolSearch && err == nil:
		a.seen.mu.Lock()
		empty := a.seen.searchEmpty
		a.seen.mu.Unlock()
		if h := a.emptyIndexHint(ctx); empty && h != "" {
			fmt.Fprintln(a.stderr, "hark: "+h)
		}
	case tool == api.ToolExtract:
		a.seen.mu.Lock()
		failed := a.seen.failed
		a.seen.mu.Unlock()
		private := 0
		for _, f := range failed {
			if refusedPrivate(f.Error) {
				private++
			}
		}
		switch {
		case private == 0:
		case err != nil && private == len(failed):
			if private == 1 {
				return targetError{fmt.Errorf("extract %s: %s\nhint: %s", failed[0].URL, failed[0].Error, a.privateHint())}
			}
			return targetError{fmt.Errorf("extract: every URL is a private or loopback address, refused\nhint: %s", a.privateHint())}
		default:
			fmt.Fprintln(a.stderr, "hark: hint: "+a.privateHint())
		}
	case err != nil && errors.As(err, &ae) && refusedPrivate(ae.Message):
		return targetError{fmt.Errorf("%w\nhint: %s", err, a.privateHint())}
	}
	return err
}

// emptyIndexHint is said after a search with no results on the embedded
// gateway whose index holds no page: search finds only what was indexed.
func (a *App) emptyIndexHint(ctx context.Context) string {
	if a.cfg == nil || a.cfg.BaseURL != "" {
		return ""
	}
	l := &localIndex{a: a}
	if n, err := l.Pages(ctx); err != nil || n > 0 {
		return ""
	}
	return "the local search index is empty: search finds only pages hark has read. Add some with hark index URL|SITEMAP|DIR (a folder of HTML or markdown, a site or a sitemap); pages you extract or crawl are added too."
}
