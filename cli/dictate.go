package cli

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"hark/audio"
	"hark/ui/common"
)

// hark search --dictate FILE: the query is what the recogniser hears in
// an audio file. It goes the way ctrl+r goes in the TUI (the STT
// WebSocket, fed in 100 ms frames by common.Transcribe), with the file
// in place of the microphone, so that path is testable without one.

// dictate recognises speech in an audio file and returns what was
// heard, said on stderr so the query is not a surprise.
func (a *App) dictate(ctx context.Context, file string) (string, error) {
	data, err := readFileAtMost(file, maxSTTAudio, "--dictate")
	if err != nil {
		return "", err
	}
	if len(data) == 0 {
		return "", usagef("--dictate %s: the file is empty", file)
	}
	// wav and mp3 are decoded here and streamed as pcm at their rate;
	// raw .pcm is 16 kHz, as the Listen section reads it; anything else
	// (opus, ogg) goes as it is, for the provider to read.
	pcm, rate := data, 0
	switch ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(file), ".")); ext {
	case "wav", "mp3":
		if pcm, rate, err = audio.DecodeToPCM(ext, data, 0); err != nil {
			return "", usagef("--dictate %s: %v", file, err)
		}
	case "pcm":
		rate = 16000
	}
	cl, err := a.client(ctx)
	if err != nil {
		return "", err
	}
	heard, err := common.Transcribe(ctx, cl, a.cfg.Provider, bytes.NewReader(pcm), rate, nil)
	if err != nil {
		return "", fmt.Errorf("--dictate %s: %w", file, err)
	}
	heard = strings.Join(strings.Fields(heard), " ")
	if heard == "" {
		return "", usagef("--dictate %s: no words were recognised", file)
	}
	fmt.Fprintf(a.stderr, "hark: heard %q\n", heard)
	return heard, nil
}
