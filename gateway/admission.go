package gateway

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// admission bounds the calls of one route class that run at once. Past
// the bound a short queue waits at most queueWait for a slot; past the
// queue, or after the wait, the call is refused at once with 503 and
// Retry-After, so that a burst is shed in milliseconds instead of
// queueing until clients time out.
type admission struct {
	class     string
	slots     chan struct{} // a token per running call
	maxQueue  int
	queueWait time.Duration

	mu      sync.Mutex
	waiting int
}

func newAdmission(class string, running, queue int, wait time.Duration) *admission {
	return &admission{class: class, slots: make(chan struct{}, running), maxQueue: queue, queueWait: wait}
}

// errBusy is the refusal of a full class.
func (a *admission) errBusy() error {
	return &httpError{status: CodeUnavailable, retryAfter: time.Second, msg: fmt.Sprintf(
		"gateway busy: %d %s calls running and %d waiting; retry after 1 s", cap(a.slots), a.class, a.maxQueue)}
}

// acquire takes a slot or refuses. The returned slot must be released
// once the work it admitted has really ended.
func (a *admission) acquire(ctx context.Context) (*slot, error) {
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

// running is the number of calls holding a slot.
func (a *admission) running() int { return len(a.slots) }

// slot is one admitted call. It is freed when its handler and every
// engine call it started have returned: an engine that overruns its
// deadline keeps its slot, so abandoned work cannot pile up unbounded.
type slot struct {
	a    *admission
	mu   sync.Mutex
	refs int
}

func newSlot(a *admission) *slot { return &slot{a: a, refs: 1} }

func (s *slot) hold() {
	s.mu.Lock()
	s.refs++
	s.mu.Unlock()
}

func (s *slot) release() {
	s.mu.Lock()
	s.refs--
	last := s.refs == 0
	s.mu.Unlock()
	if last {
		<-s.a.slots
	}
}

type slotKey struct{}

// slotOf is the admission slot of a request's context, or nil.
func slotOf(ctx context.Context) *slot {
	s, _ := ctx.Value(slotKey{}).(*slot)
	return s
}

// admit runs h within a slot of a.
func (s *Server) admit(a *admission, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sl, err := a.acquire(r.Context())
		if err != nil {
			// The call never ran: its rate-limit token goes back.
			if rs := stateOf(r); rs != nil && rs.keyHash != "" {
				if gerr := s.limiter.giveBack(context.WithoutCancel(r.Context()), rs.keyHash); gerr != nil {
					s.log.Warn("rate limit token not returned", "error", gerr)
				}
			}
			s.writeError(w, r, err)
			return
		}
		defer sl.release()
		h(w, r.WithContext(context.WithValue(r.Context(), slotKey{}, sl)))
	}
}

// keyStreams counts the open streams of each API key, so that one key
// cannot take every stream (and every recogniser) from the others.
type keyStreams struct {
	max  int
	mu   sync.Mutex
	open map[string]int // by key hash
}

func (k *keyStreams) take(key string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.open[key] >= k.max {
		return false
	}
	k.open[key]++
	return true
}

func (k *keyStreams) give(key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.open[key]--; k.open[key] <= 0 {
		delete(k.open, key)
	}
}

// perKeyStream refuses a stream over the key's limit with 429.
func (s *Server) perKeyStream(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rs := stateOf(r)
		if !s.streams.take(rs.keyHash) {
			s.writeError(w, r, &httpError{status: CodeRateLimited, retryAfter: time.Second, msg: fmt.Sprintf(
				"too many open streams: %d per API key (streams_per_key); close one or retry after 1 s", s.streams.max)})
			return
		}
		defer s.streams.give(rs.keyHash)
		h(w, r)
	}
}
