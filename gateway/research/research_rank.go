package research

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"hark/api"
	"hark/gateway/research/doc"
	"hark/gateway/text"
	"hark/gateway/text/lexicon"
)

// How research chooses what to quote: it ranks sentences by how well
// they and the passage they sit in answer a question, then quotes each
// chosen sentence with what it depends on (the sentence before it that
// "this" points at, the term a definition describes, the sentence that
// introduces a list) and the sentences that complete it, in page order.

// rcorpus is the sources of one report, read.
type rcorpus struct {
	docs  []*rdoc
	sref  [][2]int // every sentence: its doc and its index there
	pref  [][2]int // every passage
	sBase []int    // a doc's first entry in sref
	pBase []int
	sIdx  *text.BM25
	pIdx  *text.BM25
	pToks [][]string // every passage's terms, its heading's first
	// passages are where the quotes written so far come from.
	passages []api.ResearchPassage
	// weights are the ranking's (features.go); nil: weights.json's.
	weights []float64
}

func newCorpus(docs []*rdoc) *rcorpus {
	c := &rcorpus{docs: docs}
	var sdocs, pdocs [][]string
	for di, d := range docs {
		c.sBase = append(c.sBase, len(c.sref))
		c.pBase = append(c.pBase, len(c.pref))
		for i, s := range d.Sents {
			c.sref = append(c.sref, [2]int{di, i})
			sdocs = append(sdocs, s.Toks)
		}
		for i, p := range d.Passages {
			c.pref = append(c.pref, [2]int{di, i})
			toks := slices.Clone(p.Own)
			for _, si := range p.Sents {
				toks = append(toks, d.Sents[si].Toks...)
			}
			pdocs = append(pdocs, toks)
		}
	}
	c.sIdx, c.pIdx, c.pToks = text.NewBM25(sdocs), text.NewBM25(pdocs), pdocs
	return c
}

// ask is one question a report answers.
type ask struct {
	query   string
	terms   []string            // the words an answer holds
	sets    [][]string          // term sets a quote must answer one of
	need    int                 // how many of the one set's terms a quote needs, by the question's written words; 0: by its terms
	subject *subject            // what the question asks to have defined, or nil
	how     bool                // asks how to do something
	count   bool                // asks how many or how much: the answer holds a number
	fromC   bool                // asks how to do it from C: an API's functions answer, not a command line
	changes bool                // asks about changes, releases or versions
	bare    bool                // the sentence itself must answer, not its headings: a comparison's summary names both things
	version *regexp.Regexp      // the release the question names ("3.19"), or nil
	action  string              // what a how-to question asks to do, as a term ("define" of "how do I define a structure type"), or ""
	exclude []string            // what the question sets aside ("besides Helgrind"): not what it asks about
	also    []string            // a compared thing's section: what the question asks of each ("measure"), which its quotes hold
	expand  []lexicon.Expansion // the question's synonyms, derived forms and spellings (features synonym_match, …)
}

func newAsk(q string, sets [][]string, changes bool) ask {
	a := ask{query: q, terms: answerTerms(q), sets: sets, subject: definedSubject(q), how: asksHow().MatchString(q), changes: changes,
		count: asksCount().MatchString(q), fromC: asksFromC().MatchString(q)}
	a.action = howAction(q)
	a.expand = expansions(q)
	a.exclude = excluded(q)
	if v := text.VersionNumber().FindString(q); v != "" {
		a.version = regexp.MustCompile(`(?:^|[^\d.])` + regexp.QuoteMeta(v) + `(?:$|[^\d]|\.\d)`)
	}
	if a.sets == nil {
		a.sets = [][]string{a.terms}
		if a.subject != nil && a.subject.does {
			// What Cachegrind "measures" is said in words other than
			// "measure": what is said of Cachegrind answers.
			a.sets = [][]string{a.subject.terms}
		} else if n := writtenWords(q); n > 2 {
			// Of one or two words, all terms: "zb.freeflux()" is not
			// answered by whatever names "zb".
			a.need = termsNeeded(make([]string, n))
		}
	}
	return a
}

// respell reads a's terms that no source holds as the sources spell
// them: one letter apart ("whisper" asked, "wisper" written), or, for a
// name written in camel case that no source writes whole, by the words
// inside it that they do ("AddressSanitizer" asked, "the gcc or clang
// sanitizer" written).
func (c *rcorpus) respell(a ask) ask {
	m := map[string][]string{}
	for _, t := range a.terms {
		if r, ok := c.pIdx.Respell(t); ok {
			m[t] = []string{r}
		}
	}
	for _, name := range camelWord().FindAllString(a.query, -1) {
		whole := doc.Terms(name)
		if len(whole) != 1 || c.pIdx.Holds(whole[0]) {
			continue
		}
		var parts []string
		for _, p := range doc.Families(text.NameParts(strings.ToLower(name[:1]) + name[1:])) {
			if c.pIdx.Holds(p) && !slices.Contains(parts, p) {
				parts = append(parts, p)
			}
		}
		if len(parts) > 0 {
			m[whole[0]] = parts
		}
	}
	if len(m) == 0 {
		return a
	}
	re := func(ts []string) []string {
		var out []string
		for _, t := range ts {
			if r, ok := m[t]; ok {
				out = append(out, r...)
			} else {
				out = append(out, t)
			}
		}
		return out
	}
	a.terms, a.exclude, a.also = re(a.terms), re(a.exclude), re(a.also)
	sets := make([][]string, len(a.sets))
	for i, set := range a.sets {
		sets[i] = re(set)
	}
	a.sets = sets
	if a.subject != nil {
		sub := *a.subject
		sub.terms = re(sub.terms)
		a.subject = &sub
	}
	if r, ok := m[a.action]; ok {
		a.action = r[0]
	}
	return a
}

