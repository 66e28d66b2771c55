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
