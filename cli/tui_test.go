package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hark/api/apitest"
	"hark/audio"
	"hark/config"
)

func TestGatewayLabel(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	outDir, dataDir := t.TempDir(), filepath.Join(t.TempDir(), "data")
	a := &App{cfg: &config.Config{DataDir: dataDir}}
	open, state := lazyAudio(audio.Options{Sink: audio.SinkFile, Dir: outDir}, a.logWriter)
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

// At log_level debug the start-up phases reach hark.log in the data
// directory; at the default level no log file is even opened.
func TestStartupPhasesLogged(t *testing.T) {
	s := apitest.New(t)
	dataDir := t.TempDir()
	code, _, errs := hark(t, s, "", "--data-dir", dataDir, "config")
	if _, err := os.Stat(filepath.Join(dataDir, LogFile)); code != 0 || err == nil {
		t.Fatalf("default level: code %d, log file exists (%v): %s", code, err, errs)
	}
	t.Setenv("HARK_LOG_LEVEL", "debug")
	code, _, errs = hark(t, s, "", "--data-dir", dataDir, "tools")
	b, err := os.ReadFile(filepath.Join(dataDir, LogFile))
	if code != 0 || err != nil {
		t.Fatalf("debug level: code %d, %v: %s", code, err, errs)
	}
	if !strings.Contains(string(b), `msg=start-up phase="settings loaded" at_ms=`) {
		t.Errorf("hark.log has no start-up phase:\n%s", b)
	}
	if testing.Short() {
		return
	}
	// The embedded gateway's start is a phase too (logged while the client
	// is being made, under the App's lock).
	t.Setenv("HARK_BASE_URL", "")
	t.Setenv("HARK_API_KEY", "")
	code, _, errs = hark(t, nil, "", "--data-dir", dataDir, "tools")
	b, _ = os.ReadFile(filepath.Join(dataDir, LogFile))
	if code != 0 || !strings.Contains(string(b), `phase="embedded gateway listening"`) {
		t.Errorf("embedded: code %d: %s\nlog:\n%s", code, errs, b)
	}
}
