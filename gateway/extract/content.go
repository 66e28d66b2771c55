// Package extract reads the main content of an HTML page and renders it as
// markdown and as plain text. It keeps what technical pages say: the
// spaces around inline markup, every line of a code block, headings at
// their level, lists (lists of links too), definition lists, tables and
// body links resolved against the page. Navigation, banners and page
// furniture stay out.
//
// It works on a parsed tree and never fetches anything.
package extract

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Main finds the element that holds doc's main content. It reads a
// <noscript> that holds an article as markup (unwrapNoscripts), then removes
// navigation and furniture from doc (so pass a tree you may change), then
// takes <main> (or role=main), else the page's only <article>, else the
// smallest element that holds most of the page's prose, and trims link
// bars off its edges. It returns doc's body (or doc) when nothing better
// stands out.
//
// When that leaves next to nothing (an API index, a contents page: the
// content is all links), the link-dense blocks are put back and judged
// again: a table cell that holds headings, and a list under a heading,
// are the page's content, not its menu. When an element inside holds
// most of the content and bears a name publishing systems give a post's
// body, what follows it goes (cutToBody). On an article page, when a block
// set aside by its class or id alone held the article, the page is read
// again with such blocks kept.
func Main(doc *html.Node) *html.Node {
	unwrapNoscripts(doc)
	article := isArticlePage(doc)
	var title *html.Node
	if article {
		title = Title(doc)
	}
	p := &pruner{article: article}
	p.prune(doc, false)
	p.detach()
	root, prose := pick(doc, p.contents)
	// Readability's second try: when next to nothing is left of an
	// article and a block set aside by its name alone held an article's
	// worth of prose (Readability's 500 characters), it held the article
	// (La Nación wraps its article in "lay-sidebar").
	if article && prose[root] < sparseProse && p.namedProse >= articleMin {
		p.restore()
		p = &pruner{article: true, keepNamed: true}
		p.prune(doc, false)
		p.detach()
		root, prose = pick(doc, p.contents)
	}
	if prose[root] < sparseProse && len(p.linkDense) > 0 {
		p.restore()
		again := &pruner{lenient: true, article: article, keepNamed: p.keepNamed}
		again.prune(doc, false)
		again.detach()
		root, prose = pick(doc, again.contents)
	}
	narrowToArticle(doc, root, p.contents, article, title)
	cutToBody(root)
	if article {
		dropHeaderPictures(root)
		cleanArticle(root)
		trimTrailingLabels(root)
		keepStandfirst(root, title)
	}
	trimEdges(root, prose)
	return root
}

// leavesOut reports whether one of nodes is in root but not in next.
func leavesOut(root, next *html.Node, nodes []*html.Node) bool {
	for _, n := range nodes {
		if contains(root, n) && !contains(next, n) {
			return true
		}
	}
	return false
}

// articleMin is the prose, in letters, under which an article page's
// content is not its article (Readability's 500 characters).
const articleMin = 500

// sparseProse is the prose, in letters, under which the main content is
// next to nothing: a heading or two.
const sparseProse = 200

// pick chooses the main content of a pruned tree, with the prose of each
// element. It never leaves out one of the tables of contents that prune
// kept (contents).
func pick(doc *html.Node, contents []*html.Node) (root *html.Node, prose map[*html.Node]int) {
	body := findFirst(doc, func(n *html.Node) bool { return n.DataAtom == atom.Body })
	if body == nil {
		body = doc
	}
	prose = map[*html.Node]int{}
	total := proseLen(body, prose)
	root = body
	if m := findFirst(body, func(n *html.Node) bool {
		return n.DataAtom == atom.Main || strings.EqualFold(attr(n, "role"), "main")
	}); m != nil && prose[m]*10 >= total*3 {
		root = m
		// A <main> that holds the article and, beside it, related posts,
		// a donation box and a newsletter form: the article is the page.
		if arts := findAll(m, atom.Article); len(arts) == 1 && prose[arts[0]]*10 >= prose[m]*6 {
			root = arts[0]
		}
	} else if arts := findAll(body, atom.Article); len(arts) == 1 && prose[arts[0]]*10 >= total*3 {
		root = arts[0]
	} else {
		// Walk down while one child holds 80% of the prose and every
		// section heading: what is left beside it is furniture.
		for {
			var next *html.Node
			for c := root.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && prose[c]*10 >= total*8 {
					next = c
					break
				}
			}
			if next == nil || isLeafBlock(next) || headings(root) != headings(next) || leavesOut(root, next, contents) {
				break
			}
			root = next
		}
	}
	return root, prose
}