// camelWord is a name written in camel case: "AddressSanitizer",
// "prependListener".
var camelWord = text.LazyRegexp(`\b[A-Za-z][a-z]+(?:[A-Z][a-z]+)+\b`)

// writtenWords counts the content words of q as written: "Node.js" is
// one word (of two terms), as is "SHA-256". A question's one name does
// not ask twice as much of an answer as a word does.
func writtenWords(q string) int {
	n := 0
	for _, w := range strings.Fields(q) {
		for _, t := range doc.Terms(w) {
			if !askWords[t] {
				n++
				break
			}
		}
	}
	return n
}

// answers reports whether doc holds enough of a's terms: of its one
// set, a.need of them (half of three or more written words, at most
// three); else what answers requires of one of its sets.
func (a ask) answers(doc []string) bool {
	if a.need > 0 && len(a.sets) == 1 {
		return matched(a.sets[0], doc) >= min(a.need, termsNeeded(a.sets[0]))
	}
	return answers(doc, a.sets)
}

// scores rates every sentence of the corpus as an answer to a,
// exp(Σ weight·feature) (features.go), 0 for sentences that cannot open
// a quote or do not answer.
func (c *rcorpus) scores(a ask) []float64 {
	w := c.weights
	if w == nil {
		w, _ = fitted() // New checked it
	}
	out := make([]float64, len(c.sref))
	for g, x := range c.featureRows(a) {
		if x != nil {
			out[g] = math.Exp(dot(w, x))
		}
	}
	return out
}

// featureRows is every sentence's features as an answer to a, nil for
// sentences that cannot open a quote or do not answer.
func (c *rcorpus) featureRows(a ask) [][]float64 {
	out := make([][]float64, len(c.sref))
	if len(a.terms) == 0 {
		return out
	}
	r := c.newRanking(a)
	for g := range c.sref {
		ok, byPassage := c.candidate(a, g)
		if !ok {
			continue
		}
		x := make([]float64, len(features))
		if byPassage {
			x[featureIndex["passage_gate"]] = 1
		}
		lead, otherRelease := r.fields(g, x)
		number := r.answerType(g, lead, x)
		d := c.docs[c.sref[g][0]]
		s := &d.Sents[c.sref[g][1]]
		switch {
		case s.Far && !s.Leads && s.Code == "" && !number:
			continue // points at a figure or a section the report does not quote
		case a.bare && !comparing().MatchString(s.Text):
			continue // names both, compares nothing: "… so Helgrind and DRD can be used to find race conditions"
		case otherRelease:
			continue // the notes of another release
		}
		out[g] = x
	}
	return out
}

// candidate reports whether sentence g can open a quote that answers a:
// its page is on topic, it leans on nothing the page lacks, it is no
// question of the page's, and it (with what it sits under and leans
// on) holds enough of a's terms, or (byPassage) holds one of them and
// its passage, with what the passage sits under, holds enough: a
// user's words are spread over the manual's passage ("keep", "next
// time", "quit", "start", "variables" over R's section on the
// workspace), not gathered in the one sentence that answers.
func (c *rcorpus) candidate(a ask, g int) (ok, byPassage bool) {
	ref := c.sref[g]
	d := c.docs[ref[0]]
	s := &d.Sents[ref[1]]
	if d.offTopic || s.Lost || s.Asks || !(s.OK || s.Leads || s.LongIntro && howCode(a, s)) || !rowAsked(a, d, s) {
		return false, false
	}
	doc := slices.Clip(s.Toks)
	if !a.bare {
		doc = append(doc, s.Context...)
	}
	if s.Dep >= 0 {
		doc = append(doc, d.Sents[s.Dep].Toks...)
	}
	if a.answers(doc) {
		return true, false
	}
	if a.bare || !slices.ContainsFunc(a.terms, func(t string) bool { return slices.Contains(doc, t) }) {
		return false, false
	}
	pass := append(slices.Clip(c.pToks[c.pBase[ref[0]]+s.Passage]), s.Context...)
	ok = a.answers(pass)
	return ok, ok
}

// ranking is what featureRows reads once per question: each sentence's
// and passage's BM25, the best of each, and the question's focus.
type ranking struct {
	c          *rcorpus
	a          ask
	sS, pS     []float64
	maxS, maxP float64
	focus      []string
	idf        map[string]float64 // each distinct term's IDF over the sentences
	idfTotal   float64
	expand     []lexicon.Expansion // the question's expansions, each source apart
	feedback   []lexicon.Expansion // RM3's terms over the best passages (feature feedback_match)
}

func (c *rcorpus) newRanking(a ask) *ranking {
	r := &ranking{c: c, a: a, sS: c.sIdx.Score(a.terms), pS: c.pIdx.Score(a.terms)}
	r.maxS, r.maxP = maxOr1(r.sS), maxOr1(r.pS)
	r.focus = c.focus(a.terms, a.action)
	r.expand = a.expand
	r.feedback = c.feedback(a.terms, r.pS)
	r.idf = map[string]float64{}
	for _, t := range a.terms {
		if _, ok := r.idf[t]; !ok {
			r.idf[t] = c.sIdx.IDF(t)
			r.idfTotal += r.idf[t]
		}
	}
	return r
}

