//go:build cgo && linux

package voices

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/audio"
	"hark/audio/wav"
	"hark/ui/common"
)

// drive runs cmd the way a tea.Program would (Send is nil, so the jobs
// report through the channel-reading command) and feeds every message to
// p until until(msg) holds.
func drive(t *testing.T, p *Pane, cmd tea.Cmd, until func(tea.Msg) bool) {
	t.Helper()
	msgs := make(chan tea.Msg, 64)
	run := func(c tea.Cmd) {
		if c != nil {
			go func() { msgs <- c() }()
		}
	}
	run(cmd)
	timeout := time.After(60 * time.Second)
	for {
		select {
		case m := <-msgs:
			switch m := m.(type) {
			case nil:
				continue
			case tea.BatchMsg:
				for _, c := range m {
					run(c)
				}
				continue
			}
			_, c := p.Update(m)
			run(c)
			if until(m) {
				return
			}
		case <-timeout:
			t.Fatal("timed out driving the pane")
		}
	}
}

func TestListenAndRoundTripWithGateway(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the local TTS and STT engines")
	}
	client := startGateway(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	speech, err := client.TTS(ctx, api.TTSRequest{Provider: api.DefaultProvider, VoiceCode: e2eVoice, Text: "hello world", Format: api.FormatWAV})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "hello.wav")
	if err := os.WriteFile(path, speech.Data, 0o644); err != nil {
		t.Fatal(err)
	}

	c := &common.Common{Client: client, Styles: common.NewStyles(true, true), OutputDir: t.TempDir()}
	p := New(c)
	p.SetSize(100, 30)
	drive(t, p, p.Init(), func(m tea.Msg) bool { _, ok := m.(voicesMsg); return ok })
	if p.voicesErr != nil || !p.list.Select(e2eVoice) {
		t.Fatalf("voice list: %v (has %s: false)", p.voicesErr, e2eVoice)
	}
	press(p, t, "enter") // use the voice
	p.SetSection(SectionListen)

	isDone := func(m tea.Msg) bool { _, ok := m.(sttDoneMsg); return ok }
	for _, stream := range []bool{true, false} {
		p.listenMode = stream
		frames := 0
		drive(t, p, p.recognise(path), func(m tea.Msg) bool {
			if _, ok := m.(sttFrameMsg); ok {
				frames++
			}
			return isDone(m)
		})
		ls := p.listen
		t.Logf("stream=%v: %q confidence %.2f, %d frames", stream, ls.text, ls.confidence, frames)
		if ls.err != nil {
			t.Fatalf("stream=%v: %v", stream, ls.err)
		}
		if !strings.Contains(strings.ToLower(ls.text), "hello") {
			t.Errorf("stream=%v: heard %q, want hello", stream, ls.text)
		}
		if stream && frames == 0 {
			t.Error("the stream delivered no result frames")
		}
		if !strings.Contains(p.View(), ls.text) {
			t.Error("the text is not on screen")
		}
	}

	// Round trip: speak, then recognise that audio.
	p.SetSection(SectionRoundTrip)
	p.rtInput.SetValue("hello world")
	isRT := func(m tea.Msg) bool { _, ok := m.(roundTripMsg); return ok }
	drive(t, p, p.roundTrip(), isRT)
	if p.rt.err != nil {
		t.Fatal(p.rt.err)
	}
	t.Logf("round trip heard %q (%.0f%%)", p.rt.heard, 100*wordMatch(p.rt.spoken, p.rt.heard))
	if wordMatch(p.rt.spoken, p.rt.heard) < 0.5 || p.last == nil || p.last.format != api.FormatWAV {
		t.Errorf("round trip: heard %q; last audio %+v", p.rt.heard, p.last)
	}

	// Out-of-range controls come back from the gateway, shown inline.
	p.settings.Pitch = 80
	drive(t, p, p.roundTrip(), isRT)
	if p.rt.err == nil || !strings.Contains(p.rt.err.Error(), "pitch") {
		t.Fatalf("pitch 80: err %v, want the gateway's pitch range error", p.rt.err)
	}
	if v := p.View(); !strings.Contains(v, "pitch") {
		t.Errorf("the range error is not on screen:\n%s", v)
	}

	// A file that is not audio fails with the gateway's message, not a hang.
	bad := filepath.Join(t.TempDir(), "notes.wav")
	os.WriteFile(bad, []byte("this is not audio"), 0o644)
	p.SetSection(SectionListen)
	p.listenMode = false
	drive(t, p, p.recognise(bad), isDone)
	if p.listen.err == nil {
		t.Error("recognising text as audio should fail")
	} else {
		t.Logf("bad audio: %v", p.listen.err)
	}
}

