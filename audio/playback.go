package audio

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"time"

	"hark/audio/pcm"
)

// Tuning of the streaming path. These are the ranges documented in docs/audio.md.
const (
	// maxQueued bounds the decoded audio waiting to be played; beyond it the
	// decoder waits (raw input still queues, so Write never blocks).
	maxQueued = 60 * time.Second
	// levelWindow is the span of one RMS level reading.
	levelWindow = 50 * time.Millisecond
	// maxLevels is how many level readings a playback keeps (10 minutes).
	maxLevels = 12000
	// rebuffer is how much audio must queue again after an underrun before
	// playback resumes (unless the input has ended).
	rebuffer = 60 * time.Millisecond
	// pollInterval is how often a starving real-time sink re-checks for audio.
	pollInterval = 2 * time.Millisecond
)

// Playback is one stream being played (or saved). Feed it with Write as
// frames arrive and CloseWrite at the end; all methods are safe to call from
// any goroutine, and none blocks for long.
type Playback struct {
	sink    sink
	decode  pcm.Decoder
	outRate int // 0: keep the stream's own rate

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every state change

	in       []byte  // raw input not yet decoded
	inPCM    []int16 // samples not yet queued (PlaySamples: nothing to decode)
	inClosed bool
	inErr    error // why the input ended early (CloseWithError)

	rate      int     // rate of queued samples, 0 until the decoder knows it
	queue     []int16 // decoded samples not yet handed to the sink (the jitter buffer)
	decoded   int64   // samples ever decoded
	decodeEnd bool
	decodeErr error

	paused, stopped bool
	volume          float64

	firstWrite    time.Time
	firstToDevice time.Duration
	started       bool
	delivered     int64 // samples handed to the sink
	bytesIn       int64
	underruns     int
	underrunTime  time.Duration
	underrunStart time.Time

	winSum        float64
	winN          int
	levels        []float64
	levelsDropped int64 // readings dropped from the front of levels

	player   any           // the sink's per-playback handle (an *oto.Player)
	tail     time.Duration // audio the sink still holds after buffered() reaches 0 (a device's own buffer)
	buffered func() int    // bytes the sink holds but has not played; nil for sinks that are not real time
	savedTo  string
	onFinish func() // the sink's release, run once after Done closes

	done     chan struct{}
	finished bool
	err      error
}

// newPlayback starts a playback decoding with dec, or, when dec is nil,
// fed samples at samplesRate (WriteSamples).
func newPlayback(s sink, dec pcm.Decoder, samplesRate, outRate int) *Playback {
	p := &Playback{
		sink:    s,
		outRate: outRate,
		changed: make(chan struct{}),
		volume:  1,
		done:    make(chan struct{}),
	}
	p.decode = dec
	if dec == nil {
		p.decode = func(_ io.Reader, rate func(int) error, emit func([]int16) error) error {
			if err := rate(samplesRate); err != nil {
				return err
			}
			return p.passSamples(emit)
		}
	}
	go p.runDecoder()
	return p
}

// passSamples hands the samples of WriteSamples to the queue as they
// are, decoded never again.
func (p *Playback) passSamples(emit func([]int16) error) error {
	for {
		p.mu.Lock()
		for len(p.inPCM) == 0 && !p.inClosed {
			p.wait(0)
		}
		s := p.inPCM
		p.inPCM = nil
		p.mu.Unlock()
		if len(s) == 0 {
			return nil // closed, and all queued
		}
		if err := emit(s); err != nil {
			return err
		}
	}
}

// signal wakes every waiter; p.mu must be held.
func (p *Playback) signal() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// wait releases p.mu until the next state change or the timeout (0: none),
// then takes it again.
func (p *Playback) wait(timeout time.Duration) {
	ch := p.changed
	p.mu.Unlock()
	if timeout > 0 {
		t := time.NewTimer(timeout)
		select {
		case <-ch:
		case <-t.C:
		}
		t.Stop()
	} else {
		<-ch
	}
	p.mu.Lock()
}

