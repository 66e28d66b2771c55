package extract

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Articles (news, blogs) are found the way Readability finds them, with
// the rules its authors and trafilatura's learned on thousands of pages
// rather than words fitted to a few: every paragraph scores its parent
// and grandparents by its length and commas, a container's class or id
// raises or lowers its score (classWeight), links lower it (link
// density), and the best-scoring container, with those of its siblings
// that score close to it, is the article. Inside it, blocks that read as
// boilerplate by the same measures go (cleanArticle).

// metrics are one element's text measures, in runes without spaces.
type metrics struct {
	all, links, commas int
}

// measureTree computes the metrics of every element under n.
func measureTree(n *html.Node, memo map[*html.Node]metrics) metrics {
	var m metrics
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			for _, r := range c.Data {
				if !unicode.IsSpace(r) {
					m.all++
				}
				if r == ',' || r == '，' || r == '、' {
					m.commas++
				}
			}
		case html.ElementNode:
			cm := measureTree(c, memo)
			if c.DataAtom == atom.A {
				cm.links = cm.all
			}
			m.all, m.links, m.commas = m.all+cm.all, m.links+cm.links, m.commas+cm.commas
		}
	}
	memo[n] = m
	return m
}

func (m metrics) linkDensity() float64 {
	if m.all == 0 {
		return 0
	}
	return float64(m.links) / float64(m.all)
}

// negativeNames and positiveNames are the parts of a class or id that
// Readability weighs against and for a container; the names of one
// service or site (combx, outbrain, shoutbox) are left out of its
// lists here, as of unlikelyNames: no set moved without them.
var negativeNames = []string{"hidden", "banner", "comment", "com-", "contact", "foot", "gdpr",
	"masthead", "media", "meta", "promo", "related", "scroll", "share", "sidebar",
	"skyscraper", "sponsor", "shopping", "tags", "tool", "widget", "recommend", "newsletter",
	"subscribe", "social", "author", "byline", "cookie", "consent", "popular", "trending", "credit", "copyright"}

var positiveNames = []string{"article", "body", "content", "entry", "hentry", "h-entry", "main", "page",
	"post", "text", "blog", "story"}

// classWeight is Readability's weight of a container's class and id:
// -25 for each that names boilerplate, +25 for each that names content.
func classWeight(n *html.Node) int {
	w := 0
	for _, key := range []string{"class", "id"} {
		v := strings.ToLower(attr(n, key))
		if v == "" {
			continue
		}
		if containsAny(v, negativeNames) {
			w -= 25
		}
		if containsAny(v, positiveNames) {
			w += 25
		}
	}
	return w
}

func containsAny(s string, parts []string) bool {
	for _, p := range parts {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// isParagraph reports the elements whose text scores their containers:
// paragraphs, code blocks, cells, and divs that hold text but no block.
func isParagraph(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Pre, atom.Blockquote:
		return true
	case atom.Td:
		// A cell that holds tables or paragraphs lays the page out: its
		// blocks score, not the cell as one paragraph (which would score
		// the layout's row with the whole page's text).
		return !isLayoutCell(n)
	case atom.Div, atom.Section, atom.Span:
		return !hasBlockChild(n)
	}
	return false
}

// isLayoutCell reports a table cell that holds a table or a paragraph:
// a column of a page laid out in tables, not a cell of data.
func isLayoutCell(n *html.Node) bool {
	return findFirst(n, func(c *html.Node) bool {
		return c != n && (c.DataAtom == atom.Table || c.DataAtom == atom.P)
	}) != nil
}

func hasBlockChild(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.P, atom.Div, atom.Section, atom.Article, atom.Table, atom.Ul, atom.Ol, atom.Dl, atom.Pre,
			atom.Blockquote, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Figure, atom.Main:
			return true
		}
	}
	return false
}

