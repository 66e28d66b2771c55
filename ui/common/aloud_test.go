package common

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/audio"
)

// Each sentence is found in the rendered lines, and the one playing is
// shown in reverse, the view following it.
func TestAloudHighlightFollows(t *testing.T) {
	doc := "# Okapis\n\nThe okapi lives in the Congo. It eats leaves.\n\n## Habits\n\nOkapis are shy animals."
	rendered := []string{"  \x1b[1mOkapis\x1b[m", "", "  The okapi lives in the", "  Congo. It eats leaves.", ""}
	for range 20 {
		rendered = append(rendered, "")
	}
	rendered = append(rendered, "  ## Habits", "", "  Okapis are shy animals.")
	s := &Scroll{}
	s.SetContent(strings.Join(rendered, "\n"))
	s.SetHeight(5)
	var a Aloud
	c := &Common{}
	a.Start(c, doc, s) // the command is not run: messages are fed by hand
	if want := []int{0, 2, 3, 25, 27}; len(a.lines) != 5 || a.lines[1] != want[1] || a.lines[2] != want[2] || a.lines[4] != want[4] {
		t.Fatalf("lines %v, want %v", a.lines, want)
	}
	a.Update(AloudMsg{Gen: a.run, Index: 1}, s)
	v := s.View()
	if !strings.Contains(v, "\x1b[7m  The okapi lives in the\x1b[m") || strings.Contains(v, "\x1b[7m  Congo") {
		t.Errorf("sentence 2 highlight:\n%q", v)
	}
	a.Update(AloudMsg{Gen: a.run, Index: 4}, s)
	if !strings.Contains(ansi.Strip(s.View()), "Okapis are shy") || s.Offset() == 0 {
		t.Errorf("the view did not follow to sentence 5 (offset %d)", s.Offset())
	}
	if st := a.Status(); st != "reading aloud 5/5 · space pause · ] next · [ back · esc stop" || a.Progress() != "reading aloud 5/5" {
		t.Errorf("status %q", st)
	}
	// A stopped run's messages are dropped; R resumes where it stopped.
	old := a.run
	a.Key(tea.KeyPressMsg{Code: tea.KeyEscape}, c, s)
	if a.Active() || s.Spot() != -1 {
		t.Error("esc did not stop")
	}
	a.Update(AloudMsg{Gen: old, Index: 2}, s)
	if s.Spot() != -1 {
		t.Error("a stopped run moved the highlight")
	}
	a.Start(c, doc, s)
	if a.at != 4 || !a.Active() {
		t.Errorf("R resumed at %d", a.at)
	}
	// [ goes back one, in a new run.
	run := a.run
	a.Key(tea.KeyPressMsg{Code: '[', Text: "["}, c, s)
	if a.at != 3 || a.run == run {
		t.Errorf("[: at %d, run %d→%d", a.at, run, a.run)
	}
}

// Reading aloud stops whatever played before it, in any pane; a reading
// stopped that way keeps its place, and one that went to a file says
// where.
func TestAloudOnePlaybackAndSavedNotice(t *testing.T) {
	doc := "One sentence here. Another sentence there. A third one."
	s := &Scroll{}
	s.SetContent(doc)
	s.SetHeight(5)
	c := &Common{}
	stopped := 0
	c.ClaimSound(func() { stopped++ })
	var a, b Aloud
	a.Start(c, doc, s)
	if stopped != 1 {
		t.Fatalf("R did not stop the playback before it (%d)", stopped)
	}
	a.Update(AloudMsg{Gen: a.run, Index: 1}, s)
	b.Start(c, doc, &Scroll{}) // another pane's reader
	// a's run was cancelled: its command ends with Index -1.
	a.Update(AloudMsg{Gen: a.run, Index: -1, Done: true}, s)
	if a.Active() || a.at != 1 {
		t.Errorf("stopped by another reading: active %v, at %d; want stopped at sentence 2", a.Active(), a.at)
	}
	cmd := b.Update(AloudMsg{Gen: b.run, Index: 3, Done: true, SavedTo: "~/played/hark-1.wav"}, &Scroll{})
	if n, ok := cmd().(NoticeMsg); !ok || !strings.Contains(n.Text, "reading saved to ~/played/hark-1.wav") {
		t.Errorf("no notice of where the reading went: %v", cmd())
	}
	// In the default data directory the notice reads whole at 80 columns.
	b.Start(c, doc, &Scroll{})
	cmd = b.Update(AloudMsg{Gen: b.run, Done: true, SavedTo: "~/.local/share/hark/played/hark-20261125-142000-123456-12.wav"}, &Scroll{})
	if n := cmd().(NoticeMsg); len("✓ "+n.Text) > 80+2 {
		t.Errorf("%q is %d columns", n.Text, len(n.Text)+2)
	}
}

// With the audio output off (the null sink), R reads nothing and says so
// as a warning, keeping its place, rather than run through the document
// in a second as if it had been heard (issue 43).
func TestAloudWithAudioOffSaysSo(t *testing.T) {
	cl, err := api.New(api.Options{BaseURL: "http://127.0.0.1:9", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	c := &Common{Client: cl, Voice: "flite:slt", Audio: func() (*audio.Output, error) { return audio.Open(audio.Options{Sink: audio.SinkNull}) }}
	doc := "One sentence here. Another sentence there."
	s := &Scroll{}
	s.SetContent(doc)
	s.SetHeight(5)
	var a Aloud
	msg, ok := a.Start(c, doc, s)().(AloudMsg)
	if !ok || !msg.Done || !msg.Off {
		t.Fatalf("R with the null sink: %#v", msg)
	}
	n, ok := a.Update(msg, s)().(NoticeMsg)
	if !ok || !n.Warn || !strings.Contains(n.Text, "audio output is off (audio sink null)") {
		t.Errorf("notice %#v", n)
	}
	if a.Active() || a.at != 0 {
		t.Errorf("after: active %v, at %d", a.Active(), a.at)
	}
}
