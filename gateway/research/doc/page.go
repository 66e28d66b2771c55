// Package doc reads a page as research quotes it: its passages (a
// heading and what it holds), the paragraphs, list items and definitions
// in each, and their sentences, each knowing what it leans on and the
// terms research ranks it by. It reads the markdown the extractor wrote
// (headings, lists, definition terms and inline code are marked there)
// or, for pages indexed before the index kept markdown, the plain text
// (page.go, markdown.go, plaintext.go, steps.go, terms.go).
//
// The web index stores each page's parse when it indexes the page
// (web.Config.Parse = Parse; store.go), so that a question reads it back
// rather than parsing again, and Cache keeps the pages read lately.
//
// It knows no question, ranking or report: what a sentence answers is
// research's to weigh, and a Page is never written once it is built.
package doc

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"hark/gateway/research/lean"
	"hark/gateway/text"
)

// BlockKind is what a block is: a paragraph, a list item or a data
// table's row.
type BlockKind uint8

const (
	Paragraph BlockKind = iota
	ListItem
	TableRow
)

// Block is a paragraph, a list item or a table's row (table.go).
type Block struct {
	Kind    BlockKind
	Passage int
	List    int      // an item's list: the block index of its first item, -1
	Depth   int      // an item's list nesting, 1 for a top-level list
	Term    string   // a definition's term (marked), which its sentences describe
	Desc    int      // a definition's first block, -1
	Label   string   // an item's name, when its first "sentence" is one: "Still reachable".
	LeadIn  int      // an item's list's introducing sentence, -1
	NeedsLd bool     // the lead-in ends with ":": the items continue it
	Cont    bool     // an item's second or later paragraph
	Ordered bool     // an item of a numbered list: steps, in order
	Row     string   // a table row's cells as the page's kept text holds them ("smallint | 2 bytes | -32768 to +32767")
	Head    string   // and its table's header row so ("Name | Storage Size | Range"), "" when the table has none
	Key     []string // a table row's first cell's terms: what the row is about ("smallint")
	Sents   []int
}

// Passage is a heading and the blocks under it, up to the next heading.
type Passage struct {
	Overview    bool     // the page's opening or its overview: what the page is about
	Term        bool     // a definition: its heading is the term
	Entry       string   // what the passage documents (marked), when it is an API entry or a term: its list items (parameters) describe it
	Heading     string   // plain text; "" before the first heading
	Own         []string // tokens of the heading
	Context     []string // tokens of the headings above it and of the page title
	ContextText []string // the headings above it
	Sents       []int
}

// Sentence is one sentence.
type Sentence struct {
	Text      string // marked: inline code between text.CodeOpen and text.CodeClose
	Toks      []string
	Block     int
	Passage   int
	First     bool   // the first sentence of its block
	Dep       int    // the sentence before it that it leans on ("This means …"), -1
	AfterList int    // the list it leans on ("These files are compiled …" after the files' list), by the list's lead-in sentence; -1
	Lost      bool   // it leans on text that is not in the source's prose
	OK        bool   // a whole sentence that can be quoted
	Leads     bool   // it introduces a list ("… the following four leak kinds:")
	Far       bool   // it points at a figure or text elsewhere ("… above.")
	Code      string // the code block it introduces, up to maxHowCode lines
	CodeLines int
	LongIntro bool // it leads into code longer than text.MaxQuotedCode lines
	Asks      bool // a question the page asks
	Items     int  // a lead-in's items
	Named     int  // of which name what they describe: "Still reachable". …
	NWords    int
	Context   []string // tokens of what it sits under: passage headings, term, label, lead-in, code
}

// Page is a page read: its passages, blocks and sentences, each in page
// order, and indexes into them. A parse is never written after it is
// built, so one Page may be shared by every report that reads it.
type Page struct {
	Title    string
	Blocks   []Block
	Passages []Passage
	Sents    []Sentence
}

