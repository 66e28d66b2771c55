package lexicon

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// POS is a WordNet part of speech.
type POS int

const (
	Noun POS = iota
	Verb
	Adj
	Adv
)

var posNames = [...]string{"noun", "verb", "adj", "adv"}

func (p POS) String() string { return posNames[p] }

// posOf is the part of speech of a data file's ss_type ('s' is a
// satellite adjective, kept in data.adj).
func posOf(c byte) (POS, bool) {
	switch c {
	case 'n':
		return Noun, true
	case 'v':
		return Verb, true
	case 'a', 's':
		return Adj, true
	case 'r':
		return Adv, true
	}
	return 0, false
}

// WordNet reads WordNet 3.0's database files (wndb(5WN)): index.POS
// (lemma to synset offsets, sorted, so looked up by binary search),
// data.POS (a synset at the byte offset that names it, read where it
// lies) and POS.exc (the irregular forms). Only the index and the
// exception lists are held in memory; a synset is read from its file
// when asked for. Safe for concurrent use.
type WordNet struct {
	dir   string
	index [4][]byte  // index.POS, licence header cut
	lines [4][]int32 // where each index line starts
	data  [4]*os.File
	exc   [4]map[string][]string
}

// OpenWordNet opens the database in dir (Debian's wordnet-base puts it
// in /usr/share/wordnet). A missing file is an error naming it.
func OpenWordNet(dir string) (*WordNet, error) {
	w := &WordNet{dir: dir}
	for p := Noun; p <= Adv; p++ {
		idx, err := os.ReadFile(filepath.Join(dir, "index."+p.String()))
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("wordnet: %w", err)
		}
		// The licence opens each file, its lines indented by two spaces.
		for bytes.HasPrefix(idx, []byte("  ")) {
			i := bytes.IndexByte(idx, '\n')
			if i < 0 {
				idx = nil
				break
			}
			idx = idx[i+1:]
		}
		w.index[p] = idx
		n := bytes.Count(idx, []byte{'\n'})
		lines := make([]int32, 0, n+1)
		for i := 0; i < len(idx); {
			lines = append(lines, int32(i))
			j := bytes.IndexByte(idx[i:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
		}
		w.lines[p] = lines
		if w.data[p], err = os.Open(filepath.Join(dir, "data."+p.String())); err != nil {
			w.Close()
			return nil, fmt.Errorf("wordnet: %w", err)
		}
		exc, err := os.ReadFile(filepath.Join(dir, p.String()+".exc"))
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("wordnet: %w", err)
		}
		w.exc[p] = map[string][]string{}
		for _, ln := range strings.Split(string(exc), "\n") {
			if f := strings.Fields(ln); len(f) >= 2 {
				w.exc[p][f[0]] = f[1:]
			}
		}
	}
	return w, nil
}

// Close closes the data files.
func (w *WordNet) Close() error {
	var errs []error
	for _, f := range w.data {
		if f != nil {
			errs = append(errs, f.Close())
		}
	}
	return errors.Join(errs...)
}

// key is a word as WordNet writes its lemmas: lower case, spaces as
// underscores.
func key(word string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(word)), " ", "_")
}

// find is the index line of lemma as pos, or -1.
func (w *WordNet) find(lemma string, pos POS) int {
	idx, lines := w.index[pos], w.lines[pos]
	i := sort.Search(len(lines), func(i int) bool {
		return string(lemmaAt(idx, lines[i])) >= lemma
	})
	if i == len(lines) || string(lemmaAt(idx, lines[i])) != lemma {
		return -1
	}
	return i
}

