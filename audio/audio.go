// Package audio plays the gateway's TTS audio as it streams in (pcm s16le mono,
// wav or mp3), saves it to WAV files where no sound can play, and records the
// microphone for STT. It must never write to the terminal: ALSA's diagnostics go
// to Options.Log.
package audio

import (
	"context"
	"errors"
	"io"
	"time"
)

// Options choose the sink and its settings. The zero value is usable.
type Options struct {
	Sink       string        // "auto" (default), "device", "file", "null"
	Dir        string        // where the file sink writes WAVs (default os.TempDir()/hark)
	Log        io.Writer     // where ALSA/oto noise and diagnostics go (never the terminal)
	SampleRate int           // device rate, default 48000; everything else is resampled in Go
	BufferSize time.Duration // player buffer, default 20ms (oto's default is ~500ms)
}

// Output is one opened sink.
type Output struct{}

// Open opens the sink chosen by opts.
func Open(opts Options) (*Output, error) { return nil, errors.New("audio: not implemented yet") }

// Describe says what the output is, for the status line.
func (o *Output) Describe() string { return "null" }

// Kind is "device", "file" or "null".
func (o *Output) Kind() string { return "null" }

// Play starts a playback of one stream.
func (o *Output) Play(format string, sampleRate int) (*Playback, error) {
	return nil, errors.New("audio: not implemented yet")
}

// Playback is one stream being played.
type Playback struct{}

// Stats are a playback's metrics.
type Stats struct {
	FirstChunkToDevice         time.Duration
	Underruns                  int
	UnderrunTime               time.Duration
	BytesReceived, BytesPlayed int64
	Received, Played           time.Duration
}

func (p *Playback) Write(chunk []byte) (int, error) { return len(chunk), nil }
func (p *Playback) CloseWrite() error               { return nil }
func (p *Playback) Pause()                          {}
func (p *Playback) Resume()                         {}
func (p *Playback) Stop()                           {}
func (p *Playback) SetVolume(v float64)             {}
func (p *Playback) Position() time.Duration         { return 0 }
func (p *Playback) Done() <-chan struct{}           { c := make(chan struct{}); close(c); return c }
func (p *Playback) Err() error                      { return nil }
func (p *Playback) Stats() Stats                    { return Stats{} }
func (p *Playback) Level() float64                  { return 0 }
func (p *Playback) Levels(n int) []float64          { return nil }
func (p *Playback) SavedTo() string                 { return "" }

// WriteWAV writes s16le mono pcm as a WAV file.
func WriteWAV(w io.Writer, pcm []byte, sampleRate int) error {
	return errors.New("audio: not implemented yet")
}

// DecodeToPCM decodes a whole pcm/wav/mp3 buffer to s16le mono.
func DecodeToPCM(format string, data []byte, sampleRate int) (pcm []byte, rate int, err error) {
	return nil, 0, errors.New("audio: not implemented yet")
}

// ErrNoCaptureDevice means no microphone could be opened.
var ErrNoCaptureDevice = errors.New("audio: no capture device")

// Recording is a microphone capture at 16 kHz mono s16le.
type Recording struct{}

// Record starts capturing.
func Record(ctx context.Context) (*Recording, error) { return nil, ErrNoCaptureDevice }

func (r *Recording) Read(p []byte) (int, error) { return 0, io.EOF }
func (r *Recording) Close() error               { return nil }
