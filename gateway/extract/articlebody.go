package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// trafilatura finds an article's text by the names that publishing
// systems give the element holding it (the first expression of its
// BODY_XPATH: WordPress's "entry-content" and "post-content", news
// systems' "article-body" and "article__content", schema.org's
// itemprop=articleBody), and takes that element only. What an <article>
// holds after it is the post's footer: tags, the author's box, "more
// stories", a note on reprints; what it holds before is the header's
// picture, caption and dateline, and often the lead paragraph, which
// trafilatura's labels count as the article's. hark cuts what comes
// after the body and, before it, all but headings and prose, when the
// named body holds half the content's prose or more, so that a body
// that a system names only in part is not cut short. It does so on any
// page: a blog that gives no article signal still names its post's
// body, and manuals do not use these names (a page that did would keep
// its text, which is the named body).

// bodyNames are the class and id parts of trafilatura's first body
// expression, lower-cased.
var bodyNames = []string{"post-text", "post_text", "post-body", "post-entry", "postentry", "post-content",
	"post_content", "postcontent", "article-text", "articletext", "entry-content", "article-content",
	"articlecontent", "article__content", "article-body", "article__body", "articlebody", "page-content",
	"text-content", "body-text", "article__container", "art-content"}

// isNamedBody reports an element that trafilatura's first body
// expression matches.
func isNamedBody(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Article, atom.Div, atom.Main, atom.Section:
	default:
		return false
	}
	if attr(n, "itemprop") == "articleBody" {
		return true
	}
	class, id := attr(n, "class"), attr(n, "id")
	if class == "" && id == "" {
		return false
	}
	return containsAny(strings.ToLower(class+" "+id), bodyNames)
}

// cutToBody removes, inside root, what follows the article's named body
// and what precedes it that is not the article's lead (isBeforeBody).
// The body is the first element that trafilatura's first body expression
// matches, else the first its third matches (its second is any
// <article>, which Main has taken already). A block after it that holds
// another body of the same name (an article that adverts split into
// parts) stays.
func cutToBody(root *html.Node) {
	named := isNamedBody
	body := findFirst(root, named)
	if body == nil {
		named = isOtherNamedBody
		body = findFirst(root, named)
	}
	if body == nil {
		return
	}
	prose := map[*html.Node]int{}
	if proseLen(root, prose) > 2*prose[body] {
		return
	}
	for n := body; n != root; n = n.Parent {
		for c := n.PrevSibling; c != nil; {
			prev := c.PrevSibling
			if c.Type == html.ElementNode && isBeforeBody(c, prose) {
				n.Parent.RemoveChild(c)
			}
			c = prev
		}
	}
	for n := body; n != root; n = n.Parent {
		for c := n.NextSibling; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode && !named(c) && findFirst(c, named) == nil {
				n.Parent.RemoveChild(c)
			}
			c = next
		}
	}
}

// otherBodyNames are the parts of trafilatura's third body expression,
// which it tries when no element matches the first: names that blog
// themes and news systems give the text less often ("story-body",
// "blog-content", "single-content"). Names of one product or service
// ("wpb_text_column") are not among them: they explain one system's
// pages, and no set moved without them.
var otherBodyNames = []string{"post-bodycopy", "storycontent", "story-content", "theme-content", "blog-content",
	"section-content", "single-content", "single-post", "main-column", "story-body", "field-body", "fulltext"}

// isOtherNamedBody reports an element that trafilatura's third body
// expression matches: one of otherBodyNames in its class or id, or a
// class or id it names whole ("text", "story", id "article", role=article).
func isOtherNamedBody(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Article, atom.Div, atom.Main, atom.Section:
	default:
		return false
	}
	class, id := attr(n, "class"), attr(n, "id")
	switch {
	case class == "text" || class == "story" || class == "cell" || class == "postarea" || class == "art-postcontent":
		return true
	case id == "story" || id == "article" || strings.HasPrefix(id, "primary"):
		return true
	case strings.HasPrefix(class, "article ") || attr(n, "role") == "article":
		return true
	}
	if class == "" && id == "" {
		return false
	}
	return containsAny(strings.ToLower(class+" "+id), otherBodyNames)
}

// isBeforeBody reports a block above the named body that is not the
// article's lead: a picture with its caption, or a line too short to be
// a paragraph of prose (jusText's 70 characters: a dateline, a byline, a
// credit). Headings stay (the title, a kicker over it).
func isBeforeBody(n *html.Node, prose map[*html.Node]int) bool {
	if isHeading(n) || findFirst(n, isHeading) != nil {
		return false
	}
	if n.DataAtom == atom.Figure || findFirst(n, func(c *html.Node) bool { return c.DataAtom == atom.Figure || c.DataAtom == atom.Figcaption }) != nil {
		return true
	}
	return prose[n] < 70
}

// dropHeaderPictures removes the pictures, with their captions, that an
// article's <header> holds beside its headline: the lead picture, which
// trafilatura's body leaves out with the header (its labels count the
// caption and the credit as boilerplate). Readability's output keeps
// them, at a cost of 0.01 on two of its pages.
func dropHeaderPictures(root *html.Node) {
	for _, h := range findAll(root, atom.Header) {
		var walk func(*html.Node)
		walk = func(n *html.Node) {
			for c := n.FirstChild; c != nil; {
				next := c.NextSibling
				if c.Type == html.ElementNode && !isHeading(c) && c.DataAtom != atom.P {
					if c.DataAtom == atom.Figure || findFirst(c, isFigure) != nil && findFirst(c, isHeading) == nil {
						n.RemoveChild(c)
					} else {
						walk(c)
					}
				}
				c = next
			}
		}
		walk(h)
	}
}

func isFigure(n *html.Node) bool { return n.DataAtom == atom.Figure || n.DataAtom == atom.Figcaption }

// mayWrapArticle reports whether a block of prose that Readability finds
// unlikely by its name may be the article, or its wrapper, all the same
// ("c-ad-section" around the <article>, "comment-text" holding a post):
// it is inside an <article> or the article's named body (isNamedBody),
// holds one, or the page has neither elsewhere. Beside an article that
// it is not part of, it is what Readability sets it aside for: readers'
// comments, a second column. (A box inside an article stays: dropping
// any block there cost both held-out parts recall; a list there goes,
// see isList.)
func mayWrapArticle(n *html.Node) bool {
	if findFirst(n, isArticleBody) != nil {
		return true
	}
	top := n
	for ; top.Parent != nil; top = top.Parent {
		if top.Parent.DataAtom == atom.Article || isNamedBody(top.Parent) {
			return true
		}
	}
	return findFirst(top, func(c *html.Node) bool { return isArticleBody(c) && !contains(n, c) }) == nil
}

func isArticleBody(n *html.Node) bool { return n.DataAtom == atom.Article || isNamedBody(n) }
