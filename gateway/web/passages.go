package web

import (
	"encoding/binary"
	"math"
	"sort"
	"strings"

	"hark/gateway/text"
)

// A page's snippets are made of its sentences, each read with its terms
// (issue #41: splitting and stemming every sentence of every result at
// query time was most of a search's cost on real manuals). That work is
// done once, when the page is indexed, and kept beside it:
//
//   - web_pages.terms: every term the body holds, as text.Present finds
//     them, sorted, one a line: which query terms a page holds is then a
//     lookup, not a read of its body. Of a page with data tables, the
//     terms of its prose alone: a table's cells (a signals table, an
//     errno table) hold words of every kind, and a page is about what its
//     prose says; FTS5 still finds a word only a table holds;
//   - web_pages.passages: its sentences as bestSentences reads them (the
//     footer cut off, whether each opens a section, comes before code,
//     reads as an answer), each with its terms and its heading's, in a
//     compact binary form that a query decodes only for the results it
//     quotes.
//
// A page indexed before these columns, or under an older form
// (passagesVersion), has them empty and is read as before, at query
// time, until it is indexed again. Both forms give the same snippet:
// TestStoredPassagesReadAsTheBody holds them to it.

// passagesVersion opens the encoding; a change to what is stored, or to
// how bestSentences scores, takes a new one, and pages of an older one
// are read from their body. Version 2 holds each term's sentences
// (postings) rather than each sentence's terms, and the sentences' texts
// last: a query reads the postings of its own terms and the few texts it
// quotes, not every sentence's terms (version 1, never released).
const passagesVersion = 2

// pageTerms is web_pages.terms of body: "\n"-wrapped and -separated.
func pageTerms(body string) string {
	ts := text.TermSet(body)
	if len(ts) == 0 {
		return ""
	}
	sort.Strings(ts)
	return "\n" + strings.Join(ts, "\n") + "\n"
}

// pageHeadingTerms is web_pages.heading_terms of headings (one a line):
// a line per heading that has terms, " t1 t2 … \n", its distinct terms
// as headingCoverage reads them (its words', and those inside its
// camel-case names).
func pageHeadingTerms(headings string) string {
	var b strings.Builder
	for _, h := range strings.Split(headings, "\n") {
		if h == "" {
			continue
		}
		var seen []string
		for _, t := range append(text.Terms(h), text.NameParts(h)...) {
			if !sliceHas(seen, t) {
				seen = append(seen, t)
			}
		}
		if len(seen) == 0 {
			continue
		}
		b.WriteString(" " + strings.Join(seen, " ") + " \n")
	}
	return b.String()
}

// storedHeadingCoverage is headingCoverage(terms, headings) of the
// headings' stored terms (pageHeadingTerms).
func storedHeadingCoverage(terms []string, stored string) float64 {
	var uniq []string
	for _, t := range terms {
		if !sliceHas(uniq, t) {
			uniq = append(uniq, t)
		}
	}
	if len(uniq) == 0 {
		return 0
	}
	// Only a heading that holds a query term counts: find them by the
	// terms, not by reading every heading.
	needles := make([]string, 0, len(uniq))
	for _, t := range uniq {
		if n := " " + t + " "; strings.Contains(stored, n) {
			needles = append(needles, n)
		}
	}
	best := 0.0
	for _, n := range needles {
		rest := stored
		for {
			i := strings.Index(rest, n)
			if i < 0 {
				break
			}
			start := strings.LastIndexByte(rest[:i], '\n') + 1
			end := i + strings.IndexByte(rest[i:], '\n')
			line := rest[start : end+1]
			have := 0
			for _, m := range needles {
				if strings.Contains(line, m) {
					have++
				}
			}
			best = math.Max(best, float64(have)/float64(len(uniq)))
			rest = rest[end+1:]
		}
	}
	return best
}

// presentIn is the set of terms the stored terms of a page hold.
func presentIn(terms []string, stored string, into map[string]bool) {
	for _, t := range terms {
		if !into[t] && strings.Contains(stored, "\n"+t+"\n") {
			into[t] = true
		}
	}
}

const (
	flagLead = 1 << iota
	flagBeforeCode
	flagAnswer
)