// Title finds the page's title heading, which Render puts above content
// that does not hold it (a title set apart from the article body): the
// first <h1> that the page's <title> names, else the first long <h2> it
// names, else the first <h1> (outside the site's banner when the <title>
// names something else). A blog's
// "Hi, I'm Nicolas" banner is not the title of its posts. Call it before
// Main, which may detach it.
func Title(doc *html.Node) *html.Node {
	h1s := findAll(doc, atom.H1)
	var named string
	if t := findFirst(doc, func(n *html.Node) bool { return n.DataAtom == atom.Title }); t != nil {
		named = strings.ToLower(strings.Join(strings.Fields(textOf(t)), " "))
	}
	// Of the <h1>s that the <title> names, the longest: "Masse des
	// Quaders | Prismen" names the site's banner <h1> too.
	var best *html.Node
	bestLen := 0
	for _, h := range h1s {
		text := strings.ToLower(strings.Join(strings.Fields(textOf(h)), " "))
		if text != "" && named != "" && strings.Contains(named, text) {
			if len(text) > bestLen {
				best, bestLen = h, len(text)
			}
		}
	}
	if best != nil {
		return best
	}
	// A post titled by an <h2> under the site's <h1> (Global Voices):
	// the <title> names it, and it is long enough not to be a section's.
	if named != "" {
		for _, h := range findAll(doc, atom.H2) {
			text := strings.ToLower(strings.Join(strings.Fields(textOf(h)), " "))
			if utf8.RuneCountInString(text) >= 20 && strings.Contains(named, text) {
				return h
			}
		}
	}
	for _, h := range h1s {
		if strings.TrimSpace(textOf(h)) != "" && (named == "" || !inBanner(h)) {
			return h
		}
	}
	if len(h1s) == 0 && named != "" {
		// Doxygen titles its pages with <div class="title">.
		return findFirst(doc, func(n *html.Node) bool {
			if n.DataAtom != atom.Div || !hasClass(n, "title") {
				return false
			}
			text := strings.ToLower(textOf(n))
			return text != "" && strings.Contains(named, text)
		})
	}
	return nil
}

// inBanner reports whether n sits in a page's banner: a <header> outside
// any article, or role=banner.
func inBanner(n *html.Node) bool {
	banner := false
	for p := n.Parent; p != nil; p = p.Parent {
		switch {
		case p.DataAtom == atom.Article || p.DataAtom == atom.Main:
			return false
		case p.DataAtom == atom.Header || strings.EqualFold(attr(p, "role"), "banner"):
			banner = true
		}
	}
	return banner
}

func isHeading(n *html.Node) bool {
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

// headings counts the h1-h3 headings in n.
func headings(n *html.Node) int {
	k := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.H1, atom.H2, atom.H3:
			k++
		default:
			k += headings(c)
		}
	}
	return k
}

// isLeafBlock reports elements Main must not descend into: a paragraph,
// a code block or a table cell holds content, it does not frame it.
func isLeafBlock(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Pre, atom.Td, atom.Th, atom.Li, atom.Dd, atom.Blockquote, atom.Table, atom.Ul, atom.Ol, atom.Dl:
		return true
	}
	return isLineListing(n)
}

// dropped are elements whose content is never read as text.
var dropped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Svg: true,
	atom.Canvas: true, atom.Nav: true, atom.Aside: true, atom.Dialog: true, atom.Button: true,
	atom.Input: true, atom.Select: true, atom.Textarea: true, atom.Iframe: true, atom.Object: true,
	atom.Embed: true, atom.Video: true, atom.Audio: true, atom.Head: true,
}

// isDropped reports an element whose content is never read as text: one
// of dropped, except an <aside> that holds the page's <main> or its <h1>
// (rnz.de sets its whole article, headline and all, in one), which is a
// tag misused, as a <header> left open is (holdsMain).
func isDropped(n *html.Node) bool {
	if n.DataAtom == atom.Aside {
		return !holdsPage(n)
	}
	return dropped[n.DataAtom]
}

