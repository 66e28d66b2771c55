package voices

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/api/apitest"
	"hark/audio"
	"hark/audio/wav"
	"hark/ui/common"
)

func typeText(p *Pane, t *testing.T, s string) {
	t.Helper()
	for _, r := range s {
		p.update(t, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func TestFilterAsYouType(t *testing.T) {
	p := newTestPane(t, 100, 28)
	press(p, t, "/")
	if !p.Capturing() {
		t.Fatal("filter focused but Capturing() is false")
	}
	typeText(p, t, "ger")
	if p.list.Len() != 1 {
		t.Fatalf("filter ger: %d voices, want 1", p.list.Len())
	}
	if v, _ := p.list.Selected(); v.Value != "espeak:de" {
		t.Errorf("selected %q, want espeak:de", v.Value)
	}
	// Language and scene are searched too; words must all match.
	press(p, t, "backspace", "backspace", "backspace")
	typeText(p, t, "en-us narration")
	if p.list.Len() != 1 {
		t.Fatalf("filter 'en-us narration': %d voices, want 1 (flite:slt)", p.list.Len())
	}
	press(p, t, "enter")
	if p.Capturing() {
		t.Error("enter should leave the filter")
	}
	if p.list.Filter() != "en-us narration" {
		t.Errorf("filter after enter = %q", p.list.Filter())
	}
	press(p, t, "/", "esc")
	if p.list.Filter() != "" || p.list.Len() != len(testVoices) {
		t.Errorf("esc should clear the filter: %q, %d voices", p.list.Filter(), p.list.Len())
	}
	press(p, t, "/")
	typeText(p, t, "zzz")
	if !strings.Contains(p.View(), "no voice matches") {
		t.Error("an empty result should say no voice matches")
	}
}

func TestOrderKeepsSelection(t *testing.T) {
	p := newTestPane(t, 100, 28)
	p.list.Select("flite:slt")
	press(p, t, "s")
	if p.list.Order() != ByName {
		t.Fatal("s should sort by name")
	}
	if v, _ := p.list.Selected(); v.Value != "flite:slt" {
		t.Errorf("selection moved to %q", v.Value)
	}
	var names []string
	for _, v := range p.list.shown {
		names = append(names, v.Name)
	}
	if names[0] != "English (America)" || names[len(names)-1] != "Spanish (Spain)" {
		t.Errorf("by name: %v", names)
	}
	press(p, t, "s")
	if p.list.Order() != ByLanguage || p.list.shown[0].Language != "de" {
		t.Errorf("by language: first is %+v", p.list.shown[0])
	}
}

func TestConfiguredVoicePreselected(t *testing.T) {
	p := newTestPane(t, 80, 24)
	p.c.Voice = "flite:slt"
	p = New(p.c)
	p.SetSize(80, 24)
	p.update(t, voicesMsg{provider: api.DefaultProvider, voices: testVoices})
	if v, _ := p.list.Selected(); v.Value != "flite:slt" {
		t.Errorf("selected %q, want the configured flite:slt", v.Value)
	}
	if p.voice.Name != "Slt (CMU Arctic)" {
		t.Errorf("voice details not filled in: %+v", p.voice)
	}
	// A list of another provider (a stale reply) is ignored.
	p.update(t, voicesMsg{provider: "other", voices: testVoices[:1]})
	if p.list.Total() != len(testVoices) {
		t.Error("a reply for another provider replaced the list")
	}
}

func TestUseVoiceAndControls(t *testing.T) {
	p := newTestPane(t, 100, 28)
	p.list.Select("espeak:fr")
	press(p, t, "enter")
	if p.section != SectionSpeak || p.voice.Value != "espeak:fr" {
		t.Fatalf("enter: section %v voice %q", p.section, p.voice.Value)
	}
	// Speech rate is the fourth control; it stops at the range's end.
	press(p, t, "down", "down", "down")
	for range 30 {
		press(p, t, "right")
	}
	if p.settings.SpeechRate != p.ranges.SpeechRate.Max {
		t.Errorf("speech rate %d, want clamped to %d", p.settings.SpeechRate, p.ranges.SpeechRate.Max)
	}
	press(p, t, "0")
	if p.settings.SpeechRate != 0 {
		t.Errorf("0 should reset, got %d", p.settings.SpeechRate)
	}
	for range 30 {
		press(p, t, "-")
	}
	if p.settings.SpeechRate != p.ranges.SpeechRate.Min {
		t.Errorf("speech rate %d, want clamped to %d", p.settings.SpeechRate, p.ranges.SpeechRate.Min)
	}
	// Sample rate cycles through the offered rates and stops at the ends.
	press(p, t, "up")
	press(p, t, "left")
	if p.settings.SampleRate != 0 {
		t.Errorf("sample rate below default: %d", p.settings.SampleRate)
	}
	press(p, t, "right")
	if p.settings.SampleRate != p.ranges.SampleRates[0] {
		t.Errorf("sample rate %d", p.settings.SampleRate)
	}
	press(p, t, "t")
	if p.settings.Stream {
		t.Error("t should switch to REST")
	}
	req := p.settings.request(p.provider, p.voice.Value, "bonjour")
	if req.SpeechRate != -50 || req.SampleRate != 8000 || req.VoiceCode != "espeak:fr" || req.Provider != api.DefaultProvider {
		t.Errorf("request %+v", req)
	}
}

func TestStreamWithoutRateAsksForWAV(t *testing.T) {
	s := TTSSettings{Stream: true}
	if f := s.request("p", "v", "x").Format; f != api.FormatWAV {
		t.Errorf("stream, no rate: format %q, want wav", f)
	}
	s.SampleRate = 16000
	if r := s.request("p", "v", "x"); r.Format != "" || r.SampleRate != 16000 {
		t.Errorf("stream at 16 kHz: %+v, want default pcm", r)
	}
	if f, rate := playFormat(s.request("p", "v", "x")); f != "pcm" || rate != 16000 {
		t.Errorf("playFormat = %s %d", f, rate)
	}
	s = TTSSettings{Stream: false}
	if f := s.request("p", "v", "x").Format; f != "" {
		t.Errorf("REST keeps the default format, got %q", f)
	}
}

func TestEditingCapturesKeys(t *testing.T) {
	p := newTestPane(t, 100, 28)
	p.SetSection(SectionSpeak)
	press(p, t, "e")
	if !p.Capturing() {
		t.Fatal("editing should capture keys")
	}
	typeText(p, t, " [x]")
	if !strings.HasSuffix(p.text.Value(), " [x]") || p.section != SectionSpeak {
		t.Errorf("keys did not reach the text area: %q (section %v)", p.text.Value(), p.section)
	}
	press(p, t, "esc")
	if p.Capturing() {
		t.Error("esc should stop editing")
	}
	press(p, t, "e")
	p.update(t, tea.KeyPressMsg{Code: tea.KeyTab})
	if p.Capturing() || strings.Contains(p.text.Value(), "\t") {
		t.Error("tab should leave the text area, as in the other panes")
	}
	press(p, t, "]")
	if p.section != SectionListen {
		t.Errorf("] should move to Listen, at %v", p.section)
	}
}

func TestSpeakNeedsTextAndVoice(t *testing.T) {
	p := newTestPane(t, 100, 28)
	p.SetSection(SectionSpeak)
	p.text.SetValue("   ")
	if cmd := p.speak(); cmd != nil {
		t.Error("speaking nothing should not start a job")
	}
	if !strings.Contains(ansi.Strip(p.View()), "text: type something to speak first") {
		t.Error("no inline error for empty text")
	}
}

func TestPlaybackMessages(t *testing.T) {
	p := newTestPane(t, 100, 28)
	p.SetSection(SectionSpeak)
	cmd := p.speak()
	if cmd == nil || p.play == nil || p.play.done {
		t.Fatal("speak did not start a job")
	}
	j := job{id: p.play.id, r: common.NewStream(nil)}
	if p.update(t, ttsChunkMsg{job: j, first: 120 * time.Millisecond, received: 100}) == nil {
		t.Error("a chunk should ask for the next message (channel mode)")
	}
	p.update(t, ttsChunkMsg{job: j, received: 900})
	if p.play.first != 120*time.Millisecond || p.play.received != 900 {
		t.Errorf("first %v received %d", p.play.first, p.play.received)
	}
	// A message of a replaced job is drained, not applied.
	old := job{id: j.id - 1, r: common.NewStream(nil)}
	if p.update(t, ttsChunkMsg{job: old, received: 5}) == nil {
		t.Error("a stale job must still be drained")
	}
	if p.play.received != 900 {
		t.Error("a stale chunk changed the playback")
	}
	cl := &clip{data: []byte{1, 2, 3, 4}, format: "wav", rate: 22050, voice: "espeak:de", text: "x"}
	p.update(t, ttsDoneMsg{job: j, clip: cl})
	if !p.play.done || p.last != cl {
		t.Error("done: playback not finished or last audio not kept")
	}
	if p.update(t, meterMsg{job: j}) != nil {
		t.Error("meter should stop after the playback ended")
	}
	if !strings.Contains(ansi.Strip(p.View()), "speech played (stream)") {
		t.Error("view does not say the speech played")
	}
}

func TestErrorsShownInline(t *testing.T) {
	p := newTestPane(t, 100, 28)
	p.SetSection(SectionSpeak)
	p.speak()
	j := job{id: p.play.id}
	err := &api.Error{HTTPStatus: 400, Message: "invalid pitch: 80 is outside -50..50 (percent change of pitch, 0 normal)", TraceID: "tr-9"}
	p.update(t, ttsDoneMsg{job: j, err: err, clip: &clip{}})
	v := ansi.Strip(p.View())
	for _, want := range []string{"invalid pitch", "-50..50", "tr-9"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	if p.last != nil {
		t.Error("a failed synthesis without audio replaced the last audio")
	}
}

func TestPreviewCache(t *testing.T) {
	p := newTestPane(t, 100, 28)
	p.list.Select("espeak:en")
	if p.preview() == nil || p.play == nil || !p.play.preview || p.play.cached {
		t.Fatal("first preview should call the gateway")
	}
	j := job{id: p.play.id}
	cl := &clip{data: []byte{0, 0, 1, 1}, format: "pcm", rate: 22050, voice: "espeak:en", text: sampleSentence("en-gb")}
	p.update(t, ttsDoneMsg{job: j, clip: cl})
	if p.samples["espeak:en"] != cl {
		t.Fatal("sample not cached")
	}
	if p.last == cl {
		t.Error("a preview should not become the audio to save")
	}
	p.preview()
	if !p.play.cached {
		t.Error("second preview should play from the cache")
	}
	if !strings.Contains(ansi.Strip(p.View()), "preview (cached)") {
		t.Error("details do not say the preview is cached")
	}
	// A stopped preview is not cached.
	p.list.Select("espeak:de")
	p.preview()
	j = job{id: p.play.id}
	p.update(t, ttsDoneMsg{job: j, clip: &clip{data: []byte{1, 1}, voice: "espeak:de"}, stopped: true})
	if _, ok := p.samples["espeak:de"]; ok {
		t.Error("a stopped preview was cached")
	}
}

func TestStopCancels(t *testing.T) {
	p := newTestPane(t, 100, 28)
	p.SetSection(SectionSpeak)
	p.speak()
	cancelled := false
	p.play.cancel = func() { cancelled = true }
	press(p, t, "x")
	if !cancelled || !p.play.stopped {
		t.Error("x did not stop the playback")
	}
}

func TestListenFrames(t *testing.T) {
	p := newTestPane(t, 100, 28)
	p.SetSection(SectionListen)
	listening(p, t)
	if got := p.listenText(); got != "hello world this is" {
		t.Errorf("live text %q", got)
	}
	v := ansi.Strip(p.View())
	if !strings.Contains(v, "hello world") || !strings.Contains(v, "this is …") {
		t.Errorf("partial not shown:\n%s", v)
	}
	j := job{id: 9}
	p.update(t, sttDoneMsg{job: j, text: "hello world this is a test", confidence: 0.87, durationMs: 2100})
	v = ansi.Strip(p.View())
	if !strings.Contains(v, "hello world this is a test") || !strings.Contains(v, "confidence 0.87") {
		t.Errorf("final not shown:\n%s", v)
	}
	cmd := p.update(t, keyMsg("c"))
	if cmd == nil {
		t.Fatal("c should copy")
	}
	msg := cmd()
	if reflect.TypeOf(msg).String() != "tea.setClipboardMsg" || fmt.Sprint(msg) != "hello world this is a test" {
		t.Errorf("c returned %T %v, want the OSC 52 clipboard message of the text", msg, msg)
	}
	if !strings.Contains(ansi.Strip(p.View()), "copied to the clipboard") {
		t.Error("no feedback after copying")
	}
}

func TestListenStaleAndError(t *testing.T) {
	p := newTestPane(t, 100, 28)
	p.SetSection(SectionListen)
	cmd := p.recognise("/nonexistent.wav")
	if cmd == nil || !p.listen.running {
		t.Fatal("recognise did not start")
	}
	id := p.listen.id
	if p.update(t, sttFrameMsg{job: job{id: id - 1, r: common.NewStream(nil)}, frame: api.STTResultFrame{Text: "old", IsFinal: true}}) == nil {
		t.Error("stale frames must be drained")
	}
	if len(p.listen.finals) != 0 {
		t.Error("a stale frame was applied")
	}
	p.update(t, sttDoneMsg{job: job{id: id}, err: errText("audio file: open /nonexistent.wav: no such file or directory")})
	if !strings.Contains(ansi.Strip(p.View()), "no such file") {
		t.Error("error not shown")
	}
}

func TestRoundTripMessages(t *testing.T) {
	p := newTestPane(t, 100, 28)
	p.SetSection(SectionRoundTrip)
	press(p, t, "enter")
	if !p.rt.running {
		t.Fatal("enter did not start the round trip")
	}
	cl := &clip{data: []byte("RIFF"), format: "wav"}
	p.update(t, roundTripMsg{job: job{id: p.rt.id}, spoken: defaultRoundTrip, heard: "the quick brown fox", audio: cl})
	if p.rt.running || p.last != cl {
		t.Error("round trip not finished or audio not kept")
	}
	v := ansi.Strip(p.View())
	if !strings.Contains(v, "words matched 44%") {
		t.Errorf("match not shown:\n%s", v)
	}
	// w offers a path, enter saves the spoken audio there and says
	// where, in this section.
	press(p, t, "w")
	cmd := p.update(t, keyMsg("enter"))
	if cmd == nil {
		t.Fatal("w, enter did not save")
	}
	p.update(t, cmd())
	if v := ansi.Strip(p.View()); p.savedTo == "" || !strings.Contains(v, "saved to "+filepath.Dir(p.savedTo)) {
		t.Errorf("no saved-to line in Round trip (saved %q):\n%s", p.savedTo, v)
	}
}

func TestWordMatch(t *testing.T) {
	cases := []struct {
		a, b string
		want float64
	}{
		{"The quick brown fox.", "the quick brown fox", 1},
		{"one two three four", "one three four", 0.75},
		{"one two", "", 0},
		{"", "x", 0},
	}
	for _, c := range cases {
		if got := wordMatch(c.a, c.b); got != c.want {
			t.Errorf("wordMatch(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// w opens a save-as prompt offering a new file in the output directory;
// enter writes exactly that one file, a typed path is honoured, an
// existing file is never overwritten, and esc saves nothing.
func TestSave(t *testing.T) {
	p := newTestPane(t, 100, 28)
	p.SetSection(SectionSpeak)
	press(p, t, "w")
	if p.saveErr == nil || p.saveAs.Active() {
		t.Fatal("saving with no audio should say so")
	}
	pcm := make([]byte, 22050*2/10)
	p.last = &clip{data: pcm, format: "pcm", rate: 22050, voice: "espeak:en-us"}
	press(p, t, "w")
	if !p.saveAs.Active() || !p.OwnsKeys() {
		t.Fatal("w did not open the save-as prompt")
	}
	v := ansi.Strip(p.View())
	if !strings.Contains(v, "save as "+p.c.OutputDir) || !strings.Contains(v, "espeak_en-us") {
		t.Errorf("the prompt does not offer a file in the output directory:\n%s", v)
	}
	cmd := p.update(t, keyMsg("enter"))
	if cmd == nil {
		t.Fatal("enter did not save")
	}
	msg := cmd().(savedMsg)
	if msg.err != nil {
		t.Fatal(msg.err)
	}
	p.update(t, msg)
	b, err := os.ReadFile(msg.path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("RIFF")) || len(b) != 44+len(pcm) || !strings.HasSuffix(msg.path, ".wav") {
		t.Errorf("saved %s: %d bytes, header %q", msg.path, len(b), b[:4])
	}
	if filepath.Dir(msg.path) != p.c.OutputDir || !strings.Contains(msg.path, "espeak_en-us") {
		t.Errorf("saved to %s, want in %s", msg.path, p.c.OutputDir)
	}
	if v := ansi.Strip(p.View()); !strings.Contains(v, msg.path) {
		t.Errorf("view does not say where it saved:\n%s", v)
	}
	if files, _ := os.ReadDir(p.c.OutputDir); len(files) != 1 {
		t.Errorf("one save wrote %d files", len(files))
	}

	// A path the user types is where the one file goes.
	want := filepath.Join(t.TempDir(), "takes", "mine.wav")
	press(p, t, "w")
	for range 200 {
		press(p, t, "backspace")
	}
	typeText(p, t, want)
	if d := p.update(t, keyMsg("enter"))().(savedMsg); d.err != nil || d.path != want {
		t.Fatalf("saved %q, %v; want %q", d.path, d.err, want)
	}
	// The same path again is refused, and w offers it again to edit.
	press(p, t, "w")
	for range 200 {
		press(p, t, "backspace")
	}
	typeText(p, t, want)
	d := p.update(t, keyMsg("enter"))().(savedMsg)
	p.update(t, d)
	if d.err == nil || !strings.Contains(d.err.Error(), "exists") {
		t.Fatalf("overwrote %s: %v", want, d.err)
	}
	press(p, t, "w")
	if !strings.Contains(ansi.Strip(p.View()), "save as "+want) {
		t.Errorf("after a refused save, w should offer the path typed:\n%s", ansi.Strip(p.View()))
	}
	// esc closes the prompt and writes nothing.
	press(p, t, "esc")
	if p.saveAs.Active() || p.OwnsKeys() {
		t.Error("esc left the prompt open")
	}
	if files, _ := os.ReadDir(p.c.OutputDir); len(files) != 1 {
		t.Errorf("output directory holds %d files", len(files))
	}
}

func TestLanguageCode(t *testing.T) {
	for in, want := range map[string]string{"en-us": "en", "en_GB": "en", "English (America)": "en", "de": "de", "cmn": "cmn", "": ""} {
		if got := languageCode(in); got != want {
			t.Errorf("languageCode(%q) = %q, want %q", in, got, want)
		}
	}
	if sampleSentence("de") == sampleSentence("en") || sampleSentence("xx") != sampleSentence("en") {
		t.Error("samples: German should differ, unknown falls back to English")
	}
}

func TestTinySizesDoNotPanic(t *testing.T) {
	for _, sz := range [][2]int{{0, 0}, {1, 1}, {5, 3}, {20, 4}} {
		p := newTestPane(t, sz[0], sz[1])
		for s := range numSections {
			p.SetSection(s)
			v := p.View()
			if sz[0] > 0 && len(strings.Split(v, "\n")) != sz[1] {
				t.Errorf("%dx%d %v: %d lines", sz[0], sz[1], s, len(strings.Split(v, "\n")))
			}
		}
	}
}

func TestFilePickerStartsRecognition(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "hello.wav"), []byte("RIFF"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	p := newTestPane(t, 100, 28)
	p.picker.CurrentDirectory = dir
	p.SetSection(SectionListen)
	cmd := p.update(t, keyMsg("o"))
	if !p.Capturing() || cmd == nil {
		t.Fatal("o should open the picker and read the directory")
	}
	p.update(t, cmd()) // the directory listing
	v := ansi.Strip(p.View())
	if !strings.Contains(v, "hello.wav") || !strings.Contains(v, "Choose an audio file") {
		t.Fatalf("picker not shown:\n%s", v)
	}
	if !strings.Contains(v, dir) {
		t.Errorf("the picker does not say which directory it shows (%s):\n%s", dir, v)
	}
	// The temporary directory's name varies: the golden has a fixed one,
	// padded to the same width.
	golden(t, "listen_picker_100x28", strings.ReplaceAll(p.View(), dir, "/tmp/DIR"+strings.Repeat(" ", len(dir)-len("/tmp/DIR"))), 100, 28)
	p.update(t, keyMsg("enter"))
	if p.Capturing() || p.listen.path != filepath.Join(dir, "hello.wav") || !p.listen.running {
		t.Errorf("choosing a file: picking=%v path=%q running=%v", p.picking, p.listen.path, p.listen.running)
	}
	// esc closes the picker without choosing.
	p.update(t, keyMsg("o"))
	p.update(t, keyMsg("esc"))
	if p.Capturing() {
		t.Error("esc should close the picker")
	}
}

func TestMeterScale(t *testing.T) {
	if loudness(0) != 0 || loudness(1) != 1 || loudness(2) != 1 || loudness(0.001) != 0 {
		t.Error("loudness ends")
	}
	if l := loudness(0.1); l < 0.55 || l > 0.6 { // -20 dB
		t.Errorf("loudness(0.1) = %.3f, want about 0.58", l)
	}
	if got := waveform([]float64{0, 1}, 0, 4); got != "   █" {
		t.Errorf("waveform = %q", got)
	}
	if got := bar(1, 4, 8, true); got != "██░░░░░░" {
		t.Errorf("bar = %q", got)
	}
}

func TestRangeEndSaysSoInline(t *testing.T) {
	p := newTestPane(t, 100, 28)
	p.SetSection(SectionSpeak)
	press(p, t, "down", "down", "down", "down") // pitch
	for range 5 {
		press(p, t, "right")
	}
	if v := ansi.Strip(p.View()); strings.Contains(v, "the highest") {
		t.Fatalf("a note before the end of the range:\n%s", v)
	}
	press(p, t, "right")
	v := ansi.Strip(p.View())
	if p.settings.Pitch != 50 || !strings.Contains(v, "pitch: +50 is the highest the provider allows (-50…50)") {
		t.Errorf("pitch %d; view:\n%s", p.settings.Pitch, v)
	}
	press(p, t, "left")
	if strings.Contains(ansi.Strip(p.View()), "the highest") {
		t.Error("the note stays after the control moved")
	}
	press(p, t, "up", "up", "left", "left") // sample rate: default is the lowest
	if v := ansi.Strip(p.View()); !strings.Contains(v, "sample rate: the provider offers its default and 8000…48000 Hz") {
		t.Errorf("no note at the lowest sample rate:\n%s", v)
	}
}

// At the TUI's real size on an 80x24 terminal the pane gets 80x21: a long
// text gives way so that the meter, the file notice and the save line
// all show.
func TestSpeakFileNoticeFitsAt80x24(t *testing.T) {
	p := newTestPane(t, 80, 21)
	p.SetSection(SectionSpeak)
	p.text.SetValue(strings.Repeat("This is a much longer sentence that keeps going. ", 12))
	p.play = &playState{id: 3, stream: true, voice: "flite:slt", outKind: "file", outReason: audio.ReasonNoDevice, first: 95 * time.Millisecond, received: 32000,
		done: true, savedTo: "/home/demo/.cache/tmp/hark/hark-20261122-050311-29048-13.wav",
		stats: audio.Stats{BytesReceived: 32000, BytesPlayed: 32000, Received: time.Second, Played: time.Second}}
	p.savedTo = "/home/demo/hark-tts-flite_slt-20261122-050349.wav"
	lines := strings.Split(ansi.Strip(p.View()), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	v := strings.Join(lines, "\n")
	for _, want := range []string{"speech saved to a file (stream)", "written", "No sound device could be opened",
		"Saved to (y copies the path):\n/home/demo/.cache/tmp/hark/hark-20261122-050311-29048-13.wav",
		"saved to /home/demo/hark-tts-flite_slt-20261122-050349.wav", "│ This is a", "loudness"} {
		if !strings.Contains(v, want) {
			t.Errorf("80x21 view lacks %q:\n%s", want, v)
		}
	}
}

func TestDoneKeepsTheLastLevels(t *testing.T) {
	p := newTestPane(t, 100, 28)
	p.SetSection(SectionSpeak)
	p.speak()
	j := job{id: p.play.id}
	p.update(t, ttsOpenedMsg{job: j, outKind: "device"})
	p.update(t, ttsDoneMsg{job: j, levels: []float64{0.5, 0.5}, clip: &clip{data: []byte{1, 2}}})
	// A REST answer can play out before the first meter reading: the
	// level line must not stay empty.
	for _, l := range strings.Split(ansi.Strip(p.View()), "\n") {
		if strings.HasPrefix(l, "level") && !strings.ContainsAny(l, string(blocks[1:])) {
			t.Errorf("level line empty after the playback: %q", l)
		}
	}
}

func TestListenShowsTheNewestWordsAndProgress(t *testing.T) {
	p := newTestPane(t, 100, 14)
	p.SetSection(SectionListen)
	j := job{id: 9}
	p.listen = listenState{id: 9, running: true, path: "/data/long.wav", stream: true}
	for i := range 40 {
		p.update(t, sttFrameMsg{job: j, frame: api.STTResultFrame{Sequence: i, Text: fmt.Sprintf("sentence number %d is here", i), IsFinal: true}})
	}
	p.update(t, sttFrameMsg{job: j, frame: api.STTResultFrame{Sequence: 41, Text: "the newest words", IsPartial: true}})
	p.update(t, sttRecordingMsg{job: j, seconds: 3.2, total: 43.8})
	p.listenMode = false // t pressed during the run
	v := ansi.Strip(p.View())
	for _, want := range []string{"the newest words …", "41 results so far, 3.2 of 43.8 s of audio sent", "stream (partial results live)  · the next run: REST"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	// Done: a long text keeps its facts line in view.
	p.update(t, sttDoneMsg{job: j, text: strings.Repeat("many words here ", 80), confidence: 0.0031, durationMs: 43800})
	v = ansi.Strip(p.View())
	for _, want := range []string{"confidence 0.0031", "audio 43.80 s", "more (c copies the whole text)"} {
		if !strings.Contains(v, want) {
			t.Errorf("final view lacks %q:\n%s", want, v)
		}
	}
}

func TestNoMicrophoneSaysWhatToDo(t *testing.T) {
	p := newTestPane(t, 80, 21)
	var logged []string
	p.c.Log = func(line string) { logged = append(logged, line) }
	p.SetSection(SectionListen)
	p.listen = listenState{id: 5, running: true, recording: true}
	alsa := strings.Repeat("ALSA lib confmisc.c:855:(parse_card) cannot find card '0' ", 10)
	t.Setenv("SSH_CONNECTION", "")
	t.Setenv("SSH_TTY", "")
	// What sttJob.source makes of audio.Record's error.
	stt := sttJob{c: p.c}
	ce := &audio.CaptureError{Reasons: []string{"arecord: " + alsa, "parecord: not installed"}}
	p.update(t, sttDoneMsg{job: job{id: 5}, err: stt.noMicrophone(ce)})
	v := ansi.Strip(p.View())
	for _, want := range []string{"no microphone could be opened", "no capture device", "choose an audio file instead (o)"} {
		if !strings.Contains(strings.Join(strings.Fields(v), " "), want) {
			t.Errorf("the screen lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "ALSA") || strings.Contains(v, "cannot find card") {
		t.Errorf("ALSA's words reach the screen:\n%s", v)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "cannot find card") {
		t.Errorf("the raw text is not in the log: %q", logged)
	}
	// No recording tool at all says what to install.
	none := (&audio.CaptureError{Reasons: []string{"arecord: not installed", "parecord: not installed"}}).Summary()
	if !strings.Contains(none, "alsa-utils") {
		t.Errorf("no tools: %q", none)
	}
	t.Setenv("SSH_CONNECTION", "10.0.0.1 5000 10.0.0.2 22")
	if s := ce.Summary(); !strings.Contains(s, "SSH") {
		t.Errorf("over SSH: %q", s)
	}
}

// The notice states the actual reason the audio goes to a file, and y
// copies the saved path.
func TestFileNoticeSaysWhy(t *testing.T) {
	for reason, want := range map[string]string{
		audio.ReasonChosen:   "audio sink file",
		audio.ReasonSSH:      "SSH session without audio forwarding",
		audio.ReasonNoDevice: "No sound device could be opened",
		audio.ReasonNoCgo:    "built without cgo",
	} {
		p := newTestPane(t, 80, 21)
		p.SetSection(SectionSpeak)
		p.play = &playState{id: 3, outKind: "file", outReason: reason, done: true, savedTo: "/tmp/hark/a-rather-long-file-name-that-must-not-wrap-20261122-050311.wav"}
		v := strings.Join(strings.Fields(ansi.Strip(p.View())), " ")
		if !strings.Contains(v, want) {
			t.Errorf("reason %q: notice lacks %q:\n%s", reason, want, v)
		}
		for _, other := range []string{"SSH without audio forwarding?"} {
			if strings.Contains(v, other) {
				t.Errorf("reason %q: the notice guesses %q", reason, other)
			}
		}
		if !strings.Contains(ansi.Strip(p.View()), "\n/tmp/hark/a-rather-long-file-name-that-must-not-wrap-20261122-050311.wav") {
			t.Errorf("reason %q: the path is not whole on a line of its own", reason)
		}
		cmd := p.handleKey(tea.KeyPressMsg{Code: 'y', Text: "y"})
		if cmd == nil {
			t.Fatalf("reason %q: y copies nothing", reason)
		}
	}
}

// At 80x24 a preview's saved path is whole on a line of its own, across
// the whole width under the list and the details, and y copies it there.
func TestPreviewSavedPathWholeInTheVoiceList(t *testing.T) {
	p := newTestPane(t, 80, 21)
	p.list.Select("flite:slt")
	path := "/home/demo/.local/share/hark/played/hark-20261125-101500-12345-7.wav"
	p.play = &playState{id: 3, preview: true, voice: "flite:slt", outKind: "file", done: true, savedTo: path}
	v := ansi.Strip(p.View())
	if !strings.Contains(v, "Saved to (y copies the path):") || !strings.Contains(v, "\n"+path) {
		t.Errorf("the saved path is not whole on its own line:\n%s", v)
	}
	if got := len(strings.Split(p.View(), "\n")); got != 21 {
		t.Errorf("view is %d lines, want 21", got)
	}
	if cmd := p.handleKey(tea.KeyPressMsg{Code: 'y', Text: "y"}); cmd == nil {
		t.Fatal("y copies nothing in the voice list")
	}
	// An audition under the notice: the sample sentence gives way, the
	// takes stay in view.
	p.aud = audition{id: 9, text: "The quick brown fox.", takes: []*take{
		{voice: "flite:slt", state: "played", first: 30 * time.Millisecond, duration: time.Second},
		{voice: "espeak:en-us", state: "played", first: 20 * time.Millisecond, duration: time.Second},
		{voice: "espeak:de", state: "playing", first: 25 * time.Millisecond}}}
	v = ansi.Strip(p.View())
	for _, want := range []string{"flite:slt  ✓ 30 ms", "espeak:de  ▶ playing", "\n" + path} {
		if !strings.Contains(v, want) {
			t.Errorf("80x21 with an audition lacks %q:\n%s", want, v)
		}
	}
}

// enter on a voice makes it the one read aloud uses in Pages and
// Research; t picks the ready sentences an audition says.
func TestChosenVoiceAndReadySentences(t *testing.T) {
	p := newTestPane(t, 100, 28)
	p.list.Select("flite:slt")
	press(p, t, "enter")
	if p.c.Voice != "flite:slt" {
		t.Errorf("read aloud's voice is %q after enter on flite:slt", p.c.Voice)
	}
	p.SetSection(SectionVoices)
	if got := p.auditionText(); got != defaultSpeakText {
		t.Errorf("audition text %q, want the Speak text", got)
	}
	press(p, t, "t")
	if got := p.auditionText(); !strings.Contains(got, "quick brown fox") {
		t.Errorf("t gave %q, want the pangram", got)
	}
	press(p, t, "space")
	if v := ansi.Strip(p.View()); !strings.Contains(v, "text: a pangram · t picks another") {
		t.Errorf("the ready sentence is not named:\n%s", v)
	}
	for range len(readySentences) - 1 {
		press(p, t, "t")
	}
	if p.audPick != 0 {
		t.Errorf("t does not come back to the Speak text (%d)", p.audPick)
	}
}

// x stops an audition, and a preview started during one stops it: one
// playback at a time. The takes' stream here never ends, as a long one
// would not end before the key.
func TestAuditionStopsOnXAndOnPreview(t *testing.T) {
	srv := apitest.New(t)
	cl, err := api.New(api.Options{BaseURL: srv.URL, APIKey: apitest.Key})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	msgs := make(chan tea.Msg, 256)
	c := &common.Common{Client: cl, Styles: common.NewStyles(true, true), OutputDir: t.TempDir(),
		Send:  func(m tea.Msg) { msgs <- m },
		Audio: func() (*audio.Output, error) { return audio.Open(audio.Options{Sink: audio.SinkFile, Dir: dir}) }}
	p := New(c)
	p.SetSize(100, 28)
	p.update(t, voicesMsg{provider: api.DefaultProvider, voices: testVoices})
	for _, code := range []string{"flite:slt", "espeak:en-us"} {
		p.list.Select(code)
		press(p, t, "space")
	}
	half := append(wav.Header(16000, wav.StreamSize), make([]byte, 16000)...)
	for _, stop := range []string{"x", "p"} {
		srv.ScriptTTS(apitest.TTSScript{Chunks: [][]byte{half}, Stall: true})
		ran := make(chan tea.Msg, 8)
		runCmd(ran, p.startAudition())
		// The first take plays (into the file sink) while its stream
		// stays open.
		waitMsg(t, msgs, p, func(m tea.Msg) bool { am, ok := m.(auditionMsg); return ok && am.playing })
		if stop == "x" {
			runCmd(ran, p.update(t, keyMsg("x")))
		} else {
			p.list.Select("flite:slt")
			runCmd(ran, p.update(t, keyMsg("p")))
		}
		var done auditionMsg
		deadline := time.After(10 * time.Second)
		for !done.done {
			select {
			case m := <-ran:
				if am, ok := m.(auditionMsg); ok && am.done {
					done = am
					p.update(t, am)
				}
			case m := <-msgs:
				p.update(t, m)
			case <-deadline:
				t.Fatalf("%s did not stop the audition", stop)
			}
		}
		if !done.stopped || p.aud.running || p.aud.takes[0].state != "stopped" || p.aud.takes[1].state != "not played" {
			t.Errorf("%s: audition %+v, takes %q %q", stop, done, p.aud.takes[0].state, p.aud.takes[1].state)
		}
	}
	// The preview ends before the test does (it writes into dir).
	for p.play != nil && !p.play.done {
		select {
		case m := <-msgs:
			p.update(t, m)
		case <-time.After(10 * time.Second):
			t.Fatal("the preview did not end")
		}
	}
}

// runCmd runs cmd as a tea.Program would, each command of a batch on
// its own, and hands their messages to out.
func runCmd(out chan tea.Msg, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		m := cmd()
		if b, ok := m.(tea.BatchMsg); ok {
			for _, c := range b {
				runCmd(out, c)
			}
			return
		}
		out <- m
	}()
}

// waitMsg feeds the job's messages to p until one satisfies until.
func waitMsg(t *testing.T, msgs chan tea.Msg, p *Pane, until func(tea.Msg) bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case m := <-msgs:
			p.update(t, m)
			if until(m) {
				return
			}
		case <-deadline:
			t.Fatal("timed out waiting for the job")
		}
	}
}