// tagScore is a container's score before its paragraphs count.
func tagScore(n *html.Node) float64 {
	switch n.DataAtom {
	case atom.Div, atom.Article, atom.Main, atom.Section:
		return 5
	case atom.Pre, atom.Td, atom.Blockquote:
		return 3
	case atom.Address, atom.Ol, atom.Ul, atom.Dl, atom.Dd, atom.Dt, atom.Li, atom.Form:
		return -3
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Th:
		return -5
	}
	return 0
}

// articleRoot finds the container whose paragraphs make the page's
// article, and the share of the page's paragraph score it holds. It
// returns nil when no paragraph is long enough to count.
func articleRoot(body *html.Node, memo map[*html.Node]metrics, w *Weights) (*html.Node, float64, map[*html.Node]float64) {
	scores := map[*html.Node]float64{}
	var order []*html.Node
	total := 0.0
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if isParagraph(c) {
				m := memo[c]
				if m.all-m.links >= 25 {
					s := 1 + float64(m.commas) + min(float64(m.all)/100, 3)
					total += s
					p := c.Parent
					for level := 0; p != nil && p != body.Parent && level < 5; level++ {
						if p.Type != html.ElementNode {
							break
						}
						if _, ok := scores[p]; !ok {
							scores[p] = tagScore(p) + float64(classWeight(p))*w.ClassName/25
							order = append(order, p)
						}
						div := 1.0
						switch {
						case level == 1:
							div = 2
						case level > 1:
							div = float64(level) * 3
						}
						scores[p] += s / div
						p = p.Parent
					}
				}
				if c.DataAtom != atom.Div && c.DataAtom != atom.Section {
					continue
				}
			}
			walk(c)
		}
	}
	walk(body)
	if len(order) == 0 {
		return nil, 0, nil
	}
	var top *html.Node
	best := 0.0
	final := make(map[*html.Node]float64, len(order))
	for _, n := range order {
		s := scores[n] * (1 - memo[n].linkDensity())
		final[n] = s
		if top == nil || s > best {
			top, best = n, s
		}
	}
	// When several near-best containers share an ancestor (an article cut
	// into sections, each scored apart), the ancestor is the article.
	var alts []*html.Node
	for _, n := range order {
		if n != top && final[n] >= best*0.75 && !contains(n, top) && !contains(top, n) {
			alts = append(alts, n)
		}
	}
	if len(alts) >= 2 {
		for p := top.Parent; p != nil && p != body; p = p.Parent {
			k := 0
			for _, a := range alts {
				if contains(p, a) {
					k++
				}
			}
			if k >= 2 {
				top = p
				break
			}
		}
	}
	// A container that is the only child of its parent says no more than
	// the parent, and the parent may hold the title.
	for top.Parent != nil && top.Parent != body && memo[top.Parent].all-memo[top].all < 25 {
		top = top.Parent
	}
	return top, final[top] / max(total, 1), final
}

// narrowToArticle cuts the root that pick found down to the article it
// holds: from the best-scoring container up to the root, each level's
// siblings that read as boilerplate (named so, mostly links, or a line of
// a few words) go, and so do headings left with nothing under them. What
// reads as content beside the article stays: a manual's introduction
// beside its code listing, a section beside the one that scored best.
//
// On a page that says it is an article, a sibling stays only when it
// reads as part of it (isArticleSibling), as Readability keeps them, and
// of several stories the one under the page's title is the article
// (titledArticle; title is nil on other pages).
func narrowToArticle(doc, root *html.Node, contents []*html.Node, article bool, title *html.Node, w *Weights) {
	body := findFirst(doc, func(n *html.Node) bool { return n.DataAtom == atom.Body })
	if body == nil {
		body = doc
	}
	memo := map[*html.Node]metrics{}
	measureTree(body, memo)
	art, share, scores := articleRoot(body, memo, w)
	art = titledArticle(art, title, scores)
	if !article && art != nil && art != root && contains(root, art) && share < w.ArticleShare {
		// A page of many stories, none of which holds a fifth of its
		// prose (a home page, a shop's): nothing is cut to the best, but
		// what is bare beside it goes as it would beside an article.
		dropBareBeside(art, root, contents, memo)
		return
	}
	if article && art != nil && art != root && contains(root, art) && share < w.ArticleShare {
		// An article page whose best container holds under a fifth of
		// the prose (an old page laid out in tables, its story in one
		// cell): nothing is cut to it, but the bare columns of the
		// layout beside it go.
		dropBareColumnsBeside(art, root, contents, memo)
		return
	}
	if art == nil || art == root || !contains(root, art) || share < w.ArticleShare {
		return
	}
	threshold := max(10, scores[art]*w.SiblingShare)
	for n := art; n != root; n = n.Parent {
		p := n.Parent
		for c := p.FirstChild; c != nil; {
			next := c.NextSibling
			if c != n && c.Type == html.ElementNode && !holdsAny(c, contents) &&
				(article && !isArticleSibling(c, memo, scores, threshold) || isBoilerplate(c, memo, w) && (article || !headed(c)) ||
					!article && (isBareColumn(c, memo) || isBareBox(c, memo))) {
				p.RemoveChild(c)
			}
			c = next
		}
		dropBareHeadings(p)
	}
}

