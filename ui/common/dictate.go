package common

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/audio"
)

// Dictation: speak a query. The microphone's audio is streamed to the STT
// WebSocket as it is recorded; what the recogniser hears so far reaches
// the pane as DictationMsg (partial results live), and the final text
// when the recording stops. Search and Research use it (ctrl+r).

// dictationRate is the rate the recording is made and declared at.
const dictationRate = 16000

// maxDictation is the most audio one dictation sends: a query or a
// question is said in seconds, and the stream is billed by its audio, so
// a microphone left listening (or a capture device that yields silence
// faster than it plays, as ALSA's null device does: 35 credits in three
// seconds) stops here.
const maxDictation = 2 * time.Minute

// DictationMsg is what the recogniser heard so far (Final false), or in
// the end (Final true, Text the whole); Err says why dictation failed.
type DictationMsg struct {
	ID    int
	Text  string
	Final bool
	Err   error
}

// Dictate starts recording and recognising in a command; stop ends the
// recording, after which the final DictationMsg arrives. Messages before
// the last go through c.Send. The recording is c.Record's (the
// microphone, unless a test gave a file).
func Dictate(c *Common, id int) (cmd tea.Cmd, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	recCtx, stopRec := context.WithCancel(ctx)
	client, send, provider, record := c.Client, c.Send, c.Provider, c.Record
	if record == nil {
		record = func(ctx context.Context) (io.ReadCloser, error) { return audio.Record(ctx) }
	}
	return func() tea.Msg {
		defer cancel()
		if client == nil {
			return DictationMsg{ID: id, Final: true, Err: ErrNotConnected}
		}
		rec, err := record(recCtx)
		if err != nil {
			var ce *audio.CaptureError
			if errors.As(err, &ce) {
				c.Logf("microphone: %v", ce)
				return DictationMsg{ID: id, Final: true, Err: fmt.Errorf("dictation: %s", ce.Brief())}
			}
			return DictationMsg{ID: id, Final: true, Err: fmt.Errorf("dictation: microphone: %w", err)}
		}
		defer rec.Close()
		// A recording read after stop is cut at once: what was said
		// before it is recognised.
		limit := int64(maxDictation/time.Second) * dictationRate * 2
		src := &io.LimitedReader{R: readUntil(recCtx, rec), N: limit}
		heard, err := Transcribe(ctx, client, provider, src, dictationRate, func(text string) {
			if send != nil {
				send(DictationMsg{ID: id, Text: text})
			}
		})
		if err == nil && src.N <= 0 {
			err = fmt.Errorf("dictation: stopped after %s of audio, the most one query takes", strings.TrimSuffix(maxDictation.String(), "0s"))
		}
		return DictationMsg{ID: id, Text: heard, Final: true, Err: err}
	}, stopRec
}

// readUntil reads r until ctx ends, then reports the end of the audio.
func readUntil(ctx context.Context, r io.Reader) io.Reader {
	return readerFunc(func(b []byte) (int, error) {
		if ctx.Err() != nil {
			return 0, io.EOF
		}
		return r.Read(b)
	})
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(b []byte) (int, error) { return f(b) }

// Transcribe streams src, s16le mono audio at rate (0: an encoded file
// the provider reads itself), to the STT WebSocket in 100 ms frames as it
// is read, and returns what was heard: the final results joined. heard,
// when set, is told the words so far after each result. When the stream
// fails, what was heard until then (finals and the last partial) comes
// back with the error. ctrl+r (from the microphone) and hark search
// --dictate FILE (from the file) both go this way.
func Transcribe(ctx context.Context, client *api.Client, provider string, src io.Reader, rate int, heard func(string)) (string, error) {
	s, err := client.STTStream(ctx, api.STTRequest{Provider: provider, SampleRate: rate})
	if err != nil {
		return "", fmt.Errorf("dictation: %w", err)
	}
	defer s.Close()
	go func() {
		defer s.CloseSend()
		frame := dictationRate * 2 / 10
		if rate > 0 {
			frame = rate * 2 / 10
		}
		buf := make([]byte, frame)
		for {
			n, err := io.ReadFull(src, buf)
			if n > 0 {
				if _, werr := s.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	var finals []string
	var partial string
	var failed error
	for f := range s.Results() {
		if f.Error != "" && failed == nil {
			failed = fmt.Errorf("dictation: %s", f.Error)
		}
		switch {
		case f.IsFinal:
			if t := strings.TrimSpace(f.Text); t != "" {
				finals = append(finals, t)
			}
			partial = ""
		case f.IsPartial:
			partial = strings.TrimSpace(f.Text)
		}
		if so := strings.TrimSpace(strings.Join(finals, " ") + " " + partial); heard != nil && so != "" {
			heard(so)
		}
	}
	if err := s.Err(); err != nil && failed == nil && ctx.Err() == nil {
		failed = fmt.Errorf("dictation: %w", err)
	}
	if failed != nil {
		// Keep what was heard: the words so far are worth more than none.
		return strings.TrimSpace(strings.Join(finals, " ") + " " + partial), failed
	}
	return strings.Join(finals, " "), nil
}

// Dictator is the state a pane keeps for dictation into a line.
type Dictator struct {
	id     int
	active bool
	stop   func()
	before string // the line's text when dictation began
	heard  string // the words heard so far
}

// Active reports that the microphone is listening.
func (d *Dictator) Active() bool { return d.active }

// Toggle starts dictation, or stops the recording when it runs (the
// final text then arrives). line is the text the line holds now.
func (d *Dictator) Toggle(c *Common, line string) tea.Cmd {
	if d.active {
		d.stop()
		return nil
	}
	c.dictations++
	d.id = c.dictations
	d.active, d.before, d.heard = true, line, ""
	cmd, stop := Dictate(c, d.id)
	d.stop = stop
	return cmd
}

// Update takes a DictationMsg and returns the line's new text (ok false
// when the message is another dictation's), and the error to report.
func (d *Dictator) Update(msg DictationMsg) (text string, ok bool, err error) {
	if msg.ID != d.id {
		return "", false, nil
	}
	if !msg.Final {
		d.heard = msg.Text
		return msg.Text, true, nil
	}
	d.active = false
	text = strings.TrimSpace(msg.Text)
	if msg.Err != nil {
		// A stream that failed keeps the words it heard in the line.
		if text == "" {
			text = d.heard
		}
		if text == "" {
			text = d.before
		}
		return text, true, msg.Err
	}
	if text == "" {
		return d.before, true, errors.New("dictation: no words were recognised")
	}
	return text, true, nil
}
