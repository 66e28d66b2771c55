package lean

import (
	"strings"
	"testing"
)

// The words a leaning sentence opens on come from lean_start.txt whole,
// its comment read as no word.
func TestLeanStartWords(t *testing.T) {
	m := leanStart()
	if len(m) != 33 {
		t.Errorf("lean_start.txt holds %d words, want 33", len(m))
	}
	for _, w := range []string{"however", "this", "yet"} {
		if !m[w] {
			t.Errorf("%q is not a word a leaning sentence opens on", w)
		}
	}
	for _, w := range []string{"#", "words", "comment", "LeansBack)."} {
		if m[w] {
			t.Errorf("%q, from the file's comment, was read as a word", w)
		}
	}
}

// A sentence that opens by pointing back is quoted with the one before it
// or not at all: issue 23's "Nor does it measure …" and "As a result you
// may see false positives …".
func TestLeaningOpenings(t *testing.T) {
	for s, want := range map[string]bool{
		"Nor does it measure the size of code, data and BSS segments.":       true,
		"As a result you may see false positives reported in your function.": true,
		"For this reason the option is off by default.":                      true,
		"Neither tool reads the source.":                                     true,
		"That's where code coverage might help.":                             true,
		"It’s off by default.":                                               true,
		"Massif is a heap profiler.":                                         false,
		"For each block, Memcheck records the stack.":                        false,
		"We have looked in detail into fixing this, and the result is slow.": true,
		"This option makes zorb slow.":                                       true,
		"Set this option to make zorb slow.":                                 false,
		"For most Linux distributions this means that you rebuild zorb.":     true,
		"That is why zorb is slow.":                                          true,
	} {
		if got := LeansBack(strings.ToLower(s)); got != want {
			t.Errorf("LeansBack(%q) = %v, want %v", s, got, want)
		}
	}
}

// "Above" and "below" point elsewhere as places in the document ("cases
// 1 and 2 above.", "the example below"), not as places in other things
// ("a layer must exist above libffi", "below 1 MB") or bounds of a
// range ("-O2 and above").
func TestAboveAsAPlaceInOtherThings(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"This covers cases 1 and 2 above.", true},
		{"The example below shows how.", true},
		{"As shown above, the zorb works.", true},
		{"The above code frobs the zorb.", true},
		{"The syntax is as follows:", true},
		{"A layer must exist above libffi that handles type conversions.", false},
		{"Keep the zorb heap below 1 MB.", false},
		{"On rare occasions, compiler optimisations (at -O2 and above, and sometimes -O1) fool the zorb.", false},
		{"Zorb 3 or below is not supported.", false},
		{"See the zorbs listed above and below.", true},
	} {
		if got := PointsFar(c.s); got != c.want {
			t.Errorf("PointsFar(%q) = %v", c.s, got)
		}
	}
}

// Every expression patterns.txt holds compiles, under the name lean.go
// reads it by.
func TestPatterns(t *testing.T) {
	if !leansOnContext().MatchString("however, it fails") || !pointsElsewhere().MatchString("the example below") {
		t.Error("patterns.txt's expressions do not match as written")
	}
	defer func() {
		if recover() == nil {
			t.Error("a pattern patterns.txt lacks was not refused")
		}
	}()
	pattern("no_such_pattern")()
}
