package extract

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Options say what Render keeps besides prose, headings, lists and code.
type Options struct {
	// Base is what relative links resolve against: the page URL, or its
	// <base href> when it has one.
	Base *url.URL
	// Tables keeps data tables as markdown tables (advanced extraction);
	// without it they are left out. Tables that only lay out the page are
	// read as ordinary content either way.
	Tables bool
	// NoHistories, with Tables, still leaves out a version history (a
	// table whose every row opens with a release: Node.js's "Version |
	// Changes" under each entry): a page's changelog, not its facts.
	NoHistories bool
	// Images keeps images as markdown images.
	Images bool
}

// Kind is what a block of content is.
type Kind int

const (
	Paragraph Kind = iota
	Heading
	Code
	Item // a list item; Marker "" continues the item above
	Term // a definition-list term
	Table
	Rule
)

// Block is one unit of extracted content, in both renderings.
type Block struct {
	Kind     Kind
	Level    int    // heading level, 1 to 6
	Marker   string // list marker ("-", "3."), "" for an item's later paragraphs
	Indent   int    // columns of list nesting, for markdown
	Quote    int    // blockquote depth
	Lang     string // a code block's language, when the page names it
	Markdown string // inline markdown; a code block's or table's lines as they are
	Text     string // plain text, no markup
	// Headline marks the page's headline (the title put first, or the
	// <h1> the content opens with): Body leaves it out.
	Headline bool
	// control: a paragraph that is one link of a word or two ("source"),
	// after no word ("1.4.0 · source"), which beside a heading is the
	// heading's control, not prose.
	control bool
}

// Document is a page's content as blocks.
type Document struct {
	Blocks []Block
}

// Render reads root's content into blocks. title, when not nil and
// outside root, is put first as the page heading (see Title), unless
// root opens with a headline of its own.
func Render(root, title *html.Node, opt Options) *Document {
	r := &renderer{opt: opt, in: &inline{}, blockish: map[*html.Node]bool{}, title: title, headline: openingH1(root)}
	if title != nil && !contains(root, title) && r.headline == nil {
		r.node(title)
	}
	if isLineListing(root) {
		r.lineListing(root)
	} else {
		r.children(root)
	}
	r.flush()
	return &Document{Blocks: r.blocks}
}

type list struct {
	ordered bool
	next    int // the next item's number
	width   int // the current item's marker width
	used    bool
}

type renderer struct {
	opt      Options
	blocks   []Block
	in       *inline
	ctx      Block // the kind of block being filled
	lists    []list
	quote    int
	blockish map[*html.Node]bool
	title    *html.Node // the page's title, a heading wherever it is
	headline *html.Node // root's own headline, when it opens with one
}

// inline collects a block's inline content in both renderings, with
// whitespace collapsed the way a browser collapses it: one space wherever
// the source had any, between words and around inline elements alike.
type inline struct {
	md, tx strings.Builder
	space  bool // whitespace seen since the last write
	brk    int  // <br>s since the last write
	lead   bool // whitespace came before the first write
	// linked: the last thing written is a link, which begins at linkAt
	// in tx; elsewhere, when it points to a section of another page.
	linked, elsewhere bool
	linkAt            int
}

func (b *inline) empty() bool { return b.md.Len() == 0 && b.tx.Len() == 0 }

func (b *inline) write(md, tx string) {
	if md == "" && tx == "" {
		return
	}
	b.linked = false
	switch {
	case b.empty():
		b.lead = b.lead || b.space
	case b.brk > 0:
		b.md.WriteString("\\\n")
		b.tx.WriteString("\n")
	case b.space:
		b.md.WriteByte(' ')
		b.tx.WriteByte(' ')
	}
	b.space, b.brk = false, 0
	b.md.WriteString(md)
	b.tx.WriteString(tx)
}

