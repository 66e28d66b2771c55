package voices

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/audio"
	"hark/ui/common"
)

// An audition plays one text through several voices in turn, for a demo
// or a choice: voices are marked with space in the list, a plays them
// (each take fetched over the stream while the one before plays), and the
// takes stay to replay (r), compare back to back (b), star (*) and save
// as a set (W: one WAV per voice and a manifest).

type take struct {
	voice, name string
	data        []byte
	first       time.Duration
	duration    time.Duration
	state       string // "waiting", "playing", "played", or the error
	starred     bool
}

type audition struct {
	id      int
	text    string
	set     TTSSettings
	takes   []*take
	running bool
	cancel  context.CancelFunc
	note    string
}

// auditionMsg reports a take fetched and starting to play (playing), a
// take ended (played), or the run over (done).
type auditionMsg struct {
	id, index             int
	data                  []byte
	first, length         time.Duration
	playing, played, done bool
	err                   error
}

// toggleMark marks or unmarks the selected voice for an audition.
func (p *Pane) toggleMark() {
	v, ok := p.list.Selected()
	if !ok {
		return
	}
	p.list.ToggleMark(v.Value)
	p.list.Move(1)
}

// startAudition plays the marked voices in turn with the Speak text (or
// the sample sentence) and the Speak settings.
func (p *Pane) startAudition() tea.Cmd {
	marked := p.list.Marked()
	if len(marked) == 0 {
		p.aud.note = "mark voices with space first, then a plays them in turn"
		return nil
	}
	if p.aud.cancel != nil {
		p.aud.cancel()
	}
	stop := p.stopPlayback()
	text := strings.TrimSpace(p.text.Value())
	if text == "" {
		text = sampleSentence("en")
	}
	p.nextID++
	a := audition{id: p.nextID, text: text, set: p.settings, running: true}
	for _, m := range marked {
		a.takes = append(a.takes, &take{voice: m.Value, name: m.Name, state: "waiting"})
	}
	ctx, cancel := context.WithCancel(context.Background())
	a.cancel = cancel
	p.aud = a
	reqs := make([]api.TTSRequest, len(a.takes))
	for i, t := range a.takes {
		r := a.set.request(p.provider, t.voice, text)
		r.Format, r.SampleRate = api.FormatWAV, 0
		reqs[i] = r
	}
	return tea.Batch(stop, runAudition(p.c, a.id, ctx, reqs, nil, nil))
}

// runAudition fetches each request's take (one ahead of the one playing)
// and plays them in order; data, when given, holds takes already fetched
// (a replay).
//
// at maps a request's place to its take's index in the messages (nil:
// the same).
func runAudition(c *common.Common, id int, ctx context.Context, reqs []api.TTSRequest, data [][]byte, at []int) tea.Cmd {
	client, send, open := c.Client, c.Send, c.Audio
	takeAt := func(i int) int {
		if at != nil && i < len(at) {
			return at[i]
		}
		return i
	}
	return func() tea.Msg {
		if client == nil {
			return auditionMsg{id: id, done: true, err: common.ErrNotConnected}
		}
		if open == nil {
			return auditionMsg{id: id, done: true, err: fmt.Errorf("audition: no sound output")}
		}
		out, err := open()
		if err != nil {
			return auditionMsg{id: id, done: true, err: fmt.Errorf("audition: %w", err)}
		}
		type fetched struct {
			b     []byte
			first time.Duration
			err   error
		}
		takes := make(chan fetched, 1)
		go func() {
			defer close(takes)
			for i, r := range reqs {
				if data != nil && data[i] != nil {
					takes <- fetched{b: data[i]}
					continue
				}
				start := time.Now()
				b, first, err := fetchTake(ctx, client, r, start)
				select {
				case takes <- fetched{b, first, err}:
				case <-ctx.Done():
					return
				}
				if err != nil {
					return
				}
			}
		}()
		// The takes play as one continuous stream at one rate: each is
		// queued behind the one playing, so no gap opens between voices.
		stream, err := out.Play(api.FormatPCM, auditionRate)
		if err != nil {
			return auditionMsg{id: id, done: true, err: err}
		}
		defer stream.Stop()
		var queued time.Duration
		i := 0
		for f := range takes {
			if f.err != nil {
				return auditionMsg{id: id, index: takeAt(i), done: true, err: fmt.Errorf("audition %s: %w", reqs[i].VoiceCode, f.err)}
			}
			pcm, rate, err := audio.DecodeToPCM(api.FormatWAV, f.b, 0)
			if err != nil {
				return auditionMsg{id: id, index: takeAt(i), done: true, err: fmt.Errorf("audition %s: %w", reqs[i].VoiceCode, err)}
			}
			pcm = audio.Resample(pcm, rate, auditionRate)
			if _, err := stream.Write(pcm); err != nil {
				return auditionMsg{id: id, done: true, err: err}
			}
			if !waitPlayed(ctx, stream, queued) {
				return auditionMsg{id: id, done: true}
			}
			if send != nil {
				if i > 0 {
					send(auditionMsg{id: id, index: takeAt(i - 1), played: true})
				}
				send(auditionMsg{id: id, index: takeAt(i), data: f.b, first: f.first, length: wavLength(f.b), playing: true})
			}
			queued += time.Duration(float64(len(pcm)/2) / auditionRate * float64(time.Second))
			i++
		}
		stream.CloseWithError(nil)
		select {
		case <-stream.Done():
		case <-ctx.Done():
			return auditionMsg{id: id, done: true}
		}
		if send != nil && i > 0 {
			send(auditionMsg{id: id, index: takeAt(i - 1), played: true})
		}
		return auditionMsg{id: id, done: true, err: stream.Err()}
	}
}

