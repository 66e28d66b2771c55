package audio

import (
	"encoding/binary"
	"sync"
	"testing"
	"time"

	"hark/audio/pcm"
)

// recordingSink is a stand-in sound device for unit tests. Like oto, it keeps
// a small buffer topped up from the playback (pulling with a short wait) while
// a clock consumes it in real time; every consumed sample is recorded, and a
// tick that found the buffer empty while the stream was still going is a
// silent gap.
type recordingSink struct {
	rate   int           // 0 keeps the stream's rate
	buffer time.Duration // device buffer
	tick   time.Duration

	mu         sync.Mutex
	pending    []byte
	played     []int16
	silentTick int
	paused     bool
}

func newRecordingSink() *recordingSink {
	return &recordingSink{buffer: 20 * time.Millisecond, tick: 5 * time.Millisecond}
}

func (s *recordingSink) output() *Output {
	return &Output{kind: "device", describe: "recording", sink: s, rate: s.rate}
}

func (s *recordingSink) start(p *Playback, rate int) error {
	bufBytes := bufferBytesFor(rate, s.buffer)
	p.mu.Lock()
	p.buffered = func() int { s.mu.Lock(); defer s.mu.Unlock(); return len(s.pending) }
	p.mu.Unlock()
	eof := make(chan struct{})
	go func() { // the filler, like oto's mixer loop
		buf := make([]byte, bufBytes)
		for {
			s.mu.Lock()
			room := bufBytes - len(s.pending)
			s.mu.Unlock()
			if room <= 0 {
				time.Sleep(time.Millisecond)
				continue
			}
			n, end := p.pull(buf[:room], 5*time.Millisecond, true)
			if end {
				close(eof)
				return
			}
			s.mu.Lock()
			s.pending = append(s.pending, buf[:n]...)
			s.mu.Unlock()
		}
	}()
	go func() { // the clock, like the sound card
		per := bufferBytesFor(rate, s.tick)
		t := time.NewTicker(s.tick)
		defer t.Stop()
		ended := false
		for range t.C {
			select {
			case <-eof:
				ended = true
			default:
			}
			s.mu.Lock()
			if s.paused {
				s.mu.Unlock()
				continue
			}
			k := min(per, len(s.pending))
			for i := 0; i+1 < k; i += 2 {
				s.played = append(s.played, int16(binary.LittleEndian.Uint16(s.pending[i:])))
			}
			s.pending = s.pending[k:]
			if k == 0 && !ended {
				s.silentTick++
			}
			empty := len(s.pending) == 0
			s.mu.Unlock()
			if ended && empty {
				p.finish(nil)
				return
			}
			p.mu.Lock()
			stopped := p.stopped
			p.mu.Unlock()
			if stopped {
				return
			}
		}
	}()
	return nil
}

func bufferBytesFor(rate int, d time.Duration) int {
	return max(2, int(int64(rate)*int64(d)/int64(time.Second))*2)
}

func (s *recordingSink) pause(p *Playback, paused bool) {
	s.mu.Lock()
	s.paused = paused
	s.mu.Unlock()
}

func (s *recordingSink) setVolume(*Playback, float64) {} // applied in pull

func (s *recordingSink) stop(p *Playback) {
	s.mu.Lock()
	s.pending = nil
	s.mu.Unlock()
	p.finish(nil)
}

func (s *recordingSink) samples() []int16 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int16(nil), s.played...)
}

func waitDone(t *testing.T, p *Playback, within time.Duration) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(within):
		t.Fatalf("playback did not end within %v (stats %+v)", within, p.Stats())
	}
}

// testSignal is n samples of a signal with no zero samples, so played audio
// can be told apart from the silence a device plays in gaps.
func testSignal(n, seed int) []int16 {
	s := make([]int16, n)
	for i := range s {
		v := int16(200 + (i*37+seed*101)%9000)
		if i%2 == 1 {
			v = -v
		}
		s[i] = v
	}
	return s
}

func s16Bytes(s []int16) []byte { return pcm.AppendS16(nil, s) }

func equalSamples(t *testing.T, got, want []int16) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d samples, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("sample %d = %d, want %d", i, got[i], want[i])
		}
	}
}
