package common

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

type callMsg struct {
	seq int
	err error
}

// run executes the call of cmd (a tea.Batch of the spinner and the call,
// or the call alone) and returns its message.
func runCall(t *testing.T, cmd tea.Cmd) callMsg {
	t.Helper()
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			if m, ok := c().(callMsg); ok {
				return m
			}
		}
		t.Fatal("no call in the batch")
	}
	return msg.(callMsg)
}

func wait(ctx context.Context, seq int) tea.Msg {
	<-ctx.Done()
	return callMsg{seq: seq, err: ctx.Err()}
}

// One at a time: a new call cancels the one under way, whose late result
// is then dropped; the last one's is taken and stops the spinner.
func TestCallsOneAtATime(t *testing.T) {
	var seq int
	runs := map[int]context.CancelFunc{}
	progress := NewProgress()
	c := NewCalls(&seq, runs, &progress)
	first := c.Start("searching", time.Now(), wait)
	if !progress.Active || !c.Running() || c.Seq() != 1 {
		t.Fatalf("after Start: active %v running %v seq %d", progress.Active, c.Running(), c.Seq())
	}
	second := c.Start("searching", time.Now(), func(ctx context.Context, seq int) tea.Msg { return callMsg{seq: seq} })
	m1 := runCall(t, first) // returns only because the second cancelled it
	if m1.err != context.Canceled || m1.seq != 1 {
		t.Fatalf("first call: %+v", m1)
	}
	if c.Done(m1.seq) {
		t.Fatal("the replaced call's result was taken")
	}
	if !progress.Active {
		t.Fatal("a stale result stopped the spinner")
	}
	m2 := runCall(t, second)
	if !c.Done(m2.seq) || progress.Active || c.Running() {
		t.Fatalf("last call: taken, spinner %v, running %v", progress.Active, c.Running())
	}
}

// Side by side: calls run together, each result is taken once, the
// spinner stops with the last, and Cancel stops them all.
func TestCallsSideBySide(t *testing.T) {
	var seq int
	runs := map[int]context.CancelFunc{}
	progress := NewProgress()
	c := NewCalls(&seq, runs, &progress).SideBySide()
	a := c.Start("crawling", time.Now(), wait)
	b := c.Start("extracting", time.Now(), wait)
	if len(runs) != 2 {
		t.Fatalf("runs under way: %d", len(runs))
	}
	c.Cancel()
	ma, mb := runCall(t, a), runCall(t, b)
	if ma.err != context.Canceled || mb.err != context.Canceled {
		t.Fatalf("after Cancel: %v, %v", ma.err, mb.err)
	}
	if !c.Done(mb.seq) || !progress.Active {
		t.Fatal("the first result back must be taken, the spinner left running")
	}
	if c.Done(mb.seq) {
		t.Fatal("a result was taken twice")
	}
	if !c.Done(ma.seq) || progress.Active || c.Running() {
		t.Fatal("the last result must stop the spinner")
	}
}

// Drop makes the call under way stale; Run leaves the spinner alone; a
// nil progress is allowed.
func TestCallsDropAndRun(t *testing.T) {
	var seq int
	runs := map[int]context.CancelFunc{}
	c := NewCalls(&seq, runs, nil)
	cmd := c.Run(func(_ context.Context, seq int) tea.Msg { return callMsg{seq: seq} })
	c.Drop()
	if m := runCall(t, cmd); c.Done(m.seq) {
		t.Fatal("a dropped call's result was taken")
	}
	progress := NewProgress()
	c = NewCalls(&seq, runs, &progress)
	cmd = c.Run(func(_ context.Context, seq int) tea.Msg { return callMsg{seq: seq} })
	if progress.Active {
		t.Fatal("Run started the spinner")
	}
	if m := runCall(t, cmd); !c.Done(m.seq) {
		t.Fatal("Run's result was dropped")
	}
}

