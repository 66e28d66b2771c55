package voices

import (
	"fmt"
	"strconv"

	"hark/api"
)

// Range is the allowed span of one numeric TTS control. Zero always means
// "the provider's default", which is why every range contains it. A range
// the gateway did not give (Known false) is not clamped.
type Range struct {
	Min, Max, Step int
	Known          bool
}

// Ranges bound the Speak controls. They are the provider's, read from the
// gateway (api.Client.TTSInputs), never a copy kept here; the gateway has
// the last word: a value it rejects comes back as an error naming the
// field and its range, shown beside the controls.
type Ranges struct {
	SpeechRate, Pitch, Loudness Range
	// SampleRates are the rates offered besides "provider default" (0).
	SampleRates []int
	// Formats are the formats offered besides "provider default" (""):
	// the provider's when it lists them, else the spec's three.
	Formats []string
}

// controlStep is how far one press moves a numeric control.
const controlStep = 10

// unknownRanges are the controls before the gateway said anything (or
// when it serves no TTS inputs): unbounded, and only the provider's
// default rate.
func unknownRanges() Ranges {
	u := Range{Step: controlStep}
	return Ranges{SpeechRate: u, Pitch: u, Loudness: u, Formats: specFormats}
}

// RangesFrom reads the bounds of the Speak controls from a provider's TTS
// inputs.
func RangesFrom(in *api.TTSInputs) Ranges {
	r := unknownRanges()
	if in == nil {
		return r
	}
	of := func(name string) Range {
		rg := Range{Step: controlStep}
		if f := in.Input(name); f != nil && f.Min != nil && f.Max != nil {
			rg.Min, rg.Max, rg.Known = int(*f.Min), int(*f.Max), true
		}
		return rg
	}
	r.SpeechRate, r.Pitch, r.Loudness = of("speech_rate"), of("pitch"), of("loudness")
	if f := in.Input("sample_rate"); f != nil {
		r.SampleRates = f.Ints()
	}
	if f := in.Input("format"); f != nil && len(f.Enum) > 0 {
		r.Formats = f.Enum
	}
	return r
}

// specFormats are the TTS formats the spec names, offered when the
// gateway does not list its provider's.
var specFormats = []string{api.FormatPCM, api.FormatWAV, api.FormatMP3}

// defaultPCMRate is the rate hark assumes for raw pcm that arrives with no
// rate (a REST answer without sample_rate); the local espeak-ng voices
// speak at 22050 Hz, flite's at 16000 or 8000 (docs/voice.md).
const defaultPCMRate = 22050

// TTSSettings are the Speak controls.
type TTSSettings struct {
	Stream     bool // WebSocket stream (default) or REST
	Format     string
	SampleRate int
	SpeechRate int
	Pitch      int
	Loudness   int
}

// control is one adjustable line of the Speak section.
type control int

const (
	ctlTransport control = iota
	ctlFormat
	ctlSampleRate
	ctlSpeechRate
	ctlPitch
	ctlLoudness
	numControls
)

func (c control) label() string {
	return [...]string{"transport", "format", "sample rate", "speech rate", "pitch", "loudness"}[c]
}

