package text

import (
	"strings"
	"unicode"
)

// Spoken splits text into what a voice says in one go, so that long text
// streams piece by piece: Split's sentences, line by line, cut again
// after a semicolon followed by space and after full-width 。！？；
// (Chinese and Japanese leave no space after them), and a piece longer
// than max runes (when max > 0) cut at its last comma past half, or else
// its last space, or else at max.
func Spoken(text string, max int) []string {
	var out []string
	add := func(s string) {
		for _, p := range cutLong(s, max) {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	for _, line := range strings.Split(text, "\n") {
		for _, s := range Split(line) {
			rs := []rune(s)
			start := 0
			for i, r := range rs {
				end := false
				switch r {
				case ';':
					end = i+1 < len(rs) && unicode.IsSpace(rs[i+1])
				case '。', '！', '？', '；':
					end = true
				}
				if end {
					add(string(rs[start : i+1]))
					start = i + 1
				}
			}
			add(string(rs[start:]))
		}
	}
	return out
}

// cutLong cuts s into pieces of at most max runes (max <= 0: no limit),
// each at its last comma past half its length, or else its last space.
func cutLong(s string, max int) []string {
	rs := []rune(s)
	if max <= 0 || len(rs) <= max {
		return []string{s}
	}
	var out []string
	for len(rs) > max {
		cut := max
		space := -1
		for j := max - 1; j > max/2; j-- {
			if rs[j] == ',' || rs[j] == '，' {
				cut = j + 1
				space = -2
				break
			}
			if space == -1 && unicode.IsSpace(rs[j]) {
				space = j + 1
			}
		}
		if space > 0 {
			cut = space
		}
		out = append(out, string(rs[:cut]))
		rs = rs[cut:]
	}
	return append(out, string(rs))
}