// offsets are the synsets of lemma as pos, most frequent sense first;
// nil when the index has no such lemma.
func (w *WordNet) offsets(lemma string, pos POS) []int64 {
	i := w.find(lemma, pos)
	if i < 0 {
		return nil
	}
	idx, lines := w.index[pos], w.lines[pos]
	end := bytes.IndexByte(idx[lines[i]:], '\n')
	if end < 0 {
		end = len(idx) - int(lines[i])
	}
	// lemma pos synset_cnt p_cnt [ptr_symbol…] sense_cnt tagsense_cnt synset_offset…
	f := strings.Fields(string(idx[lines[i] : int(lines[i])+end]))
	if len(f) < 4 {
		return nil
	}
	pcnt, err := strconv.Atoi(f[3])
	if err != nil || pcnt < 0 || len(f) < 6+pcnt {
		return nil
	}
	var out []int64
	for _, s := range f[6+pcnt:] {
		if o, err := strconv.ParseInt(s, 10, 64); err == nil {
			out = append(out, o)
		}
	}
	return out
}

func lemmaAt(idx []byte, at int32) []byte {
	s := idx[at:]
	if i := bytes.IndexByte(s, ' '); i >= 0 {
		return s[:i]
	}
	return s
}

// tagged is the number of lemma's senses as pos that WordNet's tagged
// corpus attests (the index's tagsense_cnt), 0 when it is no lemma.
func (w *WordNet) tagged(lemma string, pos POS) int {
	i := w.find(key(lemma), pos)
	if i < 0 {
		return 0
	}
	idx, lines := w.index[pos], w.lines[pos]
	end := bytes.IndexByte(idx[lines[i]:], '\n')
	if end < 0 {
		end = len(idx) - int(lines[i])
	}
	f := strings.Fields(string(idx[lines[i] : int(lines[i])+end]))
	if len(f) < 6 {
		return 0
	}
	pcnt, err := strconv.Atoi(f[3])
	if err != nil || pcnt < 0 || len(f) < 6+pcnt {
		return 0
	}
	n, _ := strconv.Atoi(f[5+pcnt])
	return n
}

// Has reports whether lemma is in the index as pos.
func (w *WordNet) Has(lemma string, pos POS) bool { return w.find(key(lemma), pos) >= 0 }

// synset is one line of a data file, as much of it as is used.
type synset struct {
	pos     POS
	lexFile int      // the lexicographer file: 4 is noun.act, 18 noun.person …
	words   []string // lemmas, lower case, "_" for spaces, markers like "(a)" cut
	ptrs    []pointer
}

type pointer struct {
	symbol   string
	offset   int64
	pos      POS
	src, tgt int // word numbers from 1; 0 for a pointer between synsets
}

// synsetAt reads the synset of pos at offset.
func (w *WordNet) synsetAt(pos POS, offset int64) (synset, error) {
	buf := make([]byte, 4096)
	var line []byte
	for {
		n, err := w.data[pos].ReadAt(buf[len(line):cap(buf)], offset+int64(len(line)))
		line = buf[:len(line)+n]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
			break
		}
		if err != nil {
			break
		}
		buf = slices.Grow(line, len(line))
	}
	return parseSynset(line)
}

