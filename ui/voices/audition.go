package voices

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/audio"
	"hark/audio/wav"
	gwtext "hark/gateway/text"
	"hark/ui/common"
)

// An audition plays one text through several voices in turn, for a demo
// or a choice: voices are marked with space in the list, a plays them
// (each take streamed into one continuous playback as its frames arrive,
// the next fetched while one plays), and the takes stay to replay (r),
// compare two back to back (b on each), star (*) and save as a set (W:
// one WAV per voice and a manifest). t picks a ready sentence instead of
// the Speak text.

type take struct {
	voice, name string
	data        []byte
	first       time.Duration
	duration    time.Duration
	state       string // "waiting", "playing", "played", "stopped", "failed"
	starred     bool
	// label is the take's letter in a blind round (A, B, ...).
	label string
	// rtf is the time the take took to arrive over its duration;
	// credits what its stream cost.
	rtf     float64
	credits int64
	// heard is what the pane's provider recognised of the take, wer its
	// word error rate against the text (hearing: under way).
	heard   string
	wer     float64
	hearing bool
	heardOK bool
}

type audition struct {
	id      int
	text    string
	set     TTSSettings
	takes   []*take
	running bool
	cancel  context.CancelFunc
	note    string
	// pickA is the take chosen as A for an A/B, plus one (0: none).
	pickA int
	// out says where the last run's audio went when no sound device
	// played it (the file sink): shown under the list, y copies it.
	out fileOut
	// blind: the takes play as A, B, ... in a shuffled order, their
	// voices hidden until the listener picks (revealed); picked is the
	// take chosen, -1 for no preference.
	blind, revealed bool
	picked          int
}

// fileOut is where a playback's audio went instead of a sound device.
type fileOut struct {
	kind, reason, savedTo string
}

// readySentences are the texts t offers for an audition besides the
// Speak text: each shows voices apart in its own way.
var readySentences = []struct{ name, text string }{
	{"the Speak text", ""},
	{"a pangram", "The quick brown fox jumps over the lazy dog."},
	{"numbers and dates", "On 3 March 2025 at 4:30 pm, 1,250 people paid $19.99 each, 12% more than in 2024."},
	{"a question", "Would you like to hear that again, or shall we move on to the next one?"},
	{"a long sentence", "Although the morning had begun with heavy rain, by noon the clouds had parted, the streets were drying in the sun, and the market square was crowded with people who had waited all week for fresh bread, fruit and flowers."},
}

// auditionMsg reports a take arrived whole (arrived, with its data), a
// take starting to play (playing) or ended (played), or the run over
// (done; stopped when x or another playback ended it).
type auditionMsg struct {
	id, index                      int
	data                           []byte
	first, length                  time.Duration
	took                           common.Take
	arrived, playing, played, done bool
	stopped                        bool
	out                            fileOut
	err                            error
}

