// Package audio plays the gateway's TTS audio as it streams in (pcm s16le
// mono, wav or mp3), saves it to WAV files where no sound can play (a headless
// box, SSH without a forwarded sound server), and records the microphone for
// STT. It must never write to the terminal: ALSA's diagnostics go to
// Options.Log, and nothing here prints.
package audio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"hark/audio/pcm"
)

// Sink names accepted in Options.Sink.
const (
	SinkAuto   = "auto"
	SinkDevice = "device"
	SinkFile   = "file"
	SinkNull   = "null"
)

// Defaults and limits of Options.
const (
	DefaultSampleRate = 48000
	DefaultBufferSize = 20 * time.Millisecond
	minBufferSize     = 5 * time.Millisecond
	maxBufferSize     = 2 * time.Second
)

// Options choose the sink and its settings. The zero value is usable.
type Options struct {
	Sink       string        // "auto" (default), "device", "file", "null"
	Dir        string        // where the file sink writes WAVs (default os.TempDir()/hark; see fileDir)
	Keep       int           // the file sink keeps Dir's newest Keep hark-*.wav files; 0 keeps all
	Log        io.Writer     // where ALSA/oto noise and diagnostics go (never the terminal); nil discards
	SampleRate int           // device rate, default 48000; everything else is resampled in Go
	BufferSize time.Duration // player buffer, default 20ms (oto's default is ~500ms)
}

// Output is an opened sink. Playbacks made from one Output may overlap; on
// the device they are mixed.
type Output struct {
	kind     string
	describe string
	reason   string
	sink     sink
	rate     int // output rate; 0 keeps each stream's own rate
}

// sink is where a playback's samples go. start is called once per playback,
// from its decoder goroutine, when the output rate is known; the sink then
// pulls samples with Playback.pull and calls Playback.finish when done.
type sink interface {
	start(p *Playback, rate int) error
	pause(p *Playback, paused bool)
	setVolume(p *Playback, v float64) // for sinks that apply the gain themselves; others get it from pull
	stop(p *Playback)
}

// Open opens the sink chosen by opts.Sink:
//   - "auto" uses the sound device, unless hark runs over SSH (SSH_CONNECTION
//     or SSH_TTY set) without PULSE_SERVER, or the device cannot open; then it
//     falls back to the file sink, and Describe says why.
//   - "device" uses the sound device or fails.
//   - "file" saves each playback as a WAV file in opts.Dir.
//   - "null" discards the audio (metrics and levels still work).
//
// The device is opened once per process, on first use, at opts.SampleRate;
// later Opens share it and their SampleRate and BufferSize are ignored.
func Open(opts Options) (*Output, error) {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.SampleRate == 0 {
		opts.SampleRate = DefaultSampleRate
	}
	if err := pcm.CheckRate("sample rate", opts.SampleRate); err != nil {
		return nil, err
	}
	if opts.BufferSize == 0 {
		opts.BufferSize = DefaultBufferSize
	}
	if opts.BufferSize < minBufferSize || opts.BufferSize > maxBufferSize {
		return nil, fmt.Errorf("audio: buffer size %v is out of range (must be %v..%v)", opts.BufferSize, minBufferSize, maxBufferSize)
	}
	switch strings.ToLower(opts.Sink) {
	case "", SinkAuto:
		if overSSHWithoutPulse() {
			return openFile(opts, "SSH without PULSE_SERVER", ReasonSSH), nil
		}
		out, err := openDevice(opts)
		if err != nil {
			fmt.Fprintf(opts.Log, "audio: falling back to the file sink: %v\n", err)
			why, reason := "no sound device", ReasonNoDevice
			if errors.Is(err, errNoCgo) {
				why, reason = "built without cgo", ReasonNoCgo
			}
			return openFile(opts, why, reason), nil
		}
		return out, nil
	case SinkDevice:
		return openDevice(opts)
	case SinkFile:
		return openFile(opts, "", ReasonChosen), nil
	case SinkNull:
		return &Output{kind: SinkNull, describe: "null", sink: nullSink{}}, nil
	}
	return nil, fmt.Errorf("audio: sink %q is not supported (must be auto, device, file or null)", opts.Sink)
}

// errNoCgo is why a build without cgo has no sound device.
var errNoCgo = errors.New("audio: this hark was built without cgo, so it cannot play on a sound device")