// maxOr1 is the largest of vs, or 1 when none is above 0.
func maxOr1(vs []float64) float64 {
	m := 0.0
	for _, v := range vs {
		m = math.Max(m, v)
	}
	if m == 0 {
		return 1
	}
	return m
}

// fields sets sentence g's field features (BM25 of the sentence and its
// passage, the question's terms in the heading, label, headings above
// and title, proximity, position, the page's prior) and their BM25F mix,
// relevance. lead is whether g opens its passage; otherRelease whether
// it is in the notes of a release other than the one the question names.
func (r *ranking) fields(g int, x []float64) (lead, otherRelease bool) {
	c, a := r.c, r.a
	ref := c.sref[g]
	d := c.docs[ref[0]]
	s := &d.Sents[ref[1]]
	blk := &d.Blocks[s.Block]
	p := &d.Passages[s.Passage]
	set := func(name string, v float64) { x[featureIndex[name]] = v }
	// What the sentence sits under: its section's heading (hc),
	// the term or item name it describes (nc), the headings above
	// and the page title (tc).
	hc := text.Coverage(a.terms, p.Own)
	nc := 0.0
	if blk.Label != "" {
		nc = text.Coverage(a.terms, doc.Terms(text.Unmark(blk.Label)))
	}
	tc := text.Coverage(a.terms, p.Context)
	if a.bare {
		hc, nc, tc = 0, 0, 0 // the sentence itself names the things compared
	}
	if a.version != nil {
		// "3.19" is the release headed "Release 3.19.0", not "3.8.1
		// (19 September 2012)".
		switch {
		case a.version.MatchString(p.Heading):
			hc = 1
		case a.version.MatchString(strings.Join(p.ContextText, " ")):
			tc = 1
		case text.VersionNumber().MatchString(p.Heading) || text.VersionNumber().MatchString(strings.Join(p.ContextText, " ")):
			otherRelease = true
		}
	}
	raw := r.sS[g]
	if s.Dep >= 0 {
		// The sentence it leans on is quoted with it: "DRD is also a
		// thread error detector. It is similar to Helgrind …"
		w := 0.5
		if a.bare {
			w = 1
		}
		raw += w * r.sS[c.sBase[ref[0]]+s.Dep]
	}
	sn := math.Min(raw/r.maxS, 1)
	pn := r.pS[c.pBase[ref[0]]+s.Passage] / r.maxP
	set("sentence", sn)
	set("passage", pn)
	set("heading", hc)
	set("label", nc)
	set("title", tc)
	set("idf_coverage", idfCoverage(r.idf, r.idfTotal, s.Toks, s.Context))
	set("proximity", proximity(a.terms, s.Toks))
	if m := expansionMatch(r.expand, len(r.idf), s.Toks, s.Context); m != [3]float64{} {
		set("synonym_match", m[lexicon.Synonym])
		set("derived_match", m[lexicon.Derived])
		set("spelling_match", m[lexicon.Spelling])
	}
	set("feedback_match", feedbackMatch(r.feedback, s.Toks, s.Context))
	set("page_position", float64(ref[1])/float64(max(1, len(d.Sents)-1)))
	set("length", math.Min(1, float64(s.NWords)/40))
	// The search ranked the whole page, with its title and headings:
	// evidence no one sentence holds.
	set("page_prior", math.Log(1+pagePriorWeight*d.prior))
	// A passage whose heading names the question opens with its
	// answer: "2.5. Suppressing errors" for "how do I suppress
	// errors", whatever words its first sentence uses.
	lead = d.lead(s.Passage) == ref[1]
	if lead {
		set("opening", 1)
		sn = math.Max(sn, math.Min(1, math.Max(1.5*hc, 0.7*tc)))
	}
	// The passage's heading is evidence as strong as its words: a
	// section headed "Suppressing errors" answers "how do I suppress
	// errors" before a sentence elsewhere that holds those words.
	set("relevance", math.Log(math.Max(1e-9, (0.5*sn+0.2*pn+0.3*hc)*(1+0.3*nc)*(1+0.5*tc))))
	return lead, otherRelease
}