// dropBareBeside removes, from art up to root, the siblings of each
// level that are bare (isBareColumn, isBareBox).
func dropBareBeside(art, root *html.Node, contents []*html.Node, memo map[*html.Node]metrics) {
	for n := art; n != root; n = n.Parent {
		p := n.Parent
		for c := p.FirstChild; c != nil; {
			next := c.NextSibling
			if c != n && c.Type == html.ElementNode && !holdsAny(c, contents) && (isBareColumn(c, memo) || isBareBox(c, memo)) {
				p.RemoveChild(c)
			}
			c = next
		}
	}
}

// isBareColumn reports a column of a page laid out in tables, beside
// the column that holds the content, that holds no paragraph of prose
// (150 letters outside links, under a fifth links), no heading and no
// listing: a shop's offers, a box of short lines and links ("Handmade
// Kilts. Only £99.95", "Efficiency", "Learn more >"). A page's content
// is written in paragraphs; what stands beside it in a column of short
// lines is its furniture. A table of data is never cut so: its cells
// are its data.
func isBareColumn(c *html.Node, memo map[*html.Node]metrics) bool {
	tr := c.Parent
	if c.DataAtom != atom.Td && c.DataAtom != atom.Th || tr == nil || tr.DataAtom != atom.Tr {
		return false
	}
	t := tr.Parent
	for t != nil && t.DataAtom != atom.Table {
		t = t.Parent
	}
	if t == nil || !isLayoutTable(t, tableRows(t)) || holdsProseBlock(c, memo) {
		return false
	}
	return findFirst(c, func(x *html.Node) bool { return isHeading(x) || x.DataAtom == atom.Pre }) == nil
}

// isBareBox reports a box beside the content that holds no paragraph
// of prose, no heading, no list, no listing and no table of data: short
// lines and links ("Efficiency", "Learn more >", a street address, a
// photo's credit), which a page's content, written in paragraphs, does
// not leave standing beside itself. A list or a heading is kept: a
// page's lists of links and its headings are its content as often as
// not.
func isBareBox(c *html.Node, memo map[*html.Node]metrics) bool {
	switch c.DataAtom {
	case atom.Div, atom.Td, atom.Center, atom.Font, atom.Span:
	case atom.Table:
		if !isLayoutTable(c, tableRows(c)) {
			return false
		}
	default:
		return false
	}
	// A box right after a heading is that heading's section, however
	// short its lines: Doxygen's entry for a field (its declaration in a
	// one-column table, a line on it) under the field's heading, rustdoc's
	// table of items under "Macros".
	if holdsProseBlock(c, memo) || underHeading(c) {
		return false
	}
	return findFirst(c, func(x *html.Node) bool {
		switch x.DataAtom {
		case atom.Pre, atom.Ul, atom.Ol, atom.Dl:
			return true
		case atom.Table:
			return !isLayoutTable(x, tableRows(x))
		}
		return isHeading(x)
	}) == nil
}

