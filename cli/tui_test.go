package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hark/audio"
)

func TestGatewayLabel(t *testing.T) {
	for _, tc := range []struct{ base, profile, want string }{
		{"", "", "embedded · workspace local"},
		{"https://gw.example.com/", "default", "https://gw.example.com/"},
		{"https://user:secret@gw.example.com", "work", "https://gw.example.com · profile work"},
	} {
		if got := gatewayLabel(tc.base, tc.profile); got != tc.want {
			t.Errorf("gatewayLabel(%q, %q) = %q, want %q", tc.base, tc.profile, got, tc.want)
		}
	}
}

// The file sink writes where the settings' output directory says, and the
// audio log is hark's log file in the data directory, not the terminal.
func TestLazyAudioUsesOutputDirAndDataDirLog(t *testing.T) {
	outDir, dataDir := t.TempDir(), filepath.Join(t.TempDir(), "data")
	open, state := lazyAudio(audio.Options{Sink: audio.SinkFile, Dir: outDir}, dataDir)
	if got := state(); got != "audio file, idle" {
		t.Errorf("state before opening = %q, want %q", got, "audio file, idle")
	}
	out, err := open()
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind() != audio.SinkFile || !strings.Contains(out.Describe(), outDir) {
		t.Errorf("opened %s sink %q, want the file sink in %s", out.Kind(), out.Describe(), outDir)
	}
	if state() != out.Describe() {
		t.Errorf("state after opening = %q, want %q", state(), out.Describe())
	}
	if _, err := os.Stat(filepath.Join(dataDir, LogFile)); err != nil {
		t.Errorf("audio log not in the data dir: %v", err)
	}
	if again, _ := open(); again != out {
		t.Error("a second open made a second output")
	}
}