// answerType sets sentence g's features of what kind of answer it is
// against what kind of question a is: a definition for a "what is", a
// command or example for a "how do I", a number for a "how many", a C
// call for a question about C; and what it leans on or sets aside.
// number is whether it gives the number a "how many" asks for.
func (r *ranking) answerType(g int, lead bool, x []float64) (number bool) {
	c, a := r.c, r.a
	ref := c.sref[g]
	d := c.docs[ref[0]]
	s := &d.Sents[ref[1]]
	blk := &d.Blocks[s.Block]
	p := &d.Passages[s.Passage]
	plain := text.Unmark(s.Text)
	on := func(name string, b bool) {
		if b {
			x[featureIndex[name]] = 1
		}
	}
	on("shows_code", s.Code != "")
	on("code_span", strings.ContainsRune(s.Text, text.CodeOpen))
	on("how_code_span", a.how && strings.ContainsRune(s.Text, text.CodeOpen))
	on("number", hasNumber().MatchString(plain))
	on("block_first", s.First)
	on("subject_in_sentence", a.subject != nil && len(a.subject.terms) > 0 && matched(a.subject.terms, s.Toks) == len(a.subject.terms))
	first := ""
	if len(s.Toks) > 0 {
		first = s.Toks[0]
	}
	on("opens_on_term", first != "" && slices.Contains(a.terms, first))
	// How to do a thing: the section on it before an option's entry.
	on("how_term_entry", a.how && p.Term)
	// At most one of these: the strongest kind of answer the sentence is.
	switch {
	case a.subject != nil && a.subject.definedBy(plain):
		on("defines_subject", true) // "A data race happens when …" for "what is a data race"
	case a.subject != nil && lead && p.Overview && opensWith(s, a.subject) && a.subject.namedBy(d.Title):
		on("opens_overview", true) // "Cachegrind simulates …", opening Cachegrind's page, for "what does cachegrind measure"
	case a.subject != nil && lead && a.subject.namedBy(p.Heading):
		on("heading_names_subject", true) // opens "The Closure API" for "what is a closure"
	case a.subject != nil && blk.Desc >= 0 && s.First && blk.Desc == s.Block && p.Term && x[featureIndex["heading"]] == 1:
		on("term_description", true) // what the term's description opens with: "Controls whether …" for "what does --track-origins do"
	case a.subject != nil && s.Leads && matched(a.subject.terms, s.Toks) == len(a.subject.terms):
		on("list_names_subject", true)               // "… the following four leak kinds." for "what do the leak kinds mean"
		on("list_items_named", s.Named*2 >= s.Items) // and each item names a kind: "Still reachable". …
	case a.how && doc.CommandLike(s.Code):
		on("how_command", true) // shows how: "Select a voice from the command line:" and the command
	case !a.how && definition().MatchString(plain) && slices.Contains(a.terms, first):
		on("says_what_named_is", true) // says what the question names is: "Memcheck is a …"
	case a.how && definition().MatchString(plain):
		on("how_definition", true) // what a thing is does not say how to do anything
	case !a.how && slices.Contains(a.terms, first):
		on("opens_on_named", true) // about what the question names: "Memcheck reports …"
	}
	if len(a.exclude) > 0 && holdsAny(a.exclude, s.Toks) {
		on("excluded", true)                                         // about what the question sets aside: "Helgrind finds races …" for "which tool besides Helgrind"
		on("excluded_page", holdsAny(a.exclude, doc.Terms(d.Title))) // and on its own page ("7. Helgrind: a thread error detector")
	}
	// An example that shows how, with the question's words in it.
	on("how_example", a.how && !doc.CommandLike(s.Code) && howCode(a, s))
	on("leans", s.Dep >= 0) // needs the sentence before it: a longer quote
	// Shares the question's common words, not what it is about.
	on("off_focus", len(r.focus) > 0 && !holdsAny(r.focus, s.Toks, s.Context) && (s.Dep < 0 || !holdsAny(r.focus, d.Sents[s.Dep].Toks)))
	number = a.count && hasNumber().MatchString(plain)
	on("count_number", number) // "… supports 127 languages …" for "how many languages"
	if a.fromC {
		switch {
		case cCall().MatchString(s.Code) || cCall().MatchString(blk.Term) || cCall().MatchString(plain):
			on("c_call", true) // a function of the library's API, or an example calling one
		case doc.CommandLike(s.Code):
			on("c_command", true) // a command line is not a C program
		}
	}
	on("bare_list", a.bare && strings.Count(s.Text, ",") >= 4) // names everything: "memcheck, cachegrind, callgrind, helgrind, drd, …"
	on("bare_term", a.bare && blk.Term != "")                  // a remark on an option, not on the things compared
	on("changelog", d.changelog && !a.changes)                 // a release note says what changed, not what a thing is or does
	return number
}

// lead is where passage pi opens: its first sentence that can be quoted
// in a paragraph, or in a list when it holds no paragraph. An API entry
// lists its parameters ("`flag` <string> See support of file system
// flags.") before the paragraph that says what it does ("Asynchronously
// append data to a file …"), and "Added in: v0.3.3" comes first of all.
// -1 when no sentence can be quoted.
func (d *rdoc) lead(pi int) int {
	first := -1
	for _, si := range d.Passages[pi].Sents {
		if !d.Sents[si].OK {
			continue
		}
		if d.Blocks[d.Sents[si].Block].Kind == doc.Paragraph {
			return si
		}
		if first < 0 {
			first = si
		}
	}
	return first
}

// defines reports whether sentence i of doc di says what a's subject
// is: "DRD is a Valgrind tool …", or the opening of a page or section
// named after it.
func (c *rcorpus) defines(di, i int, a ask) bool {
	if a.subject == nil {
		return false
	}
	d := c.docs[di]
	s := &d.Sents[i]
	p := &d.Passages[s.Passage]
	if a.subject.definedBy(text.Unmark(s.Text)) {
		return true
	}
	lead := len(p.Sents) > 0 && p.Sents[0] == i
	return lead && (a.subject.namedBy(p.Heading) || p.Overview && a.subject.namedBy(d.Title)) && opensWith(s, a.subject)
}

// opensWith reports whether s is about the subject by its first word:
// "Cachegrind simulates …", not "To use this tool, …".
func opensWith(s *doc.Sentence, sub *subject) bool {
	return len(s.Toks) > 0 && len(sub.terms) > 0 && s.Toks[0] == sub.terms[0]
}

// quote is what a report quotes from one source: sentences in page
// order, or a list's lead-in and its items.
type quote struct {
	doc   int
	label string // marked: the term or item name the sentences describe
	sents []int  // in page order
	items []quote
	score float64
	code  string // for a how-to question, the code block closing the quote's paragraph
	// ordered: its items are a procedure's steps, all of them, numbered
	// as the page numbers them.
	ordered bool
	after   []int // sentences after a list's items that speak of them ("These files are compiled into …")
}

