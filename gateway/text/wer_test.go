package text

import "testing"

func TestWordErrorRate(t *testing.T) {
	for _, tc := range []struct {
		ref, hyp string
		want     float64
	}{
		{"Hello world.", "hello world", 0},
		{"Hello world.", "hello", 0.5},
		{"Hello world.", "yellow word here", 1.5},
		{"Don't stop.", "dont stop", 0.5},
		{"", "", 0},
		{"", "noise", 1},
	} {
		if got := WordErrorRate(tc.ref, tc.hyp); got != tc.want {
			t.Errorf("WordErrorRate(%q, %q) = %v, want %v", tc.ref, tc.hyp, got, tc.want)
		}
	}
}
