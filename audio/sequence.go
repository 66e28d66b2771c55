package audio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"hark/audio/pcm"
)

// Sequence plays several streams one after another as one playback, with
// no gap between them: a stream's audio plays as it arrives, and a stream
// that arrives while another plays waits, decoded, and follows it at
// once. An audition (one text through several voices) and a reading (a
// document, sentence by sentence) are sequences; with the file sink a
// sequence is one file. Every method is safe from any goroutine.
type Sequence struct {
	out *Output

	mu      sync.Mutex
	rate    int       // the playback's rate: fixed, or the first stream's
	pb      *Playback // made when the rate is known
	parts   []*Part
	head    int   // the part being written to the playback
	written int64 // samples written to the playback (at rate)
	buf     []int16
	paused  bool
	stopped bool
	closed  bool // no more parts
	ended   bool // every part written (or stopped): done follows the playback
	err     error
	done    chan struct{}
}

// Part is one stream of a sequence: Write its encoded frames as they
// arrive, then Close.
type Part struct {
	q      *Sequence
	index  int
	pw     *io.PipeWriter
	rate   int // its own rate, once its decoder knows it
	rs     *pcm.Resampler
	held   []int16 // decoded at its own rate, waiting for the parts before it
	length int64   // samples decoded, at its own rate
	start  int64   // its first sample in the playback; -1 until it is written
	ended  bool
	err    error
	done   chan struct{} // closed when its decoder has ended
}

// Sequence starts a sequence played at rate (0: the first stream's own
// rate, right for streams of one voice). Parts are added with Add, and
// Close says no more will come.
func (o *Output) Sequence(rate int) *Sequence {
	return &Sequence{out: o, rate: rate, done: make(chan struct{})}
}

