package research

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	gmtext "github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"hark/gateway/extract"
	"hark/gateway/research/lean"
	"hark/gateway/text"
)

// A source as research reads it: passages (a heading and what it holds),
// the paragraphs, list items and definitions in each, and their
// sentences, each knowing what it leans on. It is read from the markdown
// the extractor wrote (headings, lists, definition terms and inline code
// are marked there) or, for pages indexed before the index kept markdown,
// from the plain text.

type blockKind uint8

const (
	paraBlock blockKind = iota
	itemBlock
)

// rblock is a paragraph or a list item.
type rblock struct {
	kind    blockKind
	passage int
	list    int    // an item's list: the block index of its first item, -1
	depth   int    // an item's list nesting, 1 for a top-level list
	term    string // a definition's term (marked), which its sentences describe
	desc    int    // a definition's first block, -1
	label   string // an item's name, when its first "sentence" is one: "Still reachable".
	leadIn  int    // an item's list's introducing sentence, -1
	needsLd bool   // the lead-in ends with ":": the items continue it
	cont    bool   // an item's second or later paragraph
	ordered bool   // an item of a numbered list: steps, in order
	sents   []int
}

// rpassage is a heading and the blocks under it, up to the next heading.
type rpassage struct {
	overview    bool     // the page's opening or its overview: what the page is about
	term        bool     // a definition: its heading is the term
	entry       string   // what the passage documents (marked), when it is an API entry or a term: its list items (parameters) describe it
	heading     string   // plain text; "" before the first heading
	own         []string // tokens of the heading
	context     []string // tokens of the headings above it and of the page title
	contextText []string // the headings above it
	sents       []int
}

// rsent is one sentence.
type rsent struct {
	text      string // marked: inline code between text.CodeOpen and text.CodeClose
	toks      []string
	block     int
	passage   int
	first     bool   // the first sentence of its block
	dep       int    // the sentence before it that it leans on ("This means …"), -1
	afterList int    // the list it leans on ("These files are compiled …" after the files' list), by the list's lead-in sentence; -1
	lost      bool   // it leans on text that is not in the source's prose
	ok        bool   // a whole sentence that can be quoted
	leads     bool   // it introduces a list ("… the following four leak kinds:")
	far       bool   // it points at a figure or text elsewhere ("… above.")
	code      string // the code block it introduces, up to maxHowCode lines
	codeLines int
	longIntro bool // it leads into code longer than text.MaxQuotedCode lines
	asks      bool // a question the page asks
	items     int  // a lead-in's items
	named     int  // of which name what they describe: "Still reachable". …
	nWords    int
	context   []string // tokens of what it sits under: passage headings, term, label, lead-in, code
}

type rdoc struct {
	title     string
	changelog bool
	offTopic  bool    // it lacks a word every other source shares with the question: no quote comes from it
	prior     float64 // how the search ranked the page among the sources, 0 to 1 (the best)
	url       string
	kept      string // the page's kept text, where its passages are found
	blocks    []rblock
	passages  []rpassage
	sents     []rsent
}

