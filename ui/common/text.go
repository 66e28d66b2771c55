package common

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
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

// Wrap word-wraps plain or styled text to width cells, at spaces only: a
// URL, a path or an option that fits on a line is never split at its
// slashes or hyphens. A word longer than the line is cut at its end.
func Wrap(s string, width int) string {
	if width <= 0 {
		return s
	}
	// ansi.Wrap breaks at hyphens whatever the breakpoints: the hyphens
	// inside words are made non-breaking while it wraps.
	return RestoreWords(ansi.Wrap(KeepWordsWhole(s), width, " "))
}

// Wrapping breaks lines inside words at these characters: ansi.Wrap at
// hyphens, glamour's list items and block quotes also at . , ; and +,
// which split URLs ("https://docs.freebsd.org/info/gxxint/gxxint." then
// "info.Free_Store.html") that fit on a line. KeepWordsWhole swaps each
// inside a word for a stand-in that no wrapping breaks at: a Unicode
// noncharacter (U+FDD0 on, reserved for a program's own use, so never in
// a page), one cell wide as the character it stands for.
const breakers = "-.,;+"

var (
	standIn      = [...]string{"\ufdd0", "\ufdd1", "\ufdd2", "\ufdd3", "\ufdd4"}
	restoreWords = strings.NewReplacer(standIn[0], "-", standIn[1], ".", standIn[2], ",", standIn[3], ";", standIn[4], "+")
)

// KeepWordsWhole swaps the hyphens, dots, commas, semicolons and pluses
// inside words (URLs, paths, options such as --leak-check, "well-known")
// for stand-ins, so that wrapping (ours, or glamour's) never splits a
// word there; RestoreWords swaps them back after wrapping. Such a
// character at the end of a word (a full stop, an ordered list's "1."),
// escaped with a backslash, or in a word without letters or digits
// (bullets, rules, table borders) is left as it is: wrapping breaks after
// it, never inside the word.
func KeepWordsWhole(s string) string {
	if !strings.ContainsAny(s, breakers) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 32)
	start := -1
	flush := func(end int) {
		w := s[start:end]
		start = -1
		if len(w) < 2 || !strings.ContainsAny(w[:len(w)-1], breakers) || strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
			b.WriteString(w)
			return
		}
		for i := 0; i < len(w); i++ {
			if w[i] == 0x1b { // escape sequences pass as they are
				n := escLen(w[i:])
				b.WriteString(w[i : i+n])
				i += n - 1
				continue
			}
			if k := strings.IndexByte(breakers, w[i]); k >= 0 && i < len(w)-1 && (i == 0 || w[i-1] != '\\') {
				b.WriteString(standIn[k])
			} else {
				b.WriteByte(w[i])
			}
		}
	}
	for i, r := range s {
		if unicode.IsSpace(r) {
			if start >= 0 {
				flush(i)
			}
			b.WriteRune(r)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		flush(len(s))
	}
	return b.String()
}

// RestoreWords undoes KeepWordsWhole, in wrapped text.
func RestoreWords(s string) string {
	if !strings.Contains(s, "\xef\xb7") { // the stand-ins' first two bytes
		return s
	}
	return restoreWords.Replace(s)
}

// lazyRegexp compiles pattern on first use, not at hark's every start.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

var bareURL = lazyRegexp(`https?://[^\s<>"'\x1b]+[^\s<>"'\x1b.,;:!?)\]]`)

// LinkURLs makes every http(s) URL in plain text a hyperlink (OSC 8),
// line by line, so that a URL cut at a line's end still opens whole.
// Text already holding escape sequences is returned as it is.
func LinkURLs(s string) string {
	if strings.Contains(s, "\x1b") || !strings.Contains(s, "://") {
		return s
	}
	lines := strings.Split(s, "\n")
	type span struct {
		a, b int
		url  string
	}
	spans := make([][]span, len(lines))
	for i, l := range lines {
		for _, loc := range bareURL().FindAllStringIndex(l, -1) {
			a, b := loc[0], loc[1]
			u := l[a:b]
			// A URL cut at the line's end goes on at the start of the next
			// line, and the next, while it fills them.
			var tails []int
			for j := i + 1; b == len(l) && j < len(lines) && !strings.HasPrefix(lines[j], "http"); j++ {
				m := urlTail().FindString(lines[j])
				if m == "" {
					break
				}
				u += m
				tails = append(tails, j, len(m))
				if len(m) < len(lines[j]) {
					break
				}
			}
			for k := 0; k < len(tails); k += 2 {
				spans[tails[k]] = append(spans[tails[k]], span{0, tails[k+1], ""})
			}
			spans[i] = append(spans[i], span{a, b, u})
			for k := 0; k < len(tails); k += 2 {
				ss := spans[tails[k]]
				ss[len(ss)-1].url = u
			}
		}
	}
	for i, ss := range spans {
		slices.SortFunc(ss, func(x, y span) int { return y.a - x.a })
		for _, sp := range ss {
			lines[i] = lines[i][:sp.a] + Link(lines[i][sp.a:sp.b], sp.url) + lines[i][sp.b:]
		}
	}
	return strings.Join(lines, "\n")
}