// docBuilder adds blocks in page order.
type docBuilder struct {
	d        *Page
	titleKey string
	titleTok []string
	stack    []string // headings by level, 1 to 6
	term     string   // the definition term the next paragraphs describe
	lastSent int      // the last sentence added, for a code block that follows it
	midCode  int      // a sentence cut off by the one-line code block just added ("Use", the command, "to request …"), -1
	midText  string   // that sentence as written before its code
	joined   int      // the sentence goesOnAfterCode last made whole around a command, which may go on past the next, -1
	prevKind int      // 0 none, 1 para, 2 item, 3 other (code, table), 4 a term, since the passage began
	desc     int      // the first block describing the current term, -1
	links    bool     // the block being added is all links: a table of contents
	cont     bool     // the block being added is an item's later paragraph
}

func newDocBuilder(title string) *docBuilder {
	b := &docBuilder{d: &Page{Title: title}, titleKey: " " + text.PlainWords(title) + " ", titleTok: Terms(title), stack: make([]string, 7), lastSent: -1, midCode: -1, joined: -1, desc: -1}
	b.d.Passages = []Passage{{Context: Terms(title), Overview: true}}
	return b
}

func (b *docBuilder) heading(level int, h string) {
	marked := strings.TrimSpace(h)
	h = strings.TrimSpace(text.Unmark(h))
	if h == "" {
		return
	}
	level = min(max(level, 1), 6)
	var above []string
	for l := 1; l < level; l++ {
		if b.stack[l] != "" {
			above = append(above, b.stack[l])
		}
	}
	if n := len(b.d.Sents); n > 0 && len(b.d.Passages) > 0 && b.d.Sents[n-1].Passage == len(b.d.Passages)-1 &&
		b.stack[level] == "" && level > 1 && b.stack[level-1] != "" {
		// A sentence closing its section that introduces what follows
		// ("The following markup tags … are recognised:") leads into
		// the subsections that open now.
		if s := &b.d.Sents[n-1]; strings.HasSuffix(text.Unmark(s.Text), ":") && lean.IntroducesList(text.Unmark(s.Text)) {
			s.Leads = true
		}
	}
	b.stack[level] = h
	for l := level + 1; l <= 6; l++ {
		b.stack[l] = ""
	}
	ctx := append(Terms(strings.Join(above, " ")), b.titleTok...)
	own := Terms(h)
	if genericHeading().MatchString(h) {
		// "5.1. Overview" is Cachegrind's overview: it is headed by
		// what its page or section is about.
		if len(above) > 0 {
			own = append(own, Terms(above[len(above)-1])...)
		} else {
			own = append(own, b.titleTok...)
		}
	}
	api := apiHeading(marked)
	if api {
		// "fs.appendFile(path, data[, options], callback)" is headed
		// "append" and "file" too: what the entry is for.
		own = append(own, Families(text.NameParts(h))...)
	}
	b.d.Passages = append(b.d.Passages, Passage{Heading: h, Own: own, Context: ctx, ContextText: above, Overview: genericHeading().MatchString(h) || len(above) == 0})
	b.term, b.lastSent, b.prevKind, b.desc = "", -1, 0, -1
	if api {
		// An API reference entry ("### `os.homedir()`") is headed by
		// what it documents: its sentences describe that name, as a
		// definition's describe its term, and are quoted under it.
		b.term = string(text.CodeOpen) + text.Unmark(marked) + string(text.CodeClose)
		b.d.Passages[len(b.d.Passages)-1].Entry = b.term
	}
}

// apiHeading reports whether a heading (marked) is the name of a
// function, method or property: all code ("`os.homedir()`") or a call
// written plainly ("readline.createInterface(options)").
func apiHeading(marked string) bool {
	plain := text.Unmark(marked)
	if strings.HasPrefix(marked, string(text.CodeOpen)) && strings.HasSuffix(marked, string(text.CodeClose)) &&
		strings.Count(marked, string(text.CodeOpen)) == 1 {
		return !strings.Contains(plain, " ") || strings.Contains(plain, "(")
	}
	return apiName().MatchString(plain)
}

