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
}

// Document is a page's content as blocks.
type Document struct {
	Blocks []Block
}

// Render reads root's content into blocks. title, when not nil and
// outside root, is put first as the page heading (see Title), unless
// root opens with a headline of its own.
func Render(root, title *html.Node, opt Options) *Document {
	r := &renderer{opt: opt, in: &inline{}, blockish: map[*html.Node]bool{}, title: title}
	if title != nil && !contains(root, title) && !opensWithH1(root) {
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
}

// inline collects a block's inline content in both renderings, with
// whitespace collapsed the way a browser collapses it: one space wherever
// the source had any, between words and around inline elements alike.
type inline struct {
	md, tx strings.Builder
	space  bool // whitespace seen since the last write
	brk    int  // <br>s since the last write
	lead   bool // whitespace came before the first write
}

func (b *inline) empty() bool { return b.md.Len() == 0 && b.tx.Len() == 0 }

func (b *inline) write(md, tx string) {
	if md == "" && tx == "" {
		return
	}
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
	r.emit(inner, "["+md+"]("+escapeURL(u)+")", tx)
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
	saved := r.ctx
	r.ctx = Block{Kind: Heading, Level: level}
	r.children(n)
	r.flush()
	r.ctx = saved
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

// code keeps a preformatted block line for line.
func (r *renderer) code(n *html.Node) {
	if ls := listings(n); ls != nil {
		for _, c := range ls {
			r.codeBlock(c, codeLanguage(c))
		}
		return
	}
	r.codeBlock(n, codeLanguage(n))
}

// listings are the <code>s of a <pre> that holds several whole listings
// side by side, or nil: Node.js's manuals give each example as ES
// modules and as CommonJS in one <pre>, showing one. Read as one text,
// the first one's last line and the next one's first run together
// ("console.log(getHashes());const {"). A <pre> whose <code>s are its
// lines (each ending in a line break) is one listing.
func listings(pre *html.Node) []*html.Node {
	var codes []*html.Node
	for c := pre.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) != "":
			return nil
		case c.Type == html.ElementNode && c.DataAtom == atom.Code:
			codes = append(codes, c)
		}
	}
	if len(codes) < 2 {
		return nil
	}
	for _, c := range codes[:len(codes)-1] {
		if strings.HasSuffix(rawText(c), "\n") {
			return nil
		}
	}
	return codes
}

// codeBlock adds n's text as one code block, its lines as written.
func (r *renderer) codeBlock(n *html.Node, lang string) {
	text := strings.ReplaceAll(rawText(n), "\r\n", "\n")
	text = strings.TrimPrefix(text, "\n")
	lines := strings.Split(strings.TrimRight(text, " \t\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	if len(lines) == 0 {
		return
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	body := strings.Join(lines, "\n")
	r.add(Block{Kind: Code, Lang: lang, Markdown: body, Text: body})
}

// isLineListing reports a code listing written as one <div class="line">
// per line, as Doxygen's div.fragment is: it has no <pre> to keep its
// lines.
func isLineListing(n *html.Node) bool {
	return hasClass(n, "fragment") && findFirst(n, func(c *html.Node) bool { return c.DataAtom == atom.Div && hasClass(c, "line") }) != nil
}

// lineListing keeps a listing of line divs as one code block, without
// its line numbers.
func (r *renderer) lineListing(n *html.Node) {
	var lines []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || hasClass(c, "lineno") || hasClass(c, "ttc") {
				continue
			}
			if c.DataAtom == atom.Div && hasClass(c, "line") {
				l := strings.ReplaceAll(rawText(c, "lineno"), "\u00a0", " ")
				lines = append(lines, strings.TrimRight(strings.ReplaceAll(l, "\n", " "), " \t"))
				continue
			}
			walk(c)
		}
	}
	walk(n)
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return
	}
	body := strings.Join(lines, "\n")
	r.add(Block{Kind: Code, Lang: codeLanguage(n), Markdown: body, Text: body})
}

