package voice

import (
	"strconv"

	"hark/api"
)

// TTSInputs are the TTS request's fields with this provider's rules, from
// the same constants planTTS checks by: the gateway serves them
// (api.PathTTSInputsFmt) and the TUI's Speak controls read their bounds
// from there. mp3 is offered only when lame is installed.
func (l *Local) TTSInputs() []api.Field {
	bound := func(n int) *float64 { f := float64(n); return &f }
	formats := []string{api.FormatPCM, api.FormatWAV}
	if l.lame != "" {
		formats = append(formats, api.FormatMP3)
	}
	rates := make([]string, len(SampleRates))
	for i, r := range SampleRates {
		rates[i] = strconv.Itoa(r)
	}
	return []api.Field{
		{Name: "format", Type: "string", Default: api.FormatPCM, Enum: formats, Description: "audio format"},
		{Name: "sample_rate", Type: "integer", Enum: rates, Description: "Hz; the voice's own rate when absent"},
		{Name: "speech_rate", Type: "integer", Default: 0, Min: bound(SpeechRateMin), Max: bound(SpeechRateMax), Description: "percent change of speed, 0 normal"},
		{Name: "pitch", Type: "integer", Default: 0, Min: bound(PitchMin), Max: bound(PitchMax), Description: "percent change of pitch, 0 normal"},
		{Name: "loudness", Type: "integer", Default: 0, Min: bound(LoudnessMin), Max: bound(LoudnessMax), Description: "-50 silent, 0 normal, 50 double amplitude"},
	}
}