// parseSynset reads a data file's line: synset_offset lex_filenum
// ss_type w_cnt word lex_id [word lex_id…] p_cnt [ptr…] … | gloss.
func parseSynset(line []byte) (synset, error) {
	if i := bytes.IndexByte(line, '|'); i >= 0 {
		line = line[:i]
	}
	f := fields{b: line}
	bad := func(what string) (synset, error) {
		return synset{}, fmt.Errorf("wordnet: bad synset line (%s): %.60q", what, line)
	}
	var s synset
	f.next() // synset_offset
	lex, ok1 := number(f.next(), 10)
	ss := f.next()
	wcnt, ok2 := number(f.next(), 16)
	// w_cnt is two hex digits, p_cnt three decimal ones (wndb(5WN)):
	// nothing larger is allocated for.
	if !ok1 || !ok2 || len(ss) != 1 || wcnt > 0xff {
		return bad("header")
	}
	var ok bool
	if s.pos, ok = posOf(ss[0]); !ok {
		return bad("ss_type")
	}
	s.lexFile = int(lex)
	s.words = make([]string, 0, wcnt)
	for range wcnt {
		wd := f.next()
		if f.next() == nil {
			return bad("w_cnt")
		}
		if j := bytes.IndexByte(wd, '('); j > 0 {
			wd = wd[:j]
		}
		s.words = append(s.words, string(bytes.ToLower(wd)))
	}
	pcnt, ok := number(f.next(), 10)
	if !ok || pcnt > 999 {
		return bad("p_cnt")
	}
	s.ptrs = make([]pointer, 0, pcnt)
	for range pcnt {
		sym, off, pos, st := f.next(), f.next(), f.next(), f.next()
		o, ok1 := number(off, 10)
		st16, ok2 := number(st, 16)
		if !ok1 || !ok2 || st16 > 0xffff || len(pos) != 1 || len(sym) == 0 {
			return bad("pointer")
		}
		p, ok := posOf(pos[0])
		if !ok {
			return bad("pointer")
		}
		s.ptrs = append(s.ptrs, pointer{symbol: symbol(sym), offset: o, pos: p, src: int(st16 >> 8), tgt: int(st16 & 0xff)})
	}
	return s, nil
}

// symbol is a pointer symbol as a string, without allocating for the
// ones this package reads.
func symbol(b []byte) string {
	switch string(b) {
	case "+":
		return "+"
	case "=":
		return "="
	}
	return string(b)
}

// fields reads a line's fields, separated by spaces.
type fields struct{ b []byte }

// next is the next field, or nil at the end.
func (f *fields) next() []byte {
	for len(f.b) > 0 && f.b[0] == ' ' {
		f.b = f.b[1:]
	}
	if len(f.b) == 0 {
		return nil
	}
	i := bytes.IndexByte(f.b, ' ')
	if i < 0 {
		i = len(f.b)
	}
	w := f.b[:i]
	f.b = f.b[i:]
	return w
}

// number reads b as a number in base (10 or 16), and false for
// anything else or nothing.
func number(b []byte, base int64) (int64, bool) {
	if len(b) == 0 || len(b) > 12 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		var d int64
		switch {
		case '0' <= c && c <= '9':
			d = int64(c - '0')
		case base == 16 && 'a' <= c && c <= 'f':
			d = int64(c-'a') + 10
		default:
			return 0, false
		}
		n = n*base + d
	}
	return n, true
}

// BaseForms are the lemmas WordNet knows word by as pos: the word
// itself when the index has it, the base forms its exception list gives
// an irregular form ("spoke" → "speak", "children" → "child"), and the
// forms WordNet's morphy finds by taking off a regular ending
// ("conversions" → "conversion").
func (w *WordNet) BaseForms(word string, pos POS) []string {
	word = key(word)
	var out []string
	add := func(l string) {
		if !slices.Contains(out, l) && w.Has(l, pos) {
			out = append(out, l)
		}
	}
	add(word)
	for _, b := range w.exc[pos][word] {
		add(b)
	}
	for _, r := range detachments[pos] {
		if strings.HasSuffix(word, r[0]) && len(word) > len(r[0]) {
			add(word[:len(word)-len(r[0])] + r[1])
		}
	}
	return out
}

// Irregular is the base form the exception list of pos gives the
// irregular form word ("spoke" → "speak"), and false when it gives none.
func (w *WordNet) Irregular(word string, pos POS) (string, bool) {
	b := w.exc[pos][key(word)]
	if len(b) == 0 {
		return "", false
	}
	return b[0], true
}

