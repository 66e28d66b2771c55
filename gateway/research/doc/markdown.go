package doc

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	gmtext "github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"hark/gateway/text"
)

// ReadMarkdown reads the extractor's markdown.
func ReadMarkdown(md, title string) *Page {
	src := []byte(md)
	root := text.Markdown().Parser().Parse(gmtext.NewReader(src))
	b := newDocBuilder(title)
	b.blocks(root, src, 0)
	notesInSteps(b.d)
	return b.d
}

func (b *docBuilder) blocks(n ast.Node, src []byte, depth int) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Heading:
			b.heading(c.Level, inlineText(c, src))
		case *ast.Paragraph, *ast.TextBlock:
			t := inlineText(c, src)
			if termParagraph(c, src) {
				b.termLine(t)
			} else {
				b.links = allLinks(c, src)
				b.para(t)
				b.links = false
			}
		case *ast.List:
			b.listBlocks(c, src, depth+1)
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			b.code(codeLines(c, src))
		case *ast.Blockquote:
			b.blocks(c, src, depth)
		case *extast.Table:
			b.table(tableCells(c, src))
		default:
			b.lastSent, b.prevKind = -1, 3 // rules, raw HTML: not quoted
		}
	}
}

func (b *docBuilder) listBlocks(l *ast.List, src []byte, depth int) {
	first := -2
	defer func() {
		// Its items know the list is numbered: a how-to question's
		// answer in one step is the whole procedure.
		if first >= 0 && l.IsOrdered() {
			for bi := first; bi < len(b.d.Blocks); bi++ {
				if blk := &b.d.Blocks[bi]; blk.Kind == ListItem && blk.List == first {
					blk.Ordered = true
				}
			}
		}
	}()
	for li := l.FirstChild(); li != nil; li = li.NextSibling() {
		opened := false
		for c := li.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Paragraph, *ast.TextBlock:
				t := inlineText(c, src)
				if opened {
					// An item's later paragraphs read as the item's.
					b.cont = true
					b.block(ListItem, t, depth, first)
					b.cont = false
					continue
				}
				n := len(b.d.Blocks)
				b.links = allLinks(c, src)
				b.block(ListItem, t, depth, first)
				b.links = false
				if first == -2 && len(b.d.Blocks) > n {
					first = n
				}
				opened = true
			case *ast.List:
				b.listBlocks(c, src, depth+1)
			case *ast.FencedCodeBlock, *ast.CodeBlock:
				b.code(codeLines(c, src))
			default:
				b.blocks(c, src, depth)
			}
		}
	}
	b.prevKind = 2
}

// allLinks reports whether a paragraph is links and little else: an
// entry of a table of contents ("3.4. I tried running a Java program").
func allLinks(p ast.Node, src []byte) bool {
	var all, linked int
	var walk func(n ast.Node, in bool)
	walk = func(n ast.Node, in bool) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				n := len(strings.TrimSpace(string(t.Segment.Value(src))))
				all += n
				if in {
					linked += n
				}
				continue
			}
			_, isLink := c.(*ast.Link)
			walk(c, in || isLink)
		}
	}
	walk(p, false)
	return linked > 0 && linked*10 >= all*8
}

// termParagraph reports whether p is a definition-list term as the
// extractor writes one: one line, all of it bold.
func termParagraph(p ast.Node, src []byte) bool {
	lines := p.Lines()
	if lines.Len() != 1 {
		return false
	}
	seg := lines.At(0)
	l := strings.TrimSpace(string(seg.Value(src)))
	if len(l) <= 4 || !strings.HasPrefix(l, "**") || !strings.HasSuffix(l, "**") {
		return false
	}
	// A paragraph set in bold as the article's lead ("**So finally
	// you're testing your frontend JavaScript code? Great! …**") is
	// prose, not a term its next paragraphs describe: a term is a name
	// or an option, never two sentences.
	// But a bold question is a question a FAQ answers under it ("**3.4.**
	// **I tried running a Java program … Does Valgrind handle such
	// programs?**"), however many sentences it takes to ask, and so is
	// what a FAQ numbers, asked or told ("**4.1.** **My program uses the
	// C++ STL and string classes. Valgrind reports 'still reachable'
	// memory leaks … but there should be none.**").
	plain := strings.TrimSpace(strings.Trim(l, "*"))
	return len(text.Sentences(plain)) < 2 || strings.HasSuffix(plain, "?") || faqNumber().MatchString(l)
}

// faqNumber opens a bold paragraph that a FAQ numbers: "**4.1.** **".
var faqNumber = text.LazyRegexp(`^\*\*\d+(?:\.\d+)+\.?\*\*\s+\*\*`)

func codeLines(n ast.Node, src []byte) []string {
	var out []string
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		out = append(out, strings.TrimRight(string(seg.Value(src)), "\n"))
	}
	return out
}

// inlineText is n's inline content as marked text: emphasis and link
// markup gone, escapes resolved, inline code between text.CodeOpen and
// text.CodeClose, a hard line break kept as "\n".
func inlineText(n ast.Node, src []byte) string {
	var sb strings.Builder
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				v := c.Segment.Value(src)
				if !c.IsRaw() {
					v = util.UnescapePunctuations(v)
				}
				sb.WriteString(strings.Map(dropMarks, string(v)))
				if c.HardLineBreak() {
					sb.WriteByte('\n')
				} else if c.SoftLineBreak() {
					sb.WriteByte(' ')
				}
			case *ast.String:
				sb.WriteString(strings.Map(dropMarks, string(c.Value)))
			case *ast.CodeSpan:
				var code strings.Builder
				for t := c.FirstChild(); t != nil; t = t.NextSibling() {
					if tx, ok := t.(*ast.Text); ok {
						code.Write(tx.Segment.Value(src))
					}
				}
				if s := strings.Join(strings.Fields(strings.Map(dropMarks, code.String())), " "); s != "" {
					sb.WriteRune(text.CodeOpen)
					sb.WriteString(s)
					sb.WriteRune(text.CodeClose)
				}
			case *ast.Image, *ast.RawHTML:
			case *ast.AutoLink:
				sb.Write(c.URL(src))
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return sb.String()
}

func dropMarks(r rune) rune {
	if r == text.CodeOpen || r == text.CodeClose {
		return -1
	}
	return r
}