var urlTail = lazyRegexp(`^[^\s<>"']+`)

// Truncate cuts s to width cells with an ellipsis.
func Truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}

// JoinWrapped joins parts with sep on as many lines as width needs,
// breaking only between parts (a key and what it does stay together); a
// part wider than width is cut.
func JoinWrapped(parts []string, sep string, width int) string {
	var lines []string
	line := ""
	for _, p := range parts {
		switch {
		case line == "":
			line = p
		case ansi.StringWidth(line+sep+p) <= width:
			line += sep + p
		default:
			lines = append(lines, Truncate(line, width))
			line = p
		}
	}
	return strings.Join(append(lines, Truncate(line, width)), "\n")
}

// FitKeys joins a keys line's parts with " · " in width cells: where
// they do not fit, the parts before the last give way from the end (the
// last, "? keys", says where the rest are), and only then is the line
// cut.
func FitKeys(parts []string, width int) string {
	parts = append([]string(nil), parts...)
	for len(parts) > 2 && ansi.StringWidth(strings.Join(parts, " · ")) > width {
		parts = append(parts[:len(parts)-2], parts[len(parts)-1])
	}
	return Truncate(strings.Join(parts, " · "), width)
}

// TruncateMiddle cuts plain text s to width cells by leaving out the
// middle of the path it ends with (its last word, when it holds a "/"),
// else of s itself: the words before the path stay whole, and the path
// keeps its start and its end, the file's name and extension ("exported
// ~/.local/…/research-20261207.md").
func TruncateMiddle(s string, width int) string {
	if ansi.StringWidth(s) <= width {
		return s
	}
	if width <= 1 {
		return Truncate(s, width)
	}
	if i := strings.LastIndexByte(s, ' ') + 1; strings.Contains(s[i:], "/") {
		if room := width - ansi.StringWidth(s[:i]); room >= 12 {
			return s[:i] + cutMiddle(s[i:], room)
		}
	}
	return cutMiddle(s, width)
}

// TruncateURL cuts a URL to width cells in its path, keeping the
// scheme and host whole and as much of the path's end as fits, the page's
// name first ("http://127.0.0.1:39163/…/mc-manual.html",
// "file:///…/library/asyncio-task.html"); a URL whose host alone does
// not leave room is cut in its middle.
func TruncateURL(u string, width int) string {
	if ansi.StringWidth(u) <= width {
		return u
	}
	if i := strings.Index(u, "://"); i > 0 {
		if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
			head, rest := u[:i+3+j+1], []rune(u[i+3+j+1:])
			room := width - ansi.StringWidth(head) - 1
			seg := len([]rune(u[strings.LastIndexByte(u, '/'):]))
			if room >= min(seg, 12) {
				tail := string(rest[len(rest)-room:])
				if k := strings.IndexByte(tail, '/'); k >= 0 && len(tail)-k >= min(seg, 12) {
					tail = tail[k:] // from a folder's start, not mid-name
				}
				return head + "…" + tail
			}
		}
	}
	return cutMiddle(u, max(1, width))
}

// cutMiddle is s in width cells, a third of them its start, the rest its
// end, an ellipsis between; the end is the last path segment whole
// ("/ch19-04-advanced-types.html") when that leaves eight cells of the
// start.
func cutMiddle(s string, width int) string {
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	tail := (width - 1) * 2 / 3
	if j := strings.LastIndexByte(s, '/'); j > 0 {
		if seg := len([]rune(s[j:])); seg > tail && width-1-seg >= 8 {
			tail = seg
		}
	}
	head := width - 1 - tail
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
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
