// Package alsatest is a stand-in sound card for tests of hark's real
// playback path: an asound.conf whose default PCM is ALSA's "file" plugin
// writing raw float32 samples into a FIFO (its slave a null PCM), and a
// reader that drains the FIFO at real-time pace, as a device would, and
// keeps what was played. Point a child process at it with Env; oto allows
// one context per process, so the code under test runs in a child.
package alsatest

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Rig is one stand-in sound card.
type Rig struct {
	Conf, FIFO string
	Dev        *Device
}

// New writes the ALSA configuration and starts the device reader at rate
// (samples per second, float32 mono, which is what oto asks ALSA for).
func New(tb testing.TB, rate int) *Rig {
	dir := tb.TempDir()
	r := &Rig{Conf: filepath.Join(dir, "asound.conf"), FIFO: filepath.Join(dir, "device.f32")}
	if err := unix.Mkfifo(r.FIFO, 0o600); err != nil {
		tb.Fatal(err)
	}
	conf := fmt.Sprintf(`pcm.!default {
	type file
	slave.pcm "hark_null"
	file %q
	format "raw"
}
pcm.hark_null {
	type null
}
`, r.FIFO)
	if err := os.WriteFile(r.Conf, []byte(conf), 0o600); err != nil {
		tb.Fatal(err)
	}
	r.Dev = startDevice(tb, r.FIFO, rate)
	return r
}

// Env is the environment entry that points ALSA at the rig.
func (r *Rig) Env() string { return "ALSA_CONFIG_PATH=" + r.Conf }

// RunChild runs test, a test of this test binary that plays through the
// rig, in a child process pointed at the rig (with env added), and returns
// what the device played and the child's standard output. It fails tb when
// the child fails, and when ALSA wrote to the child's standard error,
// which in the product is the terminal the TUI draws on.
func (r *Rig) RunChild(tb testing.TB, timeout time.Duration, test string, env ...string) (*Device, string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+test+"$", "-test.v", "-test.count=1")
	cmd.Env = append(append(os.Environ(), r.Env()), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	dev := r.Close()
	if runErr != nil {
		tb.Fatalf("child %s: %v\nstdout:\n%s\nstderr:\n%s", test, runErr, stdout.String(), stderr.String())
	}
	if strings.Contains(stderr.String(), "ALSA") {
		tb.Errorf("ALSA wrote to stderr (the terminal):\n%s", stderr.String())
	}
	return dev, stdout.String()
}

// Close waits for the reader once the child has exited, unblocking it first
// in case the child never opened the FIFO, and returns the device.
func (r *Rig) Close() *Device {
	if w, err := os.OpenFile(r.FIFO, os.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
	<-r.Dev.done
	return r.Dev
}

// Device is what the rig played.
type Device struct {
	rate         int
	mu           sync.Mutex
	samples      []float32
	firstNonZero time.Time
	onsets       []time.Time // arrival of sound after at least 10 ms of silence
	reads        []arrival   // when each read's samples arrived
	silent       int
	done         chan struct{}
}

// Samples returns a copy of every sample played.
func (d *Device) Samples() []float32 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]float32(nil), d.samples...)
}

// arrival is a read: the samples before end arrived by at.
type arrival struct {
	end int
	at  time.Time
}

// TimeOf is when sample i arrived (read in real time: when the device
// played it), or the zero time when it never did.
func (d *Device) TimeOf(i int) time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	k := sort.Search(len(d.reads), func(j int) bool { return d.reads[j].end > i })
	if k == len(d.reads) {
		return time.Time{}
	}
	return d.reads[k].at
}

// FirstNonZero is when the first non-silent sample arrived.
func (d *Device) FirstNonZero() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.firstNonZero
}

// Onsets are the arrival times of sound after at least 10 ms of silence.
func (d *Device) Onsets() []time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]time.Time(nil), d.onsets...)
}

func startDevice(tb testing.TB, path string, rate int) *Device {
	d := &Device{rate: rate, done: make(chan struct{}), silent: rate}
	// A small pipe keeps the rig's own latency near one 20 ms buffer. It
	// must be small before the writer opens: once more than 4 KiB is in the
	// pipe it cannot shrink, and Linux's default 64 KiB holds 340 ms, which
	// ALSA's thread fills faster than real time (oto then pads silence no
	// device would ask for). So a non-blocking reader sizes it now and holds
	// the pipe until the real reader has opened.
	pre, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		tb.Fatalf("open fifo: %v", err)
	}
	if _, err := unix.FcntlInt(pre.Fd(), unix.F_SETPIPE_SZ, 4096); err != nil {
		tb.Fatalf("F_SETPIPE_SZ: %v", err)
	}
	go func() {
		defer close(d.done)
		f, err := os.OpenFile(path, os.O_RDONLY, 0)
		pre.Close()
		if err != nil {
			tb.Errorf("open fifo: %v", err)
			return
		}
		defer f.Close()
		start := time.Now()
		var read int64
		var carry []byte
		buf := make([]byte, 8192)
		for {
			due := int64(time.Since(start).Seconds()*float64(rate)) * 4
			if read >= due {
				time.Sleep(2 * time.Millisecond)
				continue
			}
			// Like a sound card after an xrun, do not catch up on time
			// spent without data (hark suspends the device when idle).
			if credit := int64(rate/100) * 4; due-read > credit {
				start = start.Add(time.Duration(float64(due-read-credit) / 4 / float64(rate) * float64(time.Second)))
				due = read + credit
			}
			n, err := f.Read(buf[:min(int64(len(buf)), due-read)])
			read += int64(n)
			now := time.Now()
			carry = append(carry, buf[:n]...)
			d.mu.Lock()
			for len(carry) >= 4 {
				v := math.Float32frombits(binary.LittleEndian.Uint32(carry))
				if v != 0 && d.firstNonZero.IsZero() {
					d.firstNonZero = now
				}
				if v == 0 {
					d.silent++
				} else {
					if d.silent >= rate/100 {
						d.onsets = append(d.onsets, now)
					}
					d.silent = 0
				}
				d.samples = append(d.samples, v)
				carry = carry[4:]
			}
			if n > 0 {
				d.reads = append(d.reads, arrival{len(d.samples), now})
			}
			d.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return d
}