func overSSHWithoutPulse() bool {
	ssh := os.Getenv("SSH_CONNECTION") != "" || os.Getenv("SSH_TTY") != ""
	return ssh && os.Getenv("PULSE_SERVER") == ""
}

func openFile(opts Options, why, reason string) *Output {
	dir := fileDir(opts.Dir, opts.Log)
	d := "file: " + dir
	if why != "" {
		d += " (" + why + ")"
	}
	return &Output{kind: SinkFile, describe: d, reason: reason, sink: &fileSink{dir: dir, keep: opts.Keep, log: opts.Log}}
}

// fileDir is the directory the file sink saves into, as an absolute path:
// dir (default os.TempDir()/hark), created if need be. When that path cannot hold files (it
// is a regular file, or not writable), saving must still work, so hark makes a
// fresh directory of its own under os.TempDir() instead, logs why, and
// Describe and SavedTo name the directory actually used.
func fileDir(dir string, log io.Writer) string {
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "hark")
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs // "file: ." would not say where
	}
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		var probe *os.File
		if probe, err = os.CreateTemp(dir, ".hark-probe-"); err == nil {
			probe.Close()
			os.Remove(probe.Name())
			return dir
		}
	}
	alt, terr := os.MkdirTemp("", "hark-audio-")
	if terr != nil {
		// Nowhere better: keep dir, and let saving report its error.
		fmt.Fprintf(log, "audio: file sink directory %s cannot be used (%v), nor a new one (%v)\n", dir, err, terr)
		return dir
	}
	fmt.Fprintf(log, "audio: file sink directory %s cannot be used (%v); saving in %s\n", dir, err, alt)
	return alt
}

// Describe says what the output is, for a status line: "device (ALSA 48 kHz)",
// "file: /tmp/hark (SSH without PULSE_SERVER)" or "null".
func (o *Output) Describe() string { return o.describe }

// Kind is "device", "file" or "null".
func (o *Output) Kind() string { return o.kind }

// Why the file sink was chosen when it was not asked for.
const (
	ReasonChosen   = ""          // audio_sink file: asked for
	ReasonSSH      = "ssh"       // an SSH session with no PULSE_SERVER
	ReasonNoDevice = "no-device" // no sound device could be opened
	ReasonNoCgo    = "no-cgo"    // a build without cgo has no device
)

// Reason says why the output is the file sink (see the Reason constants).
func (o *Output) Reason() string { return o.reason }

// ErrOff is playing into the null sink, where nothing is heard or kept:
// reading aloud and auditions refuse it rather than spend calls on it.
var ErrOff = errors.New("audio output is off (audio sink null): nothing would be heard")

// Silence says why nothing is heard from an output of kind and reason
// (the Reason constants), as a sentence; "" for a sound device. The TUI
// and the command line say it in the same words.
func Silence(kind, reason string) string {
	switch {
	case kind == SinkNull:
		return "Audio output is off (audio sink null): nothing is played or saved."
	case kind != SinkFile:
		return ""
	case reason == ReasonSSH:
		return "This is an SSH session without audio forwarding (no PULSE_SERVER), so nothing is heard here."
	case reason == ReasonNoDevice:
		return "No sound device could be opened on this machine, so nothing is heard."
	case reason == ReasonNoCgo:
		return "This hark was built without cgo and cannot play sound, so nothing is heard."
	}
	return "Audio goes to WAV files (audio sink file), so nothing is heard."
}

// Silence is Silence(o.Kind(), o.Reason()).
func (o *Output) Silence() string { return Silence(o.kind, o.reason) }

// Play starts a playback of one stream. format is "pcm" (s16le mono;
// sampleRate required), "wav" or "mp3" (rate taken from the header;
// sampleRate ignored). Feed it with Write.
func (o *Output) Play(format string, sampleRate int) (*Playback, error) {
	dec, err := pcm.NewDecoder(format, sampleRate)
	if err != nil {
		return nil, err
	}
	return newPlayback(o.sink, dec, 0, o.rate), nil
}

// PlaySamples starts a playback fed mono samples at rate with
// WriteSamples: audio already decoded is not encoded and decoded again.
func (o *Output) PlaySamples(rate int) (*Playback, error) {
	if err := pcm.CheckRate("sample rate", rate); err != nil {
		return nil, err
	}
	return newPlayback(o.sink, nil, rate, o.rate), nil
}