// declaration reads Doxygen's table of a function's or macro's prototype
// (table.memname: name, "(", each parameter on a row of its own, ")") as
// the one line of code it stands for.
func (r *renderer) declaration(n *html.Node) {
	var parts []string
	for _, tr := range tableRows(n) {
		for c := tr.FirstChild; c != nil; c = c.NextSibling {
			if c.DataAtom == atom.Td || c.DataAtom == atom.Th {
				if t := strings.Join(strings.Fields(rawText(c)), " "); t != "" {
					parts = append(parts, t)
				}
			}
		}
	}
	line := strings.NewReplacer("( ", "(", " )", ")", " ,", ",").Replace(strings.Join(parts, " "))
	if line == "" {
		return
	}
	r.add(Block{Kind: Code, Markdown: line, Text: line})
}

// hasClass reports whether n's class attribute holds the word c.
func hasClass(n *html.Node, c string) bool {
	for _, w := range strings.Fields(attr(n, "class")) {
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

// codeLanguage reads a language from the classes of a <pre>, its <code>
// or the wrappers around it: language-go, lang-go, highlight-go, brush: go,
// sourceCode go. Sphinx names it on a wrapper (div.highlight-python >
// div.highlight > pre), and so does GitHub (div.highlight-source-shell).
func codeLanguage(n *html.Node) string {
	if l := attr(n, "data-lang") + attr(n, "data-language"); l != "" {
		return cleanLang(l)
	}
	if c := findFirst(n, func(c *html.Node) bool { return c.DataAtom == atom.Code }); c != nil {
		if l := langOf(attr(c, "class")+" "+attr(c, "data-lang"), false); l != "" {
			return l
		}
	}
	if l := langOf(attr(n, "class"), false); l != "" {
		return l
	}
	p := n.Parent
	for i := 0; i < 3 && p != nil && (p.DataAtom == atom.Div || p.DataAtom == atom.Figure); i, p = i+1, p.Parent {
		if l := attr(p, "data-lang") + attr(p, "data-language"); l != "" {
			return cleanLang(l)
		}
		if l := langOf(attr(p, "class"), true); l != "" {
			return l
		}
	}
	return ""
}

// langOf reads a language from class words. On a wrapper, "lang-en" is
// more likely the page's tongue than code's, so only language-,
// highlight- and brush: count there.
func langOf(classes string, wrapper bool) string {
	fields := strings.Fields(strings.ToLower(classes))
	for i, f := range fields {
		for _, p := range []string{"language-", "lang-", "highlight-source-", "highlight-text-", "highlight-", "brush:"} {
			if strings.HasPrefix(f, p) && !(wrapper && p == "lang-") {
				v := strings.TrimPrefix(f, p)
				if v == "" && p == "brush:" && i+1 < len(fields) {
					v = fields[i+1]
				}
				switch l := cleanLang(v); l {
				case "", "none", "text", "plaintext", "default":
				default:
					return l
				}
			}
		}
		if f == "sourcecode" && i+1 < len(fields) {
			return cleanLang(fields[i+1])
		}
	}
	return ""
}

func cleanLang(s string) string {
	s = strings.ToLower(strings.Trim(strings.TrimSpace(s), ";"))
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '#' || r == '_') {
			return ""
		}
	}
	if len(s) > 20 {
		return ""
	}
	return s
}

