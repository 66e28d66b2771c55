package doc

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"math"
	"reflect"
	"unsafe"

	"hark/gateway/text/lexicon"
)

// A page as research reads it (Page: passages, blocks, sentences and
// their terms) is worked out when the page is indexed and stored beside
// it (web.Config.Parse, set to Parse), so that a question reads it back
// rather than parsing the page's markdown again. A stored copy of
// another version, or of another layout of Page, is not read: the page
// is parsed as before. Research's TestStoredDocsReadAsParsed holds the
// two to the same reports.

// docVersion opens a stored copy: a change to how a page is parsed
// (page.go, markdown.go, plaintext.go, steps.go, terms.go) takes a new
// one, so that pages indexed before it are parsed again when read. A change to Page's fields needs none: their
// names and types are in the copy's header (docLayout). Version 2 ends
// each copy with its CRC-32C; version 3 holds the vocabulary it was read
// with (vocabulary); version 4 reads a whole sentence in parentheses as
// quotable (aside); version 5 reads a data table's rows (table.go);
// version 6 reads a list item closed by ";" as whole; version 7 reads a
// section's opening "This directive …" after its box of rows as naming
// the heading; version 8 hands a short table to the whole sentence
// introducing it on ":" (tableLead); version 9 reads a box of named
// values ("Default: | KeepAliveTimeout 5") row by row as statements
// (keyValueBox).
const docVersion = 9

var docCRC = crc32.MakeTable(crc32.Castagnoli)

// Parse is research's reading of a page, encoded for the index to
// store (web.Config.Parse): of its markdown when it has one, else of its
// text, as Cache reads a page.
func Parse(title, text, markdown string) []byte {
	var d *Page
	if markdown != "" {
		d = ReadMarkdown(markdown, title)
	} else {
		d = ReadText(text, title)
	}
	b, err := encode(d)
	if err != nil {
		return nil // a field of a kind encodeValue does not know: parsed when read
	}
	return b
}

// vocabulary is what the lexicon holds, as a number: its word families.
// A copy's terms were read with the lexicon of the process that indexed
// the page; one read before WordNet or the word lists were installed (or
// with other versions of them) would not meet a question read with
// today's, so it is parsed anew.
func vocabulary() uint64 { return uint64(lexicon.Default().Families()) }

// docLayout is a fingerprint of Page's fields, their names and types, all
// the way down.
var docLayout = func() uint32 {
	h := fnv.New32a()
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		fmt.Fprintf(h, "%s;", t.Kind())
		switch t.Kind() {
		case reflect.Slice:
			walk(t.Elem())
		case reflect.Struct:
			for i := 0; i < t.NumField(); i++ {
				fmt.Fprintf(h, "%s:", t.Field(i).Name)
				walk(t.Field(i).Type)
			}
		}
	}
	walk(reflect.TypeOf(Page{}))
	return h.Sum32()
}()

// encode is d as Parse stores it: the version, the layout's
// fingerprint, the vocabulary, the fields, and the CRC-32C of all of
// them.
func encode(d *Page) ([]byte, error) {
	b := binary.AppendUvarint(nil, docVersion)
	b = binary.AppendUvarint(b, uint64(docLayout))
	b = binary.AppendUvarint(b, vocabulary())
	b, err := encodeValue(b, reflect.ValueOf(d).Elem())
	if err != nil {
		return nil, err
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, docCRC)), nil
}

// encodeValue appends v: strings and slices by their length (a slice's
// plus one, 0 for nil), integers as varints, floats by their bits,
// structs field by field, unexported fields too.
func encodeValue(b []byte, v reflect.Value) ([]byte, error) {
	switch v.Kind() {
	case reflect.String:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		return append(b, v.String()...), nil
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1), nil
		}
		return append(b, 0), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(b, v.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return binary.AppendUvarint(b, v.Uint()), nil
	case reflect.Float32, reflect.Float64:
		return binary.AppendUvarint(b, math.Float64bits(v.Float())), nil
	case reflect.Slice:
		if v.IsNil() {
			return append(b, 0), nil
		}
		b = binary.AppendUvarint(b, uint64(v.Len())+1)
		var err error
		for i := 0; i < v.Len() && err == nil; i++ {
			b, err = encodeValue(b, v.Index(i))
		}
		return b, err
	case reflect.Struct:
		var err error
		for i := 0; i < v.NumField() && err == nil; i++ {
			b, err = encodeValue(b, v.Field(i))
		}
		return b, err
	}
	return nil, fmt.Errorf("research: a stored page cannot hold a %s", v.Type())
}

