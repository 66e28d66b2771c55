// Package markdown renders markdown for the TUI with glamour. Renderers
// are cached by width and style, and the output's trailing padding is
// stripped. Rendering is expensive: call Render from a tea.Cmd, never from
// Update or View.
package markdown

import (
	"fmt"
	"strings"
	"sync"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"

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
	out, err := tr.Render(common.KeepWordsWhole(md))
	if err != nil {
		return "", fmt.Errorf("render markdown: %w", err)
	}
	// Hyphens made non-breaking for the wrap (see KeepWordsWhole) come
	// back: glamour breaks lines at hyphens, which split URLs that fitted
	// on a line, and --leak-check into "-" and "-leak-check". A word longer
	// than the whole line is still cut at the line's end; a link's
	// hyperlink (OSC 8, which glamour adds) spans the pieces.
	out = strings.ReplaceAll(out, common.NonBreakingHyphen, "-")
	return strings.Trim(common.StripPadding(out), "\n"), nil
}