// holdsProseBlock reports a paragraph of prose in n or n itself: 150
// letters or more outside links, links under a fifth of its text.
func holdsProseBlock(n *html.Node, memo map[*html.Node]metrics) bool {
	if isParagraph(n) {
		if m := memo[n]; m.all-m.links >= proseLetters && m.links*5 < m.all {
			return true
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && holdsProseBlock(c, memo) {
			return true
		}
	}
	return false
}

// headed reports a block that a heading heads and that holds a listing
// or a table, named as nothing: in a manual that is the heading's
// section, however many of its words are links. Doxygen sets a
// function's entry (its signature in a table, a line on it, and the
// functions it calls and is called by, all links) right after the
// heading that names it. A list of links under a heading ("Skip to:")
// holds neither.
func headed(n *html.Node) bool {
	return underHeading(n) && classWeight(n) >= 0 && findFirst(n, func(c *html.Node) bool {
		return c.DataAtom == atom.Table || c.DataAtom == atom.Pre
	}) != nil
}

func holdsAny(n *html.Node, nodes []*html.Node) bool {
	for _, c := range nodes {
		if contains(n, c) {
			return true
		}
	}
	return false
}

// isArticleSibling reports a block beside the best container that reads
// as more of the article: a heading (dropped later if it heads nothing),
// a figure, a container that scores near the best (threshold), or a
// paragraph of 80 letters with few links, or a shorter one without links
// that ends a sentence.
func isArticleSibling(n *html.Node, memo map[*html.Node]metrics, scores map[*html.Node]float64, threshold float64) bool {
	if isHeading(n) {
		return true
	}
	switch n.DataAtom {
	case atom.Figure, atom.Picture, atom.Img, atom.Pre, atom.Table, atom.Hr:
		return true
	}
	if s, ok := scores[n]; ok && s >= threshold {
		return true
	}
	m := memo[n]
	if m.all >= 80 && m.linkDensity() < 0.25 {
		return true
	}
	// A section of its own: a heading with prose under it.
	if m.all-m.links >= 25 && m.linkDensity() < 0.25 && findFirst(n, isHeading) != nil {
		return true
	}
	if m.links == 0 && m.all > 0 {
		t := strings.TrimSpace(textOf(n))
		return strings.HasSuffix(t, ".") || strings.Contains(t, ". ")
	}
	return false
}

// isBoilerplate reports a block beside an article that is not part of it:
// one whose class or id names boilerplate, one that is mostly links (a
// list of related stories, a tag line), or a line of a few words (a
// dateline, "Share this").
func isBoilerplate(n *html.Node, memo map[*html.Node]metrics, w *Weights) bool {
	if isHeading(n) {
		return false
	}
	switch n.DataAtom {
	case atom.Pre, atom.Img, atom.Picture, atom.Figure, atom.Hr, atom.Br:
		return false
	case atom.Table:
		// A table of data is content; a table that lays the page out is
		// a block like any other.
		if !isLayoutTable(n, tableRows(n)) {
			return false
		}
	}
	m := memo[n]
	switch {
	case classWeight(n) < 0:
		return true
	case m.all == 0:
		return !hasImage(n)
	case m.linkDensity() > w.BoilerplateLinks:
		return true
	}
	return m.all-m.links < 25 && findFirst(n, func(c *html.Node) bool { return isHeading(c) || c.DataAtom == atom.Pre }) == nil
}

// dropBareHeadings removes the headings of p that head nothing: followed
// by a heading of their level or above, or by nothing at all.
func dropBareHeadings(p *html.Node) {
	var next *html.Node // the next element after c
	for c := p.LastChild; c != nil; {
		prev := c.PrevSibling
		if c.Type == html.ElementNode {
			if isHeading(c) && (next == nil || isHeading(next) && next.Data <= c.Data) && !isStandfirst(c) {
				p.RemoveChild(c)
				c = prev
				continue
			}
			if !isBlank(c) {
				next = c
			}
		}
		c = prev
	}
}

// isArticlePage reports a page that says it is an article: og:type
// article, an article:* meta property, schema.org's Article, NewsArticle
// or BlogPosting (JSON-LD or microdata), twitter:card, an author meta,
// or an <article> element. Manuals say none of these, and their link lists and short
// notes are content, so cleanArticle only runs on articles.
func isArticlePage(doc *html.Node) bool {
	return findFirst(doc, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.Article:
			return true
		case atom.Meta:
			prop := strings.ToLower(attr(n, "property") + attr(n, "name"))
			return prop == "og:type" && strings.Contains(strings.ToLower(attr(n, "content")), "article") ||
				strings.HasPrefix(prop, "article:") || prop == "twitter:card" || prop == "author"
		case atom.Script:
			if !strings.Contains(strings.ToLower(attr(n, "type")), "ld+json") || n.FirstChild == nil {
				return false
			}
			return namesArticleType(n.FirstChild.Data)
		}
		return namesArticleType(attr(n, "itemtype"))
	}) != nil
}

