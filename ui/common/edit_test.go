package common

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEditWritesInTheCommand: a key handler that returns Edit does no I/O;
// the temporary file appears only when the command runs.
func TestEditWritesInTheCommand(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("EDITOR", "true")
	cmd := Edit("# Title\n\nbody\n", "page.md")
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Fatalf("Edit wrote %d entries before its command ran", len(ents))
	}
	if msg := cmd(); msg == nil {
		t.Fatal("the command returned no message")
	} else if e, ok := msg.(ErrorMsg); ok {
		t.Fatalf("the command failed: %v", e.Err)
	}
	files, _ := filepath.Glob(filepath.Join(tmp, "hark-read-*", "page.md"))
	if len(files) != 1 {
		t.Fatalf("files after the command: %v", files)
	}
	if b, _ := os.ReadFile(files[0]); string(b) != "# Title\n\nbody\n" {
		t.Fatalf("file holds %q", b)
	}
}
