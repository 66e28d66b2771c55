// Package markdown renders markdown for the TUI with glamour. Renderers
// are cached by width and style, and the output's trailing padding is
// stripped. Rendering is expensive: call Render from a tea.Cmd, never from
// Update or View.
package markdown

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"sync"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"hark/api"
	"hark/ui/common"
)

// MaxWidth caps the wrap width so long lines stay readable on wide
// terminals (as glow does).
const MaxWidth = 120

// Renderer caches glamour renderers by width and style. It is safe for
// concurrent use by several commands.
type Renderer struct {
	mu    sync.Mutex
	cache map[key]*glamour.TermRenderer
}

type key struct {
	style string
	width int
}

// NewRenderer returns an empty cache.
func NewRenderer() *Renderer {
	return &Renderer{cache: map[key]*glamour.TermRenderer{}}
}

// Style picks glamour's standard style for the Styles.
func Style(s *common.Styles) string {
	switch {
	case s == nil || s.NoColor:
		return styles.NoTTYStyle
	case s.Dark:
		return styles.DarkStyle
	}
	return styles.LightStyle
}

// WrapWidth is min(MaxWidth, width), at least 20.
func WrapWidth(width int) int {
	return max(20, min(MaxWidth, width))
}

// Render renders md wrapped to WrapWidth(width) and strips the padding.
func (r *Renderer) Render(md, style string, width int) (string, error) {
	w := WrapWidth(width)
	r.mu.Lock()
	defer r.mu.Unlock() // a TermRenderer is not safe for concurrent use
	k := key{style, w}
	tr := r.cache[k]
	if tr == nil {
		var err error
		tr, err = glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(w))
		if err != nil {
			return "", fmt.Errorf("markdown renderer: %w", err)
		}
		r.cache[k] = tr
	}
	out, err := tr.Render(keepWordsWhole(md))
	if err != nil {
		return "", fmt.Errorf("render markdown: %w", err)
	}
	// The characters made non-breaking for the wrap come back: glamour
	// breaks lines at hyphens, and in list items at dots and commas too,
	// which split URLs that fitted on a line, and --leak-check into "-"
	// and "-leak-check". A word longer than the whole line is still cut
	// at the line's end; a link's hyperlink (OSC 8, which glamour adds)
	// spans the pieces.
	out = common.RestoreWords(out)
	return strings.Trim(common.StripPadding(out), "\n"), nil
}

// parser reads markdown as glamour does.
var parser = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.DefinitionList)).Parser()

// keepWordsWhole is md with the breaking characters inside its words
// swapped for stand-ins (common.KeepWordsWhole), except in code blocks,
// which glamour does not wrap and highlights by their real text, and in
// e-mail addresses, which markdown reads only in ASCII. A bare URL, which
// goldmark links only while it is ASCII, is written as the autolink
// <URL> it stands for, so it is still a hyperlink.
func keepWordsWhole(md string) string {
	src := []byte(md)
	type span struct {
		a, b int
		with string // what replaces src[a:b]; "" keeps it as it is
	}
	var spans []span
	cursor := 0 // where the last text ended: an autolink's label is after it
	ast.Walk(parser.Parse(text.NewReader(src)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Text:
			cursor = max(cursor, n.Segment.Stop)
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			lines := n.Lines()
			if lines.Len() == 0 {
				return ast.WalkSkipChildren, nil
			}
			a, b := lines.At(0).Start, lines.At(lines.Len()-1).Stop
			if f, ok := n.(*ast.FencedCodeBlock); ok && f.Info != nil {
				a = f.Info.Segment.Start // "c++" names a lexer
			}
			spans = append(spans, span{a: a, b: b})
			cursor = max(cursor, b)
			return ast.WalkSkipChildren, nil
		case *ast.Heading:
			// A heading's links read as their text: glamour writes a
			// link's URL after its text, and rustdoc's headings ("fn
			// try_from(value: U) -> Result<T, …>", each type a link)
			// read as URLs with words between. The page's links are
			// still listed (l).
			lines, linked := n.Lines(), false
			for i := range lines.Len() {
				seg := lines.At(i)
				if h := string(src[seg.Start:seg.Stop]); strings.Contains(h, "](") {
					if plain := api.QuoteText(h); plain != strings.Join(strings.Fields(h), " ") {
						spans = append(spans, span{a: seg.Start, b: seg.Stop, with: common.KeepWordsWhole(unescapeAmp(plain))})
						cursor, linked = max(cursor, seg.Stop), true
					}
				}
			}
			if linked {
				return ast.WalkSkipChildren, nil
			}
		case *ast.AutoLink:
			label := n.Label(src)
			i := bytes.Index(src[cursor:], label)
			if i < 0 {
				return ast.WalkSkipChildren, nil
			}
			a, b := cursor+i, cursor+i+len(label)
			cursor = b
			sp := span{a: a, b: b}
			if n.AutoLinkType == ast.AutoLinkURL && (a == 0 || src[a-1] != '<') && !bytes.ContainsAny(label, "<>") {
				sp.with = "<" + common.KeepWordsWhole(string(n.URL(src))) + ">"
			}
			spans = append(spans, sp)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	sort.Slice(spans, func(i, j int) bool { return spans[i].a < spans[j].a })
	var b strings.Builder
	b.Grow(len(md) + len(md)/8)
	at := 0
	for _, sp := range spans {
		if sp.a < at {
			continue
		}
		b.WriteString(common.KeepWordsWhole(unescapeAmp(md[at:sp.a])))
		if sp.with != "" {
			b.WriteString(sp.with)
		} else {
			b.WriteString(md[sp.a:sp.b])
		}
		at = sp.b
	}
	b.WriteString(common.KeepWordsWhole(unescapeAmp(md[at:])))
	return b.String()
}

// unescapeAmp takes the backslash from "\&" outside code spans, which
// glamour shows as written: extraction escapes an ampersand before a
// letter, and Rust's "&str" and "&mut" read "\&str" and "\&mut" in
// every page and report. One that would then read as an entity
// ("\&amp;", a literal "&amp;") keeps it.
func unescapeAmp(s string) string {
	if !strings.Contains(s, `\&`) {
		return s
	}
	var b strings.Builder
	code := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '`' {
			code = !code
		}
		if c == '\\' && !code && i+1 < len(s) && s[i+1] == '&' && !entityAt(s[i+1:]) {
			b.WriteByte('&')
			i++
			continue
		}
		b.WriteByte(c)
		if c == '\\' && i+1 < len(s) {
			b.WriteByte(s[i+1]) // an escaped character, "\\" among them
			i++
		}
	}
	return b.String()
}

// entityAt reports whether s opens with an HTML entity ("&amp;", "&#38;").
func entityAt(s string) bool {
	for i := 1; i < len(s) && i < 33; i++ {
		c := s[i]
		switch {
		case c == ';':
			return i > 1
		case c == '#' && i == 1, c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return false
}