// auditionRate is the rate the takes are played at, together.
const auditionRate = 48000

// waitPlayed waits until the stream has played d; false when it ended or
// was stopped first.
func waitPlayed(ctx context.Context, pb *audio.Playback, d time.Duration) bool {
	for pb.Stats().Played < d {
		select {
		case <-pb.Done():
			return false
		case <-ctx.Done():
			return false
		case <-time.After(5 * time.Millisecond):
		}
	}
	return true
}

// fetchTake streams one take whole, timing its first audio from start.
func fetchTake(ctx context.Context, cl *api.Client, req api.TTSRequest, start time.Time) ([]byte, time.Duration, error) {
	s, err := cl.TTSStream(ctx, req)
	if err != nil {
		return nil, 0, err
	}
	defer s.Close()
	var buf bytes.Buffer
	var first time.Duration
	for {
		chunk, err := s.Next()
		if len(chunk) > 0 && first == 0 {
			first = time.Since(start)
		}
		buf.Write(chunk)
		if err == io.EOF {
			return buf.Bytes(), first, nil
		}
		if err != nil {
			return buf.Bytes(), first, err
		}
	}
}

func wavLength(b []byte) time.Duration {
	pcm, rate, err := audio.DecodeToPCM(api.FormatWAV, b, 0)
	if err != nil || rate == 0 {
		return 0
	}
	return time.Duration(float64(len(pcm)/2) / float64(rate) * float64(time.Second))
}

func (p *Pane) onAudition(msg auditionMsg) tea.Cmd {
	a := &p.aud
	if msg.id != a.id {
		return nil
	}
	if msg.done {
		a.running, a.cancel = false, nil
		for _, t := range a.takes {
			if t.state == "playing" {
				t.state = "played"
			}
		}
		if msg.err != nil {
			if msg.index < len(a.takes) {
				a.takes[msg.index].state = "failed"
			}
			err := msg.err
			return func() tea.Msg { return common.ErrorMsg{Err: err} }
		}
		return nil
	}
	if msg.index >= len(a.takes) {
		return nil
	}
	t := a.takes[msg.index]
	switch {
	case msg.playing:
		t.state = "playing"
		if msg.data != nil && t.data == nil {
			t.data, t.first, t.duration = msg.data, msg.first, msg.length
		}
	case msg.played:
		t.state = "played"
	}
	return nil
}

// selectedTake is the take of the voice under the cursor.
func (p *Pane) selectedTake() (int, *take) {
	v, ok := p.list.Selected()
	if !ok {
		return -1, nil
	}
	for i, t := range p.aud.takes {
		if t.voice == v.Value {
			return i, t
		}
	}
	return -1, nil
}

// replay plays takes already fetched (r: the selected one; b: it and the
// next one back to back).
func (p *Pane) replay(pair bool) tea.Cmd {
	i, t := p.selectedTake()
	if t == nil || t.data == nil {
		p.aud.note = "no take of this voice yet: mark voices (space) and play them (a)"
		return nil
	}
	idx := []int{i}
	if pair {
		idx = append(idx, (i+1)%len(p.aud.takes))
		if idx[1] == i || p.aud.takes[idx[1]].data == nil {
			p.aud.note = "b compares two takes: audition two voices or more"
			return nil
		}
	}
	if p.aud.cancel != nil {
		p.aud.cancel()
	}
	p.nextID++
	p.aud.id, p.aud.running, p.aud.note = p.nextID, true, ""
	ctx, cancel := context.WithCancel(context.Background())
	p.aud.cancel = cancel
	var reqs []api.TTSRequest
	var data [][]byte
	for _, j := range idx {
		reqs = append(reqs, api.TTSRequest{VoiceCode: p.aud.takes[j].voice})
		data = append(data, p.aud.takes[j].data)
	}
	return runAudition(p.c, p.aud.id, ctx, reqs, data, idx)
}