// readsAsArticle reports a page that holds at least paragraphs
// paragraphs of prose (150 letters or more outside links, links under a
// fifth of the text, or a run of 150 letters set between <br>s) and no
// code: an article by its shape, where the
// page says nothing of what it is. Manuals show code, and their prose is
// read as a manual's. With dated above 0, a page with no code that holds
// dated paragraphs of prose or more, and a short line with a date or a
// time before the first of them ("Posted Jan. 5, 2008", "Associated
// Press - December 29, 2007 4:44 AM ET"), is one too: a story under its
// dateline, however short.
func readsAsArticle(doc *html.Node, paragraphs, dated int) bool {
	k := 0
	code, datedLine := false, false
	line := func(s string) {
		if k == 0 && !datedLine && dated > 0 {
			datedLine = isDatedText(s, datelineWords)
		}
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && !code; c = c.NextSibling {
			if c.Type != html.ElementNode || dropped[c.DataAtom] {
				continue
			}
			switch c.DataAtom {
			case atom.Pre, atom.Code:
				code = true
				return
			case atom.P:
				if links, all := linkText(c); all-links >= proseLetters && links*5 < all {
					k++
				} else if links == 0 {
					line(textOf(c))
				}
				continue
			case atom.A:
				continue
			}
			// Text set between <br>s, not in paragraphs: each run of
			// 150 letters is one.
			for t := c.FirstChild; t != nil; t = t.NextSibling {
				if t.Type != html.TextNode {
					continue
				}
				if letters(t.Data) >= proseLetters {
					k++
				} else {
					line(t.Data)
				}
			}
			walk(c)
		}
	}
	walk(doc)
	return !code && (k >= paragraphs || dated > 0 && datedLine && k >= dated)
}

// datelineWords is the most words a line that dates a story holds.
const datelineWords = 12

// isDatedText reports a short text that holds a date or a time and is
// not a sentence.
func isDatedText(s string, max int) bool {
	t := strings.TrimSpace(s)
	if t == "" || len(strings.Fields(t)) > max || !dateRE.MatchString(t) {
		return false
	}
	return !strings.HasSuffix(t, ".") && !strings.HasSuffix(t, "!") && !strings.HasSuffix(t, "?")
}

// letters counts the letters and digits of s.
func letters(s string) int {
	k := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			k++
		}
	}
	return k
}

// namesArticleType reports text naming schema.org's article types.
func namesArticleType(s string) bool {
	for _, t := range []string{"NewsArticle", "BlogPosting", `"Article"`, "/Article", "ReportageNewsArticle", "OpinionNewsArticle"} {
		if strings.Contains(s, t) {
			return true
		}
	}
	return false
}

