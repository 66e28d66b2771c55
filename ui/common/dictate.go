package common

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

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
// the last go through c.Send.
func Dictate(c *Common, id int) (cmd tea.Cmd, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	recCtx, stopRec := context.WithCancel(ctx)
	client, send, provider := c.Client, c.Send, c.Provider
	return func() tea.Msg {
		defer cancel()
		if client == nil {
			return DictationMsg{ID: id, Final: true, Err: ErrNotConnected}
		}
		rec, err := audio.Record(recCtx)
		if err != nil {
			var ce *audio.CaptureError
			if errors.As(err, &ce) {
				c.Logf("microphone: %v", ce)
				return DictationMsg{ID: id, Final: true, Err: fmt.Errorf("dictation: %s", ce.Summary())}
			}
			return DictationMsg{ID: id, Final: true, Err: fmt.Errorf("dictation: microphone: %w", err)}
		}
		defer rec.Close()
		s, err := client.STTStream(ctx, api.STTRequest{Provider: provider, SampleRate: dictationRate})
		if err != nil {
			return DictationMsg{ID: id, Final: true, Err: fmt.Errorf("dictation: %w", err)}
		}
		defer s.Close()
		go func() {
			defer s.CloseSend()
			buf := make([]byte, dictationRate*2/10) // 100 ms frames
			for {
				n, err := io.ReadFull(rec, buf)
				if n > 0 {
					if _, werr := s.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil || recCtx.Err() != nil {
					return
				}
			}
		}()
		var finals []string
		var failed error
		for f := range s.Results() {
			if f.Error != "" && failed == nil {
				failed = fmt.Errorf("dictation: %s", f.Error)
			}
			if f.IsFinal {
				if t := strings.TrimSpace(f.Text); t != "" {
					finals = append(finals, t)
				}
			}
			heard := strings.Join(finals, " ")
			if f.IsPartial && strings.TrimSpace(f.Text) != "" {
				heard = strings.TrimSpace(heard + " " + f.Text)
			}
			if send != nil && heard != "" {
				send(DictationMsg{ID: id, Text: heard})
			}
		}
		if err := s.Err(); err != nil && failed == nil && ctx.Err() == nil {
			failed = fmt.Errorf("dictation: %w", err)
		}
		return DictationMsg{ID: id, Text: strings.Join(finals, " "), Final: true, Err: failed}
	}, stopRec
}

// Dictator is the state a pane keeps for dictation into a line.
type Dictator struct {
	id     int
	active bool
	stop   func()
	before string // the line's text when dictation began
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
	d.active, d.before = true, line
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
	if msg.Final {
		d.active = false
		if msg.Err != nil {
			return d.before, true, msg.Err
		}
		if strings.TrimSpace(msg.Text) == "" {
			return d.before, true, errors.New("dictation: no words were recognised")
		}
	}
	return msg.Text, true, nil
}
