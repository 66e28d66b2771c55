//go:build !(cgo && linux)

package audio

import (
	"strings"
	"testing"
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
	if _, err := Open(Options{Sink: "device"}); err == nil {
		t.Error("Sink device succeeded without cgo")
	}
}