// auditionPart is one take to play: fetched with req, or data already
// fetched (a replay). index is its take's place in the panel.
type auditionPart struct {
	index int
	req   api.TTSRequest
	data  []byte
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

// auditionText is the text the voices say: the ready sentence picked
// with t, else the Speak text, else the sample sentence.
func (p *Pane) auditionText() string {
	if p.audPick > 0 {
		return readySentences[p.audPick].text
	}
	if text := strings.TrimSpace(p.text.Value()); text != "" {
		return text
	}
	return sampleSentence("en")
}

// startAudition plays the marked voices in turn with the audition text
// and the Speak settings. Stars stay on the voices that keep them when
// the text is the same.
func (p *Pane) startAudition() tea.Cmd { return p.audition(false) }

// startBlind plays the marked voices as a blind round (B).
func (p *Pane) startBlind() tea.Cmd {
	if len(p.list.Marked()) < 2 {
		p.aud.note = "a blind A/B needs two marked voices or more: mark them with space, then B"
		return nil
	}
	return p.audition(true)
}

func (p *Pane) audition(blind bool) tea.Cmd {
	marked := p.list.Marked()
	if len(marked) == 0 {
		p.aud.note = "mark voices with space first, then a plays them in turn"
		return nil
	}
	stop := p.stopPlayback()
	text := p.auditionText()
	stars := map[string]bool{}
	if p.aud.text == text {
		for _, t := range p.aud.takes {
			stars[t.voice] = t.starred
		}
	}
	a := audition{text: text, set: p.settings, running: true, blind: blind}
	if blind {
		rand.Shuffle(len(marked), func(i, j int) { marked[i], marked[j] = marked[j], marked[i] })
	}
	parts := make([]auditionPart, len(marked))
	for i, m := range marked {
		a.takes = append(a.takes, &take{voice: m.Value, name: m.Name, state: "waiting", starred: stars[m.Value], label: blindLetter(i)})
		r := a.set.request(p.provider, m.Value, text)
		r.Format, r.SampleRate = api.FormatWAV, 0
		parts[i] = auditionPart{index: i, req: r}
	}
	return tea.Batch(stop, p.playAudition(a, parts))
}

// playAudition makes a the audition, numbered as the pane's newest call,
// and plays parts, stopping the audition under way and whatever else
// played before (one playback at a time, in every pane).
func (p *Pane) playAudition(a audition, parts []auditionPart) tea.Cmd {
	seq, ctx, cancel := p.calls(p.runs.aud).Begin()
	p.c.ClaimSound(cancel)
	a.id, a.cancel, a.running, a.note, a.out = seq, cancel, true, "", fileOut{}
	p.aud = a
	run := runAudition(p.c, a.id, ctx, parts)
	return func() tea.Msg {
		defer cancel()
		return run()
	}
}

// stopAudition ends the audition playing, if one is.
func (p *Pane) stopAudition() {
	if p.aud.running && p.aud.cancel != nil {
		p.aud.cancel()
	}
}

// runAudition streams the parts into one continuous playback, each take
// played as its frames arrive and the next fetched while one plays, so
// no gap opens between voices.
func runAudition(c *common.Common, id int, ctx context.Context, parts []auditionPart) tea.Cmd {
	client, send, open := c.Client, c.Send, c.Audio
	tell := func(m auditionMsg) {
		if send != nil {
			m.id = id
			send(m)
		}
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
		var mu sync.Mutex
		firsts := make([]time.Duration, len(parts))
		tooks := make([]common.Take, len(parts))
		takes := make([][]byte, len(parts))
		// The takes play at one rate, voices of different rates resampled.
		q := out.Sequence(auditionRate)
		err = q.Run(ctx, audio.Turns{
			Count: len(parts), Format: api.FormatWAV,
			Fetch: func(ctx context.Context, i int, w io.Writer) error {
				if parts[i].data != nil {
					_, err := w.Write(parts[i].data)
					return err
				}
				var buf bytes.Buffer
				rec := &firstWrite{w: io.MultiWriter(&buf, w), start: time.Now()}
				rec.seen = func(d time.Duration) {
					mu.Lock()
					firsts[i] = d
					mu.Unlock()
				}
				took, err := common.StreamTake(ctx, client, parts[i].req, rec)
				mu.Lock()
				takes[i], tooks[i] = buf.Bytes(), took
				mu.Unlock()
				return err
			},
			Arrived: func(i int, length time.Duration, err error) {
				if err != nil || parts[i].data != nil {
					return
				}
				mu.Lock()
				m := auditionMsg{index: parts[i].index, arrived: true, data: takes[i], first: firsts[i], length: length, took: tooks[i]}
				mu.Unlock()
				tell(m)
			},
			Playing: func(i int) {
				if i > 0 {
					tell(auditionMsg{index: parts[i-1].index, played: true})
				}
				mu.Lock()
				first := firsts[i]
				mu.Unlock()
				tell(auditionMsg{index: parts[i].index, playing: true, first: first})
			},
		})
		done := auditionMsg{id: id, done: true, stopped: ctx.Err() != nil}
		if out.Kind() != audio.SinkDevice {
			done.out = fileOut{kind: out.Kind(), reason: out.Reason(), savedTo: q.SavedTo()}
		}
		var pe *audio.PartError
		switch {
		case errors.As(err, &pe):
			done.index = parts[pe.Part].index
			done.err = fmt.Errorf("audition %s: %w", parts[pe.Part].req.VoiceCode, pe.Err)
		case err != nil:
			done.err = fmt.Errorf("audition: playback: %w", err)
		}
		return done
	}
}

// firstWrite passes writes on and tells the time of the first from start:
// a take's first audio.
type firstWrite struct {
	w     io.Writer
	start time.Time
	seen  func(time.Duration)
	done  bool
}

func (f *firstWrite) Write(b []byte) (int, error) {
	if !f.done && len(b) > 0 {
		f.done = true
		f.seen(time.Since(f.start))
	}
	return f.w.Write(b)
}

// auditionRate is the rate the takes are played at, together.
const auditionRate = 48000

// takeHeardMsg is what recognition made of an audition's take.
type takeHeardMsg struct {
	id, index int
	heard     string
	wer       float64
	err       error
}

// hearTake recognises a take with provider and scores it against text.
func hearTake(c *common.Common, id, index int, provider, text string, data []byte) tea.Cmd {
	client := c.Client
	return func() tea.Msg {
		if client == nil {
			return takeHeardMsg{id: id, index: index, err: common.ErrNotConnected}
		}
		ctx, cancel := context.WithTimeout(context.Background(), voicesTimeout)
		defer cancel()
		res, err := client.STT(ctx, api.STTRequest{Provider: provider}, data)
		if err != nil {
			return takeHeardMsg{id: id, index: index, err: err}
		}
		return takeHeardMsg{id: id, index: index, heard: res.Text, wer: gwtext.WordErrorRate(text, res.Text)}
	}
}

func (p *Pane) onTakeHeard(msg takeHeardMsg) {
	if msg.id != p.aud.id || msg.index >= len(p.aud.takes) {
		return
	}
	t := p.aud.takes[msg.index]
	t.hearing = false
	if msg.err == nil {
		t.heard, t.wer, t.heardOK = msg.heard, msg.wer, true
	}
}

func (p *Pane) onAudition(msg auditionMsg) tea.Cmd {
	a := &p.aud
	if msg.id != a.id {
		return nil
	}
	if msg.done {
		p.calls(p.runs.aud).Done(msg.id)
		a.running, a.cancel, a.out = false, nil, msg.out
		for _, t := range a.takes {
			switch {
			case t.state == "playing" && msg.stopped:
				t.state = "stopped"
			case t.state == "playing":
				t.state = "played"
			case t.state == "waiting" && msg.stopped:
				t.state = "not played"
			}
		}
		if a.blind && !a.revealed && msg.err == nil && !msg.stopped {
			a.note = "Which did you prefer? " + blindLetter(0) + "–" + blindLetter(len(a.takes)-1) + ", or = for no preference"
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
	case msg.arrived:
		t.data, t.duration = msg.data, msg.length
		t.credits = msg.took.Credits
		if msg.length > 0 {
			t.rtf = msg.took.Elapsed.Seconds() / msg.length.Seconds()
		}
		// The round trip: the take heard back by the pane's own
		// provider, while the next plays.
		if msg.first > 0 {
			t.first = msg.first
		}
		t.hearing = true
		return hearTake(p.c, a.id, msg.index, p.provider, a.text, msg.data)
	case msg.playing:
		t.state = "playing"
		if msg.first > 0 && t.data == nil {
			t.first = msg.first
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

// replay plays the selected take again, from memory.
func (p *Pane) replay() tea.Cmd {
	i, t := p.selectedTake()
	if t == nil || t.data == nil {
		p.aud.note = "no take of this voice yet: mark voices (space) and play them (a)"
		return nil
	}
	return p.replayTakes(i)
}

// pickAB chooses the takes of an A/B: b on one take makes it A, b on
// another plays A then it, back to back; b on A again drops the choice.
func (p *Pane) pickAB() tea.Cmd {
	i, t := p.selectedTake()
	if t == nil || t.data == nil {
		p.aud.note = "b compares two takes: move to a voice with a take and press b"
		return nil
	}
	a := p.aud.pickA - 1
	switch {
	case a < 0 || a >= len(p.aud.takes):
		p.aud.pickA = i + 1
		p.aud.note = "A: " + t.voice + " · move to another take and press b to hear A then B"
		return nil
	case a == i:
		p.aud.pickA = 0
		p.aud.note = ""
		return nil
	}
	p.aud.pickA = 0
	return p.replayTakes(a, i)
}

// replayTakes plays takes already fetched, in the order given.
func (p *Pane) replayTakes(idx ...int) tea.Cmd {
	stop := p.stopPlayback()
	a := p.aud
	var parts []auditionPart
	for _, j := range idx {
		parts = append(parts, auditionPart{index: j, req: api.TTSRequest{VoiceCode: a.takes[j].voice}, data: a.takes[j].data})
	}
	return tea.Batch(stop, p.playAudition(a, parts))
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
	Voice      string   `json:"voice"`
	Name       string   `json:"name,omitempty"`
	File       string   `json:"file"`
	FirstAudio float64  `json:"first_audio_ms"`
	Duration   float64  `json:"duration_s"`
	RTF        float64  `json:"rtf"`
	Credits    int64    `json:"credits"`
	Heard      string   `json:"heard,omitempty"`
	WER        *float64 `json:"wer,omitempty"`
	Starred    bool     `json:"starred"`
}

// sheet is the set as a markdown page: the text, the settings and a
// table of the takes, each WAV linked.
func (set auditionSet) sheet() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Voice audition\n\n> %s\n\n", strings.ReplaceAll(set.Text, "\n", "\n> "))
	fmt.Fprintf(&b, "Made %s; speech_rate %d, pitch %d, loudness %d. RTF is the time a take took to arrive over its length.\n\n",
		set.Created.Format("2006-01-02 15:04 UTC"), set.Settings["speech_rate"], set.Settings["pitch"], set.Settings["loudness"])
	b.WriteString("| voice | name | first audio | duration | RTF | credits | WER | heard | star | file |\n|---|---|---|---|---|---|---|---|---|---|\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	for _, t := range set.Voices {
		star := ""
		if t.Starred {
			star = "★"
		}
		wer, heard := "-", "-"
		if t.WER != nil {
			wer, heard = fmt.Sprintf("%.2f", *t.WER), cell(fmt.Sprintf("%q", t.Heard))
		}
		fmt.Fprintf(&b, "| %s | %s | %.0f ms | %.2f s | %.2f | %d | %s | %s | %s | [%s](%s) |\n",
			cell(t.Voice), cell(t.Name), t.FirstAudio, t.Duration, t.RTF, t.Credits, wer, heard, star, t.File, t.File)
	}
	return b.String()
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
			// The take came as a stream, its sizes placeholders: the
			// file gets its true ones, so players read its length.
			data := bytes.Clone(t.data)
			if err := wav.FixBytes(data); err != nil {
				return fail(fmt.Errorf("%s: %w", name, err))
			}
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				return fail(err)
			}
			st := setTake{Voice: t.voice, Name: t.name, File: name, Starred: t.starred,
				FirstAudio: float64(t.first.Microseconds()) / 1000, Duration: t.duration.Seconds(),
				RTF: math.Round(t.rtf*1000) / 1000, Credits: t.credits}
			if t.heardOK {
				st.Heard, st.WER = t.heard, &t.wer
			}
			set.Voices = append(set.Voices, st)
		}
		b, _ := json.MarshalIndent(set, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644); err != nil {
			return fail(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "sheet.md"), []byte(set.sheet()), 0o644); err != nil {
			return fail(err)
		}
		return common.NoticeMsg{Text: fmt.Sprintf("saved %d takes, manifest.json and sheet.md to %s", len(takes), common.HomeShort(dir))}
	}
}

// auditionView is the audition's panel under the voice's details.
func (p *Pane) auditionView(w int) string {
	a := p.aud
	st := p.styles()
	textLine := st.Dim.Render(wrap("text: "+readySentences[p.audPick].name+" · t picks another", w))
	if len(a.takes) == 0 {
		if a.note != "" {
			return st.Warn.Render(wrap(a.note, w))
		}
		if n := len(p.list.Marked()); n > 0 {
			return st.Dim.Render(wrap(fmt.Sprintf("%d marked · a plays them in turn", n), w)) + "\n" + textLine
		}
		return ""
	}
	var b strings.Builder
	b.WriteString(st.Title.Render("Audition") + st.Dim.Render(" · "+trimTo(quote(a.text), max(10, w-12))) + "\n")
	b.WriteString(st.Dim.Render(trimTo(fmt.Sprintf("rate %s · pitch %s · loudness %s", signed(a.set.SpeechRate), signed(a.set.Pitch), signed(a.set.Loudness)), w)) + "\n")
	for i, t := range a.takes {
		mark := "  "
		if t.starred {
			mark = "★ "
		}
		who := t.voice
		switch {
		case a.blind && !a.revealed:
			who = t.label // the voice stays hidden until the pick
		case a.blind && a.picked == i:
			who = t.label + " (your pick)  " + t.voice
		case a.blind:
			who = t.label + "  " + t.voice
		}
		b.WriteString(takeLine(mark, who, t, a.pickA == i+1, w) + "\n")
	}
	hint := "r replay · b A/B (on two) · * star · W save"
	if a.note != "" {
		hint = a.note
	}
	b.WriteString(st.Dim.Render(wrap(hint, w)) + "\n" + textLine)
	return b.String()
}

// takeLine is a take's row: its voice, its state and its figures. When
// the row is wider than w (an 80-column terminal, a festival voice's long
// code) the credits go first, then the RTF, then the figures go on a
// line of their own under the voice, so that the word error rate, the
// figure an audition is run for, is never the part cut off.
func takeLine(mark, who string, t *take, isA bool, w int) string {
	state := func(withRTF, withCredits bool) string {
		var figs []string
		if t.first > 0 {
			figs = append(figs, fmt.Sprintf("%d ms", t.first.Milliseconds()))
		}
		if t.duration > 0 {
			figs = append(figs, fmt.Sprintf("%.2f s", t.duration.Seconds()))
		}
		if t.rtf > 0 && withRTF {
			figs = append(figs, fmt.Sprintf("RTF %.2f", t.rtf))
		}
		if t.rtf > 0 && withCredits {
			figs = append(figs, fmt.Sprintf("%d cr", t.credits))
		}
		if t.heardOK {
			figs = append(figs, fmt.Sprintf("WER %.2f", t.wer))
		}
		figures := strings.Join(figs, " · ")
		st := t.state
		switch t.state {
		case "playing":
			st = "▶ playing"
			if t.first > 0 {
				st += " · first audio " + figures
			}
		case "played":
			st = "✓ " + figures
		case "stopped":
			st = strings.TrimSuffix("■ stopped · "+figures, " · ")
		}
		if isA {
			st = "A · " + st
		}
		return st
	}
	fits := func(s string) bool { return ansi.StringWidth(s) <= w }
	forms := []string{state(true, true), state(true, false), state(false, false)}
	for _, st := range forms {
		if l := mark + who + "  " + st; fits(l) {
			return l
		}
	}
	indent := strings.Repeat(" ", ansi.StringWidth(mark)+2)
	for _, st := range forms {
		if fits(indent + st) {
			return trimTo(mark+who, w) + "\n" + indent + st
		}
	}
	return trimTo(mark+who, w) + "\n" + trimTo(indent+forms[len(forms)-1], w)
}

// signed writes a control's value with its sign (0 as 0).
func signed(v int) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%+d", v)
}

func trimTo(s string, w int) string { return common.Truncate(s, w) }
