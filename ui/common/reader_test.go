package common

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func keys(r *Reader, s *Scroll, text string) {
	for _, c := range text {
		r.FindKey(tea.KeyPressMsg{Code: c, Text: string(c)}, s)
	}
	r.FindKey(tea.KeyPressMsg{Code: tea.KeyEnter}, s)
}

func doc(n int) (string, *Scroll) {
	var md, rendered []string
	for i := range n {
		md = append(md, "## Part "+string(rune('A'+i)), "", "Text of part with a Quagga here.", "")
		rendered = append(rendered, "  \x1b[1m## Part "+string(rune('A'+i))+"\x1b[m", "", "  Text of part with a \x1b[3mQuagga\x1b[m here.", "")
	}
	s := &Scroll{}
	s.SetContent(strings.Join(rendered, "\n"))
	s.SetHeight(6)
	return strings.Join(md, "\n"), s
}

func TestFindHighlightsAndMoves(t *testing.T) {
	_, s := doc(5)
	var r Reader
	r.StartFind(nil)
	keys(&r, s, "quagga")
	if r.Finding() || r.Status() != "“quagga” 1 of 5 (n/N)" {
		t.Fatalf("status %q", r.Status())
	}
	v := s.View()
	if !strings.Contains(v, "\x1b[1;7mQuagga\x1b[m") {
		t.Errorf("the current match is not highlighted: %q", v)
	}
	r.Next(s, false)
	r.Next(s, false)
	if r.Status() != "“quagga” 3 of 5 (n/N)" || s.Offset() != 8 {
		t.Errorf("after n n: %q, offset %d", r.Status(), s.Offset())
	}
	r.Next(s, true)
	r.Next(s, true)
	r.Next(s, true)
	if r.Status() != "“quagga” 5 of 5 (n/N)" {
		t.Errorf("N wraps around: %q", r.Status())
	}
	// Rendered again (another width): the matches follow.
	s.SetContent(strings.Repeat("x\n", 3) + "a Quagga\n")
	r.Refresh(s)
	if r.Status() != "“quagga” 1 of 1 (n/N)" {
		t.Errorf("after refresh: %q", r.Status())
	}
	r.StartFind(nil)
	for range 10 {
		r.FindKey(tea.KeyPressMsg{Code: tea.KeyBackspace}, s)
	}
	keys(&r, s, "okapi")
	if r.Status() != "“okapi” not found" {
		t.Errorf("no match: %q", r.Status())
	}
}

func TestContentsJump(t *testing.T) {
	md, s := doc(6)
	md = "# Title\n\n```\n## not a heading\n```\n\n" + md
	s.SetContent("  Title\n\n  ## not a heading\n\n" + strings.Join(s.lines, "\n"))
	var r Reader
	if !r.OpenTOC(md, s) || !r.TOCOpen() {
		t.Fatal("no contents")
	}
	if len(r.toc) != 7 || r.toc[0].Text != "Title" || r.toc[0].Line != 0 || r.toc[1].Line != 4 || r.toc[4].Text != "Part D" || r.toc[4].Line != 16 {
		t.Fatalf("contents: %+v", r.toc)
	}
	v := ansi.Strip(r.TOCView(NewStyles(true, true), 40, 10))
	if !strings.Contains(v, "> Title") || !strings.Contains(v, "    Part D") {
		t.Errorf("contents view:\n%s", v)
	}
	for range 4 {
		r.TOCKey(tea.KeyPressMsg{Code: tea.KeyDown}, s)
	}
	r.TOCKey(tea.KeyPressMsg{Code: tea.KeyEnter}, s)
	if r.TOCOpen() || s.Offset() != 16 {
		t.Errorf("jump to Part D: open %v, offset %d", r.TOCOpen(), s.Offset())
	}
	if new(Reader).OpenTOC("no headings here", s) {
		t.Error("contents of a document without headings")
	}
}

// A heading is listed, and found, as it renders: without its emphasis,
// code spans, links and escapes.
func TestPlainHeading(t *testing.T) {
	for in, want := range map[string]string{
		"Do we need *non*-standalone Wasm?":               "Do we need non-standalone Wasm?",
		"The `malloc_usable_size` call":                   "The malloc_usable_size call",
		"**Bold** and _emphasis_ in [a link](http://x/y)": "Bold and emphasis in a link",
		`Pointers: char \*path and snake_case`:            "Pointers: char *path and snake_case",
	} {
		if got := plainHeading(in); got != want {
			t.Errorf("plainHeading(%q) = %q, want %q", in, got, want)
		}
	}
}

// Plain text (a page kept as text) lists its numbered headings.
func TestTextContents(t *testing.T) {
	text := "8. DRD: a thread error detector\n\nTo use this tool, you must specify --tool=drd.\n\n8.1. Overview\n\nDRD is a tool.\n\n8.1.1. Multithreaded Programming Paradigms\n\nThere are two reasons:\n\n1. To model concurrent activities.\n"
	s := &Scroll{}
	s.SetContent(text)
	s.SetHeight(4)
	var r Reader
	if !r.OpenTextTOC(text, s) {
		t.Fatal("no contents")
	}
	var got []string
	for _, h := range r.toc {
		got = append(got, strings.Repeat(">", h.Level)+h.Text)
	}
	if strings.Join(got, "|") != ">8. DRD: a thread error detector|>>8.1. Overview|>>>8.1.1. Multithreaded Programming Paradigms" {
		t.Errorf("contents %q", got)
	}
	if r.toc[2].Line != 8 {
		t.Errorf("8.1.1 found at line %d", r.toc[2].Line)
	}
}
