package research

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"hark/gateway/research/doc"
	"hark/gateway/text"
)

// How a list is quoted: under the sentence that introduces it, each item
// by its name and first sentences; a lead-in that closes its section
// with the subsections' names; a numbered list, for a how-to question,
// as the procedure it is.

// listQuote quotes the sentence at lead and the list it introduces:
// each item by its name and first sentences.
func (c *rcorpus) listQuote(di, lead int) (quote, bool) {
	return c.listQuoteWith(di, lead, -1, -1)
}

// listQuoteWith is listQuote holding the item that opens at block
// anchor (-1: none) though the list runs past ten items: the item a
// sentence of which answers stands in for the tenth. That item shows
// sentence at (-1: none), the one that answers, when its first
// sentences do not: "`--demangle=<yes|no>`: Enable/disable automatic
// demangling … If you are writing suppressions by hand, use the
// --demangle=no option …", where the item's third paragraph answers.
func (c *rcorpus) listQuoteWith(di, lead, anchor, at int) (quote, bool) {
	d := c.docs[di]
	q := quote{doc: di, sents: []int{lead}, label: d.Blocks[d.Sents[lead].Block].Term}
	if q.label == "" {
		q.label = d.release(d.Sents[lead].Passage)
	}
	if dep := d.Sents[lead].Dep; dep >= 0 && !d.Sents[dep].Far {
		q.sents = []int{dep, lead}
	}
	type entry struct {
		block int
		item  quote
	}
	var all []entry
	depth, whole := -1, true
	for bi := range d.Blocks {
		blk := &d.Blocks[bi]
		if blk.Kind != doc.ListItem || blk.LeadIn != lead || blk.Cont {
			continue
		}
		if depth < 0 {
			depth = blk.Depth
			q.ordered = blk.Ordered
		}
		if blk.Depth != depth {
			continue
		}
		it, ok := listItem(d, di, blk)
		if !ok {
			whole = false
			continue // "References that straddle two cache lines are treated as follows:"
		}
		if bi == anchor && at >= 0 {
			it = withSentence(d, it, at)
		}
		all = append(all, entry{bi, it})
	}
	if len(all) > 10 {
		// Ten items at most; the item that answers stands in for the
		// tenth when it comes later.
		if k := slices.IndexFunc(all, func(e entry) bool { return e.block == anchor }); k >= 10 {
			all[9] = all[k]
		}
		all, whole = all[:10], false
	}
	for _, e := range all {
		q.items = append(q.items, e.item)
	}
	// What the page says of the items after them ("These files are
	// compiled into …") closes the quote.
	for k := lead + 1; k < len(d.Sents) && d.Sents[k].Passage == d.Sents[lead].Passage; k++ {
		if d.Sents[k].AfterList == lead {
			q.after = []int{k}
			break
		}
	}
	// Numbered as the page numbers them only when every item is quoted.
	q.ordered = q.ordered && whole
	if len(q.items) == 0 {
		q.items, q.ordered = c.subheadings(di, lead), false
	}
	return q, len(q.items) > 0
}

// withSentence is item it showing sentence at of its own text (and the
// sentence at leans on): after its first sentence, "…" between, in
// place of the sentences that follow the first.
func withSentence(d *rdoc, it quote, at int) quote {
	if slices.Contains(it.sents, at) || d.Sents[at].Far || d.Sents[at].Asks || d.Sents[at].Lost || !d.Sents[at].OK {
		return it
	}
	sents := slices.Clone(it.sents[:min(1, len(it.sents))])
	if dep := d.Sents[at].Dep; dep >= 0 && (len(sents) == 0 || dep > sents[0]) {
		sents = append(sents, dep)
	}
	sents = append(sents, at)
	for i := 1; i < len(sents); i++ {
		if sents[i] == sents[i-1]+1 && d.Sents[sents[i-1]].Code != "" {
			return it // the code between them is not in the quote: its text would be found nowhere in the page
		}
	}
	it.sents, it.code = sents, ""
	return it
}

// listItem is the item of list block blk as a list quote shows it: its
// name and first sentences, and the code it leads into; ok is false for
// an item that is neither a sentence nor a name.
func listItem(d *rdoc, di int, blk *doc.Block) (quote, bool) {
	it := quote{doc: di, label: blk.Label}
	n := 0
	for _, k := range blk.Sents {
		ks := &d.Sents[k]
		if ks.Far || ks.Asks || (!ks.OK && len(it.sents) > 0) || len(it.sents) == 2 || n > 0 && n+len(ks.Text) > 240 {
			continue
		}
		it.sents = append(it.sents, k)
		n += len(ks.Text)
	}
	if it.label == "" && (len(it.sents) == 0 || !d.Sents[it.sents[0]].OK && !nameItem(d.Sents[it.sents[0]].Text)) {
		return quote{}, false
	}
	it.code = stepCode(d, blk, it)
	return it, true
}

