package research

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"math"
	"reflect"
	"unsafe"
)

// A page as research reads it (rdoc: passages, blocks, sentences and
// their terms) is worked out when the page is indexed and stored beside
// it (web.Config.Parse, set to ParsePage), so that a question reads it
// back rather than parsing the page's markdown again. A stored copy of
// another version, or of another layout of rdoc, is not read: the page
// is parsed as before. TestStoredDocsReadAsParsed holds the two to the
// same reports.

// docVersion opens a stored copy: a change to how a page is parsed
// (research_doc.go) takes a new one, so that pages indexed before it are
// parsed again when read. A change to rdoc's fields needs none: their
// names and types are in the copy's header (docLayout). Version 2 ends
// each copy with its CRC-32C.
const docVersion = 2

var docCRC = crc32.MakeTable(crc32.Castagnoli)

// ParsePage is research's reading of a page, encoded for the index to
// store: of its markdown when it has one, else of its text, as docCache
// reads a page.
func ParsePage(title, text, markdown string) []byte {
	var d *rdoc
	if markdown != "" {
		d = readMarkdownDoc(markdown, title)
	} else {
		d = readTextDoc(text, title)
	}
	b, err := encodeDoc(d)
	if err != nil {
		return nil // a field of a kind encodeValue does not know: parsed when read
	}
	return b
}

// docLayout is a fingerprint of rdoc's fields, their names and types, all
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
	walk(reflect.TypeOf(rdoc{}))
	return h.Sum32()
}()

func encodeDoc(d *rdoc) ([]byte, error) {
	b := binary.AppendUvarint(nil, docVersion)
	b = binary.AppendUvarint(b, uint64(docLayout))
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

// decodeDoc reads a copy encodeDoc wrote, and ok false when stored is
// none, of another version or layout, or damaged: its checksum differs,
// or an index it holds points outside it.
func decodeDoc(stored []byte) (d *rdoc, ok bool) {
	n := len(stored) - 4
	if n <= 0 || binary.LittleEndian.Uint32(stored[n:]) != crc32.Checksum(stored[:n], docCRC) {
		return nil, false
	}
	r := &docReader{b: stored[:n]}
	if r.uvarint() != docVersion || r.uvarint() != uint64(docLayout) {
		return nil, false
	}
	d = &rdoc{}
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
func (d *rdoc) linked() bool {
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
	nb, np, ns := len(d.blocks), len(d.passages), len(d.sents)
	for _, b := range d.blocks {
		if !in(b.passage, np) || !none(b.list, nb) || !none(b.desc, nb) || !none(b.leadIn, ns) || !all(b.sents, ns) {
			return false
		}
	}
	for _, p := range d.passages {
		if !all(p.sents, ns) {
			return false
		}
	}
	for i, s := range d.sents {
		if !in(s.block, nb) || !in(s.passage, np) || !none(s.dep, i) || !none(s.afterList, i) {
			return false
		}
	}
	return true
}

type docReader struct {
	b   []byte
	bad bool
}

func (r *docReader) uvarint() uint64 {
	x, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return x
}

func (r *docReader) varint() int64 {
	x, n := binary.Varint(r.b)
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
