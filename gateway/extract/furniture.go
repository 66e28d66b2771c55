package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Blocks named or shaped as page furniture: readers' comments, bylines
// and datelines, promotion (related posts, share bars, sign-ups), menus
// laid out in table cells, hidden blocks, and the class and id words
// these rules read.

// isComments reports a block of readers' comments or the form to post
// one (#comments, .comment-list, #respond): what
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
// respond, or comment with list, area, form, thread, reply or
// respond beside it (comment-list). "comment" alone is too common a class
// (a manual's annotated paragraphs) to go by.
func commentsNamed(words []string) bool {
	single := false
	for _, w := range words {
		switch {
		case w == "comments" || w == "commentlist" || w == "respond":
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

// wrapsBody reports an element that holds four fifths of its page's
// text or more: ASP.NET's form around the whole page, a layout's one
// wrapper.
func wrapsBody(n *html.Node) bool {
	body := n.Parent
	for body != nil && body.DataAtom != atom.Body {
		body = body.Parent
	}
	if body == nil {
		return false
	}
	_, all := linkText(n)
	_, whole := linkText(body)
	return all*5 >= whole*4
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
	// its labels and hints are not the page, however long; unless it
	// holds the page, its heading or four fifths of its text.
	if findFirst(n, func(c *html.Node) bool { return c.DataAtom == atom.Textarea }) != nil && !holdsPage(n) && !wrapsBody(n) {
		return true
	}
	links, all := linkText(n)
	return all-links < 300
}

// fieldBoxes finds the boxes of fields that are not a <form>: a search
// or log-in box of a page laid out in tables, whose <form> opens in one
// cell, or inside the table where the parser closes it at once, leaving
// the fields and their labels ("User Name | Password", "Business name or
// category") in the cells. From each field to type in, the largest box
// above it (a div, a table or its parts, a paragraph) with under 200
// letters, links and labels included, that does not hold the page.
func fieldBoxes(n0 *html.Node) map[*html.Node]bool {
	boxes := map[*html.Node]bool{}
	whole := -1 // the page's letters, counted at the first field
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if isTypedField(c) {
				if whole < 0 {
					// Only a page of under 250 letters can have four
					// fifths of them in a box of under 200.
					whole = 250
					if t, short := textUpTo(n0, 2500); short {
						whole = min(whole, nonSpaceLen(t))
					}
				}
				if b := fieldBox(c, whole); b != nil {
					boxes[b] = true
				}
				continue
			}
			walk(c)
		}
	}
	walk(n0)
	return boxes
}

func isTypedField(n *html.Node) bool {
	if n.DataAtom == atom.Select {
		return true
	}
	if n.DataAtom != atom.Input {
		return false
	}
	switch strings.ToLower(attr(n, "type")) {
	case "", "text", "password", "search", "email":
		return true
	}
	return false
}

// fieldBox is the largest box above the field f with under 200 letters
// that does not hold the page (its heading, or four fifths of its whole
// letters), or nil; a <form> is left to isSignUp.
func fieldBox(f *html.Node, whole int) *html.Node {
	var box *html.Node
	for n := f.Parent; n != nil && n.Type == html.ElementNode; n = n.Parent {
		switch n.DataAtom {
		case atom.Div, atom.Table, atom.Tbody, atom.Tr, atom.Td, atom.P, atom.Span, atom.Fieldset, atom.Center, atom.Font:
		case atom.Form, atom.Label:
			continue
		default:
			return box
		}
		t, short := textUpTo(n, 2000)
		if k := nonSpaceLen(t); !short || k >= 200 || k*5 >= whole*4 || holdsPage(n) {
			return box
		}
		box = n
	}
	return box
}

var promoPrefixes = []string{"related", "share", "sharing", "newsletter", "advert", "sponsor", "promo"}

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

// dropMasthead removes the page's masthead: the largest box around the
// site's logo (the first picture that links to the site's home page)
// that holds under 300 letters and no heading, with the tagline beside
// the logo ("A guide to the Clans and Tartans of Scotland: …"). A page
// names its home page from its own masthead; a link to another site's
// home page is left alone (a partner's badge inside a story).
func dropMasthead(doc *html.Node) {
	logo := findFirst(doc, func(n *html.Node) bool {
		return n.DataAtom == atom.A && isHomeHref(attr(n, "href")) && hasImage(n)
	})
	if logo == nil {
		return
	}
	var box *html.Node
	for n := logo.Parent; n != nil && n.Type == html.ElementNode; n = n.Parent {
		if n.DataAtom == atom.Body || n.DataAtom == atom.Html || n.DataAtom == atom.Main || n.DataAtom == atom.Article {
			break
		}
		t, short := textUpTo(n, 2000)
		if !short || letters(t) >= 300 || holdsPage(n) || findFirst(n, isHeading) != nil {
			break
		}
		box = n
	}
	if box != nil && box.Parent != nil {
		box.Parent.RemoveChild(box)
	}
}

// isHomeHref reports a relative link to the site's home page: its root,
// or an index page at the root or folders up ("../index.html").
func isHomeHref(h string) bool {
	h = strings.ToLower(strings.TrimSpace(h))
	if h == "" {
		return false
	}
	if strings.Contains(h, "://") || strings.HasPrefix(h, "//") {
		return false // another site's, as often as the page's own
	}
	h = strings.TrimPrefix(h, "./")
	for strings.HasPrefix(h, "../") {
		h = h[3:]
	}
	h = strings.TrimPrefix(h, "/")
	switch h {
	case "", "index.html", "index.htm", "index.php", "index.asp", "index.shtml", "default.asp", "default.aspx", "home.html", "home.htm":
		return true
	}
	return false
}