// endsWithRun reports whether the markdown written so far ends with a
// run closed by mark ("**Q40**"), with nothing between it and what is
// written next.
func (b *inline) endsWithRun(mark string) bool {
	md := b.md.String()
	return !b.space && b.brk == 0 && len(md) > 2*len(mark) && strings.HasSuffix(md, mark) &&
		!strings.HasSuffix(md, "*"+mark) && !strings.HasSuffix(md, `\`+mark)
}

// reopen takes off the mark that closes the markdown written so far, so
// that the run goes on.
func (b *inline) reopen(mark string) {
	md := b.md.String()
	b.md.Reset()
	b.md.WriteString(md[:len(md)-len(mark)])
}

func (b *inline) text(s string) {
	if s == "" {
		return
	}
	words := strings.Fields(s)
	if len(words) == 0 {
		b.space = true
		return
	}
	r, _ := utf8.DecodeRuneInString(s)
	if unicode.IsSpace(r) {
		b.space = true
	}
	t := strings.Join(words, " ")
	b.write(escapeText(t), t)
	r, _ = utf8.DecodeLastRuneInString(s)
	if unicode.IsSpace(r) {
		b.space = true
	}
}

// flush ends the block being filled.
func (r *renderer) flush() {
	b := r.in
	r.in = &inline{}
	md, tx := strings.TrimSpace(b.md.String()), strings.TrimSpace(b.tx.String())
	if md == "" {
		return
	}
	blk := r.ctx
	if blk.Kind == Paragraph && b.linked {
		full := b.tx.String()
		before, link := strings.TrimSpace(full[:b.linkAt]), strings.TrimSpace(full[b.linkAt:])
		switch {
		case !controlText(link):
		case !strings.ContainsFunc(before, unicode.IsLetter):
			// The link alone, or after a version and a separator
			// ("1.4.0 · source", the release an item is stable since).
			blk.control = true
		case b.elsewhere && len(strings.Fields(before)) >= 3 && strings.ContainsAny(before[len(before)-1:], ".!?"):
			// A link of a word or two after the paragraph's last
			// sentence, to a section of another page ("… passing the
			// value on. [Read more](…trait.Iterator.html#method.inspect)":
			// the item told in full there), is a pointer, not prose: the
			// text leaves it out (the markdown keeps it, a link to
			// follow). A "Learn more" to a whole page is left alone: the
			// articles' truth keeps it.
			tx = before
		}
	}
	blk.Markdown, blk.Text, blk.Quote = md, tx, r.quote
	if blk.Kind == Heading {
		blk.Markdown = strings.ReplaceAll(trimGlyphs(blk.Markdown), "\\\n", " ")
		blk.Text = strings.ReplaceAll(trimGlyphs(blk.Text), "\n", " ")
		if blk.Text == "" {
			return
		}
	}
	if blk.Kind == Item && len(r.lists) > 0 {
		top := &r.lists[len(r.lists)-1]
		if top.used {
			blk.Marker = ""
			blk.Indent += top.width + 1
		}
		top.used = true
	}
	r.blocks = append(r.blocks, blk)
}

func (r *renderer) add(b Block) {
	r.flush()
	b.Quote = r.quote
	if len(r.lists) > 0 {
		b.Indent = r.contentIndent()
	}
	r.blocks = append(r.blocks, b)
}

// contentIndent is the column where the current list item's content
// starts.
func (r *renderer) contentIndent() int {
	n := 0
	for _, l := range r.lists {
		n += l.width + 1
	}
	return n
}

func (r *renderer) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		r.node(c)
	}
}

func (r *renderer) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		r.in.text(n.Data)
		return
	case html.ElementNode:
	default:
		return
	}
	if isDropped(n) || isHidden(n) {
		return
	}
	if n == r.title && !isHeading(n) {
		r.heading(n, 1) // Doxygen's <div class="title">
		return
	}
	switch n.DataAtom {
	case atom.Br:
		if !r.in.empty() {
			r.in.brk++
			if r.in.brk >= 2 {
				r.flush()
			}
		}
	case atom.Wbr:
	case atom.Hr:
		if len(r.lists) == 0 {
			r.add(Block{Kind: Rule, Markdown: "---"})
		}
	case atom.Pre, atom.Xmp, atom.Listing, atom.Plaintext:
		r.code(n)
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		r.heading(n, int(n.Data[1]-'0'))
	case atom.Ul, atom.Ol, atom.Menu:
		r.list(n)
	case atom.Li:
		r.item(n)
	case atom.Dl:
		if isTermList(n) {
			r.termList(n)
			return
		}
		r.block(n)
	case atom.Dt:
		r.flush()
		saved := r.ctx
		r.ctx = Block{Kind: Term}
		r.children(n)
		r.flush()
		r.ctx = saved
	case atom.Blockquote:
		r.flush()
		r.quote++
		r.children(n)
		r.flush()
		r.quote--
	case atom.Table:
		r.table(n)
	case atom.Img:
		if r.opt.Images {
			if src := resolve(r.opt.Base, attr(n, "src"), true); src != "" {
				alt := strings.Join(strings.Fields(attr(n, "alt")), " ")
				r.in.write("!["+escapeText(alt)+"]("+escapeURL(src)+")", "")
			}
		}
	case atom.A:
		r.link(n)
	case atom.Code, atom.Tt, atom.Kbd, atom.Samp:
		if r.hasBlock(n) {
			r.block(n)
			return
		}
		r.inlineCode(n)
	case atom.Em, atom.I, atom.Cite, atom.Dfn, atom.Var:
		r.wrap(n, "*")
	case atom.Strong, atom.B:
		if r.ctx.Kind == Term || r.ctx.Kind == Heading {
			r.wrap(n, "") // already bold: "****x****" is not
			return
		}
		r.wrap(n, "**")
	case atom.Del, atom.S, atom.Strike:
		r.wrap(n, "~~")
	default:
		if n.DataAtom == atom.Div && isLineListing(n) {
			r.lineListing(n)
			return
		}
		if blockElements[n.DataAtom] {
			r.block(n)
			return
		}
		r.children(n)
	}
}

// blockElements start and end a block of their own.
var blockElements = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true,
	atom.Header: true, atom.Footer: true, atom.Address: true, atom.Figure: true, atom.Figcaption: true,
	atom.Details: true, atom.Summary: true, atom.Center: true, atom.Form: true, atom.Fieldset: true,
	atom.Legend: true, atom.Dl: true, atom.Dd: true, atom.Tr: true, atom.Td: true, atom.Th: true,
	atom.Caption: true, atom.Tbody: true, atom.Thead: true, atom.Tfoot: true, atom.Body: true, atom.Html: true,
	atom.Nav: true, atom.Aside: true, atom.Hgroup: true, atom.Search: true,
}

func (r *renderer) block(n *html.Node) {
	r.flush()
	r.children(n)
	r.flush()
}

// hasBlock reports whether n holds block content, so that an inline
// wrapper around it (a link around a section) is read as a plain wrapper.
func (r *renderer) hasBlock(n *html.Node) bool {
	if v, ok := r.blockish[n]; ok {
		return v
	}
	v := false
	for c := n.FirstChild; c != nil && !v; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.Pre, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Ul, atom.Ol, atom.Li, atom.Table, atom.Hr, atom.Blockquote:
			v = true
		default:
			v = blockElements[c.DataAtom] || r.hasBlock(c)
		}
	}
	r.blockish[n] = v
	return v
}

// sub renders n's children into a fresh inline buffer and returns it.
func (r *renderer) sub(n *html.Node) *inline {
	saved := r.in
	r.in = &inline{}
	r.children(n)
	inner := r.in
	r.in = saved
	return inner
}

// emit writes an inline element's rendering, keeping the spaces that were
// inside its edges outside it ("a<em> b </em>c" reads "a *b* c").
func (r *renderer) emit(inner *inline, md, tx string) {
	if inner.lead {
		r.in.space = true
	}
	r.in.write(md, tx)
	if inner.space || inner.brk > 0 {
		r.in.space = true
	}
}

func (r *renderer) wrap(n *html.Node, mark string) {
	if r.hasBlock(n) {
		r.block(n)
		return
	}
	inner := r.sub(n)
	md, tx := inner.md.String(), inner.tx.String()
	if strings.TrimSpace(tx) == "" {
		r.emit(inner, md, tx)
		return
	}
	// A run right after a run of the same mark goes on as one: two side
	// by side ("<b>Q40</b><b>. What is …?</b>", which a misnested <a>
	// leaves) read "**Q40****. What is …?**", no markdown, and its
	// asterisks were shown.
	if mark != "" && !inner.lead && r.in.endsWithRun(mark) {
		r.in.reopen(mark)
		r.emit(inner, md+mark, tx)
		return
	}
	r.emit(inner, mark+md+mark, tx)
}

func (r *renderer) inlineCode(n *html.Node) {
	raw := rawText(n)
	t := strings.Join(strings.Fields(raw), " ")
	if t == "" {
		if raw != "" {
			r.in.space = true
		}
		return
	}
	lead, _ := utf8.DecodeRuneInString(raw)
	if unicode.IsSpace(lead) {
		r.in.space = true
	}
	fence := strings.Repeat("`", longestRun(t, '`')+1)
	md := t
	if strings.HasPrefix(t, "`") || strings.HasSuffix(t, "`") {
		md = " " + t + " "
	}
	r.in.write(fence+md+fence, t)
	if last, _ := utf8.DecodeLastRuneInString(raw); unicode.IsSpace(last) {
		r.in.space = true
	}
}

func (r *renderer) link(n *html.Node) {
	if r.hasBlock(n) {
		r.block(n)
		return
	}
	href := attr(n, "href")
	inner := r.sub(n)
	md, tx := inner.md.String(), inner.tx.String()
	if isPermalink(n, href, strings.TrimSpace(tx)) {
		if inner.lead || inner.space {
			r.in.space = true
		}
		return
	}
	u := resolve(r.opt.Base, href, false)
	if u == "" || strings.TrimSpace(md) == "" {
		r.emit(inner, md, tx)
		return
	}
	r.escapeBang(inner)
	at := r.in.tx.Len()
	r.emit(inner, "["+md+"]("+escapeURL(u)+")", tx)
	r.in.linked, r.in.linkAt = true, at
	r.in.elsewhere = !strings.HasPrefix(href, "#") && strings.Contains(href, "#")
}

// escapeBang escapes a "!" the text written so far ends with when a link
// follows it with no space between: "impl ![Send](…)" is an image in
// markdown, and rustdoc's "impl !Send for Ident" (a negative impl) was
// shown as one and read as "impl Send".
func (r *renderer) escapeBang(inner *inline) {
	md := r.in.md.String()
	if inner.lead || r.in.space || r.in.brk > 0 || !strings.HasSuffix(md, "!") || strings.HasSuffix(md, "\\!") {
		return
	}
	r.in.md.Reset()
	r.in.md.WriteString(md[:len(md)-1] + "\\!")
}

// isPermalink reports the anchors pages put beside headings ("#", "¶",
// "🔗", "Permalink to this headline"): they point into the page itself and
// say nothing.
func isPermalink(n *html.Node, href, text string) bool {
	if glyphs[text] || text == "" && strings.HasPrefix(href, "#") {
		return true
	}
	if !strings.HasPrefix(strings.TrimSpace(href), "#") {
		return false
	}
	cls := strings.ToLower(attr(n, "class"))
	for _, w := range []string{"headerlink", "anchor", "permalink", "hash-link", "heading-link"} {
		if strings.Contains(cls, w) {
			return true
		}
	}
	l := strings.ToLower(text)
	return strings.HasPrefix(l, "permalink") || strings.HasPrefix(l, "link to this")
}

var glyphs = map[string]bool{"#": true, "¶": true, "§": true, "◆": true, "🔗": true, "⚓": true, "⚓︎": true, "#️⃣": true}

// trimGlyphs removes permalink glyphs left at the end (or start) of a
// heading that marks them without a link.
func trimGlyphs(s string) string {
	for {
		t := strings.TrimSpace(s)
		for g := range glyphs {
			t = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(t, g), "\\"+g))
			t = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(t, "\\"+g), g))
		}
		if t == s {
			return t
		}
		s = t
	}
}

