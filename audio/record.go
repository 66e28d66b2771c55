package audio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"hark/audio/pcm"
)

// Capture format for STT: what every speech engine accepts.
const (
	RecordRate     = 16000
	recordStartMax = 2 * time.Second // a capture tool that yields nothing by then is treated as no device
)

// ErrNoCaptureDevice means no microphone could be opened; the wrapped
// message says what each capture tool reported.
var ErrNoCaptureDevice = errors.New("audio: no capture device (microphone) could be opened")

// captureTools are tried in order: PulseAudio/PipeWire first (it follows the
// user's chosen source, and works over a forwarded PULSE_SERVER), then ALSA.
var captureTools = []struct {
	name string
	args []string
}{
	{"parec", []string{"--raw", "--format=s16le", fmt.Sprintf("--rate=%d", RecordRate), "--channels=1", "--latency-msec=20"}},
	{"arecord", []string{"-q", "-t", "raw", "-f", "S16_LE", "-r", fmt.Sprint(RecordRate), "-c", "1"}},
}

// Recording is a running microphone capture: s16le mono at 16 kHz, read as a
// stream. Close stops it.
type Recording struct {
	ctx    context.Context // done once Close or the caller stopped it
	cancel context.CancelFunc
	cmd    *exec.Cmd
	out    io.ReadCloser
	head   []byte // audio read while checking the tool works
	tool   string
	stderr *pcm.CappedBuffer

	waitOnce sync.Once
	waitErr  error
}

// Record starts capturing from the default microphone with parec or
// arecord, whichever works first. It returns an error wrapping
// ErrNoCaptureDevice when neither can capture. Cancelling ctx stops it.
func Record(ctx context.Context) (*Recording, error) {
	var reasons []string
	for _, t := range captureTools {
		path, err := exec.LookPath(t.name)
		if err != nil {
			reasons = append(reasons, t.name+": not installed")
			continue
		}
		r, err := startCapture(ctx, t.name, path, t.args)
		if err == nil {
			return r, nil
		}
		if ctx.Err() != nil {
			// Cancelled: that is not a missing microphone.
			return nil, fmt.Errorf("audio: record: %w", ctx.Err())
		}
		reasons = append(reasons, fmt.Sprintf("%s: %v", t.name, err))
	}
	return nil, &CaptureError{Reasons: reasons}
}

// CaptureError says why no microphone could be opened. Error gives the
// whole story (each recording tool's own words, ALSA's included), for the
// log; Summary says what is missing and what to do, for the screen.
type CaptureError struct {
	Reasons []string // "arecord: not installed", "parecord: <its stderr>"
}

func (e *CaptureError) Error() string {
	return fmt.Sprintf("%v (%s)", ErrNoCaptureDevice, strings.Join(e.Reasons, "; "))
}

// Is makes errors.Is(err, ErrNoCaptureDevice) hold.
func (e *CaptureError) Is(target error) bool { return target == ErrNoCaptureDevice }

// Summary is a sentence for the screen: no tool installed, or no device.
func (e *CaptureError) Summary() string {
	installed := false
	for _, r := range e.Reasons {
		if !strings.HasSuffix(r, ": not installed") {
			installed = true
		}
	}
	if !installed {
		return "no recording tool is installed (arecord from alsa-utils, or parecord from pulseaudio-utils)"
	}
	if os.Getenv("SSH_CONNECTION") != "" || os.Getenv("SSH_TTY") != "" {
		return "no microphone could be opened: this is an SSH session, and no sound device is forwarded to it"
	}
	return "no microphone could be opened: this machine has no capture device (or none is free)"
}

// Brief is Summary in a few words, for a status line at 80 columns.
func (e *CaptureError) Brief() string {
	s := e.Summary()
	switch {
	case strings.HasPrefix(s, "no recording tool"):
		return "no recording tool (install alsa-utils or pulseaudio-utils)"
	case strings.Contains(s, "SSH"):
		return "no microphone: none is forwarded to this SSH session"
	}
	return "no microphone: this machine has no capture device"
}

func startCapture(parent context.Context, name, path string, args []string) (*Recording, error) {
	ctx, cancel := context.WithCancel(parent)
	cmd := exec.CommandContext(ctx, path, args...)
	stderr := &pcm.CappedBuffer{Max: 2048}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, err
	}
	type result struct {
		n   int
		err error
	}
	head := make([]byte, RecordRate/10*2)
	got := make(chan result, 1)
	go func() {
		n, err := out.Read(head)
		got <- result{n, err}
	}()
	fail := func(why string) (*Recording, error) {
		cancel()
		cmd.Wait()
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			why = msg
		}
		return nil, errors.New(oneLine(why))
	}
	select {
	case r := <-got:
		if r.n == 0 {
			return fail(fmt.Sprintf("no audio (%v)", r.err))
		}
		return &Recording{ctx: ctx, cancel: cancel, cmd: cmd, out: out, head: head[:r.n], tool: name, stderr: stderr}, nil
	case <-time.After(recordStartMax):
		return fail(fmt.Sprintf("no audio within %v", recordStartMax))
	case <-ctx.Done():
		return fail(ctx.Err().Error())
	}
}

// Read reads captured s16le mono 16 kHz audio. It returns io.EOF once the
// recording is closed; if the tool stops by itself (the device went away, the
// tool was killed), the error names the tool and what it said.
func (r *Recording) Read(p []byte) (int, error) {
	if len(r.head) > 0 {
		n := copy(p, r.head)
		r.head = r.head[n:]
		return n, nil
	}
	n, err := r.out.Read(p)
	if err != nil && n == 0 {
		if werr := r.wait(); werr != nil && r.ctx.Err() == nil {
			why := strings.TrimSpace(r.stderr.String())
			if why == "" {
				why = werr.Error()
			}
			return 0, fmt.Errorf("audio: %s stopped recording: %s", r.tool, oneLine(why))
		}
		return 0, io.EOF
	}
	return n, nil
}

func (r *Recording) wait() error {
	r.waitOnce.Do(func() { r.waitErr = r.cmd.Wait() })
	return r.waitErr
}

// Close stops the capture. Audio already read is unaffected.
func (r *Recording) Close() error {
	r.cancel()
	r.wait() // killed by the cancel; its exit status says nothing useful
	return nil
}

// Tool names the capture program in use ("parec" or "arecord").
func (r *Recording) Tool() string { return r.tool }

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}
