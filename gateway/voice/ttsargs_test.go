package voice

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"hark/api"
)

// TestTTSTextNeverInArguments: the engines get the text on stdin or in a
// private file, so that `ps` shows no user's words. Wrappers record each
// engine's arguments and run the real one.
func TestTTSTextNeverInArguments(t *testing.T) {
	dir := t.TempDir()
	wrap := func(name string) string {
		real, err := exec.LookPath(name)
		if err != nil {
			t.Skip(name + " not installed")
		}
		script := filepath.Join(dir, name)
		body := fmt.Sprintf("#!/bin/sh\nprintf '%%s\\n' \"$@\" >> %s/%s.args\nexec %s \"$@\"\n", dir, name, real)
		if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return script
	}
	l, err := New(Config{EspeakPath: wrap("espeak-ng"), FlitePath: wrap("flite"), Decoders: 1, WarmAfter: WarmOnDemand})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const secret = "Zanzibar quokka seventeen."
	for _, voice := range []string{"espeak:en-us", "flite:slt"} {
		sink := &countingSink{}
		if _, err := l.Synthesize(context.Background(), api.TTSRequest{Text: secret, VoiceCode: voice, Format: api.FormatPCM}, sink); err != nil {
			t.Fatalf("%s: %v", voice, err)
		}
		if sink.Len() < 8000 {
			t.Errorf("%s: only %d bytes of audio: the engine did not get the text", voice, sink.Len())
		}
	}
	for _, name := range []string{"espeak-ng", "flite"} {
		b, err := os.ReadFile(filepath.Join(dir, name+".args"))
		if err != nil {
			t.Fatalf("%s never ran: %v", name, err)
		}
		if strings.Contains(string(b), "Zanzibar") || strings.Contains(string(b), "quokka") {
			t.Errorf("%s got the text in its arguments:\n%s", name, b)
		}
	}
}