func (q quote) isList() bool { return len(q.items) > 0 }

// all is every sentence the quote holds.
func (q quote) all() []int {
	out := slices.Clone(q.sents)
	for _, it := range q.items {
		out = append(out, it.sents...)
	}
	return append(out, q.after...)
}

const (
	quoteChars = 420 // a quote grows past its anchor while shorter than this
	quoteSents = 3
)

// quoteAt builds the quote around sentence i of doc di: back to what it
// leans on, on to what completes it. ok is false when it cannot stand.
func (c *rcorpus) quoteAt(di, i int, a ask, used *usedSet) (quote, bool) {
	d := c.docs[di]
	s := &d.Sents[i]
	blk := &d.Blocks[s.Block]
	if s.Leads {
		return c.listQuote(di, i)
	}
	if s.AfterList >= 0 {
		// The list it speaks of, then the sentence.
		q, ok := c.listQuote(di, s.AfterList)
		if !ok || used.has(c.usedKey(di, s.AfterList)) {
			return quote{}, false
		}
		return q, true
	}
	if blk.Kind == doc.ListItem && blk.NeedsLd && blk.LeadIn >= 0 {
		// The item the sentence is in: its block, or for an item's
		// later paragraph the block that opens the item.
		anchor := s.Block
		for anchor >= 0 && d.Blocks[anchor].Cont {
			anchor--
		}
		if anchor >= 0 && (d.Blocks[anchor].Kind != doc.ListItem || d.Blocks[anchor].LeadIn != blk.LeadIn) {
			anchor = -1
		}
		return c.listQuoteWith(di, blk.LeadIn, anchor, i)
	}
	if a.how && blk.Kind == doc.ListItem && blk.Ordered && blk.LeadIn < 0 {
		if q, ok := c.procedureQuote(di, blk.List, used); ok {
			return q, true
		}
	}
	start := i
	for k := 0; k < 2 && d.Sents[start].Dep >= 0; k++ {
		start = d.Sents[start].Dep
	}
	if d.Sents[start].Dep >= 0 || d.Sents[start].Lost || d.Sents[start].Asks {
		return quote{}, false
	}
	q := quote{doc: di, label: d.release(s.Passage)}
	switch p := &d.Passages[s.Passage]; {
	case blk.Label != "":
		q.label = blk.Label
	case blk.Kind == doc.ListItem && p.Entry != "":
		// A parameter of an API entry says whose it is: "`os.setPriority([pid,
		// ]priority)`: `priority` <integer> The scheduling priority …".
		q.label = p.Entry
	}
	// A quote reads from its paragraph's opening when that is one
	// sentence before, in page order ("`libffi` is perfectly happy
	// passing structures back and forth. You must first describe …"),
	// unless the sentence is a definition, which stands alone, or the
	// opening leans on the paragraph before ("This facility is called
	// the closure API." after what the facility is).
	if f := blk.Sents[0]; start == f+1 && start == i && d.Sents[f].OK && !d.Sents[f].Lost && !d.Sents[f].Far && d.Sents[f].Dep < 0 &&
		len(d.Sents[f].Text)+len(s.Text) < quoteChars && !used.has(c.usedKey(di, f)) &&
		(a.subject == nil || !a.subject.definedBy(text.Unmark(s.Text))) {
		start = f
	}
	if blk.Term != "" {
		q.label = blk.Term
		// A description is read from its opening, where it says what
		// the term does: "term: opening … anchor".
		open := d.Blocks[blk.Desc].Sents
		if len(open) > 0 && open[0] != start && d.Sents[open[0]].OK && d.Sents[open[0]].Code == "" {
			q.sents = append(q.sents, open[0])
		}
	}
	for k := start; k <= i; k++ {
		q.sents = append(q.sents, k)
	}
	// Completing sentences: one that leans on the last quoted, or, for
	// a passage's opening or a short quote, the next sentences of the
	// same block (a passage's opening also its next paragraph).
	p := &d.Passages[s.Passage]
	opening := len(p.Sents) > 0 && p.Sents[0] == start
	limit, most := quoteChars, quoteSents
	if opening && text.Coverage(a.terms, p.Own) >= 0.5 {
		// The opening of the section the question names: how it begins
		// is the answer ("Memcheck keeps track of all heap blocks … The
		// root-set consists of …").
		limit, most = 600, 4
	}
	n := 0
	for _, k := range q.sents {
		n += len(d.Sents[k].Text)
	}
	for next := i + 1; next < len(d.Sents) && len(q.sents) < most+1; next++ {
		prev, ns := &d.Sents[next-1], &d.Sents[next]
		if len(q.sents) >= most && ns.Dep != next-1 {
			break // full, unless the next goes on from the last: "Since this often makes things unmanageably slow, …"
		}
		sameBlock := ns.Block == prev.Block
		// A sentence that introduces a long example ("The easiest way
		// to do so is …:") is no quote of its own, and yet the one
		// that shows the example it leads into.
		intro := sameBlock && ns.LongIntro && howCode(a, ns)
		if ns.Passage != s.Passage || prev.Code != "" || !ns.OK && !intro || ns.Far || used.has(c.usedKey(di, next)) {
			break
		}
		crosses := !sameBlock && opening && d.Blocks[ns.Block].Kind == doc.Paragraph && d.Blocks[prev.Block].Kind == doc.Paragraph && ns.First
		switch {
		case ns.Dep == next-1 && (sameBlock || crosses) && n+len(ns.Text) < 2*limit:
		case (sameBlock || crosses) && n+len(ns.Text) < limit && (opening || n < 160):
		default:
			next = len(d.Sents)
			continue
		}
		q.sents = append(q.sents, next)
		n += len(ns.Text)
	}
	// The code the last sentence introduces: a command, or for a how-to
	// question a longer example.
	if ls := &d.Sents[q.sents[len(q.sents)-1]]; ls.Code != "" && (ls.CodeLines <= text.MaxQuotedCode || howCode(a, ls)) {
		q.code = ls.Code
	}
	return q, true
}

