package extract

import (
	"strings"
)

// Body is the document without its headline: the article's text alone,
// as benchmarks' truths hold it and as a caller that shows the title
// apart wants it.
func (d *Document) Body() *Document {
	out := &Document{Blocks: make([]Block, 0, len(d.Blocks))}
	for _, b := range d.Blocks {
		if !b.Headline {
			out.Blocks = append(out.Blocks, b)
		}
	}
	return out
}

// WithoutTables is the document without its data tables.
func (d *Document) WithoutTables() *Document {
	out := &Document{Blocks: make([]Block, 0, len(d.Blocks))}
	for _, b := range d.Blocks {
		if b.Kind != Table {
			out.Blocks = append(out.Blocks, b)
		}
	}
	return out
}

// Markdown renders the document as CommonMark (with GFM tables).
func (d *Document) Markdown() string {
	var b strings.Builder
	for i, blk := range d.Blocks {
		if i > 0 {
			prev := d.Blocks[i-1]
			if blk.Kind == Item && blk.Marker != "" && prev.Kind == Item && prev.Quote == blk.Quote {
				b.WriteString("\n") // a tight list
			} else {
				b.WriteString("\n\n")
			}
		}
		b.WriteString(quoteLines(blk.markdown(), blk.Quote))
	}
	return b.String()
}

func (blk Block) markdown() string {
	pad := strings.Repeat(" ", blk.Indent)
	switch blk.Kind {
	case Heading:
		return strings.Repeat("#", min(max(blk.Level, 1), 6)) + " " + blk.Markdown
	case Code:
		fence := strings.Repeat("`", max(3, longestFenceRun(blk.Markdown)+1))
		return indentLines(fence+blk.Lang+"\n"+blk.Markdown+"\n"+fence, pad)
	case Table:
		return indentLines(blk.Markdown, pad)
	case Rule:
		return "---"
	case Term:
		return pad + "**" + strings.ReplaceAll(blk.Markdown, "\\\n", " ") + "**"
	case Item:
		lines := escapedLines(blk.Markdown)
		if blk.Marker == "" {
			return indentLines(strings.Join(lines, "\n"), pad)
		}
		cont := strings.Repeat(" ", blk.Indent+len(blk.Marker)+1)
		out := pad + blk.Marker + " " + lines[0]
		for _, l := range lines[1:] {
			out += "\n" + cont + l
		}
		return out
	}
	return indentLines(strings.Join(escapedLines(blk.Markdown), "\n"), pad)
}

// Text renders the document as plain text: no markup; one paragraph,
// heading, list item or table row per line, paragraphs and headings set
// apart by blank lines, code blocks indented by four spaces.
func (d *Document) Text() string {
	var b strings.Builder
	for i, blk := range d.Blocks {
		t := blk.text()
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			if blk.Kind == Item && blk.Marker != "" && i > 0 && d.Blocks[i-1].Kind == Item {
				b.WriteString("\n")
			} else {
				b.WriteString("\n\n")
			}
		}
		b.WriteString(t)
	}
	return b.String()
}

func (blk Block) text() string {
	switch blk.Kind {
	case Code:
		return indentLines(blk.Text, "    ")
	case Rule:
		return ""
	case Item:
		if strings.HasSuffix(blk.Marker, ".") {
			return blk.Marker + " " + blk.Text
		}
	}
	return blk.Text
}

// escapedLines splits inline markdown at its hard breaks and escapes what
// would start a block on each line.
func escapedLines(md string) []string {
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		lines[i] = escapeLineStart(l)
	}
	return lines
}

func indentLines(s, pad string) string {
	if pad == "" {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "\n")
}

func quoteLines(s string, depth int) string {
	if depth == 0 {
		return s
	}
	p := strings.Repeat("> ", depth)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(p+l, " ")
	}
	return strings.Join(lines, "\n")
}

// longestFenceRun is the longest run of backticks at the start of a line,
// which a code fence must be longer than.
func longestFenceRun(s string) int {
	best := 0
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimLeft(l, " ")
		best = max(best, len(l)-len(strings.TrimLeft(l, "`")))
	}
	return best
}

// EscapeText turns plain text into markdown that renders as the same
// text: markup characters are escaped, and so is what would start a
// heading, quote or list. Lines indented by four spaces or a tab, which
// markdown shows as code, are left as they are.
func EscapeText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") {
			continue
		}
		lines[i] = escapeLineStart(escapeText(l))
	}
	return strings.Join(lines, "\n")
}