func (r *renderer) heading(n *html.Node, level int) {
	r.flush()
	// A link of a word or two right before a heading, in its parent
	// (rustdoc's "source" beside each item's heading), is the heading's
	// control, as a permalink is: no paragraph of the page.
	if k := len(r.blocks) - 1; k >= 0 && r.blocks[k].control && besideHeading(n, r.blocks[k].Text) {
		r.blocks = r.blocks[:k]
	}
	saved := r.ctx
	r.ctx = Block{Kind: Heading, Level: level, Headline: n == r.title || n == r.headline}
	r.children(n)
	r.flush()
	r.ctx = saved
}

// controlText reports a link's text that names an action, not a
// thing said: one to three words of letters alone ("source", "Read
// more", "Continue reading"), no sentence.
func controlText(t string) bool {
	w := strings.Fields(t)
	if len(w) == 0 || len(w) > 3 {
		return false
	}
	for _, x := range w {
		for i, c := range x {
			// Letters, no capital inside a word: not a name such as
			// xsltAttrTemplateValueProcess.
			if !unicode.IsLetter(c) || i > 0 && unicode.IsUpper(c) {
				return false
			}
		}
	}
	return true
}

// besideHeading reports whether the content right before heading n in
// its parent (past empty elements: an anchor) is text, set inline (a
// span beside it, not a paragraph of links under the heading before).
func besideHeading(n *html.Node, text string) bool {
	for sib := n.PrevSibling; sib != nil; sib = sib.PrevSibling {
		t := strings.TrimSpace(textOf(sib))
		if t == "" {
			continue
		}
		return t == text && sib.Type == html.ElementNode && !blockElements[sib.DataAtom]
	}
	return false
}

