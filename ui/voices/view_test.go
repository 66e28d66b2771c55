package voices

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/api/apitest"
	"hark/audio"
	"hark/ui/common"
	"hark/ui/internal/uitest"
)

// update is uitest's -update flag: one flag for every golden of the TUI.
var update = uitest.Update

var testVoices = []api.Voice{
	{Name: "English (America)", Value: "espeak:en-us", Language: "en-us", Scene: "general"},
	{Name: "English (Great Britain)", Value: "espeak:en", Language: "en-gb", Scene: "general"},
	{Name: "Slt (CMU Arctic)", Value: "flite:slt", Language: "en-us", Scene: "narration"},
	{Name: "German", Value: "espeak:de", Language: "de", Scene: "general"},
	{Name: "French (France)", Value: "espeak:fr", Language: "fr-fr", Scene: "general"},
	{Name: "Spanish (Spain)", Value: "espeak:es", Language: "es", Scene: "news"},
}

func newTestPane(t *testing.T, w, h int) *Pane {
	t.Helper()
	c := &common.Common{Styles: common.NewStyles(true, true), OutputDir: t.TempDir()}
	p := New(c)
	p.SetSize(w, h)
	p.update(t, voicesMsg{provider: api.DefaultProvider, voices: testVoices})
	// The ranges the local provider serves (the fixture gateway/voice
	// writes).
	in, err := api.DecodeTTSInputs(apitest.DefaultTTSInputs)
	if err != nil {
		t.Fatal(err)
	}
	p.update(t, ttsInputsMsg{provider: api.DefaultProvider, inputs: in})
	return p
}

// update feeds one message and returns the command.
func (p *Pane) update(t *testing.T, msg tea.Msg) tea.Cmd {
	t.Helper()
	np, cmd := p.Update(msg)
	if np != p {
		t.Fatalf("Update returned another pane")
	}
	return cmd
}

func press(p *Pane, t *testing.T, keys ...string) {
	t.Helper()
	for _, k := range keys {
		p.update(t, keyMsg(k))
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "ctrl+s":
		return tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl}
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

func golden(t *testing.T, name, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Errorf("%s: %d lines, want %d", name, len(lines), h)
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			t.Errorf("%s: line %d is %d cells wide, want %d: %q", name, i, got, w, ansi.Strip(l))
		}
	}
	got := ansi.Strip(view) + "\n"
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n--- got\n%s--- want\n%s", name, path, got, want)
	}
}

func TestGoldenViews(t *testing.T) {
	sizes := [][2]int{{100, 28}, {60, 20}}
	for _, sz := range sizes {
		w, h := sz[0], sz[1]
		suffix := "_" + itoa(w) + "x" + itoa(h)

		p := newTestPane(t, w, h)
		golden(t, "voices"+suffix, p.View(), w, h)

		press(p, t, "/", "e", "n")
		golden(t, "voices_filter"+suffix, p.View(), w, h)

		p = newTestPane(t, w, h)
		press(p, t, "s")
		golden(t, "voices_byname"+suffix, p.View(), w, h)

		p = newTestPane(t, w, h)
		p.SetSection(SectionSpeak)
		playing(p, t)
		golden(t, "speak_playing"+suffix, p.View(), w, h)

		p = newTestPane(t, w, h)
		p.SetSection(SectionListen)
		listening(p, t)
		golden(t, "listen_partial"+suffix, p.View(), w, h)

		p = newTestPane(t, w, h)
		p.SetSection(SectionRoundTrip)
		p.rt = roundTripState{id: 1, done: true, voice: "espeak:en-us", spoken: defaultRoundTrip,
			heard: "the quick brown fox jumps over a lazy dog", confidence: 0.82,
			ttsTime: 310 * time.Millisecond, sttTime: 1240 * time.Millisecond}
		golden(t, "roundtrip"+suffix, p.View(), w, h)
	}

	// Errors and the over-SSH notice.
	p := newTestPane(t, 80, 24)
	p.update(t, voicesMsg{provider: api.DefaultProvider, err: &api.Error{HTTPStatus: 401, Message: "invalid API key", TraceID: "t-42"}})
	golden(t, "voices_error_80x24", p.View(), 80, 24)

	p = newTestPane(t, 80, 24)
	p.SetSection(SectionSpeak)
	p.play = &playState{id: 3, stream: true, voice: "espeak:en-us", outKind: "file", outDesc: "file /tmp/hark",
		first: 95 * time.Millisecond, received: 32000, done: true, savedTo: "/tmp/hark/tts-1.wav",
		stats: audio.Stats{BytesReceived: 32000, BytesPlayed: 32000, Received: time.Second, Played: time.Second}}
	golden(t, "speak_file_sink_80x24", p.View(), 80, 24)

	p = newTestPane(t, 80, 24)
	p.SetSection(SectionSpeak)
	p.play = &playState{id: 4, stream: true, done: true, err: &api.StreamError{Message: "speech_rate: must be between -50 and 100", Received: 0}}
	golden(t, "speak_error_80x24", p.View(), 80, 24)
}

