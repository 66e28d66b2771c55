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
