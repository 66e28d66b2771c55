package common

import (
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// Scroll is a vertical window over pre-rendered lines: the cheap viewport
// panes use for reports and pages. Lines are rendered once (in a command)
// and only sliced here.
type Scroll struct {
	lines  []string
	offset int
	height int
	// mark, when set, may restyle a visible line (find's highlights);
	// marker, the highlights kept and the passage being selected (Marker).
	mark   func(i int, line string) string
	marker func(i int, line string) string
	// spot, when set, is the span of lines [from, to) shown in reverse
	// (the sentence being read aloud).
	spot *[2]int
}

// SetContent replaces the lines, keeping the place: the line at the top
// stays at the top when the same text is wrapped anew at another width
// (the top line's first word is found again, counting words), so that a
// resize does not move the view back a section.
func (s *Scroll) SetContent(content string) {
	place := s.Place()
	if content == "" {
		s.lines = nil
	} else {
		s.lines = strings.Split(content, "\n")
	}
	s.SetPlace(place)
}

// Place is where the view is in the text, whatever its width: the number
// of words above the top line. Words are runs holding a letter or digit,
// so that rules, bullets and table borders, which differ by width, do not
// count.
func (s *Scroll) Place() int {
	n := 0
	for _, l := range s.lines[:min(s.offset, len(s.lines))] {
		n += lineWords(l)
	}
	return n
}

// SetPlace scrolls to the line holding the word after the first place
// words (see Place).
func (s *Scroll) SetPlace(place int) {
	s.offset = 0
	for n := 0; s.offset < len(s.lines); s.offset++ {
		n += lineWords(s.lines[s.offset])
		if n > place {
			break
		}
	}
	if place == 0 {
		s.offset = 0
	}
	s.clamp()
}

// lineWords counts a rendered line's words (see Place).
func lineWords(l string) int {
	n := 0
	for _, f := range strings.Fields(ansi.Strip(l)) {
		if strings.IndexFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			n++
		}
	}
	return n
}

// SetHeight sets the number of visible lines.
// A view at the end of the text stays at its end.
func (s *Scroll) SetHeight(h int) {
	atEnd := s.height > 0 && s.offset > 0 && s.offset+s.height >= len(s.lines)
	s.height = max(0, h)
	if atEnd {
		s.offset = len(s.lines)
	}
	s.clamp()
}

// ScrollBy moves the window by n lines (negative is up).
func (s *Scroll) ScrollBy(n int) { s.offset += n; s.clamp() }

// SetOffset puts line n at the top, clamped.
func (s *Scroll) SetOffset(n int) { s.offset = n; s.clamp() }

// Top and Bottom jump to either end.
func (s *Scroll) Top()    { s.offset = 0 }
func (s *Scroll) Bottom() { s.offset = len(s.lines); s.clamp() }

// Page is the page size for page up and down.
func (s *Scroll) Page() int { return max(1, s.height-1) }

// Offset is the first visible line; Len the number of lines.
func (s *Scroll) Offset() int { return s.offset }
func (s *Scroll) Len() int    { return len(s.lines) }

// Percent is how far down the window is, 0 to 100.
func (s *Scroll) Percent() int {
	span := len(s.lines) - s.height
	if span <= 0 {
		return 100
	}
	return s.offset * 100 / span
}

func (s *Scroll) clamp() {
	s.offset = min(s.offset, max(0, len(s.lines)-s.height))
	s.offset = max(0, s.offset)
}

// View returns the visible lines.
func (s *Scroll) View() string {
	end := min(len(s.lines), s.offset+s.height)
	if s.offset >= end {
		return ""
	}
	if s.mark == nil && s.spot == nil && s.marker == nil {
		return strings.Join(s.lines[s.offset:end], "\n")
	}
	out := make([]string, 0, end-s.offset)
	for i := s.offset; i < end; i++ {
		l := s.lines[i]
		if s.marker != nil {
			l = s.marker(i, l)
		}
		if s.mark != nil {
			l = s.mark(i, l)
		}
		if s.spot != nil && i >= s.spot[0] && i < s.spot[1] {
			l = "\x1b[7m" + ansi.Strip(l) + "\x1b[m"
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// Spot is the first highlighted line (-1 when none).
func (s *Scroll) Spot() int {
	if s.spot == nil {
		return -1
	}
	return s.spot[0]
}
