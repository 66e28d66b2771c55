//go:build cgo && linux

package audio

// #cgo pkg-config: alsa
// #include <alsa/asoundlib.h>
// #include <stdlib.h>
// #include <stdarg.h>
// #include <stdio.h>
// #include <string.h>
// #include <unistd.h>
//
// static int hark_log_fd = -1;
//
// // hark_alsa_error replaces ALSA's default handler, which prints to stderr
// // and would draw over the TUI. Messages go to a pipe that Go copies to
// // Options.Log.
// static void hark_alsa_error(const char *file, int line, const char *function, int err, const char *fmt, ...) {
// 	char buf[1024];
// 	int n;
// 	va_list ap;
// 	if (hark_log_fd < 0) return;
// 	n = snprintf(buf, sizeof buf - 2, "ALSA %s:%d (%s): ", file, line, function);
// 	if (n < 0) return;
// 	va_start(ap, fmt);
// 	if (n < (int)sizeof buf - 2) n += vsnprintf(buf + n, sizeof buf - 2 - n, fmt, ap);
// 	va_end(ap);
// 	if (err != 0 && n < (int)sizeof buf - 2) n += snprintf(buf + n, sizeof buf - 2 - n, ": %s", snd_strerror(err));
// 	if (n > (int)sizeof buf - 2) n = sizeof buf - 2;
// 	buf[n++] = '\n';
// 	if (write(hark_log_fd, buf, n) < 0) {}
// }
//
// static void hark_set_alsa_log(int fd) {
// 	hark_log_fd = fd;
// 	snd_lib_error_set_handler((snd_lib_error_handler_t)hark_alsa_error);
// }
import "C"

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
	"unsafe"

	"github.com/ebitengine/oto/v3"
	"golang.org/x/sys/unix"
)

// deviceReadyTimeout bounds how long opening the device may take (a
// PulseAudio server that does not answer, say) before hark gives up on it.
const deviceReadyTimeout = 5 * time.Second

// device is the process's one oto context: oto allows only one, and it cannot
// be reopened after a failure.
var device struct {
	once   sync.Once
	ctx    *oto.Context
	err    error
	rate   int
	buffer time.Duration
	log    *logSwitch
	// logPipe is the write end ALSA's handler writes to. It must stay
	// referenced: an *os.File that is garbage collected closes its fd, and
	// ALSA would then write into whatever file reuses that number.
	logPipe *os.File

	// oto feeds the device silence whenever it runs; hark suspends it when
	// nothing has played for idleSuspend, so an open TUI costs no CPU.
	mu        sync.Mutex
	active    int
	suspended bool
	idle      *time.Timer
}

const idleSuspend = time.Second

// acquire resumes the device for a new playback.
func acquireDevice() {
	device.mu.Lock()
	defer device.mu.Unlock()
	device.active++
	if device.idle != nil {
		device.idle.Stop()
		device.idle = nil
	}
	if device.suspended {
		device.ctx.Resume()
		device.suspended = false
	}
}

// releaseDevice suspends the device once no playback has used it for
// idleSuspend.
func releaseDevice() {
	device.mu.Lock()
	defer device.mu.Unlock()
	device.active--
	if device.active > 0 || device.suspended {
		return
	}
	if device.idle != nil {
		device.idle.Stop()
	}
	device.idle = time.AfterFunc(idleSuspend, func() {
		device.mu.Lock()
		defer device.mu.Unlock()
		if device.active == 0 && !device.suspended {
			device.ctx.Suspend()
			device.suspended = true
		}
	})
}

// logSwitch is the writer ALSA's messages are copied to; the first Open's
// Log wins, later Opens may replace it.
type logSwitch struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *logSwitch) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (l *logSwitch) set(w io.Writer) {
	l.mu.Lock()
	l.w = w
	l.mu.Unlock()
}

func openDevice(opts Options) (*Output, error) {
	device.once.Do(func() {
		device.rate, device.buffer = opts.SampleRate, opts.BufferSize
		device.log = &logSwitch{w: opts.Log}
		device.ctx, device.err = openOto(opts)
		if device.err == nil {
			device.ctx.Suspend()
			device.suspended = true
		}
	})
	if device.err != nil {
		return nil, device.err
	}
	device.log.set(opts.Log)
	return &Output{
		kind:     SinkDevice,
		describe: fmt.Sprintf("device (ALSA %s kHz)", khz(device.rate)),
		sink: &otoSink{ctx: device.ctx, bufBytes: bufferBytes(device.rate, device.buffer), headroom: bufferBytes(device.rate, playerHeadroom),
			latency: device.buffer * 3 / 2, period: device.buffer / 2},
		rate: device.rate,
	}, nil
}