func TestStopMidStreamKeepsAudio(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the local TTS engine")
	}
	client := startGateway(t)
	out, err := audio.Open(audio.Options{Sink: "null"})
	if err != nil {
		t.Fatal(err)
	}
	c := &common.Common{Client: client, Styles: common.NewStyles(true, true), OutputDir: t.TempDir(),
		Audio: func() (*audio.Output, error) { return out, nil }}
	p := New(c)
	p.SetSize(100, 30)
	p.voice = api.Voice{Value: "espeak:en-us", Name: "English (America)", Language: "en-us"}
	p.SetSection(SectionSpeak)
	p.text.SetValue(strings.Repeat("This sentence is here to keep the engine busy for a while. ", 60))

	stopped := false
	drive(t, p, p.speak(), func(m tea.Msg) bool {
		if _, ok := m.(ttsChunkMsg); ok && !stopped {
			stopped = true
			_, cmd := p.Update(keyMsg("x"))
			if cmd != nil {
				go cmd()
			}
		}
		_, done := m.(ttsDoneMsg)
		return done
	})
	ps := p.play
	if !ps.stopped || ps.err != nil {
		t.Fatalf("stopped %v, err %v; want stopped without an error", ps.stopped, ps.err)
	}
	if p.last == nil || len(p.last.data) == 0 {
		t.Fatal("the audio that arrived before the stop was lost")
	}
	if !strings.Contains(ansi.Strip(p.View()), "speech stopped") {
		t.Error("the view does not say the speech stopped")
	}
	t.Logf("kept %d bytes of %s after the stop", len(p.last.data), p.last.format)
}

