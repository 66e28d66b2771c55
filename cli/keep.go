package cli

import (
	"context"
	"fmt"
	"sync"
	"time"

	"hark/api"
	"hark/library"
)

// The library keeps every result the client sees (api.Options.OnResult),
// from the embedded gateway or a remote one alike, unless library = false
// or HARK_LIBRARY=0. Keeping never fails a call: a library that cannot be
// opened or written is reported once (warnLibrary) and the call goes on.

type libraryState struct {
	opening sync.WaitGroup // the open started ahead of the first result
	once    sync.Once
	store   *library.Store
	err     error
	warned  sync.Once
	// warn tells the user the library failed; the CLI prints to stderr,
	// the TUI shows it on screen. changed is told when items were kept.
	// Both are set before the first call.
	warn    func(msg string)
	changed func()
}

// library opens the library in the data directory, once.
func (a *App) library() (*library.Store, error) {
	a.lib.once.Do(func() {
		a.lib.store, a.lib.err = library.Open(a.cfg.DataDir)
		if a.lib.store != nil {
			// The client's own key is kept out of what the library writes,
			// as is anything with the shape of a hark key.
			a.lib.store.RedactKey(a.cfg.KnownKey())
			a.lib.store.RedactKey(a.flags.APIKey)
			a.mu.Lock()
			a.stops = append(a.stops, func() { a.lib.store.Close() })
			a.mu.Unlock()
		}
	})
	return a.lib.store, a.lib.err
}

// keep is the client's OnResult: it stores r's items.
func (a *App) keep(r api.Result) {
	items := library.Items(r)
	if len(items) == 0 {
		return
	}
	s, err := a.library()
	if err == nil {
		label := gatewayLabel(a.cfg.BaseURL, a.cfg.Profile)
		now := time.Now()
		for _, it := range items {
			it.Gateway, it.Created = label, now
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err = s.Add(ctx, items...)
		if err == nil && a.lib.changed != nil {
			a.lib.changed()
		}
	}
	if err != nil {
		fmt.Fprintf(a.logWriter(), "library: %v\n", err)
		a.lib.warned.Do(func() {
			msg := fmt.Sprintf("results are not kept: %v", err)
			if a.lib.warn != nil {
				a.lib.warn(msg)
			} else {
				fmt.Fprintln(a.stderr, "hark: warning: "+msg)
			}
		})
	}
}
