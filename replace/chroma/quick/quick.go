// Package quick forwards chroma v2's one-call highlighter to chroma
// v0.10.0's; see the module's root package for why.
package quick

import (
	"io"

	q "github.com/alecthomas/chroma/quick"
)

// Highlight writes source highlighted as the named lexer (guessed from the
// source when unknown), formatter and style.
func Highlight(w io.Writer, source, lexer, formatter, style string) error {
	return q.Highlight(w, source, lexer, formatter, style)
}