// docBuilder adds blocks in page order.
type docBuilder struct {
	d        *rdoc
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
	b := &docBuilder{d: &rdoc{title: title}, titleKey: " " + plainWords(title) + " ", titleTok: terms(title), stack: make([]string, 7), lastSent: -1, midCode: -1, joined: -1, desc: -1}
	b.d.passages = []rpassage{{context: terms(title), overview: true}}
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
	if n := len(b.d.sents); n > 0 && len(b.d.passages) > 0 && b.d.sents[n-1].passage == len(b.d.passages)-1 &&
		b.stack[level] == "" && level > 1 && b.stack[level-1] != "" {
		// A sentence closing its section that introduces what follows
		// ("The following markup tags … are recognised:") leads into
		// the subsections that open now.
		if s := &b.d.sents[n-1]; strings.HasSuffix(text.Unmark(s.text), ":") && lean.IntroducesList(text.Unmark(s.text)) {
			s.leads = true
		}
	}
	b.stack[level] = h
	for l := level + 1; l <= 6; l++ {
		b.stack[l] = ""
	}
	ctx := append(terms(strings.Join(above, " ")), b.titleTok...)
	own := terms(h)
	if genericHeading().MatchString(h) {
		// "5.1. Overview" is Cachegrind's overview: it is headed by
		// what its page or section is about.
		if len(above) > 0 {
			own = append(own, terms(above[len(above)-1])...)
		} else {
			own = append(own, b.titleTok...)
		}
	}
	api := apiHeading(marked)
	if api {
		// "fs.appendFile(path, data[, options], callback)" is headed
		// "append" and "file" too: what the entry is for.
		own = append(own, families(text.NameParts(h))...)
	}
	b.d.passages = append(b.d.passages, rpassage{heading: h, own: own, context: ctx, contextText: above, overview: genericHeading().MatchString(h) || len(above) == 0})
	b.term, b.lastSent, b.prevKind, b.desc = "", -1, 0, -1
	if api {
		// An API reference entry ("### `os.homedir()`") is headed by
		// what it documents: its sentences describe that name, as a
		// definition's describe its term, and are quoted under it.
		b.term = string(text.CodeOpen) + text.Unmark(marked) + string(text.CodeClose)
		b.d.passages[len(b.d.passages)-1].entry = b.term
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
		b.d.passages = b.d.passages[:len(b.d.passages)-1]
	} else if w, _, _ := strings.Cut(text.Unmark(t), " "); b.term != "" && goesOn[w] && b.d.passages[len(b.d.passages)-1].term {
		// A bold line that opens on "or" goes on with the term over the
		// examples between ("**My program dies like this:**", a
		// message, "**or otherwise aborts or crashes in
		// m_mallocfree.c.**"): the term is the whole of it.
		b.term += " " + t
		p := &b.d.passages[len(b.d.passages)-1]
		p.heading = text.Unmark(b.term)
		p.own = terms(p.heading)
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
	ctx := append(terms(strings.Join(above, " ")), b.titleTok...)
	b.d.passages = append(b.d.passages, rpassage{heading: text.Unmark(t), own: terms(text.Unmark(t)), context: ctx, contextText: above, term: true, entry: t})
	b.lastSent, b.prevKind = -1, 4
}

// para adds a paragraph. A paragraph of hard-broken lines (a plain-text
// file shown in HTML, such as NEWS) is read as the lines it holds:
// underlined or framed lines are headings, "* " and "- " start items.
func (b *docBuilder) para(t string) {
	if strings.Contains(t, "\n") {
		b.lines(strings.Split(t, "\n"))
		return
	}
	if h := framed(t); h != "" {
		b.heading(6, h) // "* ==== CORE CHANGES ===="
		return
	}
	b.block(paraBlock, t, 0, -1)
}

func (b *docBuilder) lines(lines []string) {
	var cur []string
	flush := func() {
		for _, l := range text.UnwrapLines(strings.Join(cur, "\n")) {
			if m := listMarker(l); m != "" {
				b.block(itemBlock, strings.TrimSpace(l[len(m):]), 1, -2)
			} else {
				b.block(paraBlock, l, 0, -1)
			}
		}
		cur = cur[:0]
	}
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case underline(t) && len(cur) > 0:
			h := cur[len(cur)-1]
			cur = cur[:len(cur)-1]
			flush()
			b.heading(5, h)
		case framed(t) != "":
			flush()
			b.heading(6, framed(t))
		case underline(t):
		case t == "":
			flush()
		default:
			cur = append(cur, t)
		}
		_ = i
	}
	flush()
}

// underline is a line of ~, = or - that underlines the line above it.
func underline(t string) bool {
	return len(t) >= 3 && strings.Trim(t, "~=-") == ""
}

