package voices

import (
	"context"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

type listenState struct {
	id         int
	running    bool
	recording  bool
	path       string // "" while recording from the microphone
	stream     bool
	cancel     context.CancelFunc
	stopRec    context.CancelFunc
	partial    string
	finals     []string
	frames     int
	seconds    float64 // of audio recorded or sent
	total      float64 // of the file's audio, when known
	text       string
	confidence float64
	durationMs int
	done       bool
	copied     bool
	err        error
}

type roundTripState struct {
	id         int
	running    bool
	cancel     context.CancelFunc
	voice      string
	spoken     string
	heard      string
	confidence float64
	ttsTime    time.Duration
	sttTime    time.Duration
	done       bool
	err        error
}

func (p *Pane) recognise(path string) tea.Cmd {
	j, ctx := p.newJob(p.runs.listen) // stops the recognition under way
	recCtx, stopRec := context.WithCancel(ctx)
	p.listen = listenState{id: j.id, running: true, recording: path == "", path: path, stream: p.listenMode, cancel: j.r.Cancel, stopRec: stopRec}
	t := sttJob{job: j, c: p.c, ctx: ctx, recCtx: recCtx, provider: p.provider, language: languageCode(p.voice.Language), stream: p.listenMode, path: path}
	return j.r.Start(t.run)
}

func (p *Pane) onListen(msg jobMsg) tea.Cmd {
	j := msg.jobOf()
	ls := &p.listen
	if ls.id != j.id {
		if _, final := msg.(sttDoneMsg); final {
			return nil
		}
		return j.r.Next()
	}
	switch m := msg.(type) {
	case sttFrameMsg:
		ls.frames++
		f := m.frame
		switch {
		case f.IsFinal:
			if t := strings.TrimSpace(f.Text); t != "" {
				ls.finals = append(ls.finals, t)
			}
			ls.partial = ""
		case f.IsPartial:
			ls.partial = f.Text
		}
		return j.r.Next()
	case sttRecordingMsg:
		ls.seconds, ls.total = m.seconds, m.total
		return j.r.Next()
	case sttDoneMsg:
		p.calls(p.runs.listen).Done(j.id)
		ls.running, ls.recording, ls.done = false, false, true
		ls.text, ls.confidence, ls.durationMs, ls.err = m.text, m.confidence, m.durationMs, m.err
		ls.partial = ""
		if ls.cancel != nil {
			ls.cancel()
		}
	}
	return nil
}

// listenText is the recognised text so far.
func (p *Pane) listenText() string {
	if p.listen.done {
		return p.listen.text
	}
	return strings.TrimSpace(strings.Join(append(append([]string{}, p.listen.finals...), p.listen.partial), " "))
}

func (p *Pane) roundTrip() tea.Cmd {
	text := strings.TrimSpace(p.rtInput.Value())
	if text == "" || p.voice.Value == "" {
		p.rt = roundTripState{done: true, err: errText("round trip: needs a text (e) and a voice (Voices section)")}
		return nil
	}
	j, ctx := p.newJob(p.runs.rt) // stops the round trip under way
	p.rt = roundTripState{id: j.id, running: true, cancel: j.r.Cancel, voice: p.voice.Value, spoken: text}
	p.savedTo, p.saveErr = "", nil // about the audio this run replaces
	req := p.settings.request(p.provider, p.voice.Value, text)
	t := roundTripJob{job: j, c: p.c, ctx: ctx, req: req, language: languageCode(p.voice.Language), sttProvider: p.provider}
	return j.r.Start(t.run)
}

func (p *Pane) onRoundTrip(m roundTripMsg) tea.Cmd {
	if m.id != p.rt.id {
		return nil
	}
	p.calls(p.runs.rt).Done(m.id)
	rt := &p.rt
	rt.running, rt.done = false, true
	rt.heard, rt.confidence, rt.ttsTime, rt.sttTime, rt.err = m.heard, m.confidence, m.ttsTime, m.sttTime, m.err
	if rt.cancel != nil {
		rt.cancel()
	}
	if m.audio != nil && len(m.audio.data) > 0 {
		p.last = m.audio
	}
	return nil
}

// errText is an error made from a message hark shows as it is.
type errText string

func (e errText) Error() string { return string(e) }
