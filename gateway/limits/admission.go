package limits

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Admission bounds the calls of one class that run at once, and queues
// the next ones for as long as their expected wait allows; past that the
// call is refused at once with 503 and Retry-After, so a burst is shed
// in milliseconds instead of queueing until clients time out.
//
// Classes whose work is the CPU's (a search of the local index, a TTS
// sentence, a piece of audio recognised) also draw on the seats their
// Scheduler shares among them by weight: when the seats are taken, the
// next one that comes free goes to the waiting class that has had the
// least seat time for its weight (start-time fair queueing), so that no
// class falls below its share while it has work waiting, and a class
// alone may use every seat.
type Admission struct {
	s    *Scheduler
	name string
	opt  ClassOptions

	// Under s.mu:
	running int
	waiters []*waiter
	svc     time.Duration // mean time a call holds its slot (a moving average)
	vtime   float64       // seat time had, in seconds per unit of weight
}

// ClassOptions are what a class of calls may hold and wait for.
type ClassOptions struct {
	// Running is the most calls of the class at once.
	Running int
	// Weight is the class's share of its Scheduler's seats; 0 draws on
	// none (the class waits on the network, not the CPU).
	Weight int
	// Queue is the most calls waiting; Wait the wait budget: a call whose
	// expected wait (the calls ahead of it and itself, times the mean
	// time a call holds a slot, over the calls running) is over Wait is
	// refused at once, and one that waits Wait is refused then. Wait 0
	// waits until the caller's context ends, for work already admitted
	// (a sentence of a TTS stream), bounded by its stream's deadline.
	Queue int
	Wait  time.Duration
}

// Scheduler shares seats (calls of CPU work at once) among the classes
// that draw on them.
type Scheduler struct {
	mu      sync.Mutex
	seats   int
	used    int
	classes []*Admission
}

// NewScheduler shares seats among its classes.
func NewScheduler(seats int) *Scheduler { return &Scheduler{seats: max(1, seats)} }

// Seats is the seats the scheduler shares.
func (s *Scheduler) Seats() int { return s.seats }

// Class adds a class of calls.
func (s *Scheduler) Class(name string, o ClassOptions) *Admission {
	o.Running = max(1, o.Running)
	a := &Admission{s: s, name: name, opt: o}
	s.mu.Lock()
	s.classes = append(s.classes, a)
	s.mu.Unlock()
	return a
}

// NewAdmission is a class of its own: running calls at once, queue more
// for at most wait each (by their expected wait).
func NewAdmission(class string, running, queue int, wait time.Duration) *Admission {
	return NewScheduler(1).Class(class, ClassOptions{Running: running, Queue: queue, Wait: wait})
}

type waiter struct {
	ready chan struct{} // closed when granted
	slot  *Slot
}

// free reports whether a call of a may start now: under its own bound
// and, for a seat class, with a seat free.
func (a *Admission) free() bool {
	return a.running < a.opt.Running && (a.opt.Weight == 0 || a.s.used < a.s.seats)
}

// grantLocked starts a call of a.
func (a *Admission) grantLocked() *Slot {
	a.running++
	if a.opt.Weight > 0 {
		a.s.used++
		a.vtime += a.svc.Seconds() / float64(a.opt.Weight) // charged as it starts; corrected at its end
	}
	return &Slot{a: a, refs: 1, start: time.Now(), charged: a.svc}
}

// expectedWait is how long a call joining a's queue now would wait.
func (a *Admission) expectedWait() time.Duration {
	return time.Duration(len(a.waiters)+1) * a.svc * 5 / 4 / time.Duration(max(1, a.running))
}

// errBusy is the refusal of a full class.
func (a *Admission) errBusy(why string) error {
	return &Error{Status: http.StatusServiceUnavailable, RetryAfter: time.Second, Limit: "admission", Msg: fmt.Sprintf(
		"gateway busy: %d %s calls running and %d waiting%s; retry after 1 s", a.running, a.name, len(a.waiters), why)}
}