// star marks the selected voice's take as a keeper.
func (p *Pane) star() {
	if _, t := p.selectedTake(); t != nil {
		t.starred = !t.starred
	}
}

// auditionSet is the manifest of a saved set.
type auditionSet struct {
	Text     string         `json:"text"`
	Provider string         `json:"provider"`
	Settings map[string]int `json:"settings"`
	Created  time.Time      `json:"created"`
	Voices   []setTake      `json:"voices"`
}

type setTake struct {
	Voice      string  `json:"voice"`
	Name       string  `json:"name,omitempty"`
	File       string  `json:"file"`
	FirstAudio float64 `json:"first_audio_ms"`
	Duration   float64 `json:"duration_s"`
	Starred    bool    `json:"starred"`
}

// saveSet writes the takes and a manifest to a new folder in the output
// directory.
func (p *Pane) saveSet() tea.Cmd {
	a := p.aud
	var takes []*take
	for _, t := range a.takes {
		if t.data != nil {
			takes = append(takes, t)
		}
	}
	if len(takes) == 0 {
		p.aud.note = "no takes to save yet"
		return nil
	}
	dir := p.c.OutputDir
	if dir == "" {
		dir = "."
	}
	dir = filepath.Join(dir, "audition-"+p.c.Now().Format("20060102-150405"))
	set := auditionSet{Text: a.text, Provider: p.provider, Created: p.c.Now().UTC(),
		Settings: map[string]int{"speech_rate": a.set.SpeechRate, "pitch": a.set.Pitch, "loudness": a.set.Loudness}}
	return func() tea.Msg {
		fail := func(err error) tea.Msg { return common.ErrorMsg{Err: fmt.Errorf("save set: %w", err)} }
		if _, err := os.Stat(dir); err == nil {
			return fail(fmt.Errorf("%s exists; wait a second and press W again", dir))
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fail(err)
		}
		for i, t := range takes {
			name := fmt.Sprintf("%02d-%s.wav", i+1, fileSafe(t.voice))
			if err := os.WriteFile(filepath.Join(dir, name), t.data, 0o644); err != nil {
				return fail(err)
			}
			set.Voices = append(set.Voices, setTake{Voice: t.voice, Name: t.name, File: name, Starred: t.starred,
				FirstAudio: float64(t.first.Microseconds()) / 1000, Duration: t.duration.Seconds()})
		}
		b, _ := json.MarshalIndent(set, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644); err != nil {
			return fail(err)
		}
		return common.NoticeMsg{Text: fmt.Sprintf("saved %d takes and manifest.json to %s", len(takes), dir)}
	}
}

// auditionView is the audition's panel under the voice's details.
func (p *Pane) auditionView(w int) string {
	a := p.aud
	st := p.styles()
	if len(a.takes) == 0 {
		if a.note != "" {
			return st.Warn.Render(wrap(a.note, w))
		}
		if n := len(p.list.Marked()); n > 0 {
			return st.Dim.Render(wrap(fmt.Sprintf("%d marked · a plays them in turn", n), w))
		}
		return ""
	}
	var b strings.Builder
	b.WriteString(st.Title.Render("Audition") + st.Dim.Render(" · "+trimTo(quote(a.text), max(10, w-12))) + "\n")
	for _, t := range a.takes {
		mark := "  "
		if t.starred {
			mark = "★ "
		}
		state := t.state
		switch t.state {
		case "playing":
			state = "▶ playing"
		case "played":
			state = fmt.Sprintf("✓ %d ms · %.2f s", t.first.Milliseconds(), t.duration.Seconds())
		}
		b.WriteString(trimTo(mark+t.voice+"  "+state, w) + "\n")
	}
	hint := "r replay · b A/B with the next · * star · W save set"
	if a.note != "" {
		hint = a.note
	}
	b.WriteString(st.Dim.Render(wrap(hint, w)))
	return b.String()
}

func trimTo(s string, w int) string { return common.Truncate(s, w) }