// cleanArticle removes what an article holds besides its text, judged
// the way Readability's conditional cleaning judges it: containers named
// as boilerplate that hold little of the article, lists and boxes of
// links (related stories, tag lines, share bars), boxes with more fields
// than paragraphs (sign-ups), and fragments of a few words outside
// paragraphs (datelines, "Advertisement"). Headings left heading nothing
// go with them.
func cleanArticle(root *html.Node, w *Weights) {
	memo := map[*html.Node]metrics{}
	total := measureTree(root, memo)
	// Names that mark most of the article mark nothing: a page builder
	// that calls every block "elementor-widget" names its layout, not
	// boilerplate.
	named := 0
	var count func(*html.Node)
	count = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if classWeight(c) < 0 {
				named += memo[c].all
			} else {
				count(c)
			}
		}
	}
	count(root)
	namesTell := named*2 < total.all
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode {
				switch {
				case c.DataAtom == atom.Table && isDataTable(c):
					// Readability leaves a table of data and all it holds.
				case isArticleClutter(c, memo, total, namesTell, w):
					n.RemoveChild(c)
				case c.DataAtom == atom.Pre:
					// A listing's spans are named by its highlighter (pruneCode).
				default:
					walk(c)
				}
			}
			c = next
		}
		dropBareHeadings(n)
	}
	walk(root)
}

func isArticleClutter(n *html.Node, memo map[*html.Node]metrics, total metrics, namesTell bool, w *Weights) bool {
	switch n.DataAtom {
	case atom.Div, atom.Section, atom.Ul, atom.Ol, atom.Form, atom.Aside, atom.Header, atom.Footer, atom.Dl, atom.Center, atom.Table:
	case atom.Time:
		// A date set as a block of its own, not inside a sentence.
		switch n.Parent.DataAtom {
		case atom.Div, atom.Section, atom.Article, atom.Header, atom.Main:
			return true
		}
		return false
	case atom.P, atom.Span, atom.Blockquote, atom.Li, atom.Small:
		m := memo[n]
		if isDateline(n, memo) {
			return true
		}
		if isPictureCredit(n) {
			return true
		}
		if n.DataAtom == atom.P && m.links > 0 && m.linkDensity() > 0.5 && m.all-m.links < 30 && isLabelledLink(n) {
			return true
		}
		return m.all*2 <= total.all && namesDiscarded(n) && !holdsPage(n)
	default:
		return false
	}
	if holdsPage(n) {
		return false
	}
	m := memo[n]
	if n.DataAtom == atom.Footer && m.all < total.all {
		return true
	}
	if m.all*2 > total.all {
		return false // half the article is the article
	}
	if isDateline(n, memo) {
		return true
	}
	if n.DataAtom == atom.Footer || namesDiscarded(n) || m.links > 0 && namesTeaser(n) {
		return true
	}
	// trafilatura's backtracking link-density rule: a div of three
	// blocks or more with a link and under a hundred letters is a
	// dateline, a print-and-permalink bar or a slider's controls.
	if n.DataAtom == atom.Div && m.links > 0 && m.all < 100 && elementChildren(n) >= 3 {
		return true
	}
	weight := classWeight(n)
	if weight < 0 && namesTell {
		return true
	}
	// "article__meta", "entry-tags": a short box named for boilerplate
	// goes even when its name also says article.
	if m.all < 300 && namesBoilerplate(n) && namesTell {
		return true
	}
	if m.commas >= 10 {
		return false
	}
	var paras, items, fields, pres int
	var count func(*html.Node)
	count = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.DataAtom {
			case atom.P:
				paras++
			case atom.Li:
				items++
			case atom.Input, atom.Select, atom.Textarea:
				fields++
			case atom.Pre, atom.Img, atom.Picture, atom.Table:
				pres++
			}
			count(c)
		}
	}
	count(n)
	switch {
	case m.linkDensity() > w.ClutterLinks && m.all-m.links < 200:
		return !isListBox(n, memo) || isLinkList(n, memo)
	case weight < 25 && m.linkDensity() > w.WeakClutterLinks && !isListBox(n, memo):
		return true
	case fields > 0 && fields*3 > paras:
		return true
	case m.all < 25 && pres == 0:
		return true
	}
	return false
}

