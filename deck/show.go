package deck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"hark/api"
	"hark/audio"
	"hark/audio/wav"
)

// PlayRate is the rate a show plays at: lines of voices of any rate
// play as one stream, each resampled to it.
const PlayRate = 48000

// Speaker is what a show asks of the gateway: a line's speech as a
// stream (api.Client).
type Speaker interface {
	TTSStream(ctx context.Context, req api.TTSRequest, opts ...api.TTSStreamOption) (*api.TTSStream, error)
}

// Show is a deck being performed: each line's speech fetched once and
// kept, so that replaying a line or going back costs nothing, and played
// from any line as one continuous stream.
type Show struct {
	Deck     *Deck
	speaker  Speaker
	provider string
	ctx      context.Context // the fetches live as long as the show
	cancel   context.CancelFunc

	takes []*take
}

// take is one line's speech, as it arrives and once whole.
type take struct {
	mu      sync.Mutex
	grew    chan struct{} // closed and replaced whenever data grows or the fetch ends
	data    []byte
	running bool
	done    bool
	err     error
	first   time.Duration // request to first audio
	trace   string
}

// NewShow prepares d for performance through sp; provider is the
// provider of lines that name none. Close ends its fetches.
func NewShow(d *Deck, sp Speaker, provider string) *Show {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Show{Deck: d, speaker: sp, provider: provider, ctx: ctx, cancel: cancel}
	for range d.Lines {
		s.takes = append(s.takes, &take{grew: make(chan struct{})})
	}
	return s
}

// Close stops every fetch under way.
func (s *Show) Close() { s.cancel() }

// Fetch starts fetching line i's speech unless it is under way or here
// already; a fetch that failed is tried again.
func (s *Show) Fetch(i int) {
	if i < 0 || i >= len(s.takes) || s.Deck.Lines[i].IsPause() {
		return
	}
	t := s.takes[i]
	t.mu.Lock()
	if t.running || t.done && t.err == nil {
		t.mu.Unlock()
		return
	}
	t.running, t.done, t.err, t.data = true, false, nil, nil
	t.mu.Unlock()
	req := s.Deck.Lines[i].Request(s.provider)
	go func() {
		start := time.Now()
		err := s.stream(req, t, start)
		t.mu.Lock()
		if err == nil && len(t.data) == 0 {
			err = errors.New("the stream brought no audio")
		}
		// The WAV keeps the stream's placeholder sizes, which every
		// reader of hark's takes reads to the end of the data: fixing
		// them in place would write under a follower reading it.
		t.running, t.done, t.err = false, true, err
		close(t.grew)
		t.grew = make(chan struct{})
		t.mu.Unlock()
	}()
}

