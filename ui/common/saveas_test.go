package common

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
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

// The name field says it has the keys, and a name without the audio's
// extension is refused at the field, the prompt left open: keys typed by
// mistake after w never make "hark-tts-….wav1:index a" (issue 43).
func TestSaveAsChecksTheExtension(t *testing.T) {
	st := NewStyles(true, false)
	var s SaveAs
	s.RequireExt(".wav")
	s.Open("/out/hark-tts-flite_rms-20261207.wav", false, st)
	if v := ansi.Strip(s.View(st, 80)); !strings.Contains(v, "▶ save as") || !strings.Contains(v, "typing edits the name") || !strings.Contains(v, "never overwrites a file") {
		t.Errorf("the prompt does not say it has the keys:\n%s", v)
	}
	for _, r := range "1:index a" {
		s.Key(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	if p, _ := s.Key(tea.KeyPressMsg{Code: tea.KeyEnter}); p != "" || !s.Active() {
		t.Fatalf("enter saved %q (active %v)", p, s.Active())
	}
	if v := ansi.Strip(s.View(st, 80)); !strings.Contains(v, "✗ the name must end in .wav") {
		t.Errorf("no reason at the field:\n%s", v)
	}
	for range "1:index a" {
		s.Key(tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
	if p, _ := s.Key(tea.KeyPressMsg{Code: tea.KeyEnter}); p != "/out/hark-tts-flite_rms-20261207.wav" || s.Active() {
		t.Errorf("enter after the fix: %q (active %v)", p, s.Active())
	}
	// A folder takes the offered name inside it.
	s.Open("/out/x.wav", false, st)
	s.input.SetValue("/elsewhere/")
	if p, _ := s.Key(tea.KeyPressMsg{Code: tea.KeyEnter}); p != "/elsewhere/" {
		t.Errorf("a folder: %q", p)
	}
}

// A folder an export updates in place (the Obsidian notes) is offered
// with ~/ for the home directory, as a file is, and the line under it
// says the notes there are updated: "never overwrites a file" said the
// opposite of what the export does.
func TestSaveAsFolderSaysItUpdates(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	st := NewStyles(true, true)
	var s SaveAs
	s.OpenFolder(filepath.Join(home, "notes"), st)
	v := ansi.Strip(s.View(st, 80))
	if !strings.Contains(v, "▶ save as ~/notes") || !strings.Contains(v, "enter writes the notes, updating them") || strings.Contains(v, "never overwrites") {
		t.Errorf("the folder's prompt:\n%s", v)
	}
	// A file's prompt after it says what it did.
	s.Close()
	s.Open(filepath.Join(home, "report.md"), false, st)
	if v := ansi.Strip(s.View(st, 80)); !strings.Contains(v, "never overwrites a file") {
		t.Errorf("a file's prompt after a folder's:\n%s", v)
	}
}