// table keeps a data table as rows of cells (advanced), reads a layout
// table as ordinary content, and leaves other tables out.
func (r *renderer) table(n *html.Node) {
	if hasClass(n, "memname") {
		r.declaration(n)
		return
	}
	if isJumpBar(n) {
		r.flush()
		return
	}
	rows := tableRows(n)
	if isIndexTable(rows) && !isLayoutTable(n, rows) {
		r.indexTable(rows)
		return
	}
	if isLayoutTable(n, rows) {
		r.layoutTable(n, rows)
		return
	}
	if !r.opt.Tables {
		r.flush()
		return
	}
	if c := findFirst(n, func(c *html.Node) bool { return c.DataAtom == atom.Caption }); c != nil {
		r.block(c)
	}
	var cells [][]string
	var texts [][]string
	width := 0
	for _, tr := range rows {
		var mdRow, txRow []string
		for c := tr.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || c.DataAtom != atom.Td && c.DataAtom != atom.Th {
				continue
			}
			inner := r.sub(c)
			md := strings.TrimSpace(strings.ReplaceAll(inner.md.String(), "\\\n", " "))
			tx := strings.TrimSpace(strings.ReplaceAll(inner.tx.String(), "\n", " "))
			md = strings.ReplaceAll(md, "|", "\\|")
			span, _ := strconv.Atoi(attr(c, "colspan"))
			span = min(max(span, 1), 50)
			for i := 0; i < span; i++ {
				mdRow, txRow = append(mdRow, md), append(txRow, tx)
				md, tx = "", ""
			}
		}
		if len(mdRow) == 0 {
			continue
		}
		width = max(width, len(mdRow))
		cells, texts = append(cells, mdRow), append(texts, txRow)
	}
	if len(cells) == 0 {
		return
	}
	var md, tx strings.Builder
	for i, row := range cells {
		for len(row) < width {
			row = append(row, "")
		}
		md.WriteString("| " + strings.Join(row, " | ") + " |\n")
		if i == 0 {
			md.WriteString("|" + strings.Repeat(" --- |", width) + "\n")
		}
		var kept []string
		for _, t := range texts[i] {
			if t != "" {
				kept = append(kept, t)
			}
		}
		tx.WriteString(strings.Join(kept, " | ") + "\n")
	}
	r.add(Block{Kind: Table, Markdown: strings.TrimRight(md.String(), "\n"), Text: strings.TrimRight(tx.String(), "\n")})
}

// layoutTable reads a table that lays out content. A row of cells that
// hold no blocks is one line, as it shows: Doxygen's "#define" beside
// "S3DICT_INC_SZ 4096" is one declaration, not two paragraphs; a row
// whose cells hold blocks (a menu column beside the content) is read cell
// by cell.
func (r *renderer) layoutTable(n *html.Node, rows []*html.Node) {
	r.flush()
	if c := findFirst(n, func(c *html.Node) bool { return c.DataAtom == atom.Caption }); c != nil {
		r.block(c)
	}
	for _, tr := range rows {
		inline := true
		for c := tr.FirstChild; c != nil && inline; c = c.NextSibling {
			inline = c.Type != html.ElementNode || !r.hasBlock(c)
		}
		if !inline {
			r.block(tr)
			continue
		}
		for c := tr.FirstChild; c != nil; c = c.NextSibling {
			if c.DataAtom == atom.Td || c.DataAtom == atom.Th {
				r.in.space = true
				r.children(c)
			}
		}
		r.flush()
	}
}

func tableRows(t *html.Node) []*html.Node {
	var rows []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Tr:
				rows = append(rows, c)
			case atom.Thead, atom.Tbody, atom.Tfoot:
				walk(c)
			}
		}
	}
	walk(t)
	return rows
}

// isLayoutTable tells tables that arrange a page from tables of data: one
// column, presentation role, or cells that hold blocks (code, lists,
// headings, other tables).
func isLayoutTable(t *html.Node, rows []*html.Node) bool {
	switch strings.ToLower(attr(t, "role")) {
	case "presentation", "none":
		return true
	}
	cols := 0
	for _, tr := range rows {
		k := 0
		for c := tr.FirstChild; c != nil; c = c.NextSibling {
			if c.DataAtom == atom.Td || c.DataAtom == atom.Th {
				k++
				if findFirst(c, func(n *html.Node) bool {
					switch n.DataAtom {
					case atom.Table, atom.Pre, atom.Ul, atom.Ol, atom.Dl, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Blockquote:
						return true
					}
					return false
				}) != nil {
					return true
				}
			}
		}
		cols = max(cols, k)
	}
	return cols <= 1
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

// opensWithH1 reports content that has a headline of its own: an <h1>
// before its first paragraph of prose. An <h1> further down heads one of
// its sections (a WordPress page set in <h1> sections), and the page's
// title still leads.
func opensWithH1(root *html.Node) bool {
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
	return first != nil && first.DataAtom == atom.H1
}