// framed is the title of a line such as "* ==== CORE CHANGES ====".
func framed(t string) string {
	if strings.Count(t, "=") < 6 {
		return ""
	}
	inner := strings.TrimSpace(strings.Trim(strings.TrimLeft(t, "*- "), "= "))
	if inner == "" || strings.ContainsAny(inner, "=.") {
		return ""
	}
	return inner
}

// listMarker is the marker that opens a list item in a line of plain
// text, or "".
func listMarker(t string) string {
	if !text.ListItem(t) {
		return ""
	}
	if i := strings.IndexByte(t, ' '); i > 0 {
		return t[:i+1]
	}
	return ""
}

// block adds a paragraph or an item. list is the block index of an
// item's list's first item; -2 starts a list at this item.
func (b *docBuilder) block(kind blockKind, t string, depth, list int) {
	t = strings.Join(strings.Fields(t), " ")
	if text.Unmark(t) == "" {
		return
	}
	d := b.d
	pi := len(d.passages) - 1
	bi := len(d.blocks)
	blk := rblock{kind: kind, passage: pi, list: -1, depth: depth, leadIn: -1, term: b.term, desc: -1}
	if b.term != "" {
		if b.desc < 0 {
			b.desc = bi
		}
		blk.desc = b.desc
	}
	if kind == itemBlock {
		blk.term, blk.desc = "", -1
		if list == -2 {
			list = bi
			// A list continues the sentence before it when that ends
			// with ":" ("The Memcheck suppression types are as
			// follows:"); it is introduced by one that names what
			// follows ("… resulting in the following four leak kinds.").
			if b.prevKind == 1 && len(d.sents) > 0 && d.sents[len(d.sents)-1].passage == pi {
				last := len(d.sents) - 1
				s := text.Unmark(d.sents[last].text)
				if strings.HasSuffix(s, ":") || lean.IntroducesList(s) {
					blk.leadIn = last
					blk.needsLd = strings.HasSuffix(s, ":")
					d.sents[last].leads = true
				}
			}
		} else if list >= 0 && list < len(d.blocks) {
			blk.leadIn, blk.needsLd = d.blocks[list].leadIn, d.blocks[list].needsLd
		}
		blk.list = list
	}
	parts := text.Split(t)
	if b.goesOnAfterCode(parts[0]) {
		// "Use", `callgrind_control -d`, "to request the dumping …": one
		// sentence around its command, read as the page wrote it.
		parts = parts[1:]
		if len(parts) == 0 {
			// "… will say the word "hello" while" goes on past its next
			// command.
			b.lastSent, b.joined = len(d.sents)-1, len(d.sents)-1
			return
		}
	}
	if kind == itemBlock && len(parts) > 1 && len(strings.Fields(text.Unmark(parts[0]))) <= 4 {
		blk.label, parts = parts[0], parts[1:] // "Still reachable". This covers …
	}
	blk.cont = b.cont
	if kind == itemBlock && blk.leadIn >= 0 && !b.cont {
		ls := &d.sents[blk.leadIn]
		ls.items++
		if blk.label != "" || namedItem().MatchString(text.Unmark(t)) {
			ls.named++ // "Still reachable". …, "Leak, meaning …"
		}
	}
	d.blocks = append(d.blocks, blk)
	for i, s := range parts {
		b.sentence(s, bi, pi, i == 0)
	}
	if kind == paraBlock {
		b.prevKind = 1
	} else {
		b.prevKind = 2
	}
}

