package engine

import "context"

// A job carries the reading of private addresses of the gateway it was
// submitted to (jobs.Meta.AllowPrivate): the embedded gateway of a
// command run with --allow-private, whose job a later hark process
// without the flag may run. The gateway marks the job's context; the web
// engine's fetcher then reads private and loopback addresses for it
// alone, on connections of its own. Only the gateway sets it, from its
// own setting, never from a caller's input.

type privateKey struct{}

// WithPrivateAllowed lets the work under ctx read private, loopback and
// link-local addresses, whatever the engine's own setting.
func WithPrivateAllowed(ctx context.Context) context.Context {
	return context.WithValue(ctx, privateKey{}, true)
}

// PrivateAllowed reports whether the work under ctx may read private
// addresses (WithPrivateAllowed).
func PrivateAllowed(ctx context.Context) bool {
	ok, _ := ctx.Value(privateKey{}).(bool)
	return ok
}
