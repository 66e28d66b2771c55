package voices

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/audio"
)

// playState is the current or last playback, of a preview or of Speak.
type playState struct {
	id      int
	preview bool
	voice   string
	stream  bool
	cancel  context.CancelFunc
	pb      *audio.Playback
	outKind string
	outDesc string
	// outReason is why the output is the file sink (audio.Reason*).
	outReason string
	cached    bool
	first     time.Duration
	received  int64
	stats     audio.Stats
	levels    []float64
	level     float64
	pos       time.Duration
	paused    bool
	pausedAt  *atomic.Bool // shared with the job, so a pause is not a stall
	done      bool
	stopped   bool
	err       error
	savedTo   string
}

// preview speaks the selected voice's sample sentence, from the cache
// after the first time.
func (p *Pane) preview() tea.Cmd {
	v, ok := p.list.Selected()
	if !ok {
		return nil
	}
	stop := p.stopPlayback()
	prov, code := voiceTarget(p.provider, v.Value)
	req := api.TTSRequest{Provider: prov, VoiceCode: code, Text: sampleSentence(v.Language)}
	return tea.Batch(stop, p.startTTS(req, false, true, p.samples[v.Value]))
}

func (p *Pane) speak() tea.Cmd {
	text := strings.TrimSpace(p.text.Value())
	if text == "" {
		p.play = &playState{done: true, err: errText("text: type something to speak first (e)")}
		return nil
	}
	if p.voice.Value == "" {
		p.play = &playState{done: true, err: errText("voice: choose one in the Voices section first")}
		return nil
	}
	stop := p.stopPlayback()
	req := p.settings.request(p.provider, p.voice.Value, text)
	return tea.Batch(stop, p.startTTS(req, p.settings.Stream, false, nil))
}

func (p *Pane) startTTS(req api.TTSRequest, stream, preview bool, memo *clip) tea.Cmd {
	j, ctx := p.newJob(p.runs.play)
	paused := new(atomic.Bool)
	p.c.ClaimSound(j.r.Cancel) // one playback at a time, in every pane
	p.play = &playState{id: j.id, preview: preview, voice: req.VoiceCode, stream: stream, cancel: j.r.Cancel, cached: memo != nil, pausedAt: paused}
	p.savedTo, p.saveErr = "", nil
	t := ttsJob{job: j, c: p.c, ctx: ctx, req: req, stream: stream, memo: memo, paused: paused}
	return j.r.Start(t.run)
}

func (p *Pane) onPlayback(msg jobMsg) tea.Cmd {
	j := msg.jobOf()
	ps := p.play
	if ps == nil || ps.id != j.id {
		// A replaced job: keep draining it so its goroutine can end.
		if _, final := msg.(ttsDoneMsg); final {
			return nil
		}
		if _, tick := msg.(meterMsg); tick {
			return nil
		}
		return j.r.Next()
	}
	switch m := msg.(type) {
	case ttsOpenedMsg:
		ps.pb, ps.outKind, ps.outDesc, ps.outReason = m.pb, m.outKind, m.outDesc, m.outReason
		return tea.Batch(j.r.Next(), meterCmd(j, m.pb))
	case ttsChunkMsg:
		if m.first > 0 && ps.first == 0 {
			ps.first = m.first
		}
		ps.received = max(ps.received, m.received)
		return j.r.Next()
	case meterMsg:
		if ps.done {
			return nil
		}
		ps.stats, ps.levels, ps.level, ps.pos = m.stats, m.levels, m.level, m.pos
		return meterCmd(j, ps.pb)
	case ttsDoneMsg:
		p.calls(p.runs.play).Done(j.id)
		ps.done, ps.stopped, ps.savedTo = true, m.stopped, m.savedTo
		ps.err = m.err
		if ps.pb != nil {
			ps.stats = m.stats
		}
		if len(m.levels) > 0 {
			ps.levels = m.levels
		}
		if ps.cancel != nil {
			ps.cancel()
		}
		ps.level = 0
		if m.clip != nil && len(m.clip.data) > 0 {
			if ps.preview {
				if m.err == nil && !m.stopped && !ps.cached {
					p.samples[m.clip.voice] = m.clip
				}
			} else {
				p.last = m.clip
			}
		}
	}
	return nil
}

// stopPlayback ends the current playback, if any.
func (p *Pane) stopPlayback() tea.Cmd {
	ps := p.play
	if ps == nil || ps.done {
		return nil
	}
	if ps.cancel != nil {
		ps.cancel()
	}
	ps.stopped = true
	return stopCmd(ps.pb)
}

func (p *Pane) togglePause() tea.Cmd {
	ps := p.play
	if ps == nil || ps.done || ps.pb == nil {
		return nil
	}
	ps.paused = !ps.paused
	pb, paused, flag := ps.pb, ps.paused, ps.pausedAt
	return func() tea.Msg {
		if flag != nil {
			flag.Store(paused)
		}
		if paused {
			pb.Pause()
		} else {
			pb.Resume()
		}
		return nil
	}
}

// save opens the save-as prompt for the last audio, offering a new file
// in the output directory; enter writes that one file.
func (p *Pane) save() tea.Cmd {
	cl := p.last
	if cl == nil || len(cl.data) == 0 {
		p.savedTo, p.saveErr = "", errText("save: no audio yet; speak something first")
		return nil
	}
	dir := p.c.OutputDir
	if dir == "" {
		dir = "."
	}
	retry := p.saveErr != nil
	p.savedTo, p.saveErr = "", nil
	name := clipName(cl, p.c.Now())
	p.saveAs.RequireExt(filepath.Ext(name))
	return p.saveAs.Open(filepath.Join(dir, name), retry, p.c.Styles)
}