// encodePassages is web_pages.passages of body:
//
//	version
//	sentences, terms (the sentences' terms counted, repeats too)
//	dictionary: its size, then each term: its length and bytes, the
//	  length in bytes of its postings, and the postings: how many
//	  sentences hold it, then for each, in order, the gap from the
//	  previous one's index (+1) and how often it holds the term
//	headings: their count, then each: its terms' count and their
//	  dictionary ids
//	each sentence: its terms' count, its heading (+1; 0 for none), its
//	  flags, its text's length in bytes
//	the texts, one after another
//
// every number a uvarint, the flags a byte.
func encodePassages(body string) []byte {
	ps := text.SentencesUnder(body)
	if len(ps) == 0 {
		return nil
	}
	ids := map[string]int{}
	var dict []string
	var posts [][][2]int // by dictionary id: (sentence, count)
	id := func(t string) int {
		i, ok := ids[t]
		if !ok {
			i = len(dict)
			ids[t] = i
			dict = append(dict, t)
			posts = append(posts, nil)
		}
		return i
	}
	headAt := map[string]int{}
	var heads [][]int
	type sent struct {
		text  string
		head  int // index in heads, -1 for none
		flags byte
		n     int
	}
	sents := make([]sent, len(ps))
	total := 0
	for i, p := range ps {
		s := sent{head: -1}
		for _, t := range text.Terms(p.Text) { // before the footer is cut, as bestSentences scores
			k := id(t)
			if l := len(posts[k]); l > 0 && posts[k][l-1][0] == i {
				posts[k][l-1][1]++
			} else {
				posts[k] = append(posts[k], [2]int{i, 1})
			}
			s.n++
		}
		total += s.n
		if p.Heading != "" {
			h, ok := headAt[p.Heading]
			if !ok {
				h = len(heads)
				headAt[p.Heading] = h
				var hs []int
				for _, t := range text.Terms(p.Heading) {
					hs = append(hs, id(t))
				}
				heads = append(heads, hs)
			}
			s.head = h
		}
		s.text = withoutFooter(p.Text)
		if p.Lead {
			s.flags |= flagLead
		}
		if p.BeforeCode {
			s.flags |= flagBeforeCode
		}
		if s.text != "" && text.IsAnswerSentence(s.text, 4, 80) {
			s.flags |= flagAnswer
		}
		sents[i] = s
	}
	b := make([]byte, 0, len(body)+len(body)/2)
	b = binary.AppendUvarint(b, passagesVersion)
	b = binary.AppendUvarint(b, uint64(len(sents)))
	b = binary.AppendUvarint(b, uint64(total))
	b = binary.AppendUvarint(b, uint64(len(dict)))
	var pb []byte
	for k, t := range dict {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
		pb = binary.AppendUvarint(pb[:0], uint64(len(posts[k])))
		prev := -1
		for _, p := range posts[k] {
			pb = binary.AppendUvarint(pb, uint64(p[0]-prev))
			pb = binary.AppendUvarint(pb, uint64(p[1]))
			prev = p[0]
		}
		b = binary.AppendUvarint(b, uint64(len(pb)))
		b = append(b, pb...)
	}
	b = binary.AppendUvarint(b, uint64(len(heads)))
	for _, h := range heads {
		b = binary.AppendUvarint(b, uint64(len(h)))
		for _, t := range h {
			b = binary.AppendUvarint(b, uint64(t))
		}
	}
	for _, s := range sents {
		b = binary.AppendUvarint(b, uint64(s.n))
		b = binary.AppendUvarint(b, uint64(s.head+1))
		b = append(b, s.flags)
		b = binary.AppendUvarint(b, uint64(len(s.text)))
	}
	for _, s := range sents {
		b = append(b, s.text...)
	}
	return b
}

// reader reads the encoding; a short or damaged one sets bad.
type reader struct {
	s   string
	bad bool
}