// isListBox reports a list, or a box whose text is mostly list items:
// an article's own list has links in its items.
func isListBox(n *html.Node, memo map[*html.Node]metrics) bool {
	if n.DataAtom == atom.Ul || n.DataAtom == atom.Ol || n.DataAtom == atom.Dl {
		return true
	}
	inItems := 0
	for _, li := range findAll(n, atom.Li) {
		inItems += memo[li].all
	}
	return inItems*10 > memo[n].all*9
}

// namesBoilerplate reports a class or id with a word that names
// boilerplate: the start of one of negativeNames ("meta" in
// "article__meta", "share" in "shareButtons").
func namesBoilerplate(n *html.Node) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(attr(n, "class")+" "+attr(n, "id")), func(r rune) bool {
		return r == ' ' || r == '-' || r == '_' || r == '\t'
	}) {
		for _, neg := range negativeNames {
			// "com-" names a word of its own, not every word it opens
			// ("component article-body-text" holds a news site's text).
			if name := strings.Trim(neg, "-"); name != neg && w == name || name == neg && strings.HasPrefix(w, name) {
				return true
			}
		}
	}
	return false
}

// isLinkList reports a list of links and nothing else: every item is a
// link (a list of related stories, a tag list). A list whose items say
// something beside their links ("Neil has patches up to <a>improve the
// tab unloader</a>"), or that is part of an outer list's item, is the
// article's.
func isLinkList(n *html.Node, memo map[*html.Node]metrics) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.DataAtom == atom.Li {
			return false
		}
	}
	items := findAll(n, atom.Li)
	for _, li := range items {
		if m := memo[li]; m.links*10 < m.all*9 {
			return false
		}
	}
	return len(items) > 0
}

// unlikelyNames and maybeNames are Readability's: a block whose class or
// id names one of the first and none of the second is furniture on an
// article page, prose or not (an author box, a "most read" column).
var unlikelyNames = []string{"-ad-", "banner", "breadcrumbs", "comment", "community",
	"extra", "footer", "gdpr", "header", "menu", "related", "remark",
	"replies", "rss", "sidebar", "skyscraper", "social", "sponsor", "supplemental", "ad-break",
	"agegate", "pagination", "pager", "popup"}

var maybeNames = []string{"and", "article", "body", "column", "content", "main", "shadow"}

func isUnlikely(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Body, atom.A, atom.Table, atom.Tbody, atom.Tr, atom.Td, atom.Th, atom.Li, atom.Main, atom.Article:
		return false
	}
	names := strings.ToLower(attr(n, "class") + " " + attr(n, "id"))
	return containsAny(names, unlikelyNames) && !containsAny(names, maybeNames) && !holdsPage(n) &&
		!(holdsProse(n) && !isList(n) && mayWrapArticle(n))
}

// isList reports a list: a wrapper of an article is a box, never a
// list, so a list named unlikely goes however much prose it holds (a
// slideshow's captions), as Readability has it.
func isList(n *html.Node) bool { return n.DataAtom == atom.Ul || n.DataAtom == atom.Ol }

// discardNames are parts of a class or id that trafilatura discards
// inside an article whatever the block's text (its default rules): author
// boxes (named author even beside "content"), rating
// widgets, paywall prompts, embedded posts (a quoted tweet, a linked
// post's card), recirculation ("more-stories", "most-popular") and boxes
// marked by an icon ("-icon": "Good to know: see the page …"); and,
// beside trafilatura's, licence notes, affiliate boxes,
// disclosures and disclaimers. (Its "noprint" was measured too: it is
// Wikipedia's class for hatnotes, which Readability keeps.)
var discardNames = []string{"author", "rating", "paywall", "paid-content", "paidcontent", "embed",
	"-stories", "most-popular", "syndication", "viral", "disclosure", "disclaimer", "affiliate", "licence", "license", "-icon"}

func namesDiscarded(n *html.Node) bool {
	return containsAny(strings.ToLower(attr(n, "class")+" "+attr(n, "id")), discardNames)
}

