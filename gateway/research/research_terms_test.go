package research

import (
	"reflect"
	"slices"
	"testing"
)

// Research's terms meet a word by its irregular forms ("speak" in a
// question, flite_file_to_speech in code).
func TestTermsMeetNamesAndWordForms(t *testing.T) {
	code := terms("const cipher = createCipheriv(algorithm, key, iv); flite_file_to_speech(argv[1])")
	for _, q := range []string{"speak a file", "spoken"} {
		for _, w := range terms(q) {
			if !slices.Contains(code, w) {
				t.Errorf("%q: term %q is not among %q", q, w, code)
			}
		}
	}
	if a, b := terms("the children lose"), terms("each child's loss"); !reflect.DeepEqual(a, []string{"child", "lose"}) || !slices.Contains(b, "child") || !slices.Contains(b, "lose") {
		t.Errorf("families: %q, %q", a, b)
	}
}