func playing(p *Pane, t *testing.T) {
	j := job{id: 7}
	p.play = &playState{id: 7, stream: true, voice: "espeak:en-us"}
	p.update(t, ttsOpenedMsg{job: j, outKind: "device", outDesc: "device default 48 kHz"})
	p.update(t, ttsChunkMsg{job: j, first: 182 * time.Millisecond, received: 4096})
	p.update(t, ttsChunkMsg{job: j, received: 64000})
	p.update(t, meterMsg{job: j, levels: []float64{0.1, 0.3, 0.6, 0.9, 0.5, 0.2}, level: 0.2,
		stats: audio.Stats{FirstChunkToDevice: 12 * time.Millisecond, BytesReceived: 64000, BytesPlayed: 44800,
			Received: 2 * time.Second, Played: 1400 * time.Millisecond, Underruns: 1, UnderrunTime: 40 * time.Millisecond}})
}

func listening(p *Pane, t *testing.T) {
	j := job{id: 9}
	p.listen = listenState{id: 9, running: true, path: "/data/hello.wav", stream: true}
	p.update(t, sttFrameMsg{job: j, frame: api.STTResultFrame{Sequence: 1, Text: "hello", IsPartial: true}})
	p.update(t, sttFrameMsg{job: j, frame: api.STTResultFrame{Sequence: 2, Text: "hello world", IsFinal: true, Confidence: 0.9}})
	p.update(t, sttFrameMsg{job: j, frame: api.STTResultFrame{Sequence: 3, Text: "this is", IsPartial: true}})
}

func itoa(n int) string {
	return strings.TrimSpace(strings.Replace(time.Duration(n).String(), "ns", "", 1))
}

// manyVoices is a list the size of the local provider's (espeak-ng's
// languages and variants, flite's voices).
func manyVoices() []api.Voice {
	var vs []api.Voice
	for i := range 340 {
		lang := []string{"en-us", "en-gb", "de", "fr-fr", "es", "cmn", "hi", "ru"}[i%8]
		vs = append(vs, api.Voice{Name: "Voice " + itoa(i), Value: "espeak:" + lang + "+v" + itoa(i), Language: lang, Scene: "general"})
	}
	return vs
}

func BenchmarkFilterKeystroke(b *testing.B) {
	var l VoiceList
	l.SetItems(manyVoices())
	filters := []string{"e", "en", "en-", "en-g", "en-gb"}
	for i := 0; b.Loop(); i++ {
		l.SetFilter(filters[i%len(filters)])
	}
}

func BenchmarkViewVoices(b *testing.B) {
	c := &common.Common{Styles: common.NewStyles(true, false)}
	p := New(c)
	p.SetSize(120, 36)
	p.Update(voicesMsg{provider: api.DefaultProvider, voices: manyVoices()})
	for b.Loop() {
		_ = p.View()
	}
}

