package engine

import (
	"context"
	"time"
)

// The gateway shares the CPU among its classes of work (search, TTS,
// STT) by turns: an engine whose work under ctx is a series of CPU-bound
// pieces (a sentence to speak, audio to recognise) takes a turn for each
// with Turn, so that twenty TTS streams do not starve the searches. And
// an engine that queues its work (a recogniser pool) waits at most
// QueueWait. Both are absent on a context the gateway did not set:
// Turn then grants at once.

type turnsKey struct{}
type queueWaitKey struct{}

// WithTurns makes Turn under ctx take its turns from take.
func WithTurns(ctx context.Context, take func(context.Context) (release func(), err error)) context.Context {
	return context.WithValue(ctx, turnsKey{}, take)
}

// Turn waits for a turn of the CPU for one piece of work, as long as ctx
// allows; release ends the turn once the piece is done.
func Turn(ctx context.Context) (release func(), err error) {
	if take, ok := ctx.Value(turnsKey{}).(func(context.Context) (func(), error)); ok {
		return take(ctx)
	}
	return func() {}, nil
}

// WithQueueWait bounds how long work under ctx waits in an engine's own
// queue (for a recogniser): a stream waits up to its own deadline.
func WithQueueWait(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, queueWaitKey{}, d)
}

// QueueWait is the longest work under ctx may wait in an engine's queue:
// WithQueueWait's, else def.
func QueueWait(ctx context.Context, def time.Duration) time.Duration {
	if d, ok := ctx.Value(queueWaitKey{}).(time.Duration); ok && d > 0 {
		return d
	}
	return def
}