func (b *docBuilder) sentence(s string, bi, pi int, first bool) {
	d := b.d
	blk := &d.blocks[bi]
	si := len(d.sents)
	plain := text.Unmark(s)
	rs := rsent{text: s, toks: terms(plain), block: bi, passage: pi, first: first, dep: -1, afterList: -1, nWords: len(strings.Fields(plain))}
	check := plain
	if s[0] == text.CodeOpen || first && len(d.passages[pi].sents) == 0 && blk.kind == paraBlock {
		// "`libffi` also …", or a section's opening: no tail of a
		// sentence cut off, whatever its case. A paragraph that opens
		// in lower case after a code block ("on a Cachegrind output
		// file.") is.
		check = sentenceCase(check)
	}
	rs.asks = strings.HasSuffix(plain, "?") || strings.HasSuffix(plain, "？")
	least := 5
	if blk.term != "" && first && blk.desc == bi {
		least = 3 // a term's description opens whole on fewer words: "Prepare a closure function." under ffi_prep_closure_loc
	}
	rs.ok = text.IsAnswerSentence(check, least, 90) && !rs.asks && !b.links && !strings.HasPrefix(plain, "(") &&
		!strings.Contains(b.titleKey, " "+plainWords(plain)+" ")
	lower := strings.ToLower(plain)
	rs.far = lean.PointsFar(plain)
	if lean.LeansBack(lower) {
		switch {
		case !first:
			rs.dep = si - 1
		case blk.label != "" || blk.term != "" || blk.leadIn >= 0:
			// "This covers cases 1 and 2" under "Still reachable": the
			// label it leans on is quoted with it.
		case b.prevKind == 1 && si > 0 && d.sents[si-1].passage == pi && d.sents[si-1].block == bi-1:
			rs.dep = si - 1
		case b.prevKind == 3 && si > 0 && d.sents[si-1].passage == pi && d.sents[si-1].codeLines == 1 && d.sents[si-1].block == bi-1:
			// "And list which voices … with:" after "You can select a
			// voice … from the command line:" and its one command,
			// which the quote holds inline.
			rs.dep = si - 1
		case b.prevKind == 2 && blk.kind == paraBlock && bi > 0 && d.blocks[bi-1].kind == itemBlock && d.blocks[bi-1].passage == pi &&
			d.blocks[bi-1].leadIn >= 0 && !d.sents[d.blocks[bi-1].leadIn].lost:
			// "These files are compiled into …" after the list of the
			// files: quoted with the list and its lead-in.
			rs.afterList = d.blocks[bi-1].leadIn
		case first && len(d.passages[pi].sents) == 0 && blk.kind == paraBlock && namesHeading(d.passages[pi].heading, lower):
			// "This attribute is only a label …" opening the section
			// headed "gender": the heading is what it points at, and
			// is quoted with it.
			blk.label = d.passages[pi].heading
		default:
			rs.lost = true
		}
	}
	ctx := append([]string(nil), d.passages[pi].own...)
	ctx = append(ctx, d.passages[pi].context...)
	if blk.term != "" {
		ctx = append(ctx, terms(text.Unmark(blk.term))...)
	}
	if blk.label != "" {
		ctx = append(ctx, terms(text.Unmark(blk.label))...)
	}
	if blk.leadIn >= 0 {
		ctx = append(ctx, d.sents[blk.leadIn].toks...)
	}
	if rs.afterList >= 0 {
		ctx = append(ctx, d.sents[rs.afterList].toks...)
	}
	rs.context = ctx
	d.sents = append(d.sents, rs)
	blk.sents = append(blk.sents, si)
	d.passages[pi].sents = append(d.passages[pi].sents, si)
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
		s := &b.d.sents[b.lastSent]
		if last := b.d.blocks[s.block].sents; last[len(last)-1] == b.lastSent && s.code == "" {
			s.code, s.codeLines = text.Dedent(lines), len(lines)
			plain := text.Unmark(s.text)
			if last, _ := utf8.DecodeLastRuneInString(plain); !s.asks && !strings.ContainsRune(".!?", last) {
				if last != ':' && len(lines) == 1 && (b.lastSent == b.joined || !text.IsAnswerSentence(sentenceCase(plain)+".", 5, 90)) {
					// "Use", a command, and what may go on after it.
					b.midCode, b.midText = b.lastSent, s.text
				}
				// "Run it like this:", or a line that leads into its
				// code with no stop at all ("… name it on the command
				// line"): it answers with its code.
				if last != ':' {
					s.text += ":"
				}
				least := 5
				if b.d.blocks[s.block].kind == itemBlock && commandLike(s.code) {
					least = 3 // a step of a procedure: "Build the project:" and its command
				}
				whole := text.IsAnswerSentence(sentenceCase(strings.TrimSuffix(plain, ":")+"."), least, 90)
				if !whole && !s.first && s.dep < 0 && exampleLead().MatchString(plain) && !b.d.sents[b.lastSent-1].lost {
					// "… by passing the appropriate CFLAGS and LDFLAGS
					// options to configure. For example:" and the command:
					// the example is the sentence before's, quoted with it.
					whole, s.dep = true, b.lastSent-1
				}
				if len(lines) <= text.MaxQuotedCode {
					s.ok = whole
				} else {
					// A long listing answers only a how-to question whose
					// words it holds (research_rank.go's howCode).
					s.longIntro = whole
				}
			}
			if commandLike(s.code) {
				s.context = append(s.context, terms(s.code)...) // "pip install -e path"
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
	if mid < 0 || b.prevKind != 3 || mid != len(b.d.sents)-1 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s)
	if !unicode.IsLower(r) {
		return false
	}
	m := &b.d.sents[mid]
	m.text = b.midText + " " + string(text.CodeOpen) + m.code + string(text.CodeClose) + " " + s
	plain := text.Unmark(m.text)
	m.toks, m.nWords = terms(plain), len(strings.Fields(plain))
	m.code, m.codeLines, m.longIntro = "", 0, false
	// A sentence opening in lower case is itself the tail of one before
	// ("… you may try to replace line:", a command, "with", a command,
	// "where …"): still cut off.
	head, _ := utf8.DecodeRuneInString(plain)
	m.ok = !unicode.IsLower(head) && text.IsAnswerSentence(plain, 5, 90)
	m.far = lean.PointsFar(plain)
	return true
}

// namedItem matches an item that names what it describes: "Leak,
// meaning a memory leak.", "--foo: does this."
var namedItem = text.LazyRegexp(`^\S+(?: \S+)?(?:,? meaning\b|: )`)

var genericHeading = text.LazyRegexp(`(?i)^[\d.\s]*(?:overview|introduction|description|synopsis|about|summary|abstract|preface)\s*$`)

// readMarkdownDoc reads the extractor's markdown.
func readMarkdownDoc(md, title string) *rdoc {
	src := []byte(md)
	root := text.Markdown().Parser().Parse(gmtext.NewReader(src))
	b := newDocBuilder(title)
	b.blocks(root, src, 0)
	notesInSteps(b.d)
	return b.d
}

func (b *docBuilder) blocks(n ast.Node, src []byte, depth int) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Heading:
			b.heading(c.Level, inlineText(c, src))
		case *ast.Paragraph, *ast.TextBlock:
			t := inlineText(c, src)
			if termParagraph(c, src) {
				b.termLine(t)
			} else {
				b.links = allLinks(c, src)
				b.para(t)
				b.links = false
			}
		case *ast.List:
			b.listBlocks(c, src, depth+1)
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			b.code(codeLines(c, src))
		case *ast.Blockquote:
			b.blocks(c, src, depth)
		default:
			b.lastSent, b.prevKind = -1, 3 // tables, rules, raw HTML: not quoted
		}
	}
}

