//go:build !(cgo && linux)

package audio

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestNoCgoFallsBackToFile(t *testing.T) {
	t.Setenv("SSH_CONNECTION", "")
	t.Setenv("SSH_TTY", "")
	dir := t.TempDir()
	out, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind() != "file" || !strings.Contains(out.Describe(), "without cgo") {
		t.Errorf("kind %q describe %q, want the file sink saying why", out.Kind(), out.Describe())
	}
	p, _ := out.Play("pcm", 16000)
	p.Write(s16Bytes(testSignal(1600, 1)))
	p.CloseWrite()
	waitDone(t, p, 5*time.Second)
	if p.Err() != nil || filepath.Dir(p.SavedTo()) != dir {
		t.Errorf("played to %q, err %v; want a WAV in %s", p.SavedTo(), p.Err(), dir)
	}
	if _, err := Open(Options{Sink: "device"}); err == nil {
		t.Error("Sink device succeeded without cgo")
	}
}
