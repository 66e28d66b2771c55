package demo

import (
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// A caption is shown large: in block letters three rows tall, drawn with
// half blocks, so that people at the back of the room read it. Letters
// are upper case; a character the font lacks stands in its middle row.

var bigGlyphs = map[rune][3]string{
	'A': {"▄▀▄", "█▀█", "▀ ▀"}, 'B': {"█▀▄", "█▀▄", "▀▀ "}, 'C': {"▄▀▀", "█  ", " ▀▀"},
	'D': {"█▀▄", "█ █", "▀▀ "}, 'E': {"█▀▀", "█▀▀", "▀▀▀"}, 'F': {"█▀▀", "█▀ ", "▀  "},
	'G': {"▄▀▀▀", "█ ▀█", " ▀▀▀"}, 'H': {"█ █", "█▀█", "▀ ▀"}, 'I': {"▀█▀", " █ ", "▀▀▀"},
	'J': {"  █", "▄ █", "▀▀ "}, 'K': {"█ ▄▀", "█▀▄ ", "▀  ▀"}, 'L': {"█  ", "█  ", "▀▀▀"},
	'M': {"█▄ ▄█", "█ ▀ █", "▀   ▀"}, 'N': {"█▄ █", "█ ▀█", "▀  ▀"}, 'O': {"▄▀▄", "█ █", " ▀ "},
	'P': {"█▀▄", "█▀ ", "▀  "}, 'Q': {"▄▀▄", "█ █", " ▀█"}, 'R': {"█▀▄", "█▀▄", "▀ ▀"},
	'S': {"▄▀▀", " ▀▄", "▀▀ "}, 'T': {"▀█▀", " █ ", " ▀ "}, 'U': {"█ █", "█ █", "▀▀▀"},
	'V': {"█ █", "█ █", " ▀ "}, 'W': {"█   █", "█ █ █", " ▀ ▀ "}, 'X': {"▀▄▀", "▄▀▄", "▀ ▀"},
	'Y': {"▀▄▀", " █ ", " ▀ "}, 'Z': {"▀▀█", "▄▀ ", "▀▀▀"},
	'0': {"█▀█", "█ █", "▀▀▀"}, '1': {"▄█ ", " █ ", "▀▀▀"}, '2': {"▀▀█", "█▀▀", "▀▀▀"},
	'3': {"▀▀█", " ▀█", "▀▀▀"}, '4': {"█ █", "▀▀█", "  ▀"}, '5': {"█▀▀", "▀▀█", "▀▀▀"},
	'6': {"█▀▀", "█▀█", "▀▀▀"}, '7': {"▀▀█", "  █", "  ▀"}, '8': {"█▀█", "█▀█", "▀▀▀"},
	'9': {"█▀█", "▀▀█", "▀▀▀"},
	'.': {" ", " ", "▀"}, ',': {" ", "▄", "▀"}, '!': {"█", "▀", "▀"}, '?': {"▀▀█", " ▄▀", " ▀ "},
	'\'': {"█", " ", " "}, '"': {"█ █", "   ", "   "}, '-': {"   ", "▀▀▀", "   "}, ':': {" ", "▀", "▀"},
	' ': {"  ", "  ", "  "},
}

// bigWord draws a word in block letters, a column between letters.
func bigWord(word string) [3]string {
	var rows [3]strings.Builder
	first := true
	for _, r := range word {
		g, ok := bigGlyphs[unicode.ToUpper(r)]
		if !ok {
			s := string(r)
			pad := strings.Repeat(" ", ansi.StringWidth(s))
			g = [3]string{pad, s, pad}
		}
		for i := range rows {
			if !first {
				rows[i].WriteByte(' ')
			}
			rows[i].WriteString(g[i])
		}
		first = false
	}
	return [3]string{rows[0].String(), rows[1].String(), rows[2].String()}
}

// bigText draws text in block letters, wrapped at word boundaries to
// width, each row of letters three lines and a blank line between rows.
// ok is false when a word alone is wider than width or the rows need
// more than height lines: the caller then shows the caption plainly.
func bigText(text string, width, height int) (lines []string, ok bool) {
	words := strings.Fields(text)
	if len(words) == 0 || width <= 0 {
		return nil, false
	}
	space := ansi.StringWidth(bigWord(" ")[0]) + 2 // the gap's glyph and a column either side
	var rows [][3]string
	var cur [3]string
	curW := 0
	for _, w := range words {
		g := bigWord(w)
		gw := ansi.StringWidth(g[0])
		if gw > width {
			return nil, false
		}
		if curW > 0 && curW+space+gw > width {
			rows = append(rows, cur)
			cur, curW = [3]string{}, 0
		}
		for i := range cur {
			if curW > 0 {
				cur[i] += "    "
			}
			cur[i] += g[i]
		}
		if curW > 0 {
			curW += space
		}
		curW += gw
	}
	rows = append(rows, cur)
	if len(rows)*4-1 > height {
		return nil, false
	}
	for i, r := range rows {
		if i > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, r[:]...)
	}
	return lines, true
}