func (r *reader) uvarint() int {
	if r.bad {
		return 0
	}
	var x uint64
	var shift uint
	for i := 0; i < len(r.s) && i < binary.MaxVarintLen64; i++ {
		c := r.s[i]
		if c < 0x80 {
			r.s = r.s[i+1:]
			x |= uint64(c) << shift
			if x > math.MaxInt32 {
				r.bad = true
				return 0
			}
			return int(x)
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	r.bad = true
	return 0
}

func (r *reader) str(n int) string {
	if r.bad || n > len(r.s) {
		r.bad = true
		return ""
	}
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

func (r *reader) byte() byte {
	if r.bad || len(r.s) == 0 {
		r.bad = true
		return 0
	}
	c := r.s[0]
	r.s = r.s[1:]
	return c
}

// storedPage is a page's stored passages as a query reads them: the
// postings of the terms it asks for, every sentence's counts and flags,
// the texts cut out but not copied.
type storedPage struct {
	total int        // the sentences' terms, counted with repeats
	posts []string   // by the terms asked for: their postings, "" for a term the page lacks
	found []int      // by the terms asked for: their dictionary ids, -1 for a term the page lacks
	heads [][]int    // each heading's terms' dictionary ids
	sents []struct { // each sentence's
		snippetSentence
		n, head int // terms; heading, -1 for none
		flags   byte
	}
}

// readStored reads stored passages for the terms want (nil: none), and
// ok false when they are not there or in another form.
func readStored(stored string, want []string) (p *storedPage, ok bool) {
	r := &reader{s: stored}
	if len(stored) == 0 || r.uvarint() != passagesVersion {
		return nil, false
	}
	p = &storedPage{posts: make([]string, len(want)), found: make([]int, len(want))}
	for i := range p.found {
		p.found[i] = -1
	}
	n := r.uvarint()
	p.total = r.uvarint()
	nDict := r.uvarint()
	for i := 0; i < nDict && !r.bad; i++ {
		t := r.str(r.uvarint())
		post := r.str(r.uvarint())
		for k, w := range want {
			if len(w) == len(t) && p.found[k] < 0 && t == w {
				p.found[k], p.posts[k] = i, post
			}
		}
	}
	p.heads = make([][]int, min(r.uvarint(), len(r.s)))
	for h := range p.heads {
		m := r.uvarint()
		for j := 0; j < m && !r.bad; j++ {
			p.heads[h] = append(p.heads[h], r.uvarint())
		}
	}
	if r.bad || n > len(r.s) {
		return nil, false
	}
	p.sents = make([]struct {
		snippetSentence
		n, head int
		flags   byte
	}, n)
	lens := make([]int, n)
	for i := range p.sents {
		s := &p.sents[i]
		s.n = r.uvarint()
		s.head = r.uvarint() - 1
		s.flags = r.byte()
		s.Lead, s.BeforeCode = s.flags&flagLead != 0, s.flags&flagBeforeCode != 0
		lens[i] = r.uvarint()
		if r.bad || s.head >= len(p.heads) {
			return nil, false
		}
	}
	for i := range p.sents {
		p.sents[i].Text = r.str(lens[i])
	}
	if r.bad || len(r.s) != 0 {
		return nil, false
	}
	return p, true
}

// bestStoredSentences is bestSentences(query, body, max) of the page
// whose passages are stored, and ok false when they are not there (a
// page indexed before them, or in another form): then the caller reads
// the body.
func bestStoredSentences(query string, stored string, max int) (snippet string, ok bool) {
	// The distinct query terms, in the query's order, as BM25 counts them.
	var qTerms []string
	for _, t := range text.Terms(query) {
		if !sliceHas(qTerms, t) {
			qTerms = append(qTerms, t)
		}
	}
	p, ok := readStored(stored, qTerms)
	if !ok {
		return "", false
	}
	sents := p.sents
	if len(sents) == 0 {
		return "", true
	}
	// Okapi BM25 over the page's sentences, as text.BM25 scores them (the
	// same sums in the same order, so the same figures): the sentences a
	// query term's postings name, each term in the query's order.
	const k1, b = 1.2, 0.75
	avg := 1.0
	if p.total > 0 {
		avg = float64(p.total) / float64(len(sents))
	}
	scores := make([]float64, len(sents))
	n := float64(len(sents))
	for k := range qTerms {
		r := &reader{s: p.posts[k]}
		df := r.uvarint()
		if df == 0 {
			continue
		}
		d := float64(df)
		idf := math.Log(1 + (n-d+0.5)/(d+0.5))
		i := -1
		for j := 0; j < df && !r.bad; j++ {
			i += r.uvarint()
			f := float64(r.uvarint())
			if r.bad || i >= len(sents) || f == 0 {
				return "", false
			}
			scores[i] += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(sents[i].n)/avg))
		}
		if r.bad {
			return "", false
		}
	}
	best := 0
	for i := range scores {
		if h := sents[i].head; h >= 0 && scores[i] > 0 {
			scores[i] *= 1 + 0.5*headingShare(qTerms, p.found, p.heads[h])
		}
		switch {
		case sents[i].Text == "":
			scores[i] = 0
		case sents[i].flags&flagAnswer == 0:
			scores[i] *= 0.3
		}
		if scores[i] > scores[best] {
			best = i
		}
	}
	if scores[best] <= 0 {
		return "", true
	}
	ss := make([]snippetSentence, len(sents))
	for i := range sents {
		ss[i] = sents[i].snippetSentence
	}
	return assembleSnippet(ss, best, max), true
}

// headingShare is text.Coverage(query, the heading's terms): the share
// of the distinct query terms the heading holds.
func headingShare(qTerms []string, qid, head []int) float64 {
	if len(qTerms) == 0 {
		return 0
	}
	have := 0
	for _, id := range qid {
		if id >= 0 && sliceHasInt(head, id) {
			have++
		}
	}
	return float64(have) / float64(len(qTerms))
}

func sliceHas(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func sliceHasInt(s []int, x int) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// storedSentenceTexts is the sentences' texts of a page's stored
// passages, as snippets read them (the footer cut off), and ok false
// when they are not there or in another form.
func storedSentenceTexts(stored string) (texts []string, ok bool) {
	p, ok := readStored(stored, nil)
	if !ok {
		return nil, false
	}
	for _, s := range p.sents {
		texts = append(texts, s.Text)
	}
	return texts, true
}
