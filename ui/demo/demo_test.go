package demo

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/deck"
	"hark/ui/common"
)

var update = flag.Bool("update", false, "rewrite the golden views")

func TestBigText(t *testing.T) {
	lines, ok := bigText("Hi there", 80, 10)
	if !ok || len(lines) != 3 {
		t.Fatalf("one row of letters: %q %v", lines, ok)
	}
	if lines[0] != "█ █ ▀█▀    ▀█▀ █ █ █▀▀ █▀▄ █▀▀" {
		t.Errorf("top row %q", lines[0])
	}
	// Wrapped at words into rows of letters with a blank line between.
	lines, ok = bigText("Welcome to the show", 40, 20)
	if !ok || len(lines) != 11 || lines[3] != "" || lines[7] != "" {
		t.Fatalf("three rows: %q %v", lines, ok)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 40 {
			t.Errorf("line %q is %d wide", l, w)
		}
	}
	// Too tall, or a word too wide: the caller shows it plainly.
	if _, ok := bigText("one two three four five six seven", 20, 6); ok {
		t.Error("seven rows fit in six lines")
	}
	if _, ok := bigText("Supercalifragilistic", 40, 10); ok {
		t.Error("a word wider than the screen fit")
	}
	// A character the font lacks stands in the middle row.
	lines, _ = bigText("é", 10, 5)
	if strings.TrimSpace(lines[1]) != "é" {
		t.Errorf("é: %q", lines)
	}
}

func stageDeck(t *testing.T) *deck.Deck {
	t.Helper()
	d, err := deck.Parse("three.toml", []byte(`title = "Three voices"
voice = "flite:slt"
[[line]]
text = "Good morning, and welcome."
caption = "Welcome"
[[line]]
text = "A second voice."
voice = "festival:kal_diphone"
speed = 20
[[line]]
pause = 1
[[line]]
text = "The end."
`))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The stage at 80x24, paused on line 2 with audio going nowhere, and on
// a deck that could not be read.
func TestStageGolden(t *testing.T) {
	c := &common.Common{Styles: common.NewStyles(true, true), Clock: func() time.Time { return time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC) }}
	m := New(c)
	m.SetSize(80, 24)
	m.deck, m.path = stageDeck(t), "three.toml"
	m.names = map[string]string{"flite:slt": "SLT (US English, female)", "festival:kal_diphone": "KAL (US English, male, diphone)"}
	m.state, m.at = Paused, 1
	m.out = outInfo{kind: "null"}
	golden(t, "stage_paused_80x24", m.View(), 80, 24)

	m.state, m.at, m.out = Playing, 0, outInfo{kind: "file", reason: "ssh", savedTo: "/home/demo/.local/share/hark/played/hark-20261207-090000-1-1.wav"}
	golden(t, "stage_file_sink_80x24", m.View(), 80, 24)

	m2 := New(c)
	m2.SetSize(80, 24)
	m2.state, m2.err = Failed, errorString("three.toml: line 2: voice: \"festival:kal\" is not a voice of vendor_speech (hark voices vendor_speech lists them)")
	golden(t, "stage_failed_80x24", m2.View(), 80, 24)
}

type errorString string

func (e errorString) Error() string { return string(e) }

func golden(t *testing.T, name, view string, w, h int) {
	t.Helper()
	view = ansi.Strip(view)
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Errorf("%s: %d lines, want %d", name, len(lines), h)
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			t.Errorf("%s: line %d is %d wide", name, i+1, ansi.StringWidth(l))
		}
	}
	path := filepath.Join("testdata", name+".golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(view), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./ui/demo -run Golden -update writes it)", err)
	}
	if string(want) != view {
		t.Errorf("%s differs from %s:\n%s", name, path, view)
	}
}

// Keys before any run: q on an empty stage closes it; keys with no deck
// do nothing.
func TestStageKeysWithoutDeck(t *testing.T) {
	m := New(&common.Common{Styles: common.NewStyles(true, true)})
	for _, k := range []string{"space", "n", "r", "w"} {
		if cmd := m.Update(keyPress(k)); cmd != nil {
			t.Errorf("%s with no deck gave a command", k)
		}
	}
	cmd := m.Update(keyPress("q"))
	if cmd == nil {
		t.Fatal("q gave nothing")
	}
	if _, ok := cmd().(ClosedMsg); !ok {
		t.Error("q on an empty stage does not close it")
	}
}

func keyPress(k string) tea.KeyPressMsg {
	switch k {
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}
