package limits

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Admission bounds the calls of one route class that run at once. Past
// the bound a short queue waits at most queueWait for a slot; past the
// queue, or after the wait, the call is refused at once with 503 and
// Retry-After, so that a burst is shed in milliseconds instead of
// queueing until clients time out.
type Admission struct {
	class     string
	slots     chan struct{} // a token per running call
	maxQueue  int
	queueWait time.Duration

	mu      sync.Mutex
	waiting int
}

// NewAdmission admits running calls of class at once, and queue more
// for at most wait each.
func NewAdmission(class string, running, queue int, wait time.Duration) *Admission {
	return &Admission{class: class, slots: make(chan struct{}, running), maxQueue: queue, queueWait: wait}
}

// errBusy is the refusal of a full class.
func (a *Admission) errBusy() error {
	return &Error{Status: http.StatusServiceUnavailable, RetryAfter: time.Second, Limit: "admission", Msg: fmt.Sprintf(
		"gateway busy: %d %s calls running and %d waiting; retry after 1 s", cap(a.slots), a.class, a.maxQueue)}
}

// Acquire takes a slot or refuses. The returned slot must be released
// once the work it admitted has really ended.
func (a *Admission) Acquire(ctx context.Context) (*Slot, error) {
	select {
	case a.slots <- struct{}{}:
		return newSlot(a), nil
	default:
	}
	a.mu.Lock()
	if a.waiting >= a.maxQueue {
		a.mu.Unlock()
		return nil, a.errBusy()
	}
	a.waiting++
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.waiting--
		a.mu.Unlock()
	}()
	t := time.NewTimer(a.queueWait)
	defer t.Stop()
	select {
	case a.slots <- struct{}{}:
		return newSlot(a), nil
	case <-t.C:
		return nil, a.errBusy()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Running is the number of calls holding a slot.
func (a *Admission) Running() int { return len(a.slots) }

// Waiting is the number of calls queued for a slot.
func (a *Admission) Waiting() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.waiting
}

// Class names the calls the admission bounds.
func (a *Admission) Class() string { return a.class }

// Slot is one admitted call. It is freed when its handler and every
// engine call it started have returned: an engine that overruns its
// deadline keeps its slot, so abandoned work cannot pile up unbounded.
type Slot struct {
	a    *Admission
	mu   sync.Mutex
	refs int
}

func newSlot(a *Admission) *Slot { return &Slot{a: a, refs: 1} }

// Hold keeps the slot for one more piece of work; Release ends one.
func (s *Slot) Hold() {
	s.mu.Lock()
	s.refs++
	s.mu.Unlock()
}

// Release ends a piece of work the slot was held for; the last frees it.
func (s *Slot) Release() {
	s.mu.Lock()
	s.refs--
	last := s.refs == 0
	s.mu.Unlock()
	if last {
		<-s.a.slots
	}
}

type slotKey struct{}

// SlotOf is the admission slot of a request's context, or nil.
func SlotOf(ctx context.Context) *Slot {
	s, _ := ctx.Value(slotKey{}).(*Slot)
	return s
}

// Admit runs a request within a slot of a (SlotOf finds it in the
// request's context), or refuses it: with a's 503, or with the context's
// error when its client left while it queued.
func Admit(a *Admission, refuse Refuse) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sl, err := a.Acquire(r.Context())
			if err != nil {
				refuse(w, r, err)
				return
			}
			defer sl.Release()
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), slotKey{}, sl)))
		})
	}
}

// KeyStreams counts the open streams of each API key, so that one key
// cannot take every stream (and every recogniser) from the others.
type KeyStreams struct {
	max  int
	mu   sync.Mutex
	open map[string]int // by key hash
}

// NewKeyStreams allows max open streams per key.
func NewKeyStreams(max int) *KeyStreams {
	return &KeyStreams{max: max, open: map[string]int{}}
}

func (k *KeyStreams) take(key string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.open[key] >= k.max {
		return false
	}
	k.open[key]++
	return true
}

func (k *KeyStreams) give(key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.open[key]--; k.open[key] <= 0 {
		delete(k.open, key)
	}
}

// Limit refuses a stream over its key's limit (key(r)) with 429.
func (k *KeyStreams) Limit(key func(*http.Request) string, refuse Refuse) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			kh := key(r)
			if !k.take(kh) {
				refuse(w, r, &Error{Status: http.StatusTooManyRequests, RetryAfter: time.Second, Limit: "streams_per_key", Msg: fmt.Sprintf(
					"too many open streams: %d per API key (streams_per_key); close one or retry after 1 s", k.max)})
				return
			}
			defer k.give(kh)
			next.ServeHTTP(w, r)
		})
	}
}
