package common

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	// A path in a folder not yet made: the folder is made.
	p, err := WriteNew(filepath.Join(dir, "a", "b.md"), "offered.md", []byte("one"))
	if err != nil || p != filepath.Join(dir, "a", "b.md") {
		t.Fatalf("%q %v", p, err)
	}
	// A folder: the offered name inside it.
	p, err = WriteNew(filepath.Join(dir, "a"), "offered.md", []byte("two"))
	if err != nil || p != filepath.Join(dir, "a", "offered.md") {
		t.Fatalf("%q %v", p, err)
	}
	// An existing file is never overwritten.
	if _, err := WriteNew(filepath.Join(dir, "a", "b.md"), "offered.md", []byte("three")); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("overwrite: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a", "b.md")); string(b) != "one" {
		t.Errorf("file now holds %q", b)
	}
}