// Write queues a chunk of the encoded stream. It never blocks on the sink.
// After the decoder has failed it returns that error, so a caller can stop
// streaming.
func (p *Playback) Write(chunk []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.decodeErr != nil {
		return 0, p.decodeErr
	}
	if p.inClosed || p.stopped {
		return 0, errors.New("audio: write after CloseWrite or Stop")
	}
	if len(chunk) == 0 {
		return 0, nil
	}
	if p.firstWrite.IsZero() {
		p.firstWrite = time.Now()
	}
	p.in = append(p.in, chunk...)
	p.bytesIn += int64(len(chunk))
	p.signal()
	return len(chunk), nil
}

// WriteSamples queues mono samples of a playback made by PlaySamples. It
// never blocks on the sink, and returns the playback's error once it has
// failed.
func (p *Playback) WriteSamples(s []int16) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.decodeErr != nil {
		return p.decodeErr
	}
	if p.inClosed || p.stopped {
		return errors.New("audio: write after CloseWrite or Stop")
	}
	if len(s) == 0 {
		return nil
	}
	if p.firstWrite.IsZero() {
		p.firstWrite = time.Now()
	}
	p.inPCM = append(p.inPCM, s...)
	p.bytesIn += 2 * int64(len(s))
	p.signal()
	return nil
}

// CloseWrite says no more input will come; what is queued still plays, then
// Done closes.
func (p *Playback) CloseWrite() error { return p.CloseWithError(nil) }

// CloseWithError is CloseWrite for an input that died mid-stream (for
// example a WebSocket that closed without its final frame): what arrived is
// still played or saved, and Err reports err once playback ends.
func (p *Playback) CloseWithError(err error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.inClosed {
		p.inClosed = true
		p.inErr = err
		p.signal()
	}
	return nil
}

// Pause holds playback; Resume continues where it stopped. The file and
// null sinks do not play in real time and ignore both.
func (p *Playback) Pause() {
	p.mu.Lock()
	if !p.paused && !p.stopped {
		p.paused = true
		p.underrunStart = time.Time{}
		p.signal()
	}
	p.mu.Unlock()
	p.sink.pause(p, true)
}

// Resume continues a paused playback.
func (p *Playback) Resume() {
	p.mu.Lock()
	if !p.paused || p.stopped {
		p.mu.Unlock()
		return
	}
	p.paused = false
	p.signal()
	p.mu.Unlock()
	p.sink.pause(p, false)
}

// Stop ends playback now; queued audio is dropped (the file sink keeps what
// it has written) and Done closes.
func (p *Playback) Stop() {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	p.stopped = true
	p.inClosed = true
	p.queue = nil
	p.in, p.inPCM = nil, nil
	p.signal()
	p.mu.Unlock()
	p.sink.stop(p)
}

// SetVolume sets the gain, clamped to 0..1. The file sink saves audio as
// received, without the gain.
func (p *Playback) SetVolume(v float64) {
	if math.IsNaN(v) {
		v = 1
	}
	v = min(1, max(0, v))
	p.mu.Lock()
	p.volume = v
	p.mu.Unlock()
	p.sink.setVolume(p, v)
}

// Position is how much audio has been played (saved, for the file sink).
func (p *Playback) Position() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.positionLocked()
}

func (p *Playback) positionLocked() time.Duration {
	if p.rate == 0 {
		return 0
	}
	played := p.delivered
	if p.buffered != nil && !p.finished {
		played -= int64(p.buffered() / 2)
	}
	return samplesToDuration(max(0, played), p.rate)
}

func samplesToDuration(n int64, rate int) time.Duration {
	if rate == 0 {
		return 0
	}
	return time.Duration(n * int64(time.Second) / int64(rate))
}

// Done is closed when playback has ended: drained after CloseWrite, stopped,
// or failed (see Err).
func (p *Playback) Done() <-chan struct{} { return p.done }

// Err is why playback ended early: a decoding error (such as MPEG 2.5), a
// device error, or the error given to CloseWithError. It is nil while
// playing and after a normal end or Stop.
func (p *Playback) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Stats are a playback's metrics. Durations of audio are at the output rate.
type Stats struct {
	// FirstChunkToDevice is the time from the first Write to the first
	// sample handed to the sink (the oto player, for the device).
	FirstChunkToDevice time.Duration
	// Underruns counts silent gaps: the sink had nothing left to play while
	// input was still open. UnderrunTime is their total length.
	Underruns    int
	UnderrunTime time.Duration
	// BytesReceived counts encoded input bytes; BytesPlayed counts s16le
	// mono bytes handed to the sink.
	BytesReceived, BytesPlayed int64
	// Received is the duration of audio decoded so far; Played is Position.
	Received, Played time.Duration
}

