package lexicon

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "write testdata/wordnet anew from the WordNet in "+WordNetDir)

// fixtureLemmas are the lemmas testdata/wordnet keeps, with every
// synset they are in and the synsets those point to by "+" and "=".
var fixtureLemmas = []string{
	"speak", "speech", "child", "convert", "conversion", "colour", "color", "licence", "license",
	"high", "height", "browser", "browse", "die", "death", "noise", "noisy", "saw", "see", "index",
}

// TestWriteFixture writes testdata/wordnet: a WordNet of a few lemmas
// cut from the real one, in its file format, offsets rewritten to the
// bytes they stand at (go test -run TestWriteFixture -update).
func TestWriteFixture(t *testing.T) {
	if !*update {
		t.Skip("writes the fixture only with -update")
	}
	type key struct {
		pos POS
		off string
	}
	lines := map[key]string{}
	var order []key
	read := func(pos POS, off string) string {
		f, err := os.Open(filepath.Join(WordNetDir, "data."+pos.String()))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		o, err := strconv.ParseInt(off, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 16384)
		n, _ := f.ReadAt(buf, o)
		ln := string(buf[:n])
		ln = ln[:strings.IndexByte(ln, '\n')]
		return ln
	}
	keep := func(pos POS, off string) {
		k := key{pos, off}
		if _, ok := lines[k]; ok {
			return
		}
		ln := read(pos, off)
		lines[k] = ln
		order = append(order, k)
	}
	idxLines := [4]map[string][]string{{}, {}, {}, {}}
	for pos := Noun; pos <= Adv; pos++ {
		b, err := os.ReadFile(filepath.Join(WordNetDir, "index."+pos.String()))
		if err != nil {
			t.Fatal(err)
		}
		for _, ln := range strings.Split(string(b), "\n") {
			f := strings.Fields(ln)
			if len(f) > 0 && !strings.HasPrefix(ln, "  ") {
				idxLines[pos][f[0]] = f
			}
		}
		for _, l := range fixtureLemmas {
			f := idxLines[pos][l]
			if f == nil {
				continue
			}
			pc, _ := strconv.Atoi(f[3])
			for _, off := range f[6+pc:] {
				keep(pos, off)
			}
		}
	}
	// One step out: what the kept synsets point to by "+" or "=".
	for _, k := range slices.Clone(order) {
		s, err := parseSynset([]byte(lines[k]))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range s.ptrs {
			if p.symbol == "+" || p.symbol == "=" {
				keep(p.pos, fmt.Sprintf("%08d", p.offset))
			}
		}
	}
	// Drop the pointers to synsets not kept, then lay the files out.
	header := "  1 This is a fixture cut from WordNet 3.0 (Princeton University), whose licence is in /usr/share/doc/wordnet-base.\n"
	newOff := map[key]string{}
	text := map[key]string{}
	size := [4]int{len(header), len(header), len(header), len(header)}
	sort.SliceStable(order, func(i, j int) bool { return order[i].off < order[j].off })
	for _, k := range order {
		body, gloss, _ := strings.Cut(lines[k], "|")
		f := strings.Fields(body)
		var wc int
		fmt.Sscanf(f[3], "%x", &wc)
		at := 4 + 2*wc
		pc, _ := strconv.Atoi(f[at])
		var ptrs []string
		for i := range pc {
			p := f[at+1+4*i : at+5+4*i]
			pos, _ := posOf(p[2][0])
			if _, ok := lines[key{pos, p[1]}]; ok {
				ptrs = append(ptrs, strings.Join(p, " "))
			}
		}
		rest := f[at+1+4*pc:]
		out := strings.Join(f[:at], " ") + fmt.Sprintf(" %03d", len(ptrs))
		if len(ptrs) > 0 {
			out += " " + strings.Join(ptrs, " ")
		}
		if len(rest) > 0 {
			out += " " + strings.Join(rest, " ")
		}
		out += " |" + gloss + "\n"
		pos := k.pos
		newOff[k] = fmt.Sprintf("%08d", size[pos])
		text[k] = out
		size[pos] += len(out)
	}
	var data [4]strings.Builder
	for pos := range data {
		data[pos].WriteString(header)
	}
	for _, k := range order {
		f := strings.SplitN(text[k], " ", 2)
		ln := newOff[k] + " " + f[1]
		// Rewrite the pointers' offsets, as wide as before.
		parts := strings.Split(ln, " ")
		for i := 1; i+2 < len(parts); i++ {
			if len(parts[i]) == 8 && len(parts[i+1]) == 1 && strings.Contains("nvasr", parts[i+1]) {
				pos, _ := posOf(parts[i+1][0])
				if n, ok := newOff[key{pos, parts[i]}]; ok {
					parts[i] = n
				}
			}
		}
		data[k.pos].WriteString(strings.Join(parts, " "))
	}
	dir := filepath.Join("testdata", "wordnet")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for pos := Noun; pos <= Adv; pos++ {
		if err := os.WriteFile(filepath.Join(dir, "data."+pos.String()), []byte(data[pos].String()), 0o644); err != nil {
			t.Fatal(err)
		}
		// The index: every lemma of a kept synset, with its kept synsets
		// in the order of its senses.
		var idx []string
		lemmas := map[string]bool{}
		for _, k := range order {
			if k.pos != pos {
				continue
			}
			s, _ := parseSynset([]byte(lines[k]))
			for _, w := range s.words {
				lemmas[w] = true
			}
		}
		for l := range lemmas {
			f := idxLines[pos][l]
			if f == nil {
				continue
			}
			pc, _ := strconv.Atoi(f[3])
			var offs []string
			for _, off := range f[6+pc:] {
				if n, ok := newOff[key{pos, off}]; ok {
					offs = append(offs, n)
				}
			}
			if len(offs) == 0 {
				continue
			}
			ln := append([]string{f[0], f[1], fmt.Sprint(len(offs))}, f[3:4+pc]...)
			ln = append(ln, fmt.Sprint(len(offs)), "0")
			idx = append(idx, strings.Join(append(ln, offs...), " ")+"  \n")
		}
		sort.Strings(idx)
		if err := os.WriteFile(filepath.Join(dir, "index."+pos.String()), []byte(header+strings.Join(idx, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		// The exception lists: the forms of the lemmas kept.
		b, err := os.ReadFile(filepath.Join(WordNetDir, pos.String()+".exc"))
		if err != nil {
			t.Fatal(err)
		}
		var exc []string
		for _, ln := range strings.Split(string(b), "\n") {
			if f := strings.Fields(ln); len(f) >= 2 && (slices.Contains(fixtureLemmas, f[1]) || slices.Contains(fixtureLemmas, f[0])) {
				exc = append(exc, ln+"\n")
			}
		}
		if err := os.WriteFile(filepath.Join(dir, pos.String()+".exc"), []byte(strings.Join(exc, "")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