// navRoles are ARIA roles of page furniture.
var navRoles = map[string]bool{"navigation": true, "banner": true, "contentinfo": true, "complementary": true,
	"search": true, "menu": true, "menubar": true, "toolbar": true, "dialog": true, "alert": true}

// navWords in a class or id mark navigation when the element is mostly
// links or holds little prose.
var navWords = map[string]bool{"menu": true, "sidebar": true, "breadcrumb": true, "breadcrumbs": true,
	"toc": true, "pager": true, "pagination": true, "skip": true, "share": true, "social": true,
	"header": true, "footer": true, "masthead": true, "banner": true, "cookie": true, "consent": true,
	"related": true, "picker": true, "versions": true, "edit": true, "feedback": true, "subscribe": true,
	"categories": true, "category": true, "tags": true, "topics": true}

// pruner removes furniture from a tree: dropped elements, hidden ones,
// comments, navigation by role, <header> and <footer> outside articles,
// and link-dense blocks: elements named as navigation that are mostly
// links, and table cells that are columns of links.
type pruner struct {
	// lenient keeps link-dense blocks that read as content: a table cell
	// that holds headings (an API index's column), a list right under a
	// heading.
	lenient bool
	// linkDense are the blocks removed after the rest of the furniture,
	// in document order, for restore: link-dense blocks, and blocks named
	// as furniture.
	linkDense  []removed
	namedProse int // the most prose in one of those
	// keepNamed keeps the blocks that only their names mark as furniture.
	keepNamed bool
	// contents are the tables of contents kept as content.
	contents []*html.Node
	// article: the page says it is an article, so blocks that
	// Readability finds unlikely to hold one go whatever their links.
	article bool
}

type removed struct{ n, parent, next *html.Node }

func (p *pruner) prune(n *html.Node, inContent bool) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch c.Type {
		case html.CommentNode:
			n.RemoveChild(c)
		case html.ElementNode:
			if isFurniture(c, inContent) {
				n.RemoveChild(c)
			} else if c.DataAtom == atom.Pre {
				pruneCode(c)
			} else if !p.keepNamed && (p.article && isUnlikely(c) || isSidebar(c) && !holdsProse(c) && !holdsPage(c)) {
				p.linkDense = append(p.linkDense, removed{n: c})
				p.namedProse = max(p.namedProse, proseLen(c, map[*html.Node]int{}))
			} else if p.isLinkDense(c) {
				p.linkDense = append(p.linkDense, removed{n: c})
			} else {
				p.prune(c, inContent || c.DataAtom == atom.Article || c.DataAtom == atom.Main || strings.EqualFold(attr(c, "role"), "main"))
			}
		}
		c = next
	}
}

// pruneCode removes from a code listing only what is never text (its
// copy button, a script) and what is hidden. Its spans' class names are
// a highlighter's, not the page's: highlight.js marks C's "#include"
// lines "hljs-meta", which names a byline elsewhere.
func pruneCode(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch {
		case c.Type == html.CommentNode:
			n.RemoveChild(c)
		case c.Type != html.ElementNode:
		case isDropped(c) || isHidden(c):
			n.RemoveChild(c)
		default:
			pruneCode(c)
		}
		c = next
	}
}

// detach removes the link-dense blocks prune found. It runs after the
// rest of the furniture is gone, so each block's next sibling stays in
// the tree or is a link-dense block itself.
func (p *pruner) detach() {
	for i := range p.linkDense {
		r := &p.linkDense[i]
		r.parent, r.next = r.n.Parent, r.n.NextSibling
		r.parent.RemoveChild(r.n)
	}
}

// restore puts the link-dense blocks back where they were, last first so
// that each one's next sibling is in place again.
func (p *pruner) restore() {
	for i := len(p.linkDense) - 1; i >= 0; i-- {
		r := p.linkDense[i]
		r.parent.InsertBefore(r.n, r.next)
	}
	p.linkDense = nil
}