// stepCode is the code a numbered step leads into, which a procedure
// shows under it ("Compile created file with command:" and the gcc line),
// or "".
func stepCode(d *rdoc, blk *doc.Block, it quote) string {
	if !blk.Ordered || len(it.sents) == 0 {
		return ""
	}
	return d.Sents[it.sents[len(it.sents)-1]].Code
}

// subheadings are the items of a lead-in that closes its passage and is
// followed by sections rather than a list ("The following markup tags
// and attributes are recognised:" over "### speak", "### voice", …):
// the headings of the sections just under its own, named only.
func (c *rcorpus) subheadings(di, lead int) []quote {
	d := c.docs[di]
	pi := d.Sents[lead].Passage
	p := &d.Passages[pi]
	if len(p.Sents) == 0 || p.Sents[len(p.Sents)-1] != lead {
		return nil
	}
	var out []quote
	for k := pi + 1; k < len(d.Passages) && len(out) < 12; k++ {
		sub := &d.Passages[k]
		if len(sub.ContextText) <= len(p.ContextText) || sub.ContextText[len(p.ContextText)] != p.Heading {
			break
		}
		if len(sub.ContextText) == len(p.ContextText)+1 && !sub.Term {
			out = append(out, quote{doc: di, label: string(text.CodeOpen) + sub.Heading + string(text.CodeClose)})
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// nameItem reports whether a list item that is no sentence names a thing
// whole: a short phrase opening in upper case or with code, with no
// punctuation but a closing full stop ("The environment variable
// `$VALGRIND_OPTS`", "Misuses of the POSIX pthreads API."),
// as against a piece of a sentence ("If one block hits, the other
// misses --> counted as one miss.").
func nameItem(s string) bool {
	t := strings.TrimSpace(text.Unmark(s))
	prose := strings.TrimSuffix(strings.TrimSpace(proseOf(s)), ".")
	if t == "" || len(strings.Fields(t)) > 8 || strings.ContainsAny(prose, ",;.:!?>") {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) || r == text.CodeOpen
}

// proseOf is s without its inline code: "./.valgrindrc" is a name, not
// a full stop.
func proseOf(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == text.CodeOpen:
			in = true
		case r == text.CodeClose:
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// procedureQuote quotes a numbered list as the steps it is, for a how-to
// question one of whose steps answers: "1. Install eSpeak NG. … 2.
// Install the PC/Windows version of MBROLA (`MbrolaTools35.exe`) …".
// One step alone answers how to begin. The list is quoted under the
// sentence just before it in its passage (unless the report quoted that
// already), else under its section's heading ("Simple steps"), its steps
// numbered as the page numbers them when all are quoted; with no heading
// or a step left out, under its first step.
func (c *rcorpus) procedureQuote(di, list int, used *usedSet) (quote, bool) {
	d := c.docs[di]
	var steps []quote
	whole := true
	lists := []int{list}
	if next := d.ContinuedSteps(list); next >= 0 {
		lists = append(lists, next)
	}
	for bi := list; bi < len(d.Blocks); bi++ {
		blk := &d.Blocks[bi]
		if blk.Kind != doc.ListItem || !slices.Contains(lists, blk.List) || blk.Cont {
			continue
		}
		if len(steps) == 10 {
			whole = false
			break
		}
		it := quote{doc: di, label: blk.Label}
		n := 0
		for _, k := range blk.Sents {
			ks := &d.Sents[k]
			if ks.Lost || ks.Asks || len(it.sents) == 2 || n > 0 && n+len(ks.Text) > 240 {
				break
			}
			it.sents = append(it.sents, k)
			n += len(ks.Text)
		}
		it.code = stepCode(d, blk, it)
		if len(it.sents) > 0 || it.label != "" {
			steps = append(steps, it)
		} else {
			whole = false
		}
	}
	if len(steps) < 2 || len(steps[0].sents) == 0 {
		return quote{}, false
	}
	q := quote{doc: di, ordered: whole}
	first := steps[0].sents[0]
	heading := withoutSectionNumber(d.Passages[d.Sents[first].Passage].Heading)
	switch lead := first - 1; {
	case lead >= 0 && d.Sents[lead].Passage == d.Sents[first].Passage &&
		d.Blocks[d.Sents[lead].Block].Kind == doc.Paragraph && d.Sents[lead].OK && !d.Sents[lead].Far && d.Sents[lead].Dep < 0 && !used.has(c.usedKey(di, lead)):
		q.sents, q.items = []int{lead}, steps
	case heading != "" && whole:
		// Under the heading of its section ("Simple steps"), not under
		// its first step, which leads into nothing.
		q.label, q.items = heading, steps
	default:
		q.label, q.sents, q.items, q.ordered = steps[0].label, steps[0].sents, steps[1:], false
	}
	return q, true
}
