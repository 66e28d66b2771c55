package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hark/audio/wav"
)

// hark demo -o renders the whole deck through the embedded gateway as one
// WAV; a deck with a mistake is refused with exit 2 naming the line.
func TestDemoWritesOneWAV(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real local engines")
	}
	t.Parallel()
	local := func(args ...string) (int, string, string) {
		return harkApp(t, context.Background(), noGateway, nil, "", args...)
	}
	dir := t.TempDir()
	deck := filepath.Join(dir, "two.toml")
	os.WriteFile(deck, []byte("voice = \"espeak:en-us\"\n[[line]]\ntext = \"Hello there.\"\n[[line]]\npause = 0.5\n[[line]]\ntext = \"Goodbye.\"\nvoice = \"flite:slt\"\n"), 0o644)
	out := filepath.Join(dir, "show.wav")
	code, _, errs := local("demo", deck, "-o", out)
	if code != 0 || !strings.Contains(errs, "wrote the deck's 3 lines") {
		t.Fatalf("demo -o: %d %s", code, errs)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	f, err := wav.ReadHeader(bytes.NewReader(data))
	if err != nil || f.Rate != 22050 || !f.SizeKnown() {
		t.Fatalf("show.wav: %+v %v", f, err)
	}
	if secs := float64(f.DataBytes) / 2 / 22050; secs < 1.5 || secs > 5 {
		t.Errorf("show.wav lasts %.2f s", secs)
	}

	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("voice = \"espeak:en-us\"\n[[line]]\ntext = \"Hi.\"\n[[line]]\ntext = \"Ho.\"\nvoice = \"flite:nobody\"\n"), 0o644)
	code, _, errs = local("demo", bad, "-o", filepath.Join(dir, "bad.wav"))
	if code != exitUsage || !strings.Contains(errs, `line 2: voice: "flite:nobody" is not a voice of vendor_speech`) {
		t.Errorf("demo with an unknown voice: %d %s", code, errs)
	}
	code, _, errs = local("demo", filepath.Join(dir, "missing.toml"))
	if code != exitUsage || !strings.Contains(errs, "missing.toml") {
		t.Errorf("demo of a missing file: %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.wav")); err == nil {
		t.Error("a refused deck left a file")
	}
}
