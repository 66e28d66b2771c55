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
// stories", a note on reprints. hark keeps what comes before the body
// (a lead paragraph set above it is the article's), and cuts what comes
// after, when the named body holds half the article's prose or more, so
// that a body that a system names only in part is not cut short.

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
	return containsAny(strings.ToLower(attr(n, "class")+" "+attr(n, "id")), bodyNames)
}

// cutAfterBody removes what follows the article's named body inside
// root: the first element that trafilatura's first body expression
// matches, else the first its third matches (its second is any
// <article>, which Main has taken already). A block that holds another named body (an article that adverts
// split into parts) stays.
func cutAfterBody(root *html.Node) {
	body := findFirst(root, isNamedBody)
	if body == nil {
		body = findFirst(root, isOtherNamedBody)
	}
	if body == nil {
		return
	}
	prose := map[*html.Node]int{}
	if proseLen(root, prose) > 2*prose[body] {
		return
	}
	for n := body; n != root; n = n.Parent {
		for c := n.NextSibling; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode && !isNamedBody(c) && findFirst(c, isNamedBody) == nil {
				n.Parent.RemoveChild(c)
			}
			c = next
		}
	}
}

// otherBodyNames are the parts of trafilatura's third body expression,
// which it tries when no element matches the first: names that blog
// themes and news systems give the text less often ("story-body",
// "blog-content", "single-content", WPBakery's "wpb_text_column").
var otherBodyNames = []string{"post-bodycopy", "storycontent", "story-content", "theme-content", "blog-content",
	"section-content", "single-content", "single-post", "main-column", "wpb_text_column", "story-body", "field-body", "fulltext"}

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
	return containsAny(strings.ToLower(class+" "+id), otherBodyNames)
}