// usedSet is what a report has quoted: no sentence is quoted twice, even
// when two pages hold it.
type usedSet struct {
	keys     map[string]bool
	shingles []map[string]int
}

// usedKey is what usedSet keeps of sentence k of doc di: the sentence
// with the term or item name it describes, so that sibling entries of
// an API reference, worded alike ("Returns the amount of free system
// memory …" under os.freemem(), "Returns the total amount of system
// memory …" under os.totalmem()), are not taken for one sentence twice.
func (c *rcorpus) usedKey(di, k int) string {
	d := c.docs[di]
	blk := &d.Blocks[d.Sents[k].Block]
	return strings.TrimSpace(blk.Term + " " + blk.Label + " " + d.Sents[k].Text)
}

func newUsedSet() *usedSet { return &usedSet{keys: map[string]bool{}} }

func (u *usedSet) has(s string) bool {
	if u.keys[text.PlainWords(text.Unmark(s))] {
		return true
	}
	sh := text.Shingles(text.Unmark(s), 2)
	for _, p := range u.shingles {
		if jaccard(sh, p) > 0.5 {
			return true
		}
	}
	return false
}

func (u *usedSet) add(s string) {
	u.keys[text.PlainWords(text.Unmark(s))] = true
	u.shingles = append(u.shingles, text.Shingles(text.Unmark(s), 2))
}

// weakAnswer is the share of the best answer's score under which a
// sentence is not quoted at all.
const weakAnswer = 0.25

// pickOptions narrow what pick takes.
type pickOptions struct {
	noLists     bool // a summary holds no lists
	noChangelog bool
	perPassage  int      // quotes from one passage at most; 0 is 1
	perSource   int      // quotes from one source while others have one to give; 0: no limit
	holding     []string // only quotes that hold one of these terms, when there are any
	defining    bool     // only a quote that says what the subject is
}

// pick chooses up to n quotes that answer a, best first, none holding a
// sentence the report has quoted: in rounds, a passage's first quote
// before any passage's second, and (with opt.perSource) a source's
// quotes past perSource only when the other sources have none to give;
// last, when the pick is still short, more from the passages that
// answer.
func (c *rcorpus) pick(a ask, n int, used *usedSet, opt pickOptions) []quote {
	sc := c.scores(a)
	idx := make([]int, 0, len(sc))
	for g, v := range sc {
		if v > 0 {
			idx = append(idx, g)
		}
	}
	sort.SliceStable(idx, func(x, y int) bool { return sc[idx[x]] > sc[idx[y]] })
	if len(idx) > 0 {
		// What scores far under the best answer does not bear on the
		// question, whatever words it shares with it: a section ends
		// rather than take it ("Node.js does not normalize character
		// representations." for "how do I prompt the user for a line of
		// input in Node.js?", beside the Readline page's answers).
		k := sort.Search(len(idx), func(i int) bool { return sc[idx[i]] < weakAnswer*sc[idx[0]] })
		idx = idx[:k]
	}
	if len(idx) == 0 {
		return nil
	}
	// One quote from each passage first; a passage's second quote only
	// when no other passage has one to give.
	p := &picking{c: c, a: a, n: n, used: used, opt: opt, sc: sc, fromPassage: map[[2]int]int{}, fromSource: map[int]int{}, taken: map[int]bool{}}
	best := sc[idx[0]]
	for perPassage := 1; perPassage <= max(opt.perPassage, 1); perPassage++ {
		cut := idx
		if perPassage == 1 && opt.perPassage > 1 {
			// Other passages come first only while they answer nearly
			// as well: a weak one does not push out the best passage's
			// next quote.
			k := sort.Search(len(idx), func(i int) bool { return sc[idx[i]] < 0.6*best })
			cut = idx[:k]
		}
		p.round(cut, perPassage, opt.perSource)
	}
	if opt.perPassage > 1 {
		p.round(idx, opt.perPassage, opt.perSource)
	}
	if opt.perSource > 0 {
		// When the other sources have no more to give, the one that
		// answers does.
		p.round(idx, max(opt.perPassage, 1), 0)
	}
	if opt.perPassage > 0 {
		// When no other passage has more to give, the one that answers
		// does: an article of one long section.
		p.round(idx, n, 0)
	}
	return p.out
}

// picking is one pick: what it has chosen and from where, across its
// rounds.
type picking struct {
	c           *rcorpus
	a           ask
	n           int
	used        *usedSet
	opt         pickOptions
	sc          []float64
	fromPassage map[[2]int]int
	fromSource  map[int]int
	taken       map[int]bool
	out         []quote
}

// round takes the sentences idx, best first, while the pick wants
// more: at most perPassage quotes from a passage and, when perSource is
// not 0, perSource from a source. A quote whose opening the report has
// quoted already is taken without it (trim) only after the round's
// other quotes, so that it fills a place none of them wanted.
func (p *picking) round(idx []int, perPassage, perSource int) {
	if trimmed := p.take(idx, perPassage, perSource, false); len(trimmed) > 0 {
		p.take(trimmed, perPassage, perSource, true)
	}
}