// Decode reads a copy Parse wrote, and ok false when stored is
// none, of another version or layout, or damaged: its checksum differs,
// or an index it holds points outside it.
func Decode(stored []byte) (d *Page, ok bool) {
	n := len(stored) - 4
	if n <= 0 || binary.LittleEndian.Uint32(stored[n:]) != crc32.Checksum(stored[:n], docCRC) {
		return nil, false
	}
	r := &docReader{b: stored[:n]}
	if r.uvarint() != docVersion || r.uvarint() != uint64(docLayout) || r.uvarint() != vocabulary() {
		return nil, false
	}
	d = &Page{}
	r.value(reflect.ValueOf(d).Elem())
	if r.bad || len(r.b) != 0 || !d.linked() {
		return nil, false
	}
	return d, true
}

// linked reports whether every index the page's blocks, passages and
// sentences hold points inside it, as a parse leaves them: a copy that
// passes its checksum and is still not a parse's (written by another
// build, say) is parsed anew rather than read out of range.
func (d *Page) linked() bool {
	in := func(i, n int) bool { return i >= 0 && i < n }
	none := func(i, n int) bool { return i == -1 || in(i, n) }
	all := func(ks []int, n int) bool {
		for _, k := range ks {
			if !in(k, n) {
				return false
			}
		}
		return true
	}
	nb, np, ns := len(d.Blocks), len(d.Passages), len(d.Sents)
	for _, b := range d.Blocks {
		if !in(b.Passage, np) || !none(b.List, nb) || !none(b.Desc, nb) || !none(b.LeadIn, ns) || !all(b.Sents, ns) {
			return false
		}
	}
	for _, p := range d.Passages {
		if !all(p.Sents, ns) {
			return false
		}
	}
	for i, s := range d.Sents {
		if !in(s.Block, nb) || !in(s.Passage, np) || !none(s.Dep, i) || !none(s.AfterList, i) {
			return false
		}
	}
	return true
}

type docReader struct {
	b   []byte
	bad bool
}

func (r *docReader) uvarint() uint64 { return readNumber(r, binary.Uvarint) }
func (r *docReader) varint() int64   { return readNumber(r, binary.Varint) }

// readNumber reads one number with decode (binary.Uvarint or Varint),
// and marks the copy bad when none is there.
func readNumber[T uint64 | int64](r *docReader, decode func([]byte) (T, int)) T {
	x, n := decode(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return x
}

// value reads into v, which may be an unexported field: it is set through
// its address.
func (r *docReader) value(v reflect.Value) {
	if r.bad {
		return
	}
	if !v.CanSet() {
		v = reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
	}
	switch v.Kind() {
	case reflect.String:
		n := r.uvarint()
		if r.bad || n > uint64(len(r.b)) {
			r.bad = true
			return
		}
		v.SetString(string(r.b[:n]))
		r.b = r.b[n:]
	case reflect.Bool:
		if len(r.b) == 0 || r.b[0] > 1 {
			r.bad = true
			return
		}
		v.SetBool(r.b[0] == 1)
		r.b = r.b[1:]
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x := r.varint()
		if v.OverflowInt(x) {
			r.bad = true
			return
		}
		v.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x := r.uvarint()
		if v.OverflowUint(x) {
			r.bad = true
			return
		}
		v.SetUint(x)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(math.Float64frombits(r.uvarint()))
	case reflect.Slice:
		n := r.uvarint()
		if n == 0 || r.bad {
			return // nil
		}
		n--
		if n > uint64(len(r.b)) { // every element takes a byte at least
			r.bad = true
			return
		}
		s := reflect.MakeSlice(v.Type(), int(n), int(n))
		for i := 0; i < int(n) && !r.bad; i++ {
			r.value(s.Index(i))
		}
		v.Set(s)
	case reflect.Struct:
		for i := 0; i < v.NumField() && !r.bad; i++ {
			r.value(v.Field(i))
		}
	default:
		r.bad = true
	}
}