var apiName = text.LazyRegexp(`^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+\(.*\)$`)

// goesOn opens a line that goes on with the one before it.
var goesOn = map[string]bool{"or": true, "and": true, "nor": true, "but": true}

// termLine starts a definition: the paragraphs after it describe it.
// Terms in a row are one ("3.4." and the question it numbers).
func (b *docBuilder) termLine(t string) {
	t = strings.TrimSpace(t)
	if b.prevKind == 4 {
		t = b.term + " " + t
		b.d.Passages = b.d.Passages[:len(b.d.Passages)-1]
	} else if w, _, _ := strings.Cut(text.Unmark(t), " "); b.term != "" && goesOn[w] && b.d.Passages[len(b.d.Passages)-1].Term {
		// A bold line that opens on "or" goes on with the term over the
		// examples between ("**My program dies like this:**", a
		// message, "**or otherwise aborts or crashes in
		// m_mallocfree.c.**"): the term is the whole of it.
		b.term += " " + t
		p := &b.d.Passages[len(b.d.Passages)-1]
		p.Heading = text.Unmark(b.term)
		p.Own = Terms(p.Heading)
		b.lastSent, b.prevKind = -1, 4
		return
	}
	b.term, b.desc = t, -1
	// A term heads its description as a heading heads its section: the
	// description is a passage of its own, within the section.
	var above []string
	for l := 1; l <= 6; l++ {
		if b.stack[l] != "" {
			above = append(above, b.stack[l])
		}
	}
	ctx := append(Terms(strings.Join(above, " ")), b.titleTok...)
	b.d.Passages = append(b.d.Passages, Passage{Heading: text.Unmark(t), Own: Terms(text.Unmark(t)), Context: ctx, ContextText: above, Term: true, Entry: t})
	b.lastSent, b.prevKind = -1, 4
}

// block adds a paragraph or an item. list is the block index of an
// item's list's first item; -2 starts a list at this item.
func (b *docBuilder) block(kind BlockKind, t string, depth, list int) {
	t = strings.Join(strings.Fields(t), " ")
	if text.Unmark(t) == "" {
		return
	}
	d := b.d
	pi := len(d.Passages) - 1
	bi := len(d.Blocks)
	blk := Block{Kind: kind, Passage: pi, List: -1, Depth: depth, LeadIn: -1, Term: b.term, Desc: -1}
	if b.term != "" {
		if b.desc < 0 {
			b.desc = bi
		}
		blk.Desc = b.desc
	}
	if kind == ListItem {
		blk.Term, blk.Desc = "", -1
		if list == -2 {
			list = bi
			// A list continues the sentence before it when that ends
			// with ":" ("The Memcheck suppression types are as
			// follows:"); it is introduced by one that names what
			// follows ("… resulting in the following four leak kinds.").
			if b.prevKind == 1 && len(d.Sents) > 0 && d.Sents[len(d.Sents)-1].Passage == pi {
				last := len(d.Sents) - 1
				s := text.Unmark(d.Sents[last].Text)
				if strings.HasSuffix(s, ":") || lean.IntroducesList(s) {
					blk.LeadIn = last
					blk.NeedsLd = strings.HasSuffix(s, ":")
					d.Sents[last].Leads = true
				}
			}
		} else if list >= 0 && list < len(d.Blocks) {
			blk.LeadIn, blk.NeedsLd = d.Blocks[list].LeadIn, d.Blocks[list].NeedsLd
		}
		blk.List = list
	}
	parts := text.Split(t)
	if b.goesOnAfterCode(parts[0]) {
		// "Use", `callgrind_control -d`, "to request the dumping …": one
		// sentence around its command, read as the page wrote it.
		parts = parts[1:]
		if len(parts) == 0 {
			// "… will say the word "hello" while" goes on past its next
			// command.
			b.lastSent, b.joined = len(d.Sents)-1, len(d.Sents)-1
			return
		}
	}
	if kind == ListItem && len(parts) > 1 && len(strings.Fields(text.Unmark(parts[0]))) <= 4 {
		blk.Label, parts = parts[0], parts[1:] // "Still reachable". This covers …
	}
	blk.Cont = b.cont
	if kind == ListItem && blk.LeadIn >= 0 && !b.cont {
		ls := &d.Sents[blk.LeadIn]
		ls.Items++
		if blk.Label != "" || namedItem().MatchString(text.Unmark(t)) {
			ls.Named++ // "Still reachable". …, "Leak, meaning …"
		}
	}
	d.Blocks = append(d.Blocks, blk)
	for i, s := range parts {
		b.sentence(s, bi, pi, i == 0)
	}
	if kind == Paragraph {
		b.prevKind = 1
	} else {
		b.prevKind = 2
	}
}

