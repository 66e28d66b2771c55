package limits

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Classes that all have work waiting share the seats by weight: each
// has at least its share of the seat time, whatever its calls' length.
func TestSeatsAreSharedByWeight(t *testing.T) {
	t.Parallel()
	s := NewScheduler(2)
	type load struct {
		a    *Admission
		hold time.Duration
		want float64 // share of the seat time
	}
	loads := []load{
		{s.Class("search", ClassOptions{Running: 2, Weight: 2}), 5 * time.Millisecond, 0.5},
		{s.Class("tts", ClassOptions{Running: 2, Weight: 1}), 20 * time.Millisecond, 0.25},
		{s.Class("stt", ClassOptions{Running: 2, Weight: 1}), 10 * time.Millisecond, 0.25},
	}
	held := make([]time.Duration, len(loads))
	var mu sync.Mutex
	stop := time.Now().Add(1500 * time.Millisecond)
	var wg sync.WaitGroup
	for i, l := range loads {
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(stop) {
					sl, err := l.a.Acquire(context.Background())
					if err != nil {
						t.Error(err)
						return
					}
					start := time.Now()
					time.Sleep(l.hold)
					d := time.Since(start)
					sl.Release()
					mu.Lock()
					held[i] += d
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	var total time.Duration
	for _, h := range held {
		total += h
	}
	for i, l := range loads {
		got := float64(held[i]) / float64(total)
		t.Logf("%s: %.0f%% of the seat time (share %.0f%%)", l.a.Class(), 100*got, 100*l.want)
		if got < 0.8*l.want {
			t.Errorf("%s had %.0f%% of the seat time, below 80%% of its share %.0f%%", l.a.Class(), 100*got, 100*l.want)
		}
	}
}

// A class alone may take every seat; another that comes later gets the
// next seat to come free, ahead of the first class's waiting calls.
func TestAnIdleClassIsServedNext(t *testing.T) {
	t.Parallel()
	s := NewScheduler(2)
	busy := s.Class("tts", ClassOptions{Running: 4, Weight: 1})
	late := s.Class("search", ClassOptions{Running: 2, Weight: 1, Queue: 8, Wait: time.Minute})
	a, _ := busy.Acquire(context.Background())
	b, _ := busy.Acquire(context.Background())
	if busy.Running() != 2 {
		t.Fatalf("a class alone runs %d, want every seat", busy.Running())
	}
	queued := make(chan *Slot, 1)
	go func() { // a third TTS call waits first
		sl, _ := busy.Acquire(context.Background())
		queued <- sl
	}()
	for busy.Waiting() != 1 {
		time.Sleep(time.Millisecond)
	}
	got := make(chan *Slot, 1)
	go func() {
		sl, _ := late.Acquire(context.Background())
		got <- sl
	}()
	for late.Waiting() != 1 {
		time.Sleep(time.Millisecond)
	}
	a.Release()
	select {
	case sl := <-got:
		sl.Release()
	case <-queued:
		t.Fatal("the busy class's waiting call had the seat before the idle class's")
	case <-time.After(5 * time.Second):
		t.Fatal("no seat came")
	}
	b.Release()
	(<-queued).Release()
}

// Once the time a call holds its slot is known, a call whose expected
// wait is past the budget is refused at once, naming the work ahead.
func TestExpectedWaitPastTheBudgetIsRefusedAtOnce(t *testing.T) {
	t.Parallel()
	a := NewAdmission("search", 1, 100, 150*time.Millisecond)
	sl, _ := a.Acquire(context.Background())
	time.Sleep(100 * time.Millisecond)
	sl.Release() // the class learns: a call holds its slot 100 ms
	sl, _ = a.Acquire(context.Background())
	waited := make(chan error, 1)
	go func() { // 1 ahead: 125 ms expected, within 150 ms
		s2, err := a.Acquire(context.Background())
		if err == nil {
			s2.Release()
		}
		waited <- err
	}()
	for a.Waiting() != 1 {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	_, err := a.Acquire(context.Background()) // 2 ahead: 250 ms
	var le *Error
	if !errors.As(err, &le) || le.Status != 503 || !strings.Contains(le.Msg, "of work ahead (queue_wait 150ms)") {
		t.Fatalf("past the budget: %v", err)
	}
	if d := time.Since(start); d >= 150*time.Millisecond {
		t.Errorf("refused after %s, not at once", d)
	}
	sl.Release()
	if err := <-waited; err != nil {
		t.Errorf("the call within the budget: %v", err)
	}
}

// Calls queued in a class are served in the order they came; one whose
// client leaves while it waits leaves the queue without ever holding a
// slot, and the calls behind it move up.
func TestQueuedCallsAreServedInOrderAndACancelledOneLeaves(t *testing.T) {
	t.Parallel()
	a := NewAdmission("search", 1, 10, time.Minute)
	first, err := a.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const n = 5
	const gone = 2 // the third to queue leaves
	served := make(chan int, n)
	errs := make(chan error, n)
	ctxs := make([]context.CancelFunc, n)
	for i := range n {
		ctx, cancel := context.WithCancel(context.Background())
		ctxs[i] = cancel
		go func() {
			sl, err := a.Acquire(ctx)
			if err != nil {
				errs <- err
				return
			}
			served <- i
			sl.Release()
		}()
		// The next comes only once this one is queued: their order is known.
		for a.Waiting() != i+1 {
			time.Sleep(time.Millisecond)
		}
	}
	ctxs[gone]()
	select {
	case err := <-errs:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the call whose client left: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled call still waits")
	}
	if w, r := a.Waiting(), a.Running(); w != n-1 || r != 1 {
		t.Fatalf("after the cancel: %d waiting, %d running; want %d and 1", w, r, n-1)
	}
	first.Release()
	var order []int
	for range n - 1 {
		select {
		case i := <-served:
			order = append(order, i)
		case <-time.After(10 * time.Second):
			t.Fatalf("served %v, then nothing", order)
		}
	}
	if want := []int{0, 1, 3, 4}; !slices.Equal(order, want) {
		t.Errorf("served in the order %v, want %v", order, want)
	}
	for end := time.Now().Add(10 * time.Second); a.Running() != 0 || a.Waiting() != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(end) { // the last Release may still be under way
			t.Fatalf("%d running, %d waiting after every call ended", a.Running(), a.Waiting())
		}
	}
	for _, c := range ctxs {
		c()
	}
}
