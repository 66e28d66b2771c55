package markdown

import (
	"fmt"
	"regexp"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"hark/ui/common"
)

// PlainText is md read as a reader of plain text wants it, wrapped to
// width: no markup and no escapes ("char \*path" reads "char *path"),
// each heading a line of its own, list items behind a bullet or their
// number, code blocks indented by four spaces and never wrapped, tables
// as aligned columns. Link texts stay hyperlinks (OSC 8), the link list
// (l) giving their URLs. Like Render, it is for a command, not Update.
func PlainText(md string, width int) string {
	p := plainWriter{src: []byte(md)}
	lines := p.blocks(parser.Parse(text.NewReader(p.src)), max(10, width), false)
	return strings.Join(lines, "\n")
}

type plainWriter struct{ src []byte }

// blocks is the lines of parent's block children, a blank line between
// two unless tight (the items of a tight list and what they hold).
func (p *plainWriter) blocks(parent ast.Node, w int, tight bool) []string {
	var out []string
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		lines := p.block(n, w)
		if len(lines) == 0 {
			continue
		}
		if len(out) > 0 && !tight {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

var htmlTag = regexp.MustCompile(`<[^>]*>`)

func (p *plainWriter) block(n ast.Node, w int) []string {
	switch n := n.(type) {
	case *ast.Heading, *ast.Paragraph, *ast.TextBlock:
		return wrap(p.inline(n), w)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		var out []string
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			out = append(out, strings.TrimRight("    "+string(seg.Value(p.src)), " \t\r\n"))
		}
		return out
	case *ast.List:
		var out []string
		num := n.Start
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			mark := "• "
			if n.IsOrdered() {
				mark = fmt.Sprintf("%d%c ", num, n.Marker)
				num++
			}
			lines := p.blocks(item, max(10, w-ansi.StringWidth(mark)), n.IsTight)
			if len(lines) == 0 {
				lines = []string{""}
			}
			if len(out) > 0 && !n.IsTight {
				out = append(out, "")
			}
			out = append(out, indent(lines, mark)...)
		}
		return out
	case *ast.Blockquote:
		return indent(p.blocks(n, max(10, w-2), false), "  ")
	case *ast.ThematicBreak:
		return nil
	case *ast.HTMLBlock:
		var out []string
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			if l := strings.TrimSpace(htmlTag.ReplaceAllString(string(seg.Value(p.src)), "")); l != "" {
				out = append(out, l)
			}
		}
		return out
	case *east.Table:
		return p.table(n)
	case *east.DefinitionList:
		var out []string
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c.(type) {
			case *east.DefinitionTerm:
				out = append(out, wrap(p.inline(c), w)...)
			default:
				out = append(out, indent(p.blocks(c, max(10, w-4), true), "    ")...)
			}
		}
		return out
	}
	return p.blocks(n, w, false)
}

// table lays a table's rows out in columns, two blanks apart.
func (p *plainWriter) table(t *east.Table) []string {
	var rows [][]string
	var widths []int
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var row []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cell := strings.Join(strings.Fields(p.inline(c)), " ")
			if len(widths) <= len(row) {
				widths = append(widths, 0)
			}
			widths[len(row)] = max(widths[len(row)], ansi.StringWidth(cell))
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	out := make([]string, 0, len(rows))
	for _, row := range rows {
		var b strings.Builder
		for i, cell := range row {
			b.WriteString(cell)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-ansi.StringWidth(cell)+2))
			}
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return out
}

// inline is the text of n's inline children, without markup.
func (p *plainWriter) inline(n ast.Node) string {
	var b strings.Builder
	p.inlineTo(&b, n)
	return b.String()
}

func (p *plainWriter) inlineTo(b *strings.Builder, parent ast.Node) {
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Text:
			b.Write(unescape(n.Segment.Value(p.src)))
			switch {
			case n.HardLineBreak():
				b.WriteByte('\n')
			case n.SoftLineBreak():
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(n.Value)
		case *ast.CodeSpan:
			// Code is literal: a backslash in it is the code's.
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					b.Write(t.Segment.Value(p.src))
				}
			}
		case *ast.Link:
			b.WriteString(common.Link(p.inline(n), string(n.Destination)))
		case *ast.AutoLink:
			u := string(n.URL(p.src))
			if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(u, "mailto:") {
				u = "mailto:" + u
			}
			b.WriteString(common.Link(string(n.Label(p.src)), u))
		case *ast.RawHTML:
			// Inline tags are markup.
		case *east.TaskCheckBox:
			if n.IsChecked {
				b.WriteString("☑ ")
			} else {
				b.WriteString("☐ ")
			}
		default:
			p.inlineTo(b, n)
		}
	}
}

func unescape(v []byte) []byte {
	return util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
}

// wrap wraps s (which may hold hyperlinks) to w cells at spaces, words
// kept whole; each line closes the hyperlink it opens and the next opens
// it again, so that no link runs on into the lines after it.
func wrap(s string, w int) []string {
	if strings.IndexByte(s, 0x1b) < 0 {
		s = common.Wrap(s, w)
	} else {
		s = common.RestoreWords(lipgloss.Wrap(common.KeepWordsWhole(s), w, " "))
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// indent puts first before the first line and as many blanks before the
// others.
func indent(lines []string, first string) []string {
	pad := strings.Repeat(" ", ansi.StringWidth(first))
	out := make([]string, len(lines))
	for i, l := range lines {
		switch {
		case i == 0:
			out[i] = first + l
		case l == "":
			out[i] = ""
		default:
			out[i] = pad + l
		}
	}
	return out
}