func khz(rate int) string {
	if rate%1000 == 0 {
		return fmt.Sprint(rate / 1000)
	}
	return fmt.Sprintf("%.1f", float64(rate)/1000)
}

func bufferBytes(rate int, d time.Duration) int {
	return max(2, int(int64(rate)*int64(d)/int64(time.Second))*2)
}

// openOto opens the device with ALSA's messages routed to opts.Log: through
// ALSA's error handler, and by pointing fd 2 at the log while the device opens
// (plugins such as PulseAudio's print there directly).
func openOto(opts Options) (*oto.Context, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("audio: log pipe: %w", err)
	}
	go io.Copy(device.log, r)
	device.logPipe = w // open for the life of the process
	C.hark_set_alsa_log(C.int(w.Fd()))

	if saved, err := unix.Dup(2); err == nil {
		if unix.Dup2(int(w.Fd()), 2) == nil {
			defer func() {
				unix.Dup2(saved, 2)
				unix.Close(saved)
			}()
		} else {
			unix.Close(saved)
		}
	}

	ctx, ready, err := oto.NewContext(&oto.NewContextOptions{
		SampleRate:   opts.SampleRate,
		ChannelCount: 1,
		Format:       oto.FormatSignedInt16LE,
		BufferSize:   opts.BufferSize,
	})
	if err != nil {
		return nil, fmt.Errorf("audio: sound device: %w", err)
	}
	select {
	case <-ready:
	case <-time.After(deviceReadyTimeout):
		return nil, fmt.Errorf("audio: sound device did not become ready within %v", deviceReadyTimeout)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("audio: sound device: %w", err)
	}
	return ctx, nil
}

// otoSink plays through one oto player per playback; oto mixes them.
type otoSink struct {
	ctx      *oto.Context
	bufBytes int           // the player's buffer while it starts: the device's buffer, so the first sound is not held back
	headroom int           // the player's buffer once it plays: audio already arrived is kept this far ahead of the device
	latency  time.Duration // the device's buffer plus a period, waited out after the last sample
	period   time.Duration // what ALSA still holds, at least, when the player's buffer runs dry
}

// playerHeadroom is how much already-arrived audio the player holds ahead of
// the device once it is playing. oto's mixer goroutine refills the player
// while ALSA's thread drains it; with only the 20 ms device buffer in hand, a
// busy machine that keeps the mixer goroutine off the CPU for 20 ms or more
// makes oto pad the device with silence although the jitter buffer is full
// (40-100 ms gaps seen at load 10 on 2 cores). Holding more does not delay
// the first sound (the player starts with what has arrived, see begin, and
// grows once it plays), nor pause, stop or volume (all act on oto's player).
const playerHeadroom = 150 * time.Millisecond

// otoReader is what oto's player reads. It waits only a few milliseconds for
// audio, so one starving playback cannot hold up oto's mixer for long.
//
// It also grows the player's buffer to the headroom once oto's mixer is
// draining it. Not before: oto's Play fills the player's whole buffer before
// the player joins the mix, so a large buffer at first would hold back the
// first sound of a stream that arrives in real time. The mixer is known to be
// draining the player when the player holds less than it did after the
// previous Read plus what that Read returned (during Play's fill nothing
// drains it).
type otoReader struct {
	p *Playback

	mu         sync.Mutex
	pl         *oto.Player
	small, big int
	grown      bool
	expect     int // the player's buffered bytes if nothing drained it since the last Read
}

func (r *otoReader) Read(b []byte) (int, error) {
	r.mu.Lock()
	if !r.grown && r.pl != nil && r.pl.BufferedSize() < r.expect {
		r.pl.SetBufferSize(r.big)
		r.grown = true
	}
	r.mu.Unlock()
	n, eof := r.p.pull(b, 5*time.Millisecond, false)
	if eof {
		return 0, io.EOF
	}
	r.mu.Lock()
	if r.pl != nil {
		r.expect = r.pl.BufferedSize() + n
	}
	r.mu.Unlock()
	return n, nil
}

