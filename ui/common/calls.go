package common

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Calls is the one way a pane runs its calls (to the gateway, the
// library, the index) in commands: each call gets the next number and a
// context that Cancel stops, the pane's spinner runs while one is under
// way, and a result that comes back after a later call replaced it is
// recognised by its number and dropped. Like List it works on fields the
// pane keeps (its views and tests read them as they are):
//
//	func (p *Pane) calls() common.Calls { return common.NewCalls(&p.seq, p.runs, &p.progress) }
//
// Calls run one at a time (a new one cancels the one under way) unless
// SideBySide says otherwise. A call that reports more than once (a
// playback, a recognition) sends its messages through a Stream.
type Calls struct {
	seq      *int
	runs     map[int]context.CancelFunc
	progress *Progress
	together bool
	shared   bool
}

// NewCalls numbers calls from *seq, keeps those under way in runs (by
// number) and shows them on progress, which may be nil.
func NewCalls(seq *int, runs map[int]context.CancelFunc, progress *Progress) Calls {
	return Calls{seq: seq, runs: runs, progress: progress}
}

// SideBySide lets calls run together: a new one does not cancel the
// others, and the result of any call under way is taken.
func (c Calls) SideBySide() Calls {
	c.together = true
	return c
}

// Shared says that *seq also numbers other Calls (the Voices pane's
// playbacks, recognitions, round trips and auditions; read-aloud in every
// pane), so that a number names one call among all of them: a result is
// then stale when its call is no longer under way here (replaced, dropped
// or done), not when another Calls numbered a call since.
func (c Calls) Shared() Calls {
	c.shared = true
	return c
}

// Start runs call in a command, with the spinner showing label from now.
func (c Calls) Start(label string, now time.Time, call func(ctx context.Context, seq int) tea.Msg) tea.Cmd {
	run := c.Run(call)
	if c.progress == nil {
		return run
	}
	return tea.Batch(c.progress.Start(label, now), run)
}

// Run runs call in a command without touching the spinner. One at a
// time, the call under way is cancelled first.
func (c Calls) Run(call func(ctx context.Context, seq int) tea.Msg) tea.Cmd {
	seq, ctx, cancel := c.Begin()
	return func() tea.Msg {
		defer cancel()
		return call(ctx, seq)
	}
}

// Begin numbers a new call and gives the context it runs in (one at a
// time, the call under way is cancelled first), for a pane that runs the
// call in a command of its own (Run and Stream do it for the others).
// cancel stops it, and the command calls it when the call ends.
func (c Calls) Begin() (seq int, ctx context.Context, cancel context.CancelFunc) {
	if !c.together {
		for n, cancel := range c.runs {
			cancel()
			delete(c.runs, n)
		}
	}
	ctx, cancel = context.WithCancel(context.Background())
	*c.seq++
	seq = *c.seq
	c.runs[seq] = cancel
	return seq, ctx, cancel
}

// Stream begins a call whose command reports more than once: it sends its
// messages through s (s.Start runs it), and the pane asks for each next
// one with s.Next.
func (c Calls) Stream(send func(tea.Msg)) (seq int, ctx context.Context, s *Stream) {
	seq, ctx, cancel := c.Begin()
	s = NewStream(send)
	s.cancel = cancel
	return seq, ctx, s
}

// Done takes the result of call seq. It is false when the result is
// stale (one at a time: not the last call's; side by side: not a call
// under way), and the pane then ignores it. The spinner stops when no
// call is left.
func (c Calls) Done(seq int) bool {
	if !c.Current(seq) {
		return false
	}
	delete(c.runs, seq)
	if len(c.runs) == 0 && c.progress != nil {
		c.progress.Stop()
	}
	return true
}

// Current reports that call seq's messages are still wanted: Done would
// take its result. A call's messages before its last are checked with it.
func (c Calls) Current(seq int) bool {
	if c.together || c.shared {
		if _, ok := c.runs[seq]; !ok {
			return false
		}
	} else if seq != *c.seq {
		return false
	}
	return true
}

// Drop makes the results of the calls under way stale (something newer is
// shown); they run on until they end.
func (c Calls) Drop() {
	if c.shared {
		clear(c.runs)
		return
	}
	*c.seq++
}

// Cancel stops every call under way; each still reports back (with the
// context's error), and Done takes it.
func (c Calls) Cancel() {
	for _, cancel := range c.runs {
		cancel()
	}
}

// CancelOne stops call seq if it is under way, the others running on (side
// by side); it still reports back, and Done takes it.
func (c Calls) CancelOne(seq int) {
	if cancel, ok := c.runs[seq]; ok {
		cancel()
	}
}

// Running reports a call under way.
func (c Calls) Running() bool { return len(c.runs) > 0 }

// Seq is the number of the last call started.
func (c Calls) Seq() int { return *c.seq }

// Stream carries a call's messages to the program: through Send when the
// pane runs inside a tea.Program, or else through a channel that a command
// reads one message at a time (unit tests, or a host without Send).
type Stream struct {
	send   func(tea.Msg)
	ch     chan tea.Msg
	cancel context.CancelFunc
}

// NewStream sends through send, or through a channel when send is nil.
// Calls.Stream makes one for a numbered call.
func NewStream(send func(tea.Msg)) *Stream {
	if send != nil {
		return &Stream{send: send}
	}
	return &Stream{ch: make(chan tea.Msg, 64)}
}

// Emit delivers a message that must not be lost.
func (s *Stream) Emit(m tea.Msg) {
	if s.send != nil {
		s.send(m)
		return
	}
	s.ch <- m
}

// Progress delivers a message that a later one supersedes; with the
// channel it is dropped rather than holding up the call when the UI lags.
func (s *Stream) Progress(m tea.Msg) {
	if s.send != nil {
		s.send(m)
		return
	}
	select {
	case s.ch <- m:
	default:
	}
}

// Finish delivers the call's last message.
func (s *Stream) Finish(m tea.Msg) {
	s.Emit(m)
	if s.ch != nil {
		close(s.ch)
	}
}

// Next reads the call's next message (nil with Send, and for a nil s).
func (s *Stream) Next() tea.Cmd {
	if s == nil || s.ch == nil {
		return nil
	}
	ch := s.ch
	return func() tea.Msg {
		m, ok := <-ch
		if !ok {
			return nil
		}
		return m
	}
}

// Start runs work in a command, the call's context ending with it, and in
// channel mode begins reading.
func (s *Stream) Start(work func()) tea.Cmd {
	return tea.Batch(func() tea.Msg {
		if s.cancel != nil {
			defer s.cancel()
		}
		work()
		return nil
	}, s.Next())
}

// Cancel stops the call (safe to call more than once, and from any
// goroutine: a way for ClaimSound to stop a playback).
func (s *Stream) Cancel() {
	if s.cancel != nil {
		s.cancel()
	}
}