// Stats returns the metrics so far.
func (p *Playback) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := Stats{
		FirstChunkToDevice: p.firstToDevice,
		Underruns:          p.underruns,
		UnderrunTime:       p.underrunTime,
		BytesReceived:      p.bytesIn,
		BytesPlayed:        p.delivered * 2,
		Received:           samplesToDuration(p.decoded, p.rate),
		Played:             p.positionLocked(),
	}
	if gap := time.Since(p.underrunStart); !p.underrunStart.IsZero() && gap > 0 {
		s.UnderrunTime += gap
	}
	return s
}

// Level is the RMS level (0..1, full scale 1) of the latest ~50 ms played.
func (p *Playback) Level() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	lv := p.heardLevelsLocked()
	if len(lv) == 0 {
		return 0
	}
	return lv[len(lv)-1]
}

// Levels returns up to the last n RMS readings, oldest first, for a waveform.
func (p *Playback) Levels(n int) []float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	lv := p.heardLevelsLocked()
	n = min(max(0, n), len(lv))
	return append([]float64(nil), lv[len(lv)-n:]...)
}

// heardLevelsLocked is the level readings of audio the sink has played, not
// merely been handed: the device's player holds audio ahead of what is heard,
// and the meter should move with the sound.
func (p *Playback) heardLevelsLocked() []float64 {
	if p.finished || p.buffered == nil || p.rate == 0 {
		return p.levels
	}
	win := int64(p.rate) * int64(levelWindow) / int64(time.Second)
	played := p.delivered - int64(p.buffered()/2)
	k := min(int64(len(p.levels)), max(0, played/win-p.levelsDropped))
	return p.levels[:k]
}

// SavedTo is the WAV file the file sink wrote ("" for other sinks). It is
// set as soon as the file is created.
func (p *Playback) SavedTo() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.savedTo
}

// inReader feeds the decoder from the raw input queue.
type inReader struct{ p *Playback }

func (r inReader) Read(b []byte) (int, error) {
	p := r.p
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.in) == 0 {
		if p.inClosed {
			return 0, io.EOF
		}
		p.wait(0)
	}
	n := copy(b, p.in)
	p.in = p.in[n:]
	if len(p.in) == 0 {
		p.in = nil // let the backing array go
	}
	return n, nil
}

func (p *Playback) runDecoder() {
	var rs *pcm.Resampler
	var out []int16
	sinkStarted := false
	queue := func(out []int16) error {
		p.mu.Lock()
		defer p.mu.Unlock()
		limit := int(int64(maxQueued) * int64(p.rate) / int64(time.Second))
		for len(p.queue) > limit && !p.stopped {
			p.wait(0)
		}
		if p.stopped {
			return errStopped
		}
		p.queue = append(p.queue, out...)
		p.decoded += int64(len(out))
		p.signal()
		return nil
	}
	err := p.decode(inReader{p}, func(rate int) error {
		to := p.outRate
		if to == 0 {
			to = rate
		}
		rs = pcm.NewResampler(rate, to)
		p.mu.Lock()
		p.rate = to
		p.mu.Unlock()
		if err := p.sink.start(p, to); err != nil {
			return err
		}
		sinkStarted = true
		return nil
	}, func(s []int16) error {
		out = rs.Write(out[:0], s)
		return queue(out)
	})
	if err == nil && rs != nil {
		// The resampler holds the last few samples back for its filter.
		err = queue(rs.Flush(out[:0]))
	}
	p.mu.Lock()
	if err == errStopped || p.stopped {
		err = nil // what a stopped stream's decoder says is of no interest
	}
	p.decodeEnd = true
	p.decodeErr = err
	p.in = nil
	p.signal()
	p.mu.Unlock()
	if !sinkStarted {
		// The stream never got as far as a sample rate (bad header, MPEG 2.5,
		// empty input): there is nothing to play.
		p.finish(err)
	}
}

var errStopped = errors.New("audio: stopped")

