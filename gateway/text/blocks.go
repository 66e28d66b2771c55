package text

import "strings"

// Blocks walks text as the extractor and markdown files hold it: it calls
// prose with each run of prose lines (a paragraph, or a markdown heading
// line, which stands as a run of its own) and code with each code block,
// fenced or indented by four spaces or a tab. A blank line inside
// indented code stays in it; code is called with an empty block for an
// empty fence. Search snippets, extractive answers and research all read
// text this way, so that they agree on what is code.
func Blocks(text string, prose, code func(lines []string)) {
	var para, block []string
	fenced := false
	flushProse := func() {
		if len(para) > 0 {
			prose(para)
		}
		para = nil
	}
	flushCode := func() {
		for len(block) > 0 && strings.TrimSpace(block[len(block)-1]) == "" {
			block = block[:len(block)-1]
		}
		code(block)
		block = nil
	}
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			if fenced {
				flushCode()
			} else {
				flushProse()
			}
			fenced = !fenced
		case fenced:
			block = append(block, l)
		case t == "":
			flushProse()
			if len(block) > 0 {
				block = append(block, "") // a blank line inside indented code
			}
		case strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t"):
			flushProse()
			block = append(block, l)
		default:
			if len(block) > 0 {
				flushCode()
			}
			if strings.HasPrefix(t, "#") {
				flushProse() // a markdown heading is a block of its own
			}
			para = append(para, l)
		}
	}
	flushProse()
	if len(block) > 0 {
		flushCode()
	}
}

// BlockHeading splits a run of prose lines from Blocks into the heading
// it opens with and the lines under it: a markdown heading (level from
// its #s), or in plain text a line of a few words standing as a block of
// its own, or a title line over the text (level 6: how the extractor
// writes headings in text format). level is 0 when the run opens with
// no heading; rest is then lines.
func BlockHeading(lines []string) (heading string, level int, rest []string) {
	if len(lines) == 0 {
		return "", 0, lines
	}
	first, rest := strings.TrimSpace(lines[0]), lines[1:]
	next := ""
	if len(rest) > 0 {
		next = strings.TrimSpace(rest[0])
	}
	switch {
	case strings.HasPrefix(first, "#"):
		return strings.TrimSpace(strings.TrimLeft(first, "#")), strings.Count(first, "#"), rest
	case len(rest) == 0 && HeadingLine(first), TitleLine(first, next):
		return first, 6, rest
	}
	return "", 0, lines
}
