package citation

import (
	"strings"
	"unicode"

	"hark/gateway/text"
)

// Stream checks an answer as it is written: Write takes each piece as it
// arrives and returns the sentences that it completed, checked; Close
// returns the rest. A sentence is complete once the next one has begun or
// its line has ended, so that markers written after its full stop
// ("… recursive: true. [1]") still count as its citations.
type Stream struct {
	c    *checker
	buf  string
	pos  int  // where the line being read starts
	done int  // bytes of that line already emitted
	code bool // inside a fenced code block
	// codeStart is where the open code block's first line starts.
	codeStart int
	lastCites []int // the previous sentence's citations, for a code block
}

// NewStream checks an answer against passages (passages[0] is [1]).
func NewStream(passages []string) *Stream {
	return &Stream{c: newChecker(passages)}
}

// Write adds a piece of the answer.
func (s *Stream) Write(piece string) []Sentence {
	s.buf += piece
	return s.scan(false)
}

// Close ends the answer: the sentence still open is checked as it stands.
func (s *Stream) Close() []Sentence { return s.scan(true) }

func fence(line string) bool { return strings.HasPrefix(strings.TrimSpace(line), "```") }

func (s *Stream) scan(final bool) []Sentence {
	var out []Sentence
	for s.pos < len(s.buf) {
		rest := s.buf[s.pos:]
		nl := strings.IndexByte(rest, '\n')
		complete := nl >= 0
		line := rest
		if complete {
			line = rest[:nl]
		}
		next := s.pos + len(line) + 1
		if s.code {
			switch {
			case complete && fence(line):
				out = append(out, s.codeBlock(s.codeStart, s.pos))
				s.code = false
			case !complete && final:
				out = append(out, s.codeBlock(s.codeStart, len(s.buf)))
				s.code = false
				next = len(s.buf)
			case !complete:
				return out
			}
			s.pos, s.done = min(next, len(s.buf)), 0
			continue
		}
		if !complete && !final && (fence(line) || strings.HasPrefix(strings.TrimSpace(line), "#") || strings.TrimSpace(line) == "") {
			return out // wait for the line to say what it is
		}
		if fence(line) {
			s.code, s.codeStart = true, min(next, len(s.buf))
			s.pos, s.done = s.codeStart, 0
			continue
		}
		out = append(out, s.lineSentences(line, complete || final)...)
		if !complete && !final {
			return out
		}
		s.pos, s.done = min(next, len(s.buf)), 0
	}
	return out
}

// codeBlock is the code between start and end, checked against the
// passages its introducing sentence cites.
func (s *Stream) codeBlock(start, end int) Sentence {
	body := strings.TrimRight(s.buf[start:end], "\n")
	sent := Sentence{Text: body, Code: true, Start: start, End: end, Cites: s.lastCites}
	s.c.check(&sent)
	return sent
}

// lineSentences emits the sentences of the current line after s.done;
// the line's last one only when the line is complete.
func (s *Stream) lineSentences(line string, complete bool) []Sentence {
	lineStart := s.pos
	rest := line[s.done:]
	trimmed := strings.TrimSpace(rest)
	if trimmed == "" {
		return nil
	}
	if s.done == 0 && strings.HasPrefix(trimmed, "#") {
		s.done = len(line)
		return []Sentence{{Text: strings.TrimSpace(strings.TrimLeft(trimmed, "#")), Start: lineStart, End: lineStart + len(line), Supported: true}}
	}
	marked := markCode(rest)
	parts := text.Split(marked)
	// Markers that open a part belong to the part before it.
	for i := 1; i < len(parts); i++ {
		if m := leadingMarks().FindString(parts[i]); m != "" {
			parts[i-1] += " " + strings.TrimSpace(m)
			parts[i] = parts[i][len(m):]
		}
	}
	var out []Sentence
	cursor := 0
	for i, p := range parts {
		if strings.TrimSpace(p) == "" {
			continue
		}
		last := i == len(parts)-1
		if !last && !complete && !hasLetter(parts[i+1]) {
			last = true // the next part is only a marker so far
		}
		if last && !complete {
			break
		}
		// Where the part ends in the line: its last word, found after
		// the cursor (a moved marker sits after the part's own text).
		end := cursor
		for _, w := range strings.Fields(p) {
			if j := strings.Index(marked[end:], w); j >= 0 {
				end += j + len(w)
			}
		}
		start := cursor + (len(marked[cursor:]) - len(strings.TrimLeft(marked[cursor:], " \t")))
		sent := Sentence{
			Text:  withoutMarks(unmarkCode(bulletless(p))),
			Cites: cites(p),
			Start: lineStart + s.done + start,
			End:   lineStart + s.done + end,
		}
		cursor = end
		s.c.check(&sent)
		if sent.Claim {
			s.lastCites = sent.Cites
		}
		out = append(out, sent)
		if last {
			break
		}
	}
	if complete {
		s.done = len(line)
	} else {
		s.done += cursor
	}
	return out
}

func hasLetter(s string) bool {
	return strings.IndexFunc(leadingMarks().ReplaceAllString(s, ""), unicode.IsLetter) >= 0
}

// bulletless is a list item's text without its bullet or number.
func bulletless(s string) string {
	t := strings.TrimSpace(s)
	for _, b := range []string{"- ", "* ", "+ "} {
		if strings.HasPrefix(t, b) {
			return t[len(b):]
		}
	}
	if i := strings.Index(t, ". "); i > 0 && i <= 3 && strings.Trim(t[:i], "0123456789") == "" {
		return t[i+2:]
	}
	return t
}

// markCode turns inline code's backticks into text's code marks (the same
// length), so that no period in code ends a sentence.
func markCode(s string) string {
	if !strings.Contains(s, "`") {
		return s
	}
	b := []byte(s)
	open := false
	for i, c := range b {
		if c == '`' {
			if open {
				b[i] = text.CodeClose
			} else {
				b[i] = text.CodeOpen
			}
			open = !open
		}
	}
	return string(b)
}

func unmarkCode(s string) string {
	return strings.Map(func(r rune) rune {
		if r == text.CodeOpen || r == text.CodeClose {
			return '`'
		}
		return r
	}, s)
}