// adjust moves control c one step in direction dir (-1 or +1), within r.
// At the end of a range it stays put and returns a note saying so, naming
// the control and its range.
func (s *TTSSettings) adjust(c control, dir int, r Ranges) string {
	step := func(v int, rg Range) (int, string) {
		n := v + dir*max(1, rg.Step)
		if !rg.Known {
			return n, ""
		}
		n = min(max(n, rg.Min), rg.Max)
		if n == v {
			end := "highest"
			if dir < 0 {
				end = "lowest"
			}
			return v, fmt.Sprintf("%s: %+d is the %s the provider allows (%d…%d)", c.label(), v, end, rg.Min, rg.Max)
		}
		return n, ""
	}
	var note string
	switch c {
	case ctlTransport:
		s.Stream = !s.Stream
	case ctlFormat:
		// "" is the provider default (pcm).
		formats := append([]string{""}, r.Formats...)
		i := max(0, indexOf(formats, s.Format))
		s.Format = formats[(i+dir+len(formats))%len(formats)]
	case ctlSampleRate:
		rates := append([]int{0}, r.SampleRates...)
		i := max(0, indexOf(rates, s.SampleRate))
		j := min(max(i+dir, 0), len(rates)-1)
		if j == i && len(r.SampleRates) > 0 {
			note = fmt.Sprintf("sample rate: the provider offers its default and %d…%d Hz", r.SampleRates[0], r.SampleRates[len(r.SampleRates)-1])
		}
		s.SampleRate = rates[j]
	case ctlSpeechRate:
		s.SpeechRate, note = step(s.SpeechRate, r.SpeechRate)
	case ctlPitch:
		s.Pitch, note = step(s.Pitch, r.Pitch)
	case ctlLoudness:
		s.Loudness, note = step(s.Loudness, r.Loudness)
	}
	return note
}

// reset puts control c back to its default.
func (s *TTSSettings) reset(c control) {
	switch c {
	case ctlTransport:
		s.Stream = true
	case ctlFormat:
		s.Format = ""
	case ctlSampleRate:
		s.SampleRate = 0
	case ctlSpeechRate:
		s.SpeechRate = 0
	case ctlPitch:
		s.Pitch = 0
	case ctlLoudness:
		s.Loudness = 0
	}
}

func (s TTSSettings) value(c control, r Ranges) string {
	num := func(v int, rg Range) string {
		switch {
		case !rg.Known && v == 0:
			return "0 (default)"
		case !rg.Known:
			return fmt.Sprintf("%+d", v)
		case v == 0:
			return fmt.Sprintf("0 (default)  %d…%d", rg.Min, rg.Max)
		}
		return fmt.Sprintf("%+d  %d…%d", v, rg.Min, rg.Max)
	}
	switch c {
	case ctlTransport:
		if s.Stream {
			return "stream (WebSocket)"
		}
		return "REST"
	case ctlFormat:
		f := s.Format
		if f == "" {
			f = "pcm (default)"
		}
		if s.wavForRate() {
			f += " · sent as wav until a sample rate is set"
		}
		return f
	case ctlSampleRate:
		if s.SampleRate == 0 {
			return "provider default"
		}
		return strconv.Itoa(s.SampleRate) + " Hz"
	case ctlSpeechRate:
		return num(s.SpeechRate, r.SpeechRate)
	case ctlPitch:
		return num(s.Pitch, r.Pitch)
	case ctlLoudness:
		return num(s.Loudness, r.Loudness)
	}
	return ""
}

// wavForRate reports that a stream would be raw pcm at a rate nobody
// chose: raw pcm carries no rate and each voice has its own, so hark asks
// for wav (the same samples behind a header that names the rate).
func (s TTSSettings) wavForRate() bool {
	return s.Stream && (s.Format == "" || s.Format == api.FormatPCM) && s.SampleRate == 0
}

// request builds the TTS request for text in voice.
func (s TTSSettings) request(provider, voice, text string) api.TTSRequest {
	if s.wavForRate() {
		s.Format = api.FormatWAV
	}
	provider, voice = voiceTarget(provider, voice)
	return api.TTSRequest{
		Provider:   provider,
		Text:       text,
		VoiceCode:  voice,
		Format:     s.Format,
		SampleRate: s.SampleRate,
		SpeechRate: s.SpeechRate,
		Pitch:      s.Pitch,
		Loudness:   s.Loudness,
	}
}

// playFormat is the format and rate to open the playback with for req,
// before any audio arrived.
func playFormat(req api.TTSRequest) (string, int) {
	f := req.Format
	if f == "" {
		f = api.FormatPCM
	}
	rate := req.SampleRate
	if f == api.FormatPCM && rate == 0 {
		rate = defaultPCMRate
	}
	return f, rate
}

func indexOf[T comparable](xs []T, x T) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}
