package doc

import "testing"

// A whole sentence in parentheses ("(Note that there is not an exact
// equivalent …)") can be quoted: every sentence opening on "(" was
// unquotable, so the note that answers which type to use for a C char
// was in no report. A piece of a sentence opening on "(", or a pointer
// in parentheses, still is not.
func TestSentenceInParenthesesIsQuotable(t *testing.T) {
	d := ReadMarkdown("# Types\n\n## Primitive Types\n\n`ffi_type_schar`\n\n: The C signed char type. "+
		"(Note that there is not an exact equivalent to the C char type in libffi; ordinarily you should use ffi_type_schar or ffi_type_uchar.)\n", "Types")
	for s, ok := range map[string]bool{
		"(Note that there is not an exact equivalent to the C char type in libffi; ordinarily you should use ffi_type_schar or ffi_type_uchar.)": true,
	} {
		if got := d.Sents[sentAt(t, d, s)].OK; got != ok {
			t.Errorf("%q quotable %v, want %v", s, got, ok)
		}
	}
	for _, p := range []string{"(See the table of sizes below for the tool.)", "(which is the default) the tool runs.", "(a b c.)", "(Unbalanced (parentheses are here for the tool.)"} {
		if aside(p) {
			t.Errorf("%q read as a whole sentence in parentheses", p)
		}
	}
}

// A list item that is a whole sentence closed by ";", as a list of
// clauses closes its items ("Notice the data-cover attribute we added
// to the script tag loading the source of our library;"), can be
// quoted: the ";" made it a fragment, and the note that answers which
// attribute tells Blanket.js what to measure was in no report. An item
// that goes on from its lead-in in lower case still cannot stand alone.
func TestListItemClosedBySemicolonIsQuotable(t *testing.T) {
	d := ReadMarkdown("# Notes\n\nSome notes on the set-up follow here.\n\n"+
		"- Notice the `data-cover` attribute we added to the script tag loading the source of our library;\n"+
		"- The HTML test file must be served over HTTP for the adapter to be loaded.\n\n"+
		"You need:\n\n- a functional autotools system with make and autoconf;\n- a compiler.\n", "Notes")
	for s, ok := range map[string]bool{
		"Notice the data-cover attribute we added to the script tag loading the source of our library;": true,
		"a functional autotools system with make and autoconf;":                                         false,
	} {
		if got := d.Sents[sentAt(t, d, s)].OK; got != ok {
			t.Errorf("%q quotable %v, want %v", s, got, ok)
		}
	}
}
