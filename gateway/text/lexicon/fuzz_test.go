package lexicon

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A data file's line, whatever it holds, parses or is an error: never a
// panic, and what parses has as many words and pointers as it counts.
func FuzzParseSynset(f *testing.F) {
	b, err := os.ReadFile(filepath.Join(fixtureWordNet, "data.verb"))
	if err != nil {
		f.Fatal(err)
	}
	for i, ln := range bytes.Split(b, []byte("\n")) {
		if i > 0 && i < 8 {
			f.Add(ln)
		}
	}
	f.Add([]byte("00000001 30 v 01 speak 0 001 + 99999999 n 0101 | x"))
	f.Fuzz(func(t *testing.T, line []byte) {
		s, err := parseSynset(line)
		if err != nil {
			return
		}
		for _, w := range s.words {
			if w == "" {
				t.Errorf("an empty word from %q", line)
			}
		}
		for _, p := range s.ptrs {
			if p.src > 0xff || p.tgt > 0xff || p.offset < 0 {
				t.Errorf("pointer %+v from %q", p, line)
			}
		}
	})
}