// aside reports whether plain, which opens on "(", is a whole sentence
// in parentheses: "(Note that there is not an exact equivalent to the C
// char type in libffi; … depending on whether char is signed.)". What
// opens on "(" else is a piece cut from a sentence.
func aside(plain string) bool {
	if !strings.HasSuffix(plain, ".)") || strings.Count(plain, "(") != strings.Count(plain, ")") {
		return false
	}
	inner := plain[1 : len(plain)-1]
	return text.IsAnswerSentence(inner, 5, 90) && !strings.HasPrefix(inner, "See ") && !strings.HasPrefix(inner, "see ")
}

func (b *docBuilder) sentence(s string, bi, pi int, first bool) {
	d := b.d
	blk := &d.Blocks[bi]
	si := len(d.Sents)
	plain := text.Unmark(s)
	rs := Sentence{Text: s, Toks: Terms(plain), Block: bi, Passage: pi, First: first, Dep: -1, AfterList: -1, NWords: len(strings.Fields(plain))}
	check := plain
	if s[0] == text.CodeOpen || first && len(d.Passages[pi].Sents) == 0 && blk.Kind == Paragraph {
		// "`libffi` also …", or a section's opening: no tail of a
		// sentence cut off, whatever its case. A paragraph that opens
		// in lower case after a code block ("on a Cachegrind output
		// file.") is.
		check = text.SentenceCase(check)
	}
	if blk.Kind == ListItem {
		// A list of sentences may close each item on ";" as a list
		// of clauses does: "Notice the data-cover attribute we added to
		// the script tag …;" is whole.
		if c, ok := strings.CutSuffix(check, ";"); ok {
			check = c + "."
		}
	}
	rs.Asks = strings.HasSuffix(plain, "?") || strings.HasSuffix(plain, "？")
	least := 5
	if blk.Term != "" && first && blk.Desc == bi {
		least = 3 // a term's description opens whole on fewer words: "Prepare a closure function." under ffi_prep_closure_loc
	}
	rs.OK = (text.IsAnswerSentence(check, least, 90) && !strings.HasPrefix(plain, "(") || aside(plain)) && !rs.Asks && !b.links &&
		!strings.Contains(b.titleKey, " "+text.PlainWords(plain)+" ")
	lower := strings.ToLower(plain)
	rs.Far = lean.PointsFar(plain)
	if lean.LeansBack(lower) {
		switch {
		case !first:
			rs.Dep = si - 1
		case blk.Label != "" || blk.Term != "" || blk.LeadIn >= 0:
			// "This covers cases 1 and 2" under "Still reachable": the
			// label it leans on is quoted with it.
		case b.prevKind == 1 && si > 0 && d.Sents[si-1].Passage == pi && d.Sents[si-1].Block == bi-1:
			rs.Dep = si - 1
		case b.prevKind == 3 && si > 0 && d.Sents[si-1].Passage == pi && d.Sents[si-1].CodeLines == 1 && d.Sents[si-1].Block == bi-1:
			// "And list which voices … with:" after "You can select a
			// voice … from the command line:" and its one command,
			// which the quote holds inline.
			rs.Dep = si - 1
		case b.prevKind == 2 && blk.Kind == Paragraph && bi > 0 && d.Blocks[bi-1].Kind == ListItem && d.Blocks[bi-1].Passage == pi &&
			d.Blocks[bi-1].LeadIn >= 0 && !d.Sents[d.Blocks[bi-1].LeadIn].Lost:
			// "These files are compiled into …" after the list of the
			// files: quoted with the list and its lead-in.
			rs.AfterList = d.Blocks[bi-1].LeadIn
		case first && onlyRows(d, d.Passages[pi].Sents) && blk.Kind == Paragraph && namesHeading(d.Passages[pi].Heading, lower):
			// "This attribute is only a label …" opening the section
			// headed "gender": the heading is what it points at, and
			// is quoted with it; so too after the summary box of
			// table rows a directive's section opens with ("This
			// directive allows …" under "ProxyPass Directive").
			blk.Label = d.Passages[pi].Heading
		default:
			rs.Lost = true
		}
	}
	ctx := append([]string(nil), d.Passages[pi].Own...)
	ctx = append(ctx, d.Passages[pi].Context...)
	if blk.Term != "" {
		ctx = append(ctx, Terms(text.Unmark(blk.Term))...)
	}
	if blk.Label != "" {
		ctx = append(ctx, Terms(text.Unmark(blk.Label))...)
	}
	if blk.LeadIn >= 0 {
		ctx = append(ctx, d.Sents[blk.LeadIn].Toks...)
	}
	if rs.AfterList >= 0 {
		ctx = append(ctx, d.Sents[rs.AfterList].Toks...)
	}
	rs.Context = ctx
	d.Sents = append(d.Sents, rs)
	blk.Sents = append(blk.Sents, si)
	d.Passages[pi].Sents = append(d.Passages[pi].Sents, si)
	b.lastSent = si
}