// An audition of three marked voices through the gateway's real engines:
// each take played in order (into the file sink), timed, starred, saved
// as a set, and replayed from memory.
func TestAuditionWithGateway(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the local TTS engines")
	}
	client := startGateway(t)
	msgs := make(chan tea.Msg, 256)
	dir := t.TempDir()
	c := &common.Common{Client: client, Styles: common.NewStyles(true, true), OutputDir: t.TempDir(),
		Send:  func(m tea.Msg) { msgs <- m },
		Audio: func() (*audio.Output, error) { return audio.Open(audio.Options{Sink: audio.SinkFile, Dir: dir}) }}
	p := New(c)
	p.SetSize(110, 30)
	drive(t, p, p.Init(), func(m tea.Msg) bool { _, ok := m.(voicesMsg); return ok })
	voices := []string{"flite:slt", "espeak:en-us", "flite:rms"}
	for _, v := range voices {
		if !p.list.Select(v) {
			t.Fatalf("no voice %s", v)
		}
		press(p, t, "space")
	}
	if v := ansi.Strip(p.View()); !strings.Contains(v, "3 marked · a plays them in turn") {
		t.Errorf("marks not shown:\n%s", v)
	}
	p.SetSection(SectionSpeak)
	p.text.SetValue("One sentence for three voices.")
	p.SetSection(SectionVoices)
	// a plays them; every message the job sends is fed back.
	play := func(cmd tea.Cmd) []int {
		done := make(chan tea.Msg, 1)
		go func() { done <- cmd() }()
		var order []int
		for {
			select {
			case m := <-msgs:
				if am, ok := m.(auditionMsg); ok && am.playing {
					order = append(order, am.index)
				}
				p.Update(m)
			case m := <-done:
				if b, ok := m.(tea.BatchMsg); ok {
					for _, c := range b {
						if c != nil {
							go func() { done <- c() }()
						}
					}
					continue
				}
				if am, ok := m.(auditionMsg); ok && am.done {
					for len(msgs) > 0 {
						m := <-msgs
						if am, ok := m.(auditionMsg); ok && am.playing {
							order = append(order, am.index)
						}
						p.Update(m)
					}
					p.Update(m)
					return order
				}
			case <-time.After(60 * time.Second):
				t.Fatal("audition timed out")
			}
		}
	}
	order := play(p.startAudition())
	if fmt.Sprint(order) != "[0 1 2]" {
		t.Fatalf("takes played %v, want 0 1 2", order)
	}
	for i, tk := range p.aud.takes {
		if tk.voice != voices[i] || tk.state != "played" || tk.first <= 0 || tk.duration < 500*time.Millisecond || len(tk.data) == 0 {
			t.Errorf("take %d: %+v", i, tk)
		}
	}
	p.list.Select("espeak:en-us")
	press(p, t, "*")
	v := ansi.Strip(p.View())
	if !strings.Contains(v, "★ espeak:en-us  ✓") || !strings.Contains(v, "flite:rms  ✓") {
		t.Errorf("audition panel:\n%s", v)
	}
	if !strings.Contains(v, "rate 0 · pitch 0 · loudness 0") {
		t.Errorf("the settings in use are not shown:\n%s", v)
	}
	// b on two takes: the first chosen, then the second, back to back,
	// from memory.
	p.list.Select("flite:rms")
	press(p, t, "b")
	if v := ansi.Strip(p.View()); !strings.Contains(v, "flite:rms  A · ✓") {
		t.Errorf("A not marked:\n%s", v)
	}
	p.list.Select("flite:slt")
	var pick tea.Cmd
	pick = p.update(t, keyMsg("b"))
	if order := play(pick); fmt.Sprint(order) != "[2 0]" {
		t.Errorf("A/B played %v, want 2 then 0", order)
	}
	// Each take heard back (the command the arrival returns, run here):
	// flite's rms and slt come back close, espeak-ng's far.
	for i, tk := range p.aud.takes {
		p.Update(hearTake(c, p.aud.id, i, api.DefaultProvider, p.aud.text, tk.data)())
	}
	if tk := p.aud.takes[2]; !tk.heardOK || tk.wer > 0.5 || !strings.Contains(ansi.Strip(p.View()), fmt.Sprintf("WER %.2f", tk.wer)) {
		t.Errorf("round trip of flite:rms: %q, WER %.2f", tk.heard, tk.wer)
	}
	// W: the set saved, with the star in the manifest.
	var saved string
	if n, ok := p.saveSet()().(common.NoticeMsg); ok {
		saved = n.Text
	}
	sets, _ := filepath.Glob(filepath.Join(c.OutputDir, "audition-*"))
	if len(sets) != 1 || !strings.Contains(saved, "saved 3 takes") {
		t.Fatalf("set: %v %q", sets, saved)
	}
	b, _ := os.ReadFile(filepath.Join(sets[0], "manifest.json"))
	var set auditionSet
	if json.Unmarshal(b, &set) != nil || len(set.Voices) != 3 || !set.Voices[1].Starred || set.Voices[0].Starred || set.Voices[2].File != "03-flite_rms.wav" {
		t.Errorf("manifest: %s", b)
	}
	for _, v := range set.Voices {
		if v.RTF <= 0 || v.Credits != 1 || v.WER == nil {
			t.Errorf("%s: RTF %.3f, %d credits", v.Voice, v.RTF, v.Credits)
		}
	}
	// sheet.md: the same takes as a markdown table, each WAV linked.
	sheet, _ := os.ReadFile(filepath.Join(sets[0], "sheet.md"))
	if !strings.Contains(string(sheet), "| voice | name | first audio | duration | RTF | credits | WER | heard | star | file |") ||
		!strings.Contains(string(sheet), "| espeak:en-us | English (America) |") || !strings.Contains(string(sheet), "| ★ | [02-espeak_en-us.wav](02-espeak_en-us.wav) |") {
		t.Errorf("sheet.md:\n%s", sheet)
	}
	// Each WAV has its true sizes, so a player reads its length.
	for _, v := range set.Voices {
		f, err := os.Open(filepath.Join(sets[0], v.File))
		if err != nil {
			t.Fatal(err)
		}
		h, err := wav.ReadHeader(f)
		fi, _ := f.Stat()
		f.Close()
		if err != nil || !h.SizeKnown() || int64(h.DataBytes)+44 != fi.Size() {
			t.Errorf("%s: header %+v (%v) for %d bytes", v.File, h, err, fi.Size())
		}
		if secs := float64(h.DataBytes) / float64(h.Rate*h.FrameBytes()); math.Abs(secs-v.Duration) > 0.01 {
			t.Errorf("%s: %.2f s by its header, %.2f s in the manifest", v.File, secs, v.Duration)
		}
	}
	// a again, same voices and text: the star stays.
	play(p.startAudition())
	if _, tk := p.selectedTake(); tk == nil {
		t.Fatal("no take")
	}
	if !p.aud.takes[1].starred || p.aud.takes[0].starred {
		t.Errorf("stars after a second audition: %v %v %v", p.aud.takes[0].starred, p.aud.takes[1].starred, p.aud.takes[2].starred)
	}
}