func (s *Show) stream(req api.TTSRequest, t *take, start time.Time) error {
	st, err := s.speaker.TTSStream(s.ctx, req)
	if err != nil {
		return err
	}
	defer st.Close()
	t.mu.Lock()
	t.trace = st.TraceID()
	t.mu.Unlock()
	for {
		chunk, err := st.Next()
		if len(chunk) > 0 {
			t.mu.Lock()
			if len(t.data) == 0 {
				t.first = time.Since(start)
			}
			t.data = append(t.data, chunk...)
			close(t.grew)
			t.grew = make(chan struct{})
			t.mu.Unlock()
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// follow writes line i's speech to w as it arrives, from the start,
// until it is whole; it returns the fetch's error, if it failed.
func (s *Show) follow(ctx context.Context, i int, w io.Writer) error {
	t := s.takes[i]
	sent := 0
	for {
		t.mu.Lock()
		more, done, err, grew := t.data[sent:], t.done, t.err, t.grew
		t.mu.Unlock()
		if len(more) > 0 {
			if _, werr := w.Write(more); werr != nil {
				return werr
			}
			sent += len(more)
			continue
		}
		if done {
			return err
		}
		select {
		case <-grew:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Wait waits for line i's speech to be whole and returns it.
func (s *Show) Wait(ctx context.Context, i int) ([]byte, error) {
	s.Fetch(i)
	t := s.takes[i]
	for {
		t.mu.Lock()
		data, done, err, grew := t.data, t.done, t.err, t.grew
		t.mu.Unlock()
		if done {
			return data, err
		}
		select {
		case <-grew:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// FirstAudio is how long line i's speech took to start arriving (0
// before it has), and its trace ID.
func (s *Show) FirstAudio(i int) (time.Duration, string) {
	t := s.takes[i]
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.first, t.trace
}

// Event tells of a line of a run.
type Event struct {
	Line    int  // index into Deck.Lines
	Playing bool // it began to play: its caption is up
	Arrived bool // its audio is all here (Length long)
	Length  time.Duration
}

// Run plays a show from one line to the end as one stream. Pause,
// Resume and Stop are safe from any goroutine.
type Run struct {
	show *Show
	from int
	out  *audio.Output
	seq  *audio.Sequence
	// paced: the output is no sound device (a file, or nothing), which
	// takes audio as fast as it comes; the run then feeds it at the pace
	// it would be heard, so captions and keys keep the show's time.
	paced bool

	mu      sync.Mutex
	paused  bool
	resumed chan struct{} // closed on Resume
}

// NewRun prepares to play the show on out from line from.
func (s *Show) NewRun(out *audio.Output, from int) *Run {
	return &Run{show: s, from: from, out: out, seq: out.Sequence(PlayRate),
		paced: out.Kind() != audio.SinkDevice, resumed: make(chan struct{})}
}

// Pause holds the run; Resume continues it.
func (r *Run) Pause() {
	r.mu.Lock()
	if !r.paused {
		r.paused = true
		r.resumed = make(chan struct{})
	}
	r.mu.Unlock()
	r.seq.Pause()
}

// Resume continues a paused run.
func (r *Run) Resume() {
	r.mu.Lock()
	if r.paused {
		r.paused = false
		close(r.resumed)
	}
	r.mu.Unlock()
	r.seq.Resume()
}

// Paused reports whether the run is paused.
func (r *Run) Paused() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.paused
}

// SavedTo is the WAV the file sink writes the run to ("" otherwise).
func (r *Run) SavedTo() string { return r.seq.SavedTo() }

// Play plays the lines from the run's first to the last, fetching the
// next line's speech while one plays, and tells of each. It returns when
// the last has played, nil when ctx ended first, or the error of the
// line that failed (after what arrived of it has played).
func (r *Run) Play(ctx context.Context, tell func(Event)) error {
	s := r.show
	lines := s.Deck.Lines[r.from:]
	s.Fetch(r.from)
	err := r.seq.Run(ctx, audio.Turns{
		Count: len(lines), Format: api.FormatWAV, Ahead: 1,
		Fetch: func(ctx context.Context, i int, w io.Writer) error {
			li := r.from + i
			if r.paced {
				w = &pacer{w: w, run: r, ctx: ctx}
			}
			if l := s.Deck.Lines[li]; l.IsPause() {
				return writeSilence(w, l.Pause)
			}
			s.Fetch(li)
			return s.follow(ctx, li, w)
		},
		Arrived: func(i int, length time.Duration, err error) {
			if err == nil && tell != nil {
				tell(Event{Line: r.from + i, Arrived: true, Length: length})
			}
		},
		Playing: func(i int) {
			// Told first: the line has begun, and what follows happens
			// while it plays (the fetch ahead asked before the event
			// let a loaded machine see the next line asked for before
			// this one began).
			if tell != nil {
				tell(Event{Line: r.from + i, Playing: true})
			}
			// The next line with speech is fetched while this one plays.
			for j := r.from + i + 1; j < len(s.Deck.Lines); j++ {
				if !s.Deck.Lines[j].IsPause() {
					s.Fetch(j)
					break
				}
			}
		},
	})
	var pe *audio.PartError
	if errors.As(err, &pe) {
		l := s.Deck.Lines[r.from+pe.Part]
		return fmt.Errorf("line %d (%s): %w", l.Number, l.VoiceRef(), pe.Err)
	}
	return err
}

// writeSilence writes a pause as a WAV of silence.
func writeSilence(w io.Writer, d time.Duration) error {
	const rate = 16000
	n := int(d.Seconds() * rate)
	b := append(wav.Header(rate, uint32(2*n)), make([]byte, 2*n)...)
	_, err := w.Write(b)
	return err
}

// pacer passes a part's WAV on no faster than it plays, holding while
// the run is paused.
type pacer struct {
	w   io.Writer
	run *Run
	ctx context.Context

	head     []byte // the WAV header, until it has been read
	perSec   float64
	data     int64 // sample bytes passed on
	start    time.Time
	held     time.Duration // time spent paused
	headDone bool
}

// pacePiece is the most audio passed on at once: a pause takes hold
// within it.
const pacePiece = 20 * time.Millisecond

func (p *pacer) Write(b []byte) (int, error) {
	n := len(b)
	if !p.headDone {
		p.head = append(p.head, b...)
		f, err := wav.ReadHeader(bytes.NewReader(p.head))
		if err != nil {
			if len(p.head) < 4096 {
				return n, nil // the header is still arriving
			}
			return 0, err
		}
		p.headDone, p.start = true, time.Now()
		p.perSec = float64(f.Rate * f.FrameBytes())
		hl := headerLen(p.head)
		if _, err := p.w.Write(p.head[:hl]); err != nil {
			return 0, err
		}
		b = p.head[hl:]
		p.head = nil
	}
	piece := max(2, int(p.perSec*pacePiece.Seconds())&^1)
	for len(b) > 0 {
		k := min(len(b), piece)
		if err := p.wait(); err != nil {
			return 0, err
		}
		if _, err := p.w.Write(b[:k]); err != nil {
			return 0, err
		}
		p.data += int64(k)
		b = b[k:]
	}
	return n, nil
}

// wait sleeps until the audio passed on so far is due, and while the
// run is paused.
func (p *pacer) wait() error {
	for {
		p.run.mu.Lock()
		paused, resumed := p.run.paused, p.run.resumed
		p.run.mu.Unlock()
		if paused {
			t := time.Now()
			select {
			case <-resumed:
				p.held += time.Since(t)
				continue
			case <-p.ctx.Done():
				return p.ctx.Err()
			}
		}
		due := p.start.Add(p.held + time.Duration(float64(p.data)/p.perSec*float64(time.Second)))
		d := time.Until(due)
		if d <= 0 {
			return nil
		}
		select {
		case <-time.After(min(d, pacePiece)):
		case <-p.ctx.Done():
			return p.ctx.Err()
		}
	}
}

// headerLen is the length of the WAV header at the start of b: up to
// and with the data chunk's header (44 bytes for a plain one).
func headerLen(b []byte) int {
	for i := 12; i+8 <= len(b); {
		id, size := string(b[i:i+4]), int(uint32(b[i+4])|uint32(b[i+5])<<8|uint32(b[i+6])<<16|uint32(b[i+7])<<24)
		if id == "data" {
			return i + 8
		}
		i += 8 + size + size&1
	}
	return len(b)
}
