package research

import (
	"testing"

	"hark/gateway/text"
)

// Code spans that touch in marked text are written as one span: a link
// dropped from between them left the two spans' backticks side by side,
// which markdown reads as one longer fence, showing the backticks.
func TestRenderMarkedJoinsTouchingCodeSpans(t *testing.T) {
	c, o := string(text.CodeClose), string(text.CodeOpen)
	in := "use " + o + "syn::parse_str" + c + o + "::<Ident>" + c + " rather than " + o + "Ident::new" + c + "."
	if got, want := renderMarked(in), "use `syn::parse_str::<Ident>` rather than `Ident::new`."; got != want {
		t.Errorf("renderMarked = %q, want %q", got, want)
	}
}