// isFurniture reports what is never content, whatever else the page holds.
func isFurniture(n *html.Node, inContent bool) bool {
	if isDropped(n) {
		return true
	}
	switch n.DataAtom {
	case atom.Header, atom.Footer:
		if (!inContent || n.DataAtom == atom.Footer && !inArticle(n)) && !holdsMain(n) {
			return true
		}
	case atom.Html, atom.Body, atom.Main, atom.Article:
		return false
	}
	// Doxygen's tooltips (div.ttc) are hidden by its stylesheet.
	if isHidden(n) || navRoles[strings.ToLower(attr(n, "role"))] && !holdsMain(n) || hasClass(n, "ttc") {
		return true
	}
	return (isComments(n) || isPromo(n) && !holdsProse(n)) && !holdsPage(n) || isByline(n) || isSignUp(n)
}

// isSidebar reports a column beside the page's content, named so
// (trafilatura discards every block whose class or id says sidebar),
// unless its name also says it holds the article, as Readability reads
// such names (The Verge's "l-sidebar-fixed l-article-body-segment").
func isSidebar(n *html.Node) bool {
	if n.DataAtom == atom.Body || n.DataAtom == atom.Html || !slices.Contains(classWords(n), "sidebar") {
		return false
	}
	return !containsAny(strings.ToLower(attr(n, "class")+" "+attr(n, "id")), maybeNames)
}

// holdsMain reports a header, a footer or a banner that holds the page's
// <main> or an <article>: a tag left open (diaadia.com.pa's whole page is
// in its <header role=banner>), not furniture.
func holdsMain(n *html.Node) bool {
	return findFirst(n, func(c *html.Node) bool {
		return c.DataAtom == atom.Main || c.DataAtom == atom.Article || strings.EqualFold(attr(c, "role"), "main")
	}) != nil
}

func inArticle(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.DataAtom == atom.Article {
			return true
		}
	}
	return false
}

// isLinkDense reports a menu: a column of links in a page laid out with
// tables, or an element named as navigation that is mostly links. A
// table of contents that lists other documents (a contents page, a
// texinfo node's list of sections) is what the page says; one that lists
// the page's own sections only repeats its headings.
func (p *pruner) isLinkDense(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Html, atom.Body, atom.Main, atom.Article:
		return false
	}
	if n.DataAtom == atom.Td && isLinkColumn(n) {
		return !p.lenient || findFirst(n, isHeading) == nil
	}
	if !namedNav(n) {
		return false
	}
	// A heading or a code block named oddly is still content.
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Pre, atom.Code:
		return false
	}
	links, all := linkText(n)
	if !(all == 0 || links*2 > all || links > 0 && all-links < 40) {
		return false
	}
	// A wrapper named for a layout ("l-sidebar-fixed l-article-body")
	// that holds a thousand letters of prose besides its links holds the
	// page: menus are not written in paragraphs.
	if all-links >= 1000 {
		return false
	}
	if all > 0 && isContentsList(n) {
		p.contents = append(p.contents, n)
		return false
	}
	return !p.lenient || !underHeading(n)
}

// isContentsList reports a table of contents (class or id "toc") whose
// links lead to other documents: to two documents or more, or to a whole
// document (no #section). One that lists the page's own sections links
// to "#section" or "page.html#section" only.
func isContentsList(n *html.Node) bool {
	toc := false
	for _, w := range classWords(n) {
		toc = toc || w == "toc"
	}
	if !toc {
		return false
	}
	docs := map[string]bool{}
	whole := false
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && !whole && len(docs) < 2; c = c.NextSibling {
			if c.DataAtom == atom.A {
				href := strings.TrimSpace(attr(c, "href"))
				doc, _, frag := strings.Cut(href, "#")
				doc, _, _ = strings.Cut(doc, "?")
				if doc != "" && !strings.HasPrefix(strings.ToLower(doc), "javascript:") {
					docs[doc] = true
					whole = whole || !frag
				}
			}
			walk(c)
		}
	}
	walk(n)
	return whole || len(docs) >= 2
}

// underHeading reports an element that comes right after a heading, as
// a section's list of links does.
func underHeading(n *html.Node) bool {
	for c := n.PrevSibling; c != nil; c = c.PrevSibling {
		if c.Type == html.ElementNode {
			return isHeading(c)
		}
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return false
		}
	}
	return false
}

// holdsPage reports a wrapper of the page itself, whatever its class
// says ("single no-comments", "sharing-enabled"): it holds the <main>
// element or the page's <h1>.
func holdsPage(n *html.Node) bool {
	return findFirst(n, func(c *html.Node) bool {
		return c != n && (c.DataAtom == atom.Main || c.DataAtom == atom.H1 || strings.EqualFold(attr(c, "role"), "main"))
	}) != nil
}