func (s *otoSink) start(p *Playback, rate int) error {
	rd := &otoReader{p: p, small: s.bufBytes, big: max(s.bufBytes, s.headroom)}
	pl := s.ctx.NewPlayer(rd)
	pl.SetBufferSize(s.bufBytes)
	rd.mu.Lock()
	rd.pl = pl
	rd.mu.Unlock()
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return errStopped
	}
	pl.SetVolume(p.volume)
	p.buffered = pl.BufferedSize
	p.tail = s.period
	p.player = rd
	p.onFinish = func() {
		// oto's Player.Close does nothing: a player leaves oto's mixer when
		// it is garbage collected, and the mixer reads every player it
		// holds on every round. Drop every reference to it.
		rd.mu.Lock()
		rd.pl = nil
		rd.mu.Unlock()
		p.mu.Lock()
		p.player, p.buffered = nil, nil
		p.mu.Unlock()
		releaseDevice()
	}
	p.mu.Unlock()
	// Wake the device now, while the first samples decode: it fills its
	// buffer with silence, which is slack for a stream whose first frame is
	// small (joining the mix first saved ~20 ms on a cold start, but let
	// such a stream run dry at once).
	acquireDevice()
	go s.begin(p, rd)
	go s.watch(p, pl)
	return nil
}

// begin starts the player once the first samples are queued. oto's Play
// fills the player's buffer before the player joins the mix, and a just-woken
// device then drains two periods at once; a buffer of only the device's size
// leaves oto's mixer goroutine one period to refill it, which a busy machine
// misses (a 10-30 ms gap just after the first sound). So the first fill takes
// whatever audio has already arrived, up to the headroom: nothing is held back
// that could have played, and a stream that arrives faster than real time
// starts with its full headroom.
func (s *otoSink) begin(p *Playback, rd *otoReader) {
	p.mu.Lock()
	for !p.stopped && !p.decodeEnd && (len(p.queue) == 0 || len(p.in) > 0 && 2*len(p.queue) < rd.big) {
		p.wait(0)
	}
	first := min(rd.big, max(rd.small, 2*len(p.queue)))
	stopped := p.stopped
	p.mu.Unlock()
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if rd.pl == nil || stopped { // ended before it began
		return
	}
	rd.pl.SetBufferSize(first)
	rd.grown = first >= rd.big
	rd.pl.Play()
}

// watch ends the playback when the device has played everything, or when
// the device fails.
func (s *otoSink) watch(p *Playback, pl *oto.Player) {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for range t.C {
		if err := s.ctx.Err(); err != nil {
			pl.Pause()
			p.finish(fmt.Errorf("audio: sound device: %w", err))
			return
		}
		if err := pl.Err(); err != nil {
			p.finish(fmt.Errorf("audio: sound device: %w", err))
			return
		}
		p.mu.Lock()
		stopped := p.stopped
		drained := p.decodeEnd && len(p.queue) == 0 && !p.paused
		p.mu.Unlock()
		if stopped {
			return
		}
		if drained && pl.BufferedSize() == 0 {
			time.Sleep(s.latency)
			p.finish(nil)
			return
		}
	}
}

// withPlayer runs f with the playback's oto player, if it has one (not
// before it starts, nor after it ends), holding the reader's lock.
func withPlayer(p *Playback, f func(rd *otoReader, pl *oto.Player)) {
	p.mu.Lock()
	rd, _ := p.player.(*otoReader)
	p.mu.Unlock()
	if rd == nil {
		return
	}
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if rd.pl != nil {
		f(rd, rd.pl)
	}
}

func (s *otoSink) pause(p *Playback, paused bool) {
	withPlayer(p, func(rd *otoReader, pl *oto.Player) {
		if !paused {
			pl.Play()
			return
		}
		pl.Pause()
		// Back to the starting buffer for good: oto's Play after a pause
		// refills the buffer while the player is still in the mix, so a
		// large one would have two goroutines reading the stream for as
		// long as it takes to fill.
		pl.SetBufferSize(rd.small)
		rd.grown = true
	})
}

func (s *otoSink) setVolume(p *Playback, v float64) {
	withPlayer(p, func(_ *otoReader, pl *oto.Player) {
		pl.SetVolume(v) // oto ramps to it over one period, with no click
	})
}

func (s *otoSink) stop(p *Playback) {
	withPlayer(p, func(_ *otoReader, pl *oto.Player) {
		pl.Pause()
		pl.Reset()
	})
	p.finish(nil)
}

// probePCM opens and closes the named ALSA playback PCM. ALSA reports a bad
// name through its error handler, so this also exercises the log routing.
func probePCM(name string) error {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var h *C.snd_pcm_t
	if rc := C.snd_pcm_open(&h, cname, C.SND_PCM_STREAM_PLAYBACK, C.SND_PCM_NONBLOCK); rc < 0 {
		return fmt.Errorf("audio: ALSA pcm %q: %s", name, C.GoString(C.snd_strerror(rc)))
	}
	C.snd_pcm_close(h)
	return nil
}