// code hands a short code block to the sentence before it, which
// introduces it ("Run it like this:").
// maxHowCode is the most lines of code a how-to answer quotes: an API
// example ("Read file stream line-by-Line", mjs with its imports) runs
// longer than the command a sentence introduces (text.MaxQuotedCode).
const maxHowCode = 30

func (b *docBuilder) code(lines []string) {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if b.lastSent >= 0 && len(lines) > 0 && len(lines) <= maxHowCode {
		s := &b.d.Sents[b.lastSent]
		if last := b.d.Blocks[s.Block].Sents; last[len(last)-1] == b.lastSent && s.Code == "" {
			s.Code, s.CodeLines = text.Dedent(lines), len(lines)
			plain := text.Unmark(s.Text)
			if last, _ := utf8.DecodeLastRuneInString(plain); !s.Asks && !strings.ContainsRune(".!?", last) {
				if last != ':' && len(lines) == 1 && (b.lastSent == b.joined || !text.IsAnswerSentence(text.SentenceCase(plain)+".", 5, 90)) {
					// "Use", a command, and what may go on after it.
					b.midCode, b.midText = b.lastSent, s.Text
				}
				// "Run it like this:", or a line that leads into its
				// code with no stop at all ("… name it on the command
				// line"): it answers with its code.
				if last != ':' {
					s.Text += ":"
				}
				least := 5
				if b.d.Blocks[s.Block].Kind == ListItem && CommandLike(s.Code) {
					least = 3 // a step of a procedure: "Build the project:" and its command
				}
				whole := text.IsAnswerSentence(text.SentenceCase(strings.TrimSuffix(plain, ":")+"."), least, 90)
				if !whole && !s.First && s.Dep < 0 && exampleLead().MatchString(plain) && !b.d.Sents[b.lastSent-1].Lost {
					// "… by passing the appropriate CFLAGS and LDFLAGS
					// options to configure. For example:" and the command:
					// the example is the sentence before's, quoted with it.
					whole, s.Dep = true, b.lastSent-1
				}
				if len(lines) <= text.MaxQuotedCode {
					s.OK = whole
				} else {
					// A long listing answers only a how-to question whose
					// words it holds (research's howCode).
					s.LongIntro = whole
				}
			}
			if CommandLike(s.Code) {
				s.Context = append(s.Context, Terms(s.Code)...) // "pip install -e path"
			}
		}
	}
	b.lastSent, b.prevKind = -1, 3
}