// holdsProse reports a block of a thousand letters or more outside links
// that are at least four fifths of its text: a wrapper of the article
// whatever its class says ("documentContent__sharingContainer"), as a
// list of related posts or of comments is mostly links or short.
func holdsProse(n *html.Node) bool {
	links, all := linkText(n)
	return all-links >= 1000 && links*5 <= all
}

// isComments reports a block of readers' comments or the form to post
// one (WordPress's #comments, .comment-list and #respond, Disqus): what
// readers said is not what the page says.
func isComments(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Div, atom.Section, atom.Ol, atom.Ul, atom.Aside, atom.Form, atom.Footer, atom.P:
	default:
		return false
	}
	if commentsNamed(words(attr(n, "class"))) {
		return true
	}
	// An id is often a heading's slug (a manual's section "Comments"), so
	// it counts only beside a comment form or a list of comments.
	return commentsNamed(words(attr(n, "id"))) && findFirst(n, func(c *html.Node) bool {
		return c != n && (c.DataAtom == atom.Form || commentsNamed(words(attr(c, "class"))))
	}) != nil
}

// commentsNamed reports class words that name comments: comments,
// respond, Disqus, or comment with list, area, form, thread, reply or
// respond beside it (comment-list). "comment" alone is too common a class
// (a manual's annotated paragraphs) to go by.
func commentsNamed(words []string) bool {
	single := false
	for _, w := range words {
		switch {
		case w == "comments" || w == "commentlist" || w == "respond" || strings.HasPrefix(w, "disqus"):
			return true
		case w == "comment":
			single = true
		}
	}
	if single {
		for _, w := range words {
			switch w {
			case "list", "area", "form", "thread", "reply", "respond", "section":
				return true
			}
		}
	}
	return false
}

// isByline reports an article's byline or dateline: a small block named
// as one, or that names the author (rel=author, <address>), or a small
// box (not a paragraph: "We meet on <time>Tuesday</time>." is prose) that
// holds a <time>, with a few words beside them ("Posted by … on … at …").
func isByline(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Div, atom.P, atom.Footer, atom.Address, atom.Span:
	default:
		return false
	}
	// Most blocks hold more prose than a byline: that is the cheap test.
	if !shortOutsideLinks(n, 60) {
		return false
	}
	marked := n.DataAtom == atom.Address || bylineNamed(n) || findFirst(n, func(c *html.Node) bool {
		return c.DataAtom == atom.Time && n.DataAtom != atom.P || c.DataAtom == atom.Address || c.DataAtom == atom.A && strings.Contains(" "+attr(c, "rel")+" ", " author ")
	}) != nil
	return marked && findFirst(n, func(c *html.Node) bool { return isHeading(c) || isLeafBlock(c) && c.DataAtom != atom.P }) == nil
}

// isPromo reports a block named as the page promoting itself or others:
// related posts, share and like buttons, newsletter sign-ups, adverts,
// sponsored links and the author's bio box. These hold prose (a related
// post's excerpt), so unlike navigation they go whatever their share of
// links.
func isPromo(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Div, atom.Section, atom.Aside, atom.Ul, atom.Ol, atom.Form, atom.Footer, atom.P, atom.Span:
	default:
		return false
	}
	for _, w := range words(attr(n, "class")) { // not the id: "sharing-with-a-team" is a section's slug
		for _, p := range promoPrefixes {
			if strings.HasPrefix(w, p) {
				return true
			}
		}
		if w == "ad" || w == "ads" || w == "likes" || w == "recirc" || w == "bio" || w == "popular" {
			return true
		}
	}
	return false
}

// isSignUp reports a small form with fields: a newsletter sign-up or a
// search box set inside an article. A form that holds the page (ASP.NET
// wraps whole pages in one) has far more prose and stays.
func isSignUp(n *html.Node) bool {
	if n.DataAtom != atom.Form || findFirst(n, func(c *html.Node) bool {
		return c.DataAtom == atom.Input || c.DataAtom == atom.Select || c.DataAtom == atom.Textarea
	}) == nil {
		return false
	}
	// A form with a text area is for writing a comment or a message:
	// its labels and hints are not the page, however long.
	if findFirst(n, func(c *html.Node) bool { return c.DataAtom == atom.Textarea }) != nil && !holdsPage(n) {
		return true
	}
	links, all := linkText(n)
	return all-links < 300
}

