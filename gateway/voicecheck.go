package gateway

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"hark/api"
	"hark/gateway/engine"
)

// The checks of a TTS or STT request that the spec fixes, shared by the
// REST handlers and the streams.

// validateTTS checks the fields of a TTS request that the spec fixes and
// applies its defaults; the provider checks its own ranges.
func validateTTS(req *api.TTSRequest, maxChars int, hint string) error {
	if strings.TrimSpace(req.Provider) == "" {
		return &engine.InputError{Field: "provider", Rule: "is required"}
	}
	if strings.TrimSpace(req.Text) == "" {
		return &engine.InputError{Field: "text", Rule: "is required"}
	}
	if n := utf8.RuneCountInString(req.Text); n > maxChars {
		return &engine.InputError{Field: "text", Rule: fmt.Sprintf("must be at most %d characters, got %d%s", maxChars, n, hint)}
	}
	if strings.TrimSpace(req.VoiceCode) == "" {
		return &engine.InputError{Field: "voice_code", Rule: "is required (see the voice list)"}
	}
	switch req.Format {
	case "":
		req.Format = api.FormatPCM
	case api.FormatPCM, api.FormatMP3, api.FormatWAV:
	default:
		return &engine.InputError{Field: "format", Rule: "must be one of pcm, mp3, wav"}
	}
	if req.SampleRate < 0 {
		return &engine.InputError{Field: "sample_rate", Rule: "must not be negative"}
	}
	return nil
}

func validateSTTConfig(cfg *api.STTRequest) error {
	if strings.TrimSpace(cfg.Provider) == "" {
		return &engine.InputError{Field: "provider", Rule: "is required"}
	}
	if cfg.AudioData != "" {
		return &engine.InputError{Field: "audio_data", Rule: "must not be sent in the configuration frame; send audio as binary frames"}
	}
	if cfg.SampleRate < 0 {
		return &engine.InputError{Field: "sample_rate", Rule: "must not be negative"}
	}
	return nil
}