// exampleLead is a sentence that only leads into an example of what
// the sentence before it says: "For example:", "For instance:".
var exampleLead = text.LazyRegexp(`(?i)^(?:for (?:example|instance)|e\.g\.|example|like this|like so|as follows)\s*:?$`)

// goesOnAfterCode reports whether sentence s, opening a block in lower
// case, finishes the sentence the one-line code block before it cut off
// ("Use" … "to request the dumping of profile information …"), and if
// so makes them one sentence with the code inline: "Use
// `callgrind_control -d [hint [PID/Name]]` to request …". The page's
// kept text holds the same words in the same order, so the passage is
// found.
func (b *docBuilder) goesOnAfterCode(s string) bool {
	mid := b.midCode
	b.midCode = -1
	if mid < 0 || b.prevKind != 3 || mid != len(b.d.Sents)-1 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s)
	if !unicode.IsLower(r) {
		return false
	}
	m := &b.d.Sents[mid]
	m.Text = b.midText + " " + string(text.CodeOpen) + m.Code + string(text.CodeClose) + " " + s
	plain := text.Unmark(m.Text)
	m.Toks, m.NWords = Terms(plain), len(strings.Fields(plain))
	m.Code, m.CodeLines, m.LongIntro = "", 0, false
	// A sentence opening in lower case is itself the tail of one before
	// ("… you may try to replace line:", a command, "with", a command,
	// "where …"): still cut off.
	head, _ := utf8.DecodeRuneInString(plain)
	m.OK = !unicode.IsLower(head) && text.IsAnswerSentence(plain, 5, 90)
	m.Far = lean.PointsFar(plain)
	return true
}

// namedItem matches an item that names what it describes: "Leak,
// meaning a memory leak.", "--foo: does this."
var namedItem = text.LazyRegexp(`^\S+(?: \S+)?(?:,? meaning\b|: )`)

var genericHeading = text.LazyRegexp(`(?i)^[\d.\s]*(?:overview|introduction|description|synopsis|about|summary|abstract|preface)\s*$`)

// onlyRows reports whether every sentence of sents is a table's row:
// none is prose a sentence after them could lean on.
func onlyRows(d *Page, sents []int) bool {
	for _, i := range sents {
		if d.Blocks[d.Sents[i].Block].Kind != TableRow {
			return false
		}
	}
	return true
}

// namesHeading reports whether a section's opening sentence (lower-cased)
// points at the thing its heading names: "this attribute …" under
// "gender", a heading of a name or two.
func namesHeading(heading, lower string) bool {
	return heading != "" && len(strings.Fields(heading)) <= 2 && thisThing().MatchString(lower)
}

var thisThing = text.LazyRegexp(`^this (?:attribute|option|setting|command|function|method|field|parameter|property|flag|keyword|variable|directive|macro|element|tag|class|module|tool|program|request|event|value)\b`)

// CommandLike reports whether code is a command or two, not a listing
// of output: a few lines, each opening with a word, a path or a prompt
// ("valgrind --tool=memcheck ls -l", not "--1610-- used_suppression: …").
func CommandLike(code string) bool {
	if !short(code) {
		return false
	}
	for _, l := range strings.Split(code, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		r, _ := utf8.DecodeRuneInString(l)
		if !unicode.IsLetter(r) && !strings.ContainsRune("$./~", r) {
			return false
		}
	}
	return true
}

// short reports whether code is a command or a few lines, not a listing
// of output: at most five lines.
func short(code string) bool {
	return code != "" && strings.Count(code, "\n") < 5
}