// Add appends a stream of format ("wav", "mp3", or "pcm" at pcmRate) to
// the sequence.
func (q *Sequence) Add(format string, pcmRate int) (*Part, error) {
	dec, err := pcm.NewDecoder(format, pcmRate)
	if err != nil {
		return nil, err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || q.stopped {
		return nil, errors.New("audio: add after the sequence was closed or stopped")
	}
	pr, pw := io.Pipe()
	g := &Part{q: q, index: len(q.parts), pw: pw, start: -1, done: make(chan struct{})}
	if q.head == g.index {
		g.start = q.written
	}
	q.parts = append(q.parts, g)
	go g.decode(dec, pr)
	return g, nil
}

func (g *Part) decode(dec pcm.Decoder, pr *io.PipeReader) {
	q := g.q
	err := dec(pr, func(rate int) error {
		q.mu.Lock()
		defer q.mu.Unlock()
		g.rate = rate
		return nil
	}, func(s []int16) error {
		q.mu.Lock()
		defer q.mu.Unlock()
		if q.stopped {
			return errStopped
		}
		g.length += int64(len(s))
		if q.head == g.index {
			return q.writeLocked(g, s)
		}
		g.held = append(g.held, s...)
		return nil
	})
	if err == nil {
		err = io.EOF // a writer after the decoder's end gets an error, not a hang
	}
	pr.CloseWithError(err)
	q.mu.Lock()
	if err == io.EOF || err == errStopped || q.stopped {
		err = nil
	}
	g.ended = true
	if g.err == nil {
		g.err = err
	}
	q.advanceLocked()
	q.mu.Unlock()
	close(g.done)
}

// writeLocked writes samples of the head part g to the playback, making
// it on the first.
func (q *Sequence) writeLocked(g *Part, s []int16) error {
	if len(s) == 0 {
		return nil
	}
	if q.pb == nil {
		if q.rate == 0 {
			q.rate = g.rate
		}
		pb, err := q.out.PlaySamples(q.rate)
		if err != nil {
			q.err = err
			return err
		}
		q.pb = pb
		if q.paused {
			pb.Pause()
		}
	}
	if g.rs == nil {
		g.rs = pcm.NewResampler(g.rate, q.rate)
	}
	return q.queueLocked(g.rs.Write(q.buf[:0], s))
}

// queueLocked hands resampled samples to the playback.
func (q *Sequence) queueLocked(out []int16) error {
	q.buf = out[:0]
	if len(out) == 0 {
		return nil
	}
	if err := q.pb.WriteSamples(out); err != nil {
		return err
	}
	q.written += int64(len(out))
	return nil
}

// advanceLocked moves the head past parts that have ended, writing what
// the next one holds, and ends the playback's input after the last part.
func (q *Sequence) advanceLocked() {
	for q.head < len(q.parts) && q.parts[q.head].ended {
		if g := q.parts[q.head]; g.rs != nil && !q.stopped {
			// The part's last samples, held back by the resampler's
			// filter, play before the next part.
			if err := q.queueLocked(g.rs.Flush(q.buf[:0])); err != nil && g.err == nil {
				g.err = err
			}
			g.rs = nil
		}
		q.head++
		if q.head < len(q.parts) {
			g := q.parts[q.head]
			g.start = q.written
			held := g.held
			g.held = nil
			if err := q.writeLocked(g, held); err != nil && g.err == nil && !q.stopped {
				g.err = err
			}
		}
	}
	if q.head == len(q.parts) && q.closed && !q.ended {
		q.ended = true
		if q.pb == nil {
			close(q.done)
			return
		}
		q.pb.CloseWrite()
		pb := q.pb
		go func() {
			<-pb.Done()
			close(q.done)
		}()
	}
}

// Write feeds the part's encoded frames. It fails once the part's decoder
// has failed or the sequence was stopped.
func (g *Part) Write(b []byte) (int, error) { return g.pw.Write(b) }

// Close ends the part's input; err, when not nil, is why it ended early
// (what arrived still plays).
func (g *Part) Close(err error) {
	// The reason first: closing the pipe lets the decoder end, and a part
	// cut short is also a truncated file, whose decoder error would
	// otherwise win the race and hide why (a refused speech_rate read as
	// "wav header: truncated").
	if err != nil {
		g.q.mu.Lock()
		if g.err == nil {
			g.err = err
		}
		g.q.mu.Unlock()
	}
	g.pw.Close()
}

// Wait waits for the part's audio to be decoded whole (after Close), and
// returns how long it plays and why it ended early, if it did.
func (g *Part) Wait() (time.Duration, error) {
	<-g.done
	g.q.mu.Lock()
	defer g.q.mu.Unlock()
	return samplesToDuration(g.length, g.rate), g.err
}

// Close says no more parts will come: the playback ends after the last.
func (q *Sequence) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.advanceLocked()
}

// Stop ends the sequence now: nothing more is played (the file sink keeps
// what it has written), and Done closes.
func (q *Sequence) Stop() {
	q.mu.Lock()
	if q.stopped {
		q.mu.Unlock()
		return
	}
	q.stopped, q.closed = true, true
	parts := append([]*Part(nil), q.parts...)
	pb := q.pb
	if !q.ended {
		q.ended = true
		if pb == nil {
			close(q.done)
		} else {
			go func() {
				<-pb.Done()
				close(q.done)
			}()
		}
	}
	q.mu.Unlock()
	for _, g := range parts {
		g.pw.CloseWithError(errStopped)
	}
	if pb != nil {
		pb.Stop()
	}
}

// Pause holds the playback; Resume continues it.
func (q *Sequence) Pause() { q.setPaused(true) }

// Resume continues a paused sequence.
func (q *Sequence) Resume() { q.setPaused(false) }

func (q *Sequence) setPaused(v bool) {
	q.mu.Lock()
	q.paused = v
	pb := q.pb
	q.mu.Unlock()
	if pb == nil {
		return
	}
	if v {
		pb.Pause()
	} else {
		pb.Resume()
	}
}

// Done is closed when the sequence has played out, or was stopped.
func (q *Sequence) Done() <-chan struct{} { return q.done }

