package cli

import (
	"context"
	"errors"
	"io/fs"
	"net"

	"hark/config"
	"hark/gateway/embedded"
)

// When no base URL is configured, hark runs the gateway in-process on
// 127.0.0.1 with a fresh key (package gateway/embedded), and talks to it
// over real HTTP and WebSocket like to any other gateway. Its web engine
// reads private and loopback addresses only when allow_private is set.

// startEmbedded runs the embedded gateway and returns its address, the key
// it accepts and a stop function. Tests replace it to count starts and stops.
var startEmbedded = runEmbedded

func runEmbedded(ctx context.Context, cfg *config.Config) (baseURL, apiKey string, stop func(), err error) {
	trace, _ := ctx.Value(traceKey{}).(func(string))
	g, err := embedded.Start(ctx, cfg.DataDir, embedded.Options{AllowPrivate: cfg.AllowPrivate, Trace: trace})
	var netErr *net.OpError
	switch {
	case err == nil:
	case errors.As(err, new(*fs.PathError)):
		return "", "", nil, err // the data directory cannot be written: exit 2, naming it
	case errors.As(err, &netErr):
		return "", "", nil, upstreamError{err} // no loopback port to listen on: exit 4
	default:
		return "", "", nil, dataError{err} // gateway.db damaged or locked: exit 6, as index and serve
	}
	return g.URL, g.APIKey, g.Stop, nil
}

// traceKey carries the start-up trace (App.phase) to runEmbedded, so that
// the engines' first-use work (the voice catalogue, the web index) shows
// in hark.log.
type traceKey struct{}