var promoPrefixes = []string{"related", "share", "sharing", "sharedaddy", "newsletter", "advert", "sponsor", "promo", "outbrain", "taboola"}

// bylineNamed reports a class or id that names a byline: byline,
// dateline, (top)AttributionWithDate, entry-meta, posted-on, author.
func bylineNamed(n *html.Node) bool {
	for _, w := range classWords(n) {
		switch {
		case strings.Contains(w, "byline") || strings.Contains(w, "dateline") || strings.Contains(w, "attribution"):
			return true
		case w == "meta" || w == "posted" || w == "author" || w == "date" || w == "published":
			return true
		}
	}
	return false
}

// isLinkColumn reports a table cell that is a menu: the sidebar column of
// a page laid out with tables.
func isLinkColumn(td *html.Node) bool {
	k := 0
	var count func(*html.Node)
	count = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.DataAtom == atom.A {
				k++
			}
			count(c)
		}
	}
	count(td)
	if k < 4 {
		return false
	}
	links, all := linkText(td)
	return links*10 >= all*7
}

func isHidden(n *html.Node) bool {
	for _, a := range n.Attr {
		switch strings.ToLower(a.Key) {
		case "hidden":
			return true
		case "class":
			// Class names that hide a block by convention (trafilatura
			// discards "hidden" and "hide-" classes too).
			for w := range strings.FieldsSeq(a.Val) {
				switch strings.ToLower(w) {
				case "hidden", "hide", "d-none", "sr-only", "visually-hidden", "screen-reader-text":
					return true
				}
			}
		case "aria-hidden":
			if strings.EqualFold(a.Val, "true") {
				return true
			}
		case "style":
			s := strings.ReplaceAll(strings.ToLower(a.Val), " ", "")
			if strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden") {
				return true
			}
		}
	}
	return false
}

// namedNav reports whether n's class or id names navigation: a word such
// as "menu" or "toc", or one that starts with "nav" (nav, navbar,
// navheader, nav-panel).
func namedNav(n *html.Node) bool {
	for _, w := range classWords(n) {
		if navWords[w] || strings.HasPrefix(w, "nav") {
			return true
		}
	}
	return false
}

// classWords are the words of n's class and id: "entry-meta post_info"
// gives entry, meta, post and info.
func classWords(n *html.Node) []string {
	class, id := attr(n, "class"), attr(n, "id")
	if class == "" && id == "" {
		return nil
	}
	return words(class + " " + id)
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return r == ' ' || r == '-' || r == '_' || r == '\t'
	})
}

// trimEdges removes link bars at the start and end of root and of its
// first and last wrappers: "Next: … Previous: … Up: …" lines, breadcrumbs,
// rules. Lists and headings stay: a closing "See also" list is content.
func trimEdges(root *html.Node, prose map[*html.Node]int) {
	if isLineListing(root) {
		return
	}
	for _, first := range []bool{true, false} {
		n := root
		for depth := 0; n != nil && depth < 4; depth++ {
			var edge *html.Node
			for {
				edge = edgeElement(n, first)
				if edge == nil || !isEdgeBar(edge) {
					break
				}
				n.RemoveChild(edge)
			}
			if edge == nil || !isWrapper(edge) || isLineListing(edge) {
				break // a listing's last line "} dict_t;" is code, not a bar
			}
			n = edge
		}
	}
}

func edgeElement(n *html.Node, first bool) *html.Node {
	c := n.FirstChild
	if !first {
		c = n.LastChild
	}
	for c != nil {
		if c.Type == html.ElementNode {
			return c
		}
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return nil
		}
		if first {
			c = c.NextSibling
		} else {
			c = c.PrevSibling
		}
	}
	return nil
}

func isWrapper(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Div, atom.Section, atom.Article, atom.Main, atom.Header, atom.Footer, atom.Span, atom.Center, atom.Font:
		return true
	}
	return false
}