func (r *renderer) list(n *html.Node) {
	r.flush()
	l := list{ordered: n.DataAtom == atom.Ol, next: 1}
	if s, err := strconv.Atoi(strings.TrimSpace(attr(n, "start"))); err == nil && s >= 0 && s < 1e9 {
		l.next = s
	}
	r.lists = append(r.lists, l)
	saved := r.ctx
	r.children(n)
	r.flush()
	r.lists = r.lists[:len(r.lists)-1]
	r.ctx = saved
}

// isTermList reports a definition list with no definitions: terms, each
// perhaps followed by a <dd> that holds only a list like it. DocBook
// writes its tables of contents so: terms that are links, which are a
// list of links. Terms that are not links (texinfo's "Context struct:
// struct sha256_ctx" headers) stay terms.
func isTermList(n *html.Node) bool { return termList(n, false) }

// termList reports a term list; inner, one in a <dd>, may have one term.
func termList(n *html.Node, inner bool) bool {
	terms, nested := 0, false
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) == "", c.Type == html.CommentNode:
		case c.DataAtom == atom.Dt:
			if links, all := linkText(c); links*2 <= all {
				return false
			}
			terms++
		case c.DataAtom == atom.Dd:
			for d := c.FirstChild; d != nil; d = d.NextSibling {
				if d.Type == html.TextNode && strings.TrimSpace(d.Data) == "" || d.Type == html.CommentNode {
					continue
				}
				if d.DataAtom != atom.Dl || !termList(d, true) {
					return false
				}
				nested = true
			}
		default:
			return false
		}
	}
	return terms >= 2 || terms == 1 && (nested || inner)
}

