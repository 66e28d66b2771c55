package voices

import (
	"errors"
	"slices"
	"testing"

	"hark/api"
	"hark/api/apitest"
	"hark/ui/internal/uitest"
)

// The Speak controls take their bounds from the gateway: Init asks for
// the provider's TTS inputs, and the answer sets the ranges.
func TestRangesComeFromTheGateway(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	if p.ranges.SpeechRate.Known {
		t.Fatal("ranges known before the gateway said anything")
	}
	for _, m := range uitest.Exec(p.Init()) {
		p.update(t, m)
	}
	if srv.Count(apitest.TTSInputsPath(api.DefaultProvider)) != 1 {
		t.Fatal("the TTS inputs were not asked for")
	}
	want := Range{Min: -50, Max: 100, Step: controlStep, Known: true}
	if p.ranges.SpeechRate != want || p.ranges.Pitch.Max != 50 || p.ranges.Loudness.Min != -50 {
		t.Errorf("ranges %+v", p.ranges)
	}
	if !slices.Equal(p.ranges.SampleRates, []int{8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000}) {
		t.Errorf("sample rates %v", p.ranges.SampleRates)
	}
	// The formats too: a provider without lame would list no mp3.
	in := &api.TTSInputs{InputSchema: api.InputSchema{{Name: "format", Type: "string", Enum: []string{"pcm", "wav"}}}}
	if r := RangesFrom(in); !slices.Equal(r.Formats, []string{"pcm", "wav"}) {
		t.Errorf("formats %v", r.Formats)
	}
	s := TTSSettings{}
	for _, want := range []string{"pcm", "wav", "", "pcm"} {
		s.adjust(ctlFormat, 1, RangesFrom(in))
		if s.Format != want {
			t.Fatalf("format cycled to %q, want %q", s.Format, want)
		}
	}
	// An answer for another provider (stale) changes nothing.
	p.update(t, ttsInputsMsg{provider: "other", inputs: &api.TTSInputs{}})
	if p.ranges.SpeechRate != want {
		t.Errorf("a stale answer replaced the ranges: %+v", p.ranges)
	}
}

// A gateway that serves no TTS inputs leaves the controls unbounded and
// offers only the provider's default rate; the gateway then refuses a
// value it does not take, naming the range.
func TestUnknownRangesAreNotClamped(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.update(t, ttsInputsMsg{provider: api.DefaultProvider, err: errors.New("404")})
	s := TTSSettings{}
	for range 30 {
		if note := s.adjust(ctlSpeechRate, 1, p.ranges); note != "" {
			t.Fatalf("note %q on an unbounded control", note)
		}
	}
	if s.SpeechRate != 30*controlStep || s.value(ctlSpeechRate, p.ranges) != "+300" {
		t.Errorf("speech rate %d shown %q", s.SpeechRate, s.value(ctlSpeechRate, p.ranges))
	}
	s.adjust(ctlSampleRate, 1, p.ranges)
	if s.SampleRate != 0 {
		t.Errorf("sample rate %d offered with no rates listed", s.SampleRate)
	}
}
