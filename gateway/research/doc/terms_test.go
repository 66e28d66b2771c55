package doc

import "testing"

// Words that only look like a key chord are left as written.
func TestKeyChordsLeaveOtherWords(t *testing.T) {
	t.Parallel()
	if got := keyChords("a controller-based build"); got != "a controller-based build" {
		t.Errorf("not a chord, changed: %q", got)
	}
	if got := keyChords("press Ctrl+C"); got != "press Ctrl+C CtrlC" {
		t.Errorf("a chord: %q", got)
	}
}