// termList reads a term list as a bulleted list, each <dd>'s list nested
// under the term before it.
func (r *renderer) termList(n *html.Node) {
	r.flush()
	r.lists = append(r.lists, list{next: 1})
	saved := r.ctx
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.DataAtom {
		case atom.Dt:
			r.item(c)
		case atom.Dd:
			for d := c.FirstChild; d != nil; d = d.NextSibling {
				if d.DataAtom == atom.Dl {
					r.termList(d)
				}
			}
		}
	}
	r.flush()
	r.lists = r.lists[:len(r.lists)-1]
	r.ctx = saved
}

func (r *renderer) item(n *html.Node) {
	r.flush()
	if len(r.lists) == 0 {
		// A stray <li>: read it as a paragraph.
		r.children(n)
		r.flush()
		return
	}
	top := &r.lists[len(r.lists)-1]
	marker := "-"
	if top.ordered {
		if v, err := strconv.Atoi(strings.TrimSpace(attr(n, "value"))); err == nil && v >= 0 && v < 1e9 {
			top.next = v
		}
		marker = strconv.Itoa(top.next) + "."
		top.next++
	}
	top.width, top.used = len(marker), false
	saved := r.ctx
	r.ctx = Block{Kind: Item, Marker: marker, Indent: r.contentIndent() - top.width - 1}
	r.children(n)
	r.flush()
	r.ctx = saved
}

