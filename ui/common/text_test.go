package common

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestStripLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain   ", "plain"},
		{"", ""},
		{"   ", ""},
		{"\x1b[38;5;252m\x1b[48;5;0mhello\x1b[0m\x1b[38;5;252m\x1b[48;5;0m \x1b[0m\x1b[38;5;252m\x1b[48;5;0m \x1b[0m", "\x1b[38;5;252m\x1b[48;5;0mhello\x1b[m"},
		{"\x1b[1ma b\x1b[0m   \x1b[1m \x1b[0m", "\x1b[1ma b\x1b[m"},
		{"\x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\  ", "\x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\\x1b[m"},
		{"\x1b]8;;https://x.test\x1b\\link  \x1b]8;;\x1b\\", "\x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\\x1b[m"},
		{"日本語  ", "日本語"},
	} {
		if got := StripLine(tc.in); got != tc.want {
			t.Errorf("StripLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if ansi.Strip(StripLine(tc.in)) != strings.TrimRight(ansi.Strip(tc.in), " ") {
			t.Errorf("StripLine(%q) changed the visible text", tc.in)
		}
	}
}

func TestFitNeverNegativeAndExact(t *testing.T) {
	for _, sz := range [][2]int{{0, 0}, {-3, -1}, {5, 2}, {80, 24}} {
		out := Fit("a very long line that goes past the edge\nb\nc\nd", sz[0], sz[1])
		lines := strings.Split(out, "\n")
		if max(0, sz[1]) == 0 {
			continue
		}
		if len(lines) != sz[1] {
			t.Errorf("Fit %v gave %d lines", sz, len(lines))
		}
		for _, l := range lines {
			if ansi.StringWidth(l) > sz[0] {
				t.Errorf("Fit %v: line %q too wide", sz, l)
			}
		}
	}
}

func TestScroll(t *testing.T) {
	var s Scroll
	s.SetContent("1\n2\n3\n4\n5")
	s.SetHeight(2)
	s.ScrollBy(10)
	if s.View() != "4\n5" || s.Percent() != 100 {
		t.Errorf("bottom: %q %d", s.View(), s.Percent())
	}
	s.ScrollBy(-10)
	if s.View() != "1\n2" || s.Percent() != 0 {
		t.Errorf("top: %q", s.View())
	}
}

func TestWrapKeepsURLsWhole(t *testing.T) {
	const u = "https://docs.example/some-long/path-with/hyphens.html"
	got := Wrap("Read the page at "+u+" for more about it, and then --leak-check=full as well.", 60)
	if !strings.Contains(got, u) || !strings.Contains(got, "--leak-check=full") {
		t.Errorf("split:\n%s", got)
	}
	// Longer than the line: cut at its ends, one hyperlink across the pieces.
	long := "https://docs.example/" + strings.Repeat("a", 50) + "/page.html"
	linked := LinkURLs(Wrap("see "+long+" now", 40))
	lines := strings.Split(linked, "\n")
	if len(lines) < 2 || strings.Count(linked, ansi.SetHyperlink(long)) != 3 {
		t.Errorf("a cut URL should be one hyperlink on both lines: %q", linked)
	}
	if ansi.Strip(linked) != Wrap("see "+long+" now", 40) {
		t.Errorf("linking changed the text: %q", ansi.Strip(linked))
	}
	if LinkURLs("no links here") != "no links here" {
		t.Error("text without URLs changed")
	}
}

// Making words whole leaves escape sequences and a word's last character
// alone, and is undone exactly.
func TestKeepWordsWholeRoundTrip(t *testing.T) {
	in := "\x1b[38;5;252mhttps://a.example/c-d,e;f+g.html\x1b[m 1. item, --leak-check \\.escaped .bashrc end."
	kept := KeepWordsWhole(in)
	if !strings.Contains(kept, "\x1b[38;5;252m") || !strings.Contains(kept, " 1. item, ") || !strings.Contains(kept, `\.escaped`) || !strings.HasSuffix(kept, " end.") {
		t.Errorf("KeepWordsWhole changed what it must not: %q", kept)
	}
	if strings.ContainsAny(ansi.Strip(kept), "-;+") {
		t.Errorf("breaking characters left inside words: %q", kept)
	}
	if RestoreWords(kept) != in {
		t.Errorf("not undone: %q", RestoreWords(kept))
	}
}

// A keys line that does not fit gives up the parts before its last,
// from the end, and keeps "? keys".
func TestFitKeys(t *testing.T) {
	parts := []string{"enter open", "r run again", "w watch", "/ search", "? keys"}
	if got := FitKeys(parts, 80); got != "enter open · r run again · w watch · / search · ? keys" {
		t.Errorf("room for all: %q", got)
	}
	if got := FitKeys(parts, 40); got != "enter open · r run again · ? keys" {
		t.Errorf("at 40: %q", got)
	}
	if got := FitKeys(parts, 10); got != "enter ope…" || parts[4] != "? keys" {
		t.Errorf("at 10: %q (parts %q)", got, parts)
	}
}

// A URL cut to fit keeps its scheme and host, and the end of its path.
func TestTruncateURL(t *testing.T) {
	for _, c := range []struct {
		u    string
		w    int
		want string
	}{
		{"http://127.0.0.1:39163/valgrind/mc-manual.html", 80, "http://127.0.0.1:39163/valgrind/mc-manual.html"},
		{"http://127.0.0.1:39163/valgrind/mc-manual.html", 40, "http://127.0.0.1:39163/…/mc-manual.html"},
		{"file:///usr/share/doc/python3.11-doc/html/library/asyncio-task.html", 36, "file:///…/library/asyncio-task.html"},
		{"https://a-very-long-host-name.example.com/x/page.html", 20, "https:/…/x/page.html"},
	} {
		if got := TruncateURL(c.u, c.w); got != c.want || ansi.StringWidth(got) > c.w {
			t.Errorf("TruncateURL(%q, %d) = %q, want %q", c.u, c.w, got, c.want)
		}
	}
}
