package common

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Fit cuts or pads s to exactly height lines, each cut to width cells.
// Lines are not padded with blanks: the terminal keeps what is not drawn
// blank, and blanks cost bytes over SSH.
func Fit(s string, width, height int) string {
	width, height = max(0, width), max(0, height)
	lines := strings.Split(s, "\n")
	if len(lines) > height {
		lines = lines[:height]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			lines[i] = ansi.Truncate(l, width, "…")
		}
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// PadRight pads each line of s with blanks to width cells (for blocks that
// sit left of another block), cutting longer lines.
func PadRight(s string, width int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		w := ansi.StringWidth(l)
		switch {
		case w > width:
			lines[i] = ansi.Truncate(l, width, "…")
		case w < width:
			lines[i] = l + strings.Repeat(" ", width-w)
		}
	}
	return strings.Join(lines, "\n")
}

// Wrap word-wraps plain or styled text to width cells.
func Wrap(s string, width int) string {
	if width <= 0 {
		return s
	}
	return ansi.Wrap(s, width, " -/")
}

// Truncate cuts s to width cells with an ellipsis.
func Truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}

// OneLine collapses whitespace (newlines included) to single spaces.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// StripPadding removes the trailing blanks of every line of rendered
// output, escape sequences included, and closes any open style. Glamour
// pads each line to the wrap width with styled blanks (about 16 bytes a
// cell); stripped, scrolling a long report sends a fraction of the bytes.
func StripPadding(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			b.WriteString(StripLine(s[i:]))
			break
		}
		b.WriteString(StripLine(s[i : i+j]))
		b.WriteByte('\n')
		i += j + 1
	}
	return b.String()
}

// StripLine removes one line's trailing blanks and the escape sequences
// among them. If the line used any style, a reset is appended so that no
// style leaks past the last visible character.
func StripLine(l string) string {
	end := 0 // byte offset after the last visible non-blank rune
	for i := 0; i < len(l); {
		if l[i] == 0x1b {
			i += escLen(l[i:])
			continue
		}
		r, size := utf8.DecodeRuneInString(l[i:])
		i += size
		if r != ' ' && r != '\t' {
			end = i
		}
	}
	out := l[:end]
	if strings.IndexByte(out, 0x1b) < 0 {
		return out
	}
	link := false // an OSC 8 hyperlink is open at end
	for i := 0; i < len(out); {
		if out[i] != 0x1b {
			i++
			continue
		}
		n := escLen(out[i:])
		if strings.HasPrefix(out[i:], "\x1b]8;") {
			link = !strings.HasPrefix(out[i:], "\x1b]8;;\x1b") && !strings.HasPrefix(out[i:], "\x1b]8;;\a")
		}
		i += n
	}
	if link {
		out += "\x1b]8;;\x1b\\"
	}
	return out + "\x1b[m"
}

// escLen is the length of the escape sequence at the start of s.
func escLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[': // CSI: parameters then a final byte 0x40-0x7e
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
		}
		return len(s)
	case ']', 'P', '_', '^': // OSC/DCS/APC/PM: until BEL or ST
		for i := 2; i < len(s); i++ {
			if s[i] == '\a' {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	}
	return 2
}

// Link makes text an OSC 8 hyperlink to url (terminals without support
// show the text alone).
func Link(text, url string) string {
	if url == "" {
		return text
	}
	return ansi.SetHyperlink(url) + text + ansi.ResetHyperlink()
}

// Count is "1 page", "3 pages".
func Count(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// JoinColumns puts right beside left, line by line, with sep between.
// left must already be padded to its width (PadRight).
func JoinColumns(left, sep, right string) string {
	l := strings.Split(left, "\n")
	r := strings.Split(right, "\n")
	for i := range l {
		l[i] += sep
		if i < len(r) {
			l[i] += r[i]
		}
	}
	return strings.Join(l, "\n")
}
