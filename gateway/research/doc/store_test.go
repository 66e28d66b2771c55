package doc

import (
	"encoding/binary"
	"hash/crc32"
	"reflect"
	"testing"
)

// A stored copy of another version, layout or vocabulary, with a bit
// flipped, or whose indexes point outside it (damage the decoder cannot
// see) is not read.
func TestDamagedCopyIsNotRead(t *testing.T) {
	t.Parallel()
	enc := Parse("Memcheck", "Memcheck finds leaks.", "")
	if _, ok := Decode(enc); !ok {
		t.Fatal("a parse is not read")
	}
	// The header (version, layout, vocabulary) written otherwise, the
	// checksum made good.
	header := func(version, layout, vocab uint64) []byte {
		rest := enc[:len(enc)-4]
		for range 3 {
			_, n := binary.Uvarint(rest)
			rest = rest[n:]
		}
		b := binary.AppendUvarint(nil, version)
		b = binary.AppendUvarint(b, layout)
		b = append(binary.AppendUvarint(b, vocab), rest...)
		return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, docCRC))
	}
	if _, ok := Decode(header(docVersion, uint64(docLayout), vocabulary())); !ok {
		t.Fatal("the header rewritten as it was is not read")
	}
	if _, ok := Decode(header(docVersion+1, uint64(docLayout), vocabulary())); ok {
		t.Fatal("a parse of another version is read")
	}
	if _, ok := Decode(header(docVersion, uint64(docLayout)+1, vocabulary())); ok {
		t.Fatal("a parse of another layout is read")
	}
	if _, ok := Decode(header(docVersion, uint64(docLayout), vocabulary()+1)); ok {
		t.Fatal("a parse read with another vocabulary (WordNet installed since, say) is read")
	}
	flipped := append([]byte(nil), enc...)
	flipped[len(flipped)/2] ^= 1
	if _, ok := Decode(flipped); ok {
		t.Fatal("a parse with a bit flipped is read")
	}
	if _, ok := Decode(enc[:len(enc)-1]); ok {
		t.Fatal("a parse cut short is read")
	}
	for name, damage := range map[string]func(d *Page){
		"a sentence's block":                func(d *Page) { d.Sents[0].Block = len(d.Blocks) },
		"a sentence leaning on a later one": func(d *Page) { d.Sents[0].Dep = 0 },
		"a block's passage":                 func(d *Page) { d.Blocks[0].Passage = -1 },
		"a passage's sentence":              func(d *Page) { d.Passages[0].Sents = append(d.Passages[0].Sents, len(d.Sents)) },
	} {
		d, _ := Decode(enc)
		damage(d)
		b, err := encode(d)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := Decode(b); ok {
			t.Fatalf("a copy with %s out of range is read", name)
		}
	}
}

// FuzzStoredDoc reads any bytes as a page's stored parse (the index's
// parsed column, which a damaged database or another build may hold): no
// panic, and a copy Decode accepts points only inside itself and
// re-encodes to a copy that reads back the same. (Research's
// FuzzReadAndQuote quotes what a parse holds.)
func FuzzStoredDoc(f *testing.F) {
	for _, page := range []string{
		"# Zorbgrind\n\n- **Interactive dumping.** Use\n\n      zorbctl -d [hint]\n\n  to request a dump of the running program.\n",
		"# Options\n\n**--zorb=<yes|no>**\n\nThe zorb engine frobs widgets. This makes them shine.\n\n1. Configure it:\n\n       ./configure\n\n2. Build it.\n",
	} {
		f.Add(Parse("Fuzzed page", "", page))
	}
	f.Fuzz(func(t *testing.T, stored []byte) {
		d, ok := Decode(stored)
		if !ok {
			return
		}
		if !d.linked() {
			t.Fatal("a decoded copy points outside itself")
		}
		again, err := encode(d)
		if err != nil {
			t.Fatalf("a decoded copy does not encode: %v", err)
		}
		if d2, ok := Decode(again); !ok || !reflect.DeepEqual(d, d2) {
			t.Fatalf("a decoded copy re-encoded reads back otherwise")
		}
	})
}
