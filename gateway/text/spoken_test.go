package text

import (
	"slices"
	"strings"
	"testing"
)

func TestSpoken(t *testing.T) {
	got := Spoken("Hello there. How are you?Fine!  3.14 is pi;  ok\nNew line。中文！ end", 400)
	want := []string{"Hello there.", "How are you?Fine!", "3.14 is pi;", "ok", "New line。", "中文！", "end"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// The splitter's abbreviations hold for speech too: a voice does not
	// stop after "e.g." or "Dr.".
	got = Spoken("Use a flag, e.g. the -v one. Ask Dr. Smith.", 400)
	want = []string{"Use a flag, e.g. the -v one.", "Ask Dr. Smith."}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	long := strings.Repeat("word, another ", 60)
	pieces := Spoken(long, 400)
	if len(pieces) < 2 {
		t.Fatalf("%d runes in %d piece", len(long), len(pieces))
	}
	for i, s := range pieces {
		if n := len([]rune(s)); n > 400 {
			t.Errorf("piece of %d runes", n)
		}
		if i < len(pieces)-1 && s[len(s)-1] != ',' {
			t.Errorf("piece %q not cut at a comma", s[len(s)-10:])
		}
	}
	if got := strings.Join(pieces, " "); got != strings.TrimSpace(long) {
		t.Errorf("pieces lost text: %q", got)
	}
	// No comma: the cut is at a space, and a word with no space is cut at
	// the limit.
	for _, s := range Spoken(strings.Repeat("abcdefg ", 100), 50) {
		if n := len([]rune(s)); n > 50 || strings.HasSuffix(s, "abc") {
			t.Errorf("piece %q (%d runes)", s, n)
		}
	}
	if got := Spoken(strings.Repeat("x", 120), 50); len(got) != 3 || len(got[0]) != 50 {
		t.Errorf("a 120-rune word cut into %q", got)
	}
	if got := Spoken("   \n  ", 400); len(got) != 0 {
		t.Errorf("blank text gave %q", got)
	}
}