// Acquire takes a slot or refuses. The returned slot must be released
// once the work it admitted has really ended.
func (a *Admission) Acquire(ctx context.Context) (*Slot, error) {
	s := a.s
	s.mu.Lock()
	if a.opt.Weight > 0 && a.running == 0 && len(a.waiters) == 0 {
		// A class that was idle starts level with the busy ones: it
		// cannot spend seat time it did not ask for.
		a.vtime = max(a.vtime, s.minVtimeLocked())
	}
	if len(a.waiters) == 0 && a.free() {
		sl := a.grantLocked()
		s.mu.Unlock()
		return sl, nil
	}
	if a.opt.Wait > 0 {
		if len(a.waiters) >= a.opt.Queue {
			err := a.errBusy(fmt.Sprintf(" (queue_length %d)", a.opt.Queue))
			s.mu.Unlock()
			return nil, err
		}
		if exp := a.expectedWait(); exp > a.opt.Wait {
			err := a.errBusy(fmt.Sprintf(", about %s of work ahead (queue_wait %s)", exp.Round(time.Millisecond), a.opt.Wait))
			s.mu.Unlock()
			return nil, err
		}
	}
	w := &waiter{ready: make(chan struct{})}
	a.waiters = append(a.waiters, w)
	s.dispatchLocked()
	s.mu.Unlock()

	var timeout <-chan time.Time
	if a.opt.Wait > 0 {
		t := time.NewTimer(a.opt.Wait)
		defer t.Stop()
		timeout = t.C
	}
	timedOut := false
	select {
	case <-w.ready:
		return w.slot, nil
	case <-timeout:
		timedOut = true
	case <-ctx.Done():
	}
	s.mu.Lock()
	select {
	case <-w.ready: // granted as the wait ended: the call runs
		s.mu.Unlock()
		return w.slot, nil
	default:
	}
	err := ctx.Err()
	if timedOut {
		err = a.errBusy(fmt.Sprintf("; waited queue_wait %s", a.opt.Wait))
	}
	for i, x := range a.waiters {
		if x == w {
			a.waiters = append(a.waiters[:i], a.waiters[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
	return nil, err
}

// minVtimeLocked is the least seat time per weight of the classes with
// work, running or waiting.
func (s *Scheduler) minVtimeLocked() float64 {
	m, found := 0.0, false
	for _, c := range s.classes {
		if c.opt.Weight > 0 && (c.running > 0 || len(c.waiters) > 0) && (!found || c.vtime < m) {
			m, found = c.vtime, true
		}
	}
	return m
}

// dispatchLocked grants slots to waiters while any can start: a class
// that draws no seats at once; among the seat classes, the one with the
// least seat time for its weight first.
func (s *Scheduler) dispatchLocked() {
	for {
		var next *Admission
		for _, c := range s.classes {
			if len(c.waiters) == 0 || !c.free() {
				continue
			}
			if c.opt.Weight == 0 {
				next = c
				break
			}
			if next == nil || c.vtime < next.vtime {
				next = c
			}
		}
		if next == nil {
			return
		}
		w := next.waiters[0]
		next.waiters = next.waiters[1:]
		w.slot = next.grantLocked()
		close(w.ready)
	}
}

// release ends a call that held its slot for held.
func (a *Admission) release(held, charged time.Duration) {
	s := a.s
	s.mu.Lock()
	defer s.mu.Unlock()
	a.running--
	if a.svc == 0 {
		a.svc = held
	} else {
		a.svc = (4*a.svc + held) / 5
	}
	if a.opt.Weight > 0 {
		s.used--
		a.vtime += (held - charged).Seconds() / float64(a.opt.Weight)
	}
	s.dispatchLocked()
}

// Running is the number of calls holding a slot.
func (a *Admission) Running() int {
	a.s.mu.Lock()
	defer a.s.mu.Unlock()
	return a.running
}

// Waiting is the number of calls queued for a slot.
func (a *Admission) Waiting() int {
	a.s.mu.Lock()
	defer a.s.mu.Unlock()
	return len(a.waiters)
}

// SeatTime is the seat time the class has had, per unit of its weight,
// in seconds: what the scheduler evens out among the classes with work.
func (a *Admission) SeatTime() float64 {
	a.s.mu.Lock()
	defer a.s.mu.Unlock()
	return a.vtime
}

// Class names the calls the admission bounds.
func (a *Admission) Class() string { return a.name }

// Slot is one admitted call. It is freed when its handler and every
// engine call it started have returned: an engine that overruns its
// deadline keeps its slot, so abandoned work cannot pile up unbounded.
type Slot struct {
	a       *Admission
	start   time.Time
	charged time.Duration
	mu      sync.Mutex
	refs    int
}

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
		s.a.release(time.Since(s.start), s.charged)
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

// Turn takes a turn of a's seats for one piece of work under way (a
// sentence to speak, audio to recognise), waiting as long as ctx allows;
// release gives it back. It is engine.WithTurns's taker.
func (a *Admission) Turn(ctx context.Context) (release func(), err error) {
	sl, err := a.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	return sl.Release, nil
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
