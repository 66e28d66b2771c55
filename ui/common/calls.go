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
// SideBySide says otherwise.
type Calls struct {
	seq      *int
	runs     map[int]context.CancelFunc
	progress *Progress
	together bool
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
	if !c.together {
		for n, cancel := range c.runs {
			cancel()
			delete(c.runs, n)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	*c.seq++
	seq := *c.seq
	c.runs[seq] = cancel
	return func() tea.Msg {
		defer cancel()
		return call(ctx, seq)
	}
}

// Done takes the result of call seq. It is false when the result is
// stale (one at a time: not the last call's; side by side: not a call
// under way), and the pane then ignores it. The spinner stops when no
// call is left.
func (c Calls) Done(seq int) bool {
	if c.together {
		if _, ok := c.runs[seq]; !ok {
			return false
		}
	} else if seq != *c.seq {
		return false
	}
	delete(c.runs, seq)
	if len(c.runs) == 0 && c.progress != nil {
		c.progress.Stop()
	}
	return true
}

// Drop makes the results of the calls under way stale (something newer is
// shown); they run on until they end.
func (c Calls) Drop() { *c.seq++ }

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