// namesTeaser reports a class or id that says teaser, which trafilatura
// also discards: a box of them with links is other stories' promotion,
// but a paragraph named so is often the article's own lead ("article
// teaser"), which measured worse when it went.
func namesTeaser(n *html.Node) bool {
	return strings.Contains(strings.ToLower(attr(n, "class")+" "+attr(n, "id")), "teaser")
}

// isLabelledLink reports a paragraph that is a short label and a link
// ("Read more: <a>…</a>", "Lea también: <a>…</a>", "Schon gelesen? <a>…</a>"):
// the way news sites set a link to another story inside the article's
// text. The label ends in a colon or a question mark, one link follows
// and nothing but punctuation after it ("Source files: <a>a.js</a>,
// <a>b.js</a>" lists the article's own files).
func isLabelledLink(n *html.Node) bool {
	var before, after strings.Builder
	seen, links := false, 0
	var walk func(*html.Node)
	walk = func(c *html.Node) {
		for ; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.ElementNode && c.DataAtom == atom.A:
				seen = true
				links++
				after.Reset()
			case c.Type == html.TextNode && seen:
				after.WriteString(c.Data)
			case c.Type == html.TextNode:
				before.WriteString(c.Data)
			default:
				walk(c.FirstChild)
			}
		}
	}
	walk(n.FirstChild)
	label := strings.TrimSpace(before.String())
	rest := strings.TrimFunc(after.String(), func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) })
	return links == 1 && rest == "" && (strings.HasSuffix(label, ":") || strings.HasSuffix(label, "?"))
}

// isPictureCredit reports a picture's credit line ("Foto: Getty",
// "Thinkstock"): named credit, copyright or source inside a figure or
// its caption, which trafilatura's labels count as boilerplate as it
// counts photo credits. The caption itself says what the picture shows
// and stays.
func isPictureCredit(n *html.Node) bool {
	names := strings.ToLower(attr(n, "class") + " " + attr(n, "id"))
	if !containsAny(names, []string{"credit", "copyright", "source", "photographer"}) {
		return false
	}
	for p := n.Parent; p != nil; p = p.Parent {
		if p.DataAtom == atom.Figure || p.DataAtom == atom.Figcaption || strings.Contains(strings.ToLower(attr(p, "class")), "caption") {
			return true
		}
	}
	return false
}

// isBlank reports an element that shows nothing: no text, no picture, no
// rule or break. A heading followed by one (a slot that scripts fill
// with teasers) heads nothing.
func isBlank(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Img, atom.Picture, atom.Hr, atom.Br, atom.Pre, atom.Table, atom.Figure:
		return false
	}
	return !hasText(n) && !hasImage(n)
}

// hasText reports whether n holds a letter of text, stopping at the
// first (textOf would build the whole text for each heading's sibling).
func hasText(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" || c.Type == html.ElementNode && hasText(c) {
			return true
		}
	}
	return false
}

func elementChildren(n *html.Node) int {
	k := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			k++
		}
	}
	return k
}

// proseLetters is what a paragraph of prose holds, in letters, for
// readsAsArticle (80 and 100 were tried against 150: CleanEval's and
// WCXB's folds fell).
const proseLetters = 150

// dropBareColumnsBeside removes, from art up to root, the columns of a
// layout table beside it that are bare (isBareColumn) and hold less
// prose than art: on a page whose best container is weak, a column
// that outweighs it may be the story itself, its lines set apart by
// <br>s.
func dropBareColumnsBeside(art, root *html.Node, contents []*html.Node, memo map[*html.Node]metrics) {
	for n := art; n != root; n = n.Parent {
		p := n.Parent
		for c := p.FirstChild; c != nil; {
			next := c.NextSibling
			if c != n && c.Type == html.ElementNode && !holdsAny(c, contents) && isBareColumn(c, memo) && lessProse(c, art, memo) {
				p.RemoveChild(c)
			}
			c = next
		}
	}
}

// lessProse reports whether c holds fewer letters outside links than
// art.
func lessProse(c, art *html.Node, memo map[*html.Node]metrics) bool {
	m, a := memo[c], memo[art]
	return m.all-m.links < a.all-a.links
}
