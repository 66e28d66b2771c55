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
//     lookup, not a read of its body;
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
// are read from their body.
const passagesVersion = 1

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

// encodePassages is web_pages.passages of body.
func encodePassages(body string) []byte {
	ps := text.SentencesUnder(body)
	if len(ps) == 0 {
		return nil
	}
	ids := map[string]int{}
	var dict []string
	id := func(t string) int {
		i, ok := ids[t]
		if !ok {
			i = len(dict)
			ids[t] = i
			dict = append(dict, t)
		}
		return i
	}
	headAt := map[string]int{}
	var heads [][]int
	type sent struct {
		text    string
		head    int // index in heads, -1 for none
		flags   byte
		termIDs []int
	}
	sents := make([]sent, len(ps))
	for i, p := range ps {
		s := sent{head: -1}
		for _, t := range text.Terms(p.Text) { // before the footer is cut, as bestSentences scores
			s.termIDs = append(s.termIDs, id(t))
		}
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
	b = binary.AppendUvarint(b, uint64(len(dict)))
	for _, t := range dict {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
	}
	b = binary.AppendUvarint(b, uint64(len(heads)))
	for _, h := range heads {
		b = binary.AppendUvarint(b, uint64(len(h)))
		for _, t := range h {
			b = binary.AppendUvarint(b, uint64(t))
		}
	}
	b = binary.AppendUvarint(b, uint64(len(sents)))
	for _, s := range sents {
		b = binary.AppendUvarint(b, uint64(len(s.text)))
		b = append(b, s.text...)
		b = binary.AppendUvarint(b, uint64(s.head+1))
		b = append(b, s.flags)
		b = binary.AppendUvarint(b, uint64(len(s.termIDs)))
		for _, t := range s.termIDs {
			b = binary.AppendUvarint(b, uint64(t))
		}
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

// storedSentence is one sentence of a stored page, its terms still
// encoded (read once, when scored).
type storedSentence struct {
	snippetSentence
	head  int // index in heads, -1 for none
	flags byte
	n     int    // its terms
	ids   string // their ids, uvarints
}

// bestStoredSentences is bestSentences(query, body, max) of the page
// whose passages are stored, and ok false when they are not there (a
// page indexed before them, or in another form): then the caller reads
// the body.
func bestStoredSentences(query string, stored string, max int) (snippet string, ok bool) {
	r := &reader{s: stored}
	if len(stored) == 0 || r.uvarint() != passagesVersion {
		return "", false
	}
	q := text.Terms(query)
	// Which entry of the page's terms each distinct query term is (-1:
	// the page lacks it), in the query's order, as BM25 counts them.
	var qTerms []string
	for _, t := range q {
		if !sliceHas(qTerms, t) {
			qTerms = append(qTerms, t)
		}
	}
	qid := make([]int, len(qTerms))
	for i := range qid {
		qid[i] = -1
	}
	nDict := r.uvarint()
	for i := 0; i < nDict && !r.bad; i++ {
		t := r.str(r.uvarint())
		for k, w := range qTerms {
			if qid[k] < 0 && t == w {
				qid[k] = i
			}
		}
	}
	heads := make([][]int, r.uvarint())
	for h := range heads {
		n := r.uvarint()
		for j := 0; j < n && !r.bad; j++ {
			heads[h] = append(heads[h], r.uvarint())
		}
	}
	if r.bad {
		return "", false
	}
	sents := make([]storedSentence, r.uvarint())
	for i := range sents {
		s := &sents[i]
		s.Text = r.str(r.uvarint())
		s.head = r.uvarint() - 1
		s.flags = r.byte()
		s.Lead, s.BeforeCode = s.flags&flagLead != 0, s.flags&flagBeforeCode != 0
		s.n = r.uvarint()
		start := r.s
		for j := 0; j < s.n && !r.bad; j++ {
			r.uvarint()
		}
		s.ids = start[:len(start)-len(r.s)]
		if r.bad || s.head >= len(heads) {
			return "", false
		}
	}
	if len(sents) == 0 {
		return "", true
	}
	// Okapi BM25 over the page's sentences, as text.BM25 scores them (the
	// same sums in the same order, so the same figures).
	const k1, b = 1.2, 0.75
	tf := make([]int, len(sents)*len(qTerms))
	df := make([]int, len(qTerms))
	var total float64
	for i := range sents {
		total += float64(sents[i].n)
		ir := &reader{s: sents[i].ids}
		for j := 0; j < sents[i].n; j++ {
			id := ir.uvarint()
			for k, want := range qid {
				if want == id {
					if tf[i*len(qTerms)+k] == 0 {
						df[k]++
					}
					tf[i*len(qTerms)+k]++
				}
			}
		}
	}
	avg := 1.0
	if total > 0 {
		avg = total / float64(len(sents))
	}
	scores := make([]float64, len(sents))
	n := float64(len(sents))
	for k := range qTerms {
		if df[k] == 0 {
			continue
		}
		d := float64(df[k])
		idf := math.Log(1 + (n-d+0.5)/(d+0.5))
		for i := range sents {
			if f := float64(tf[i*len(qTerms)+k]); f > 0 {
				scores[i] += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(sents[i].n)/avg))
			}
		}
	}
	best := 0
	for i := range scores {
		if h := sents[i].head; h >= 0 {
			scores[i] *= 1 + 0.5*headingShare(qTerms, qid, heads[h])
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
	r := &reader{s: stored}
	if len(stored) == 0 || r.uvarint() != passagesVersion {
		return nil, false
	}
	nDict := r.uvarint()
	for i := 0; i < nDict && !r.bad; i++ {
		r.str(r.uvarint())
	}
	nHeads := r.uvarint()
	for h := 0; h < nHeads && !r.bad; h++ {
		n := r.uvarint()
		for j := 0; j < n && !r.bad; j++ {
			r.uvarint()
		}
	}
	n := r.uvarint()
	for i := 0; i < n && !r.bad; i++ {
		t := r.str(r.uvarint())
		r.uvarint()
		r.byte()
		m := r.uvarint()
		for j := 0; j < m && !r.bad; j++ {
			r.uvarint()
		}
		texts = append(texts, t)
	}
	return texts, !r.bad
}