// hasClass reports whether n's class attribute holds the word c.
func hasClass(n *html.Node, c string) bool {
	for w := range strings.FieldsSeq(attr(n, "class")) {
		if strings.EqualFold(w, c) {
			return true
		}
	}
	return false
}

// rawText is n's text as the page holds it, with <br> as a line break,
// leaving out elements of the classes skip (line numbers).
func rawText(n *html.Node, skip ...string) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
			return
		case html.ElementNode:
			if dropped[n.DataAtom] || isHidden(n) {
				return
			}
			for _, c := range skip {
				if hasClass(n, c) {
					return
				}
			}
			if n.DataAtom == atom.Br {
				b.WriteByte('\n')
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// resolve makes href absolute against base. Links into the page itself
// ("#section") and scripts give "". images allows data-free http(s) only.
func resolve(base *url.URL, href string, image bool) string {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	low := strings.ToLower(href)
	if strings.HasPrefix(low, "javascript:") || strings.HasPrefix(low, "data:") || strings.HasPrefix(low, "vbscript:") {
		return ""
	}
	ref, err := url.Parse(href)
	if err != nil {
		return ""
	}
	abs := ref
	if base != nil {
		abs = base.ResolveReference(ref)
	}
	switch abs.Scheme {
	case "http", "https", "file":
	case "mailto", "ftp":
		if image {
			return ""
		}
	default:
		return ""
	}
	return abs.String()
}

// escapeURL keeps a URL inside markdown's (…): spaces and parentheses are
// percent-encoded.
func escapeURL(u string) string {
	if !strings.ContainsAny(u, " ()<>") {
		return u // most links: no replacer to build
	}
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E").Replace(u)
}

// escapeText escapes what markdown would read as markup in page text:
// "char *p" must not start emphasis.
func escapeText(s string) string {
	if !strings.ContainsAny(s, "\\`*_[]<>~&|") {
		return s
	}
	var b strings.Builder
	rs := []rune(s)
	for i, c := range rs {
		switch c {
		case '\\', '`', '*', '[', ']', '<', '~', '|':
			b.WriteByte('\\')
		case '_':
			// Inside a word an underscore is never emphasis: snake_case
			// stays as it is.
			if i == 0 || i == len(rs)-1 || !isWordRune(rs[i-1]) || !isWordRune(rs[i+1]) {
				b.WriteByte('\\')
			}
		case '&':
			if i+1 < len(rs) && (unicode.IsLetter(rs[i+1]) || rs[i+1] == '#') {
				b.WriteByte('\\')
			}
		}
		b.WriteRune(c)
	}
	return b.String()
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// escapeLineStart escapes what would make a line a heading, quote, list
// item or rule when it is only text.
func escapeLineStart(line string) string {
	t := strings.TrimLeft(line, " ")
	pad := line[:len(line)-len(t)]
	switch {
	case t == "":
		return line
	case t[0] == '#' || t[0] == '>':
		return pad + "\\" + t
	case (t[0] == '-' || t[0] == '+' || t[0] == '*') && (len(t) == 1 || t[1] == ' '):
		return pad + "\\" + t
	case strings.Trim(t, "-= ") == "":
		return pad + "\\" + t
	}
	i := 0
	for i < len(t) && i < 10 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && i < len(t) && (t[i] == '.' || t[i] == ')') && (i+1 == len(t) || t[i+1] == ' ') {
		return pad + t[:i] + "\\" + t[i:]
	}
	return line
}

func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// openingH1 is the headline content has of its own: an <h1> before its
// first paragraph of prose. An <h1> further down heads one of its
// sections (a WordPress page set in <h1> sections), and the page's title
// still leads.
func openingH1(root *html.Node) *html.Node {
	first := findFirst(root, func(n *html.Node) bool {
		if n.DataAtom == atom.H1 {
			return true
		}
		if n.DataAtom != atom.P {
			return false
		}
		links, all := linkText(n)
		return all-links >= 25
	})
	if first != nil && first.DataAtom == atom.H1 {
		return first
	}
	return nil
}
