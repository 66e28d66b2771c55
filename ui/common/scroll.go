package common

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Scroll is a vertical window over pre-rendered lines: the cheap viewport
// panes use for reports and pages. Lines are rendered once (in a command)
// and only sliced here.
type Scroll struct {
	lines  []string
	offset int
	height int
	// mark, when set, may restyle a visible line (find's highlights).
	mark func(i int, line string) string
	// spot, when set, is the span of lines [from, to) shown in reverse
	// (the sentence being read aloud).
	spot *[2]int
}

// SetContent replaces the lines, keeping the offset where possible.
func (s *Scroll) SetContent(content string) {
	if content == "" {
		s.lines = nil
	} else {
		s.lines = strings.Split(content, "\n")
	}
	s.clamp()
}

// SetHeight sets the number of visible lines.
func (s *Scroll) SetHeight(h int) { s.height = max(0, h); s.clamp() }

// ScrollBy moves the window by n lines (negative is up).
func (s *Scroll) ScrollBy(n int) { s.offset += n; s.clamp() }

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
	if s.mark == nil && s.spot == nil {
		return strings.Join(s.lines[s.offset:end], "\n")
	}
	out := make([]string, 0, end-s.offset)
	for i := s.offset; i < end; i++ {
		l := s.lines[i]
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