func BenchmarkViewSpeakPlaying(b *testing.B) {
	c := &common.Common{Styles: common.NewStyles(true, false)}
	p := New(c)
	p.SetSize(120, 36)
	p.SetSection(SectionSpeak)
	p.play = &playState{id: 1, stream: true, first: 90 * time.Millisecond, received: 64000,
		levels: make([]float64, meterBars), stats: audio.Stats{BytesReceived: 64000, Received: 2 * time.Second, Played: time.Second}}
	for b.Loop() {
		_ = p.View()
	}
}

// The audition list: marked voices, then the takes with their times, the
// one playing, and a star.
func TestAuditionGolden(t *testing.T) {
	for _, sz := range [][2]int{{100, 28}, {80, 21}} {
		p := newTestPane(t, sz[0], sz[1])
		for _, code := range []string{"flite:slt", "espeak:en-us"} {
			p.list.Select(code)
			press(p, t, "space")
		}
		golden(t, fmt.Sprintf("audition_marked_%dx%d", sz[0], sz[1]), p.View(), sz[0], sz[1])
		p.aud = audition{id: 9, text: "One sentence for the voices.", running: true, takes: []*take{
			{voice: "flite:slt", name: "Slt", data: []byte("x"), first: 31 * time.Millisecond, duration: 1610 * time.Millisecond, state: "played", starred: true},
			{voice: "espeak:en-us", name: "English (America)", state: "playing", first: 40 * time.Millisecond},
		}, set: TTSSettings{SpeechRate: 20, Pitch: -10}}
		golden(t, fmt.Sprintf("audition_%dx%d", sz[0], sz[1]), p.View(), sz[0], sz[1])
		v := ansi.Strip(p.View())
		if !strings.Contains(v, "★ flite:slt  ✓ 31 ms · 1.61 s") || !strings.Contains(v, "espeak:en-us  ▶ playing · first audio 40 ms") ||
			!strings.Contains(v, "rate +20 · pitch -10 · loudness 0") {
			t.Errorf("%v: audition panel:\n%s", sz, v)
		}
	}
}

// At 80 columns a take's row keeps its word error rate: the credits and
// the RTF give way first, then the figures go under the voice.
func TestAuditionFiguresAt80Columns(t *testing.T) {
	p := newTestPane(t, 80, 24)
	p.aud = audition{id: 9, text: "One sentence for the voices.", takes: []*take{
		{voice: "espeak:de", state: "played", first: 22 * time.Millisecond, duration: 4810 * time.Millisecond, rtf: 0.02, credits: 1, heardOK: true, wer: 1.08},
		{voice: "festival:cmu_us_slt_arctic_hts", state: "played", first: 78 * time.Millisecond, duration: 4670 * time.Millisecond, rtf: 0.05, credits: 1, heardOK: true, wer: 0.25},
	}}
	v := ansi.Strip(p.View())
	for _, want := range []string{"espeak:de  ✓ 22 ms · 4.81 s · WER 1.08", "festival:cmu_us_slt_arctic_hts  ", "    ✓ 78 ms · 4.67 s · RTF 0.05 · WER 0.25"} {
		if !strings.Contains(v, want) {
			t.Errorf("audition at 80 columns lacks %q:\n%s", want, v)
		}
	}
	p = newTestPane(t, 120, 30)
	p.aud.takes = []*take{{voice: "espeak:de", state: "played", first: 22 * time.Millisecond, duration: 4810 * time.Millisecond, rtf: 0.02, credits: 1, heardOK: true, wer: 1.08}}
	if v := ansi.Strip(p.View()); !strings.Contains(v, "espeak:de  ✓ 22 ms · 4.81 s · RTF 0.02 · 1 cr · WER 1.08") {
		t.Errorf("a row that fits lost a figure:\n%s", v)
	}
}