func (b *docBuilder) listBlocks(l *ast.List, src []byte, depth int) {
	first := -2
	defer func() {
		// Its items know the list is numbered: a how-to question's
		// answer in one step is the whole procedure.
		if first >= 0 && l.IsOrdered() {
			for bi := first; bi < len(b.d.blocks); bi++ {
				if blk := &b.d.blocks[bi]; blk.kind == itemBlock && blk.list == first {
					blk.ordered = true
				}
			}
		}
	}()
	for li := l.FirstChild(); li != nil; li = li.NextSibling() {
		opened := false
		for c := li.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Paragraph, *ast.TextBlock:
				t := inlineText(c, src)
				b.links = allLinks(c, src)
				if !opened {
					n := len(b.d.blocks)
					b.block(itemBlock, t, depth, first)
					if first == -2 && len(b.d.blocks) > n {
						first = n
					}
					opened = true
					b.links = false
				} else {
					b.links = false
					// An item's later paragraphs read as the item's.
					b.cont = true
					b.block(itemBlock, t, depth, first)
					b.cont = false
				}
			case *ast.List:
				b.listBlocks(c, src, depth+1)
			case *ast.FencedCodeBlock, *ast.CodeBlock:
				b.code(codeLines(c, src))
			default:
				b.blocks(c, src, depth)
			}
		}
	}
	b.prevKind = 2
}