// take is one pass of round over idx. It returns the sentences whose
// quotes it could take only trimmed, which it takes when trim is set.
func (p *picking) take(idx []int, perPassage, perSource int, trim bool) (trimmed []int) {
	c, a, opt := p.c, p.a, p.opt
	for _, g := range idx {
		if len(p.out) == p.n {
			break
		}
		if p.taken[g] {
			continue
		}
		di, i := c.sref[g][0], c.sref[g][1]
		d := c.docs[di]
		if opt.noChangelog && d.changelog {
			continue
		}
		if opt.defining && !c.defines(di, i, a) {
			continue
		}
		if blk := &d.Blocks[d.Sents[i].Block]; blk.Kind == doc.ListItem && blk.LeadIn >= 0 && !opt.noLists {
			// An item's sentence whose list the pick has quoted goes
			// into that quote, whatever the passage's cap: it takes no
			// place of its own.
			if q, ok := c.quoteAt(di, i, a, newUsedSet()); ok && q.isList() && p.joinItems(q) {
				p.taken[g] = true
				continue
			}
		}
		pk := [2]int{di, d.Sents[i].Passage}
		if p.fromPassage[pk] >= perPassage || perSource > 0 && p.fromSource[di] >= perSource {
			continue
		}
		q, ok := c.quoteAt(di, i, a, p.used)
		if !ok || opt.noLists && q.isList() || len(opt.holding) > 0 && !c.holds(q, opt.holding) {
			continue
		}
		clash := false
		for _, k := range q.all() {
			if p.used.has(c.usedKey(di, k)) {
				clash = true
				break
			}
		}
		if clash {
			if p.join(q) {
				p.taken[g] = true
				continue
			}
			t, ok := p.trim(q)
			if !ok {
				continue
			}
			if !trim {
				trimmed = append(trimmed, g)
				continue
			}
			q = t
		}
		q.score = p.sc[g]
		for _, k := range q.all() {
			p.used.add(c.usedKey(di, k))
		}
		p.fromPassage[pk]++
		p.fromSource[di]++
		p.taken[g] = true
		p.out = append(p.out, q)
	}
	return trimmed
}

// join adds to a quote the pick has taken the sentences of q that go on
// from it: q reads from a sentence that quote holds (an API entry's
// opening, "The rl.question() method displays the query …", which the
// entry's every quote opens with), and the sentences q stands on follow
// it in its passage ("… When called, rl.question() will resume the input
// stream …"). It reports whether it joined them; a quote of another
// pick, a list, or sentences before the quote's last are not joined.
func (p *picking) join(q quote) bool {
	if q.isList() {
		return p.joinItems(q)
	}
	if len(q.after) > 0 {
		return false
	}
	for j := range p.out {
		ex := &p.out[j]
		if ex.doc != q.doc || ex.isList() || len(ex.after) > 0 || len(ex.sents) == 0 {
			continue
		}
		var fresh []int
		shared := false
		for _, k := range q.sents {
			if slices.Contains(ex.sents, k) {
				shared = true
			} else {
				fresh = append(fresh, k)
			}
		}
		if !shared || len(fresh) == 0 {
			continue
		}
		last := ex.sents[len(ex.sents)-1]
		d := p.c.docs[q.doc]
		n := 0
		for _, k := range ex.sents {
			n += len(d.Sents[k].Text)
		}
		for i, k := range fresh {
			// After the quote, in its passage ("term: opening … the
			// sentence"), one run of sentences.
			if k <= last || d.Sents[k].Passage != d.Sents[last].Passage || i > 0 && k != fresh[i-1]+1 || p.used.has(p.c.usedKey(q.doc, k)) {
				return false
			}
			n += len(d.Sents[k].Text)
		}
		if n > 2*quoteChars {
			return false
		}
		ex.sents = append(ex.sents, fresh...)
		ex.code = q.code
		for _, k := range fresh {
			p.used.add(p.c.usedKey(q.doc, k))
		}
		return true
	}
	return false
}

// joinItems adds, to a list quote the pick has taken, the item
// sentences of list quote q that it lacks: q is the same list quoted
// for a sentence of one of its items (listQuoteWith), which the taken
// quote, quoted for its lead-in, shows only by the item's first
// sentences. An item shows three sentences at most. It reports whether
// it added any.
func (p *picking) joinItems(q quote) bool {
	for j := range p.out {
		ex := &p.out[j]
		if ex.doc != q.doc || !ex.isList() || !slices.Equal(ex.sents, q.sents) {
			continue
		}
		joined := false
		for _, it := range q.items {
			k := slices.IndexFunc(ex.items, func(e quote) bool {
				return len(e.sents) > 0 && len(it.sents) > 0 && e.sents[0] == it.sents[0]
			})
			if k < 0 || slices.Equal(ex.items[k].sents, it.sents) {
				continue
			}
			if slices.ContainsFunc(it.sents, func(s int) bool {
				return !slices.Contains(ex.items[k].sents, s) && p.used.has(p.c.usedKey(q.doc, s))
			}) {
				continue
			}
			merged := slices.Clone(ex.items[k].sents)
			for _, s := range it.sents {
				if !slices.Contains(merged, s) {
					merged = append(merged, s)
				}
			}
			if len(merged) > 3 {
				continue // the item shows what answered already
			}
			slices.Sort(merged)
			for _, s := range merged {
				p.used.add(p.c.usedKey(q.doc, s))
			}
			ex.items[k].sents, ex.items[k].code = merged, it.code
			joined = true
		}
		return joined
	}
	return false
}