// pull hands up to len(b)/2 samples to the sink as s16le, with the volume
// applied when gain is true. A real-time sink passes wait > 0: pull then waits
// at most that long for audio and reports underruns; other sinks pass 0 and
// pull blocks until audio or the end. eof means nothing more will come.
func (p *Playback) pull(b []byte, wait time.Duration, gain bool) (n int, eof bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	step := pollInterval
	if wait > 0 && p.buffered != nil && p.rate > 0 {
		// A sink that holds plenty cannot run dry soon: wait longer, and
		// without polling, for the next frame (a Write wakes pull at once),
		// so oto's mixer does not spin while a real-time stream is between
		// frames. Not much longer: oto's mixer serves every playback from
		// one goroutine.
		if held := samplesToDuration(int64(p.buffered()/2), p.rate); held >= 2*wait {
			wait = min(held/2, 4*wait)
			step = wait
		}
	}
	deadline := time.Now().Add(wait)
	for {
		if p.stopped {
			return 0, true
		}
		if len(p.queue) > 0 && !(p.paused && wait > 0) && !(wait > 0 && p.rebufferingLocked()) {
			break
		}
		if len(p.queue) == 0 && p.decodeEnd {
			return 0, true
		}
		if wait > 0 {
			now := time.Now()
			if p.started && !p.paused && p.underrunStart.IsZero() && (p.buffered == nil || p.buffered() == 0) {
				p.underrunStart = now.Add(p.tail) // silence starts once the device's own buffer runs out
			}
			left := deadline.Sub(now)
			if left <= 0 {
				return 0, false
			}
			p.wait(min(left, step))
			continue
		}
		p.wait(0)
	}
	k := min(len(b)/2, len(p.queue))
	now := time.Now()
	if !p.started {
		p.started = true
		p.firstToDevice = now.Sub(p.firstWrite)
	}
	if !p.underrunStart.IsZero() {
		if gap := now.Sub(p.underrunStart); gap > 0 {
			p.underruns++
			p.underrunTime += gap
		}
		p.underrunStart = time.Time{}
	}
	vol := p.volume
	if !gain {
		vol = 1
	}
	win := p.rate * int(levelWindow) / int(time.Second)
	for i, s := range p.queue[:k] {
		f := float64(s) / 32768
		p.winSum += f * f
		p.winN++
		if p.winN >= win {
			p.pushLevel(math.Sqrt(p.winSum / float64(p.winN)))
			p.winSum, p.winN = 0, 0
		}
		if vol != 1 {
			s = int16(math.Round(float64(s) * vol))
		}
		b[2*i] = byte(s)
		b[2*i+1] = byte(uint16(s) >> 8)
	}
	p.queue = p.queue[k:]
	if len(p.queue) == 0 {
		p.queue = nil
	}
	p.delivered += int64(k)
	p.signal() // the decoder may be waiting for room
	return 2 * k, false
}

// rebufferingLocked reports whether the sink has gone silent for want of
// input and not enough has arrived since to play smoothly again: after a real
// gap hark gathers rebuffer of audio first, so a network that delivers in
// bursts gives one gap rather than a stutter.
func (p *Playback) rebufferingLocked() bool {
	if p.underrunStart.IsZero() || p.inClosed || !time.Now().After(p.underrunStart) {
		return false
	}
	return len(p.queue) < int(int64(p.rate)*int64(rebuffer)/int64(time.Second))
}

func (p *Playback) pushLevel(v float64) {
	if len(p.levels) >= maxLevels {
		drop := len(p.levels) - maxLevels/2
		p.levels = append(p.levels[:0], p.levels[drop:]...)
		p.levelsDropped += int64(drop)
	}
	p.levels = append(p.levels, min(1, v))
}

// finish ends the playback once: err (or the decoder's or input's error)
// becomes Err, and Done closes.
func (p *Playback) finish(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	if err == nil && !p.stopped {
		err = p.decodeErr
		if err == nil && p.inErr != nil {
			err = fmt.Errorf("audio: input ended early: %w", p.inErr)
		}
	}
	if p.winN > 0 && p.rate > 0 {
		p.pushLevel(math.Sqrt(p.winSum / float64(p.winN)))
		p.winSum, p.winN = 0, 0
	}
	if !p.underrunStart.IsZero() {
		p.underrunStart = time.Time{} // the stream ended; that gap was the end, not an underrun
	}
	p.err = err
	p.finished = true
	p.stopped = true
	p.signal()
	close(p.done)
	if p.onFinish != nil {
		go p.onFinish()
	}
}