// allLinks reports whether a paragraph is links and little else: an
// entry of a table of contents ("3.4. I tried running a Java program").
func allLinks(p ast.Node, src []byte) bool {
	var all, linked int
	var walk func(n ast.Node, in bool)
	walk = func(n ast.Node, in bool) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				n := len(strings.TrimSpace(string(t.Segment.Value(src))))
				all += n
				if in {
					linked += n
				}
				continue
			}
			_, isLink := c.(*ast.Link)
			walk(c, in || isLink)
		}
	}
	walk(p, false)
	return linked > 0 && linked*10 >= all*8
}

// termParagraph reports whether p is a definition-list term as the
// extractor writes one: one line, all of it bold.
func termParagraph(p ast.Node, src []byte) bool {
	lines := p.Lines()
	if lines.Len() != 1 {
		return false
	}
	seg := lines.At(0)
	l := strings.TrimSpace(string(seg.Value(src)))
	if len(l) <= 4 || !strings.HasPrefix(l, "**") || !strings.HasSuffix(l, "**") {
		return false
	}
	// A paragraph set in bold as the article's lead ("**So finally
	// you're testing your frontend JavaScript code? Great! …**") is
	// prose, not a term its next paragraphs describe: a term is a name
	// or an option, never two sentences.
	// But a bold question is a question a FAQ answers under it ("**3.4.**
	// **I tried running a Java program … Does Valgrind handle such
	// programs?**"), however many sentences it takes to ask, and so is
	// what a FAQ numbers, asked or told ("**4.1.** **My program uses the
	// C++ STL and string classes. Valgrind reports 'still reachable'
	// memory leaks … but there should be none.**").
	plain := strings.TrimSpace(strings.Trim(l, "*"))
	return len(text.Sentences(plain)) < 2 || strings.HasSuffix(plain, "?") || faqNumber().MatchString(l)
}

// faqNumber opens a bold paragraph that a FAQ numbers: "**4.1.** **".
var faqNumber = text.LazyRegexp(`^\*\*\d+(?:\.\d+)+\.?\*\*\s+\*\*`)

func codeLines(n ast.Node, src []byte) []string {
	var out []string
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		out = append(out, strings.TrimRight(string(seg.Value(src)), "\n"))
	}
	return out
}

// inlineText is n's inline content as marked text: emphasis and link
// markup gone, escapes resolved, inline code between text.CodeOpen and
// text.CodeClose, a hard line break kept as "\n".
func inlineText(n ast.Node, src []byte) string {
	var sb strings.Builder
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				v := c.Segment.Value(src)
				if !c.IsRaw() {
					v = util.UnescapePunctuations(v)
				}
				sb.WriteString(strings.Map(dropMarks, string(v)))
				if c.HardLineBreak() {
					sb.WriteByte('\n')
				} else if c.SoftLineBreak() {
					sb.WriteByte(' ')
				}
			case *ast.String:
				sb.WriteString(strings.Map(dropMarks, string(c.Value)))
			case *ast.CodeSpan:
				var code strings.Builder
				for t := c.FirstChild(); t != nil; t = t.NextSibling() {
					if tx, ok := t.(*ast.Text); ok {
						code.Write(tx.Segment.Value(src))
					}
				}
				if s := strings.Join(strings.Fields(strings.Map(dropMarks, code.String())), " "); s != "" {
					sb.WriteRune(text.CodeOpen)
					sb.WriteString(s)
					sb.WriteRune(text.CodeClose)
				}
			case *ast.Image, *ast.RawHTML:
			case *ast.AutoLink:
				sb.Write(c.URL(src))
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return sb.String()
}