// trim is q without its opening sentences that an earlier part of the
// report quoted (a summary quoted an API entry's opening; a section
// wants the entry's later sentence that answers its own question),
// when what is left stands alone: it leans on nothing left out. A
// quote that clashes with one this pick took was for join to go on.
func (p *picking) trim(q quote) (quote, bool) {
	if q.isList() || len(q.after) > 0 {
		return q, false
	}
	d := p.c.docs[q.doc]
	k := 0
	for k < len(q.sents) && p.used.has(p.c.usedKey(q.doc, q.sents[k])) {
		k++
	}
	if k == 0 || k == len(q.sents) {
		return q, false
	}
	for _, ex := range p.out {
		if ex.doc == q.doc && slices.ContainsFunc(q.sents[:k], func(s int) bool { return slices.Contains(ex.all(), s) }) {
			return q, false
		}
	}
	rest := q.sents[k:]
	for _, s := range rest {
		if p.used.has(p.c.usedKey(q.doc, s)) {
			return q, false
		}
	}
	if f := &d.Sents[rest[0]]; !f.OK || f.Lost || f.Dep >= 0 || f.AfterList >= 0 {
		return q, false
	}
	q.sents = slices.Clone(rest)
	return q, true
}

// holds reports whether quote q holds one of terms, in its sentences,
// what they sit under, or its items.
func (c *rcorpus) holds(q quote, terms []string) bool {
	d := c.docs[q.doc]
	for _, k := range q.all() {
		if holdsAny(terms, d.Sents[k].Toks, d.Sents[k].Context) {
			return true
		}
	}
	return false
}

// comparing matches the words of a comparison.
var comparing = text.LazyRegexp(`(?i)\b(?:similar|similarly|differ|differs|different|difference|unlike|whereas|while|compared|than|both|same|contrast|instead|alternative|overlap)\b`)

// changelogPage reports whether a page is a changelog or release notes,
// by its title or file name.
func changelogPage(title, url string) bool {
	name := url
	if i := strings.LastIndexByte(strings.TrimRight(url, "/"), '/'); i >= 0 {
		name = url[i+1:]
	}
	return changelogName().MatchString(title) || changelogName().MatchString(name)
}

var changelogName = text.LazyRegexp(`(?i)(?:^|[^a-z])(?:news|changelog|change ?log|changes|release[ _-]?notes|what'?s[ _-]new|history)(?:$|[^a-z])`)

// asksChanges matches a question about changes, releases or versions,
// which release notes answer.
var asksChanges = text.LazyRegexp(`(?i)\b(?:new|news|changed?|changes|changelog|release[sd]?|version[s]?|added|removed|deprecated|since|history|upgrad\w*|\d+\.\d+)\b`)

// howCode reports whether s's code is an example that answers how-to
// question a: it holds one of the question's words, not as a keyword of
// its language (codeKeywords). "The easiest way to
// do so is leveraging the fs.ReadStream API …:" and its loop over each
// "line" answer how to read a file line by line; "Here is how the struct
// is defined:" and `struct tm` do not answer how to define a structure
// type in libffi.
func howCode(a ask, s *doc.Sentence) bool {
	if !a.how || s.Code == "" {
		return false
	}
	for _, t := range doc.Terms(s.Code) {
		if slices.Contains(a.terms, t) && !codeKeywords()[t] {
			return true
		}
	}
	return false
}

// codeKeywords are the words of code's syntax, as terms (words.txt's
// code_keywords): a C program's "struct" and "int", a script's
// "function" and "return", which say what language code is in, not
// what it does.
var codeKeywords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range wordList("code_keywords") {
		for _, t := range doc.Terms(w) {
			m[t] = true
		}
	}
	return m
})

// asksCount matches a question for a number: "how many languages …",
// "how much slower …".
var asksCount = text.LazyRegexp(`(?i)^\s*how\s+(?:many|much)\b`)

// hasNumber is a number in a sentence, in digits.
var hasNumber = text.LazyRegexp(`\b\d+(?:[.,]\d+)?\b`)

// asksFromC matches a question about doing something from C: "from a C
// program", "in C", "with the C API" (not C++ or C#).
var asksFromC = text.LazyRegexp(`(?i)\b(?:from|in|with|using)\s+(?:an?\s+|the\s+)?C(?:\s+(?:program|code|api|library|application))?(?:$|[^\w+#])`)

// cCall is a call of a C function named as C libraries name theirs,
// with an underscore: "flite_text_to_speech(", "espeak_Synth (".
var cCall = text.LazyRegexp(`\b[A-Za-z]\w*_\w+\s*\(`)

// jaccard is the share of shingles a and b have in common.
func jaccard(a, b map[string]int) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := 0
	for k := range a {
		if _, ok := b[k]; ok {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// release is the release whose notes passage pi of a changelog is in,
// as its heading names it ("Release 3.18.0 (15 Oct 2021)"), or "": a
// release note says what changed, and which release changed it is half
// of that ("Support for X86/FreeBSD and AMD64/FreeBSD has been added.").
func (d *rdoc) release(pi int) string {
	if !d.changelog {
		return ""
	}
	p := &d.Passages[pi]
	if text.VersionNumber().MatchString(p.Heading) {
		return p.Heading
	}
	for k := len(p.ContextText) - 1; k >= 0; k-- {
		if text.VersionNumber().MatchString(p.ContextText[k]) {
			return p.ContextText[k]
		}
	}
	return ""
}