func isEdgeBar(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Hr, atom.Br:
		return true
	case atom.Ul, atom.Ol, atom.Dl, atom.Pre, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return false
	}
	if findFirst(n, isHeading) != nil {
		return false // an article's <header>: its title is a link to itself
	}
	links, all := linkText(n)
	if all == 0 {
		// Only images (DocBook's arrow bars) or nothing at all.
		return findFirst(n, func(c *html.Node) bool { return c.DataAtom == atom.A }) != nil || !hasImage(n)
	}
	// A bar is a line or two: a block of a hundred links is an index.
	return links > 0 && links*2 >= all && all <= 300 && onlyBarWords(n)
}

// barWords are what link bars say besides their links.
var barWords = map[string]bool{"next": true, "previous": true, "prev": true, "up": true, "home": true,
	"top": true, "contents": true, "index": true, "back": true, "forward": true, "toc": true}

// onlyBarWords reports whether n's text outside links is only bar words,
// separators and words of one or two letters: "Next: …, Previous: …, Up:
// … [Contents]". A sentence with links in it is not a bar.
func onlyBarWords(n *html.Node) bool {
	ok := true
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if !ok || n.DataAtom == atom.A {
			return
		}
		if n.Type == html.TextNode {
			for _, w := range strings.FieldsFunc(strings.ToLower(n.Data), func(r rune) bool { return !unicode.IsLetter(r) }) {
				if utf8.RuneCountInString(w) > 2 && !barWords[w] {
					ok = false
					return
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return ok
}

func hasImage(n *html.Node) bool {
	return findFirst(n, func(c *html.Node) bool { return c.DataAtom == atom.Img || c.DataAtom == atom.Picture }) != nil
}

// proseLen counts the letters and digits of n's text outside links, for
// n and every element below it (into memo).
func proseLen(n *html.Node, memo map[*html.Node]int) int {
	switch n.Type {
	case html.TextNode:
		k := 0
		for _, r := range n.Data {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				k++
			}
		}
		return k
	case html.ElementNode, html.DocumentNode:
	default:
		return 0
	}
	k := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom == atom.A {
			proseLen(c, memo)
			continue
		}
		k += proseLen(c, memo)
	}
	memo[n] = k
	return k
}

// linkText measures n's text inside links and in all, in runes (spaces
// excluded). An image in a link counts by its alt text: DocBook's
// "Prev", "Up", "Next" arrows are links.
func linkText(n *html.Node) (links, all int) {
	var walk func(*html.Node, bool)
	walk = func(n *html.Node, in bool) {
		if n.Type == html.TextNode || in && n.DataAtom == atom.Img {
			s := n.Data
			if n.Type != html.TextNode {
				s = attr(n, "alt")
			}
			k := nonSpaceLen(s)
			all += k
			if in {
				links += k
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, in || c.DataAtom == atom.A)
		}
	}
	walk(n, n.DataAtom == atom.A)
	return links, all
}

// nonSpaceLen counts the runes of s that are not white space.
func nonSpaceLen(s string) int {
	k := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			k++
		}
	}
	return k
}

// shortOutsideLinks reports whether n's text outside links, counted as
// linkText counts it, is under limit runes. It stops as soon as it is
// not, so a wrapper of a whole article costs one paragraph.
func shortOutsideLinks(n *html.Node, limit int) bool {
	k := 0
	var walk func(*html.Node) bool
	walk = func(n *html.Node) bool {
		if n.Type == html.TextNode {
			k += nonSpaceLen(n.Data)
			return k < limit
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.DataAtom != atom.A && !walk(c) {
				return false
			}
		}
		return true
	}
	return n.DataAtom == atom.A || walk(n)
}

func findFirst(n *html.Node, match func(*html.Node) bool) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if match(c) {
			return c
		}
		if f := findFirst(c, match); f != nil {
			return f
		}
	}
	return nil
}

func findAll(n *html.Node, a atom.Atom) []*html.Node {
	var out []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c.DataAtom == a {
			out = append(out, c)
			continue
		}
		out = append(out, findAll(c, a)...)
	}
	return out
}

func contains(root, n *html.Node) bool {
	for ; n != nil; n = n.Parent {
		if n == root {
			return true
		}
	}
	return false
}

// attr is n's attribute key, which is lower case: html.Parse lowers the
// keys it reads.
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// textOf is n's text with whitespace collapsed.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}