// Err is why the playback failed (the sound output's error), if it did.
func (q *Sequence) Err() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return q.err
	}
	if q.pb != nil {
		return q.pb.Err()
	}
	return nil
}

// Playback is the one playback the parts play through (nil before the
// first audio).
func (q *Sequence) Playback() *Playback {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.pb
}

// SavedTo is the file the file sink writes the whole sequence to ("" for
// other sinks, and before the first audio).
func (q *Sequence) SavedTo() string {
	if pb := q.Playback(); pb != nil {
		return pb.SavedTo()
	}
	return ""
}

// Playing is the part the sound output plays now: the last whose first
// sample has been played (-1 before any). On the file sink, played means
// written.
func (q *Sequence) Playing() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.pb == nil || q.rate == 0 {
		return -1
	}
	played := q.pb.Stats().Played
	at := -1
	for i, g := range q.parts {
		if g.start < 0 || samplesToDuration(g.start, q.rate) >= played {
			break
		}
		at = i
	}
	return at
}

// PartError is a part that failed: its fetch or its decoding.
type PartError struct {
	Part int
	Err  error
}

func (e *PartError) Error() string { return fmt.Sprintf("part %d: %v", e.Part+1, e.Err) }
func (e *PartError) Unwrap() error { return e.Err }

// Turns are the parts Run plays, and what it tells of them.
type Turns struct {
	Count   int    // how many parts
	Format  string // their format: "wav", "mp3", or "pcm" at Rate
	Rate    int
	Ahead   int // parts fetched beyond the one playing; 0: no limit
	Fetch   func(ctx context.Context, i int, w io.Writer) error
	Arrived func(i int, length time.Duration, err error) // part i arrived whole; in order, before Playing(i+1)
	Playing func(i int)                                  // part i began to play; in order
}

// seqPoll is how often Run looks at the playback's position.
const seqPoll = 5 * time.Millisecond

// Run fetches t's parts in order, each streamed into the playback as it
// arrives, and plays them in turn; part i+1 is fetched as soon as part i
// has arrived (and, with Ahead, once part i+1-Ahead plays), so it is
// ready before the one playing ends. It returns when the last part has
// played, with nil when ctx ends first (the sequence is then stopped),
// or with a *PartError after what arrived before the failure has played.
func (q *Sequence) Run(ctx context.Context, t Turns) error {
	ctx, cancel := context.WithCancel(ctx)
	var arrived atomic.Int64 // parts that have arrived whole
	failed := make(chan error, 1)
	fetched := make(chan struct{})
	defer func() {
		cancel()
		<-fetched // nothing is told of a part after Run returns
	}()
	go func() {
		defer close(fetched)
		defer q.Close()
		for i := range t.Count {
			for t.Ahead > 0 && q.Playing() < i-t.Ahead {
				select {
				case <-ctx.Done():
					return
				case <-time.After(seqPoll):
				}
			}
			g, err := q.Add(t.Format, t.Rate)
			if err != nil {
				failed <- &PartError{i, err}
				return
			}
			ferr := t.Fetch(ctx, i, g)
			g.Close(ferr)
			length, err := g.Wait()
			if ctx.Err() != nil {
				return
			}
			if t.Arrived != nil {
				t.Arrived(i, length, err)
			}
			arrived.Store(int64(i + 1))
			if err != nil {
				failed <- &PartError{i, err}
				return
			}
		}
	}()
	next := 0
	report := func() {
		at := min(q.Playing(), int(arrived.Load()))
		for ; next <= at; next++ {
			if t.Playing != nil {
				t.Playing(next)
			}
		}
	}
	tick := time.NewTicker(seqPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			q.Stop()
			return nil
		case <-q.Done():
			if ctx.Err() != nil {
				return nil
			}
			report()
			select {
			case err := <-failed:
				return err
			default:
			}
			return q.Err()
		case <-tick.C:
			report()
		}
	}
}