func dropMarks(r rune) rune {
	if r == text.CodeOpen || r == text.CodeClose {
		return -1
	}
	return r
}

// readTextDoc reads plain text, where a heading is only a short line of
// its own and code is indented by four spaces or a tab.
func readTextDoc(body, title string) *rdoc {
	b := newDocBuilder(title)
	prose := func(lines []string) {
		if h, level, rest := text.BlockHeading(lines); level > 0 {
			b.heading(level, h)
			lines = rest
		}
		list := -2
		for _, l := range text.UnwrapLines(strings.Join(lines, "\n")) {
			if m := listMarker(l); m != "" {
				n := len(b.d.blocks)
				b.block(itemBlock, markCode(strings.TrimSpace(l[len(m):])), 1, list)
				if list == -2 && len(b.d.blocks) > n {
					list = n
				}
				continue
			}
			b.block(paraBlock, markCode(l), 0, -1)
			list = -2
		}
	}
	code := func(lines []string) {
		if len(lines) > 0 {
			b.code(lines)
		}
	}
	text.Blocks(body, prose, code)
	return b.d
}

// markCode drops the two marker bytes from plain text, which holds no
// inline code marks of its own.
func markCode(s string) string { return strings.Map(dropMarks, s) }

// renderMarked writes marked text as markdown that reads as the page
// wrote it: the text escaped (so "__main__" or "[x](y)" on a page is not
// markup), inline code as code spans.
func renderMarked(s string) string {
	var b strings.Builder
	for s != "" {
		i := strings.IndexRune(s, text.CodeOpen)
		if i < 0 {
			b.WriteString(escapeInline(s))
			break
		}
		b.WriteString(escapeInline(s[:i]))
		s = s[i+utf8.RuneLen(text.CodeOpen):]
		j := strings.IndexRune(s, text.CodeClose)
		if j < 0 {
			j = len(s)
		}
		b.WriteString(codeSpan(s[:j]))
		if j < len(s) {
			s = s[j+utf8.RuneLen(text.CodeClose):]
		} else {
			s = ""
		}
	}
	return b.String()
}

// escapeInline is plain text escaped for the middle of a markdown line.
func escapeInline(s string) string {
	if s == "" {
		return s
	}
	lead := s[:len(s)-len(strings.TrimLeft(s, " "))]
	return lead + extract.EscapeText(s[len(lead):])
}

// escapeWithin is plain text escaped for a place no block can start: a
// link's text, a heading's words ("[2. Using …]" keeps its "2.").
func escapeWithin(s string) string {
	return strings.TrimPrefix(extract.EscapeText("x"+s), "x")
}

// codeSpan is code as a markdown code span: a fence of backticks longer
// than any run inside it.
func codeSpan(code string) string {
	fence := "`"
	for strings.Contains(code, fence) {
		fence += "`"
	}
	if strings.HasPrefix(code, "`") || strings.HasSuffix(code, "`") {
		return fence + " " + code + " " + fence
	}
	return fence + code + fence
}

// namesHeading reports whether a section's opening sentence (lower-cased)
// points at the thing its heading names: "this attribute …" under
// "gender", a heading of a name or two.
func namesHeading(heading, lower string) bool {
	return heading != "" && len(strings.Fields(heading)) <= 2 && thisThing().MatchString(lower)
}

var thisThing = text.LazyRegexp(`^this (?:attribute|option|setting|command|function|method|field|parameter|property|flag|keyword|variable|directive|macro|element|tag|class|module|tool|program|request|event|value)\b`)
