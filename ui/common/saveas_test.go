package common

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
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

// After a save, w offers a name not used yet, and accepting an offered
// name that exists on disk writes beside it: enter after w never ends
// in "exists".
func TestSaveAsOffersAFreshName(t *testing.T) {
	dir := t.TempDir()
	offer := filepath.Join(dir, "research-20261125-133016.md")
	var s SaveAs
	s.Open(offer, false, nil)
	path, _ := s.Key(tea.KeyPressMsg{Code: tea.KeyEnter})
	if path != offer || !s.Unedited() {
		t.Fatalf("first save: %q unedited=%v", path, s.Unedited())
	}
	if _, err := WriteFresh(path, "x.md", []byte("one")); err != nil {
		t.Fatal(err)
	}
	s.Open(offer, false, nil)
	if v := s.input.Value(); v != filepath.Join(dir, "research-20261125-133016-2.md") {
		t.Errorf("second w offers %q", v)
	}
	// A name offered in another session, already on disk: written beside.
	var other SaveAs
	other.Open(offer, false, nil)
	path, _ = other.Key(tea.KeyPressMsg{Code: tea.KeyEnter})
	got, err := WriteFresh(path, "x.md", []byte("two"))
	if err != nil || got != filepath.Join(dir, "research-20261125-133016-2.md") {
		t.Errorf("accepted offer on an existing file: %q %v", got, err)
	}
	if b, _ := os.ReadFile(offer); string(b) != "one" {
		t.Errorf("the first file now holds %q", b)
	}
	// A name the user typed that exists is refused, and offered again to
	// correct.
	other.Open(offer, false, nil)
	other.input.SetValue(offer)
	other.offer = "" // as if typed
	path, _ = other.Key(tea.KeyPressMsg{Code: tea.KeyEnter})
	if other.Unedited() {
		t.Fatal("a typed path counts as the offer")
	}
	if _, err := WriteNew(path, "x.md", []byte("three")); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("typed existing path: %v", err)
	}
	other.Open(filepath.Join(dir, "new.md"), true, nil)
	if v := other.input.Value(); v != offer {
		t.Errorf("retry after a typed path offers %q", v)
	}
}