// Side by side, CancelOne stops the call named and no other; the spinner
// runs until the last one is taken.
func TestCallsCancelOne(t *testing.T) {
	var seq int
	runs := map[int]context.CancelFunc{}
	progress := NewProgress()
	c := NewCalls(&seq, runs, &progress).SideBySide()
	first := c.Start("researching", time.Now(), wait)
	second := c.Start("researching", time.Now(), wait)
	c.CancelOne(2)
	m2 := runCall(t, second)
	if m2.err != context.Canceled || m2.seq != 2 || !c.Done(m2.seq) {
		t.Fatalf("second call: %+v", m2)
	}
	if !progress.Active || !c.Running() {
		t.Fatal("cancelling one call stopped the spinner while the other runs")
	}
	c.CancelOne(2) // taken already: nothing to stop
	done := make(chan callMsg, 1)
	go func() { done <- runCall(t, first) }()
	select {
	case m := <-done:
		t.Fatalf("the first call stopped too: %+v", m)
	case <-time.After(50 * time.Millisecond):
	}
	c.CancelOne(1)
	if m1 := <-done; !c.Done(m1.seq) || progress.Active || c.Running() {
		t.Fatalf("after the last call: active %v running %v", progress.Active, c.Running())
	}
}

// A stream sends through Send, or else through a channel read one message
// at a time, whose progress messages never block the call.
func TestStreamModes(t *testing.T) {
	var got []tea.Msg
	r := NewStream(func(m tea.Msg) { got = append(got, m) })
	r.Emit(1)
	r.Progress(2)
	r.Finish(3)
	if len(got) != 3 || r.Next() != nil {
		t.Errorf("Send mode: got %v; next should be nil", got)
	}

	r = NewStream(nil)
	r.Emit(1)
	for i := range 200 {
		r.Progress(i) // never blocks: progress beyond the buffer is dropped
	}
	go r.Finish("end")
	first := r.Next()()
	if first != 1 {
		t.Errorf("channel mode: first message %v", first)
	}
	var last tea.Msg
	for m := r.Next()(); m != nil; m = r.Next()() {
		last = m
	}
	if last != "end" {
		t.Errorf("channel mode: last message %v, want end", last)
	}
}

// Shared: two kinds of call numbered by one counter. A call of one kind
// does not make the other kind's result stale; a new call of its own kind
// does (cancelled), and so does Drop (left running).
func TestCallsShared(t *testing.T) {
	var seq int
	plays, listens := map[int]context.CancelFunc{}, map[int]context.CancelFunc{}
	play := NewCalls(&seq, plays, nil).Shared()
	listen := NewCalls(&seq, listens, nil).Shared()
	p1, pctx1, _ := play.Begin()
	l1, lctx1, _ := listen.Begin()
	if p1 != 1 || l1 != 2 {
		t.Fatalf("numbers %d, %d: want 1, 2", p1, l1)
	}
	if !play.Current(p1) || !listen.Current(l1) {
		t.Fatal("a call of another kind made a result stale")
	}
	p2, _, _ := play.Begin()
	if pctx1.Err() == nil || play.Current(p1) || !play.Current(p2) {
		t.Fatal("a new playback did not replace the one under way")
	}
	if lctx1.Err() != nil || !listen.Done(l1) || listen.Done(l1) {
		t.Fatal("the recognition was not taken exactly once")
	}
	play.Drop()
	if play.Current(p2) || play.Running() {
		t.Fatal("Drop left the playback's result wanted")
	}
}

// A streamed call's context ends when its work does, or with Cancel.
func TestCallsStream(t *testing.T) {
	var seq int
	c := NewCalls(&seq, map[int]context.CancelFunc{}, nil).Shared()
	n, ctx, s := c.Stream(nil)
	var during error
	cmd := s.Start(func() {
		during = ctx.Err()
		s.Finish(callMsg{seq: n})
	})
	for _, m := range cmd().(tea.BatchMsg) {
		m()
	}
	if during != nil || ctx.Err() == nil {
		t.Fatalf("context during the work %v, after %v", during, ctx.Err())
	}
	_, ctx2, s2 := c.Stream(nil)
	s2.Cancel()
	if ctx2.Err() == nil {
		t.Fatal("Cancel did not stop the call")
	}
}