// detachments are morphy's rules of detachment (morphy(7WN)): an ending
// and what takes its place.
var detachments = [4][][2]string{
	Noun: {{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}},
	Verb: {{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}},
	Adj:  {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
}

// Synonyms are the other lemmas of the synsets of word's first senses
// (senses per part of speech, most frequent first), each once, in the
// order met: "speak" gives "talk", "utter", "mouth", "verbalize" ….
// Multi-word lemmas are written with spaces.
func (w *WordNet) Synonyms(word string, senses int) []string {
	var out []string
	seen := map[string]bool{key(word): true}
	for pos := Noun; pos <= Adv; pos++ {
		for _, l := range w.BaseForms(word, pos) {
			seen[l] = true
			offs := w.offsets(l, pos)
			if len(offs) > senses {
				offs = offs[:senses]
			}
			for _, o := range offs {
				s, err := w.synsetAt(pos, o)
				if err != nil {
					continue
				}
				for _, x := range s.words {
					if !seen[x] {
						seen[x] = true
						out = append(out, strings.ReplaceAll(x, "_", " "))
					}
				}
			}
		}
	}
	return out
}

// Related is a word a derivational pointer leads to, with the part of
// speech and lexicographer file of its sense.
type Related struct {
	Word    string
	POS     POS
	LexFile int
}

// Derived are the derivationally related forms of word, WordNet's "+"
// pointers from any sense of any of its base forms: "speak" gives
// "speech", "speaker", "speaking" …; "conversion" gives "convert".
func (w *WordNet) Derived(word string) []Related {
	var out []Related
	seen := map[Related]bool{}
	for pos := Noun; pos <= Adv; pos++ {
		for _, l := range w.BaseForms(word, pos) {
			for _, o := range w.offsets(l, pos) {
				s, err := w.synsetAt(pos, o)
				if err != nil {
					continue
				}
				wi := slices.Index(s.words, l) + 1
				for _, p := range s.ptrs {
					if p.symbol != "+" || p.src != wi || p.tgt == 0 {
						continue
					}
					t, err := w.synsetAt(p.pos, p.offset)
					if err != nil || p.tgt > len(t.words) {
						continue
					}
					r := Related{Word: strings.ReplaceAll(t.words[p.tgt-1], "_", " "), POS: t.pos, LexFile: t.lexFile}
					if !seen[r] && r.Word != l {
						seen[r] = true
						out = append(out, r)
					}
				}
			}
		}
	}
	return out
}

// SameSynset reports whether a and b are lemmas of one synset, as
// WordNet keeps "colour" and "color", "licence" and "license".
func (w *WordNet) SameSynset(a, b string) bool {
	a, b = key(a), key(b)
	for pos := Noun; pos <= Adv; pos++ {
		oa, ob := w.offsets(a, pos), w.offsets(b, pos)
		for _, o := range oa {
			if slices.Contains(ob, o) {
				return true
			}
		}
	}
	return false
}

// dataFile is data.POS whole.
func (w *WordNet) dataFile(pos POS) ([]byte, error) {
	b, err := os.ReadFile(w.data[pos].Name())
	if err != nil {
		return nil, fmt.Errorf("wordnet: %w", err)
	}
	return b, nil
}

// lineAt is the line of b at offset.
func lineAt(b []byte, offset int64) []byte {
	if offset < 0 || offset >= int64(len(b)) {
		return nil
	}
	l := b[offset:]
	if i := bytes.IndexByte(l, '\n'); i >= 0 {
		l = l[:i]
	}
	return l
}

// eachSynset calls fn with every synset of pos whose line holds want,
// reading data.POS whole.
func (w *WordNet) eachSynset(pos POS, want string, fn func(offset int64, s synset)) error {
	b, err := w.dataFile(pos)
	if err != nil {
		return err
	}
	for off := 0; off < len(b); {
		end := bytes.IndexByte(b[off:], '\n')
		if end < 0 {
			end = len(b) - off
		}
		line := b[off : off+end]
		if len(line) > 0 && line[0] != ' ' && (want == "" || bytes.Contains(line, []byte(want))) {
			if s, err := parseSynset(line); err == nil {
				fn(int64(off), s)
			}
		}
		off += end + 1
	}
	return nil
}
