package extract

import (
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// What an article holds besides its text, recognised by its structure
// rather than by a site's class names: recommendation rails (sibling
// cards of one shape, each mostly a link), blocks the page holds twice
// (a gallery's captions, a pull quote), threads of readers' comments
// (schema.org's Comment, ARIA's comment role, or sibling entries of one
// shape each with a date or an avatar), short captions, and link-heavy
// blocks after the article's last paragraph. How much evidence each
// needs is a weight (Weights).

// dropStructures removes those from an article's content root. counts
// are the page's blocks by their text (pageBlocks), read before the
// furniture went.
func dropStructures(root *html.Node, counts map[string]int, w *Weights) {
	// Before the walk below drops headings left bare: a teaser's linked
	// heading is how a rail is told. The walk reads the measures taken
	// before, which the blocks taken out after the end leave a little
	// high on their ancestors: one pass over the tree, not two.
	memo := map[*html.Node]metrics{}
	measureTree(root, memo)
	dropAfterEnd(root, memo, w)
	seen := map[string]bool{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode && c.DataAtom != atom.Pre && c.DataAtom != atom.Table {
				switch {
				case holdsPage(c):
					walk(c)
				case isRail(c, memo, w) || isGallery(c, memo, w) || isCommentThread(c, memo, w) || isShortCaption(c, w):
					n.RemoveChild(c)
				case isRepeat(c, counts, seen, w):
					n.RemoveChild(c)
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

// cards are the largest group of n's element children of one shape
// (tag and class), looking through wrappers of one child.
func cards(n *html.Node) []*html.Node {
	box := n
	for elementChildren(box) == 1 {
		c := box.FirstChild
		for c.Type != html.ElementNode {
			c = c.NextSibling
		}
		box = c
	}
	groups := map[string][]*html.Node{}
	var best []*html.Node
	for c := box.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		sig := c.Data + "." + strings.ToLower(attr(c, "class"))
		groups[sig] = append(groups[sig], c)
		if len(groups[sig]) > len(best) {
			best = groups[sig]
		}
	}
	return best
}

// isRail reports a block of teaser cards: RailCards or more siblings of
// one shape, each mostly a link with little prose of its own, making
// most of the block's text (a "Popular" or "More from" rail, a video
// carousel set between paragraphs).
func isRail(n *html.Node, memo map[*html.Node]metrics, w *Weights) bool {
	if w.RailCards == 0 || isHeading(n) {
		return false
	}
	m := memo[n]
	if m.all == 0 || m.links*2 < m.all {
		return false
	}
	cs := cards(n)
	if len(cs) < w.RailCards {
		return false
	}
	in := 0
	for _, c := range cs {
		cm := memo[c]
		if cm.all == 0 || cm.linkDensity() < w.RailLinks || cm.all-cm.links > 200 {
			return false
		}
		in += cm.all
	}
	return in*10 >= m.all*6
}

// isGallery reports a block of GalleryCards or more sibling cards of
// one shape, each a picture with a short caption (under GalleryLetters
// letters), making most of the block's text: a slideshow's strip.
func isGallery(n *html.Node, memo map[*html.Node]metrics, w *Weights) bool {
	if w.GalleryCards == 0 || isHeading(n) {
		return false
	}
	cs := cards(n)
	if len(cs) < w.GalleryCards {
		return false
	}
	in := 0
	for _, c := range cs {
		cm := memo[c]
		if cm.all-cm.links >= w.GalleryLetters || !hasImage(c) && c.DataAtom != atom.Img {
			return false
		}
		in += cm.all
	}
	return in*10 >= memo[n].all*6
}

// isSlideshow reports a slideshow's captions: GalleryCards or more
// sibling cards of one shape, each opening with a slide counter of one
// total ("3/50", "3 of 50"), however long its caption. It is furniture
// on an article page (prune), since a long slideshow outweighs the
// story it sits in.
func isSlideshow(n *html.Node, w *Weights) bool {
	if w == nil || w.GalleryCards == 0 {
		return false
	}
	cs := cards(n)
	if len(cs) < w.GalleryCards {
		return false
	}
	total := ""
	for _, c := range cs {
		m := slideCounter.FindStringSubmatch(leadText(c, 40))
		if m == nil || total != "" && m[2] != total {
			return false
		}
		total = m[2]
	}
	return true
}

var slideCounter = regexp.MustCompile(`^\s*(\d{1,3})\s*(?:/|of)\s*(\d{1,3})\b`)

// leadText is about the first limit bytes of n's text, white space
// collapsed.
func leadText(n *html.Node, limit int) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && b.Len() < limit; c = c.NextSibling {
			if t := strings.TrimSpace(c.Data); c.Type == html.TextNode && t != "" {
				b.WriteString(t)
				b.WriteByte(' ')
			} else if c.Type == html.ElementNode && !dropped[c.DataAtom] {
				walk(c)
			}
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// isCommentThread reports readers' comments: a block marked as comments
// by schema.org (itemtype Comment or UserComments, itemprop comment) or
// ARIA (role=comment), or CommentItems or more sibling entries of one
// shape, each with prose and a <time> or an avatar (a small picture)
// beside it.
func isCommentThread(n *html.Node, memo map[*html.Node]metrics, w *Weights) bool {
	if commentMarked(n) {
		return true
	}
	if w.CommentItems == 0 {
		return false
	}
	cs := cards(n)
	if len(cs) < w.CommentItems {
		return false
	}
	for _, c := range cs {
		cm := memo[c]
		if cm.all-cm.links < 25 || cm.linkDensity() > 0.5 {
			return false
		}
		if findFirst(c, func(x *html.Node) bool { return x.DataAtom == atom.Time || isAvatar(x) }) == nil {
			return false
		}
	}
	return true
}

func commentMarked(n *html.Node) bool {
	it := attr(n, "itemtype")
	prop := strings.ToLower(attr(n, "itemprop"))
	return strings.HasSuffix(it, "/Comment") || strings.HasSuffix(it, "/UserComments") ||
		prop == "comment" || prop == "comments" || strings.EqualFold(attr(n, "role"), "comment")
}

// isAvatar reports a small picture: 96 pixels or less by its attributes.
func isAvatar(n *html.Node) bool {
	if n.DataAtom != atom.Img {
		return false
	}
	small := func(k string) bool {
		v, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(attr(n, k)), "px"))
		return err == nil && v > 0 && v <= 96
	}
	return small("width") || small("height")
}

// isShortCaption reports a picture's caption shorter than
// CaptionLetters: a <figcaption>, or a block named caption inside a
// <figure>.
func isShortCaption(n *html.Node, w *Weights) bool {
	if w.CaptionLetters == 0 {
		return false
	}
	caption := n.DataAtom == atom.Figcaption
	if !caption && strings.Contains(strings.ToLower(attr(n, "class")), "caption") {
		for p := n.Parent; p != nil && !caption; p = p.Parent {
			caption = p.DataAtom == atom.Figure
		}
		if !caption && w.CaptionLevels > 0 && !hasImage(n) {
			caption = besidePicture(n, w.CaptionLevels)
		}
	}
	return caption && nonSpaceLen(textOf(n)) < w.CaptionLetters
}

// besidePicture reports a picture within levels elements above n, and
// outside n: what n names as its caption.
func besidePicture(n *html.Node, levels int) bool {
	p := n
	for i := 0; i < levels && p.Parent != nil; i++ {
		p = p.Parent
		if p.DataAtom == atom.Body || p.DataAtom == atom.Article || p.DataAtom == atom.Main {
			return false
		}
		if findFirst(p, func(c *html.Node) bool {
			return (c.DataAtom == atom.Img || c.DataAtom == atom.Picture) && !contains(n, c)
		}) != nil {
			return true
		}
	}
	return false
}

// pageBlocks counts the page's blocks of RepeatLetters or more by their
// text, before any is removed.
func pageBlocks(doc *html.Node, w *Weights) map[string]int {
	if w.RepeatLetters == 0 {
		return nil
	}
	counts := map[string]int{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || dropped[c.DataAtom] {
				continue
			}
			if isRepeatable(c) && !hasBlockChild(c) {
				if k := blockKey(c, w); k != "" {
					counts[k]++
				}
				continue
			}
			walk(c)
		}
	}
	walk(doc)
	return counts
}

func isRepeatable(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Figcaption, atom.Div, atom.Span, atom.Li, atom.Blockquote, atom.Dd:
		return true
	}
	return false
}

// blockKey is a block's text, white space collapsed and lower-cased,
// when it has RepeatLetters letters or more.
func blockKey(n *html.Node, w *Weights) string {
	t := strings.ToLower(strings.Join(strings.Fields(textOf(n)), " "))
	if nonSpaceLen(t) < w.RepeatLetters {
		return ""
	}
	return t
}

// isRepeat reports a block whose text the page holds twice or more:
// the second of two in the article goes, and a caption goes however
// often it is in the article (a gallery shows each picture's caption
// in its strip of thumbnails and again under the picture).
func isRepeat(n *html.Node, counts map[string]int, seen map[string]bool, w *Weights) bool {
	if counts == nil || !isRepeatable(n) || hasBlockChild(n) {
		return false
	}
	k := blockKey(n, w)
	if k == "" || counts[k] < 2 {
		return false
	}
	if seen[k] || n.DataAtom == atom.Figcaption {
		return true
	}
	seen[k] = true
	return false
}

// dropAfterEnd removes, after the article's last paragraph of prose,
// the blocks whose share of links is over TailLinks and the rails of
// teaser cards (isTeaserRail): what follows an article's end and points
// elsewhere. A teaser's own line of lead is not the article's end.
func dropAfterEnd(root *html.Node, memo map[*html.Node]metrics, w *Weights) {
	if w.TailLinks >= 1 && w.TailCards == 0 {
		return
	}
	order := map[*html.Node]int{}
	var rails []*html.Node
	var last *html.Node
	var find func(*html.Node)
	find = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			order[c] = len(order)
			switch {
			case isTeaserRail(c, memo, w):
				rails = append(rails, c)
			case c.DataAtom == atom.P:
				if m := memo[c]; m.all-m.links >= 80 && m.links*10 < m.all*3 {
					last = c
				}
			default:
				find(c)
			}
		}
	}
	find(root)
	if last == nil {
		return
	}
	for _, r := range rails {
		if order[r] > order[last] && r.Parent != nil {
			p := r.Parent
			p.RemoveChild(r)
			dropBareHeadings(p)
		}
	}
	if w.TailLinks >= 1 {
		return
	}
	for n := last; n != root && n.Parent != nil; n = n.Parent {
		for c := n.NextSibling; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode && !isHeading(c) && !isBlank(c) {
				switch c.DataAtom {
				case atom.Pre, atom.Table, atom.Img, atom.Picture, atom.Figure:
				default:
					// A list whose items say something beside their links
					// is the article's (a weekly post's notes), as
					// cleanArticle has it.
					if isListBox(c, memo) && !isLinkList(c, memo) {
						break
					}
					if m := memo[c]; m.all > 0 && m.linkDensity() > w.TailLinks {
						n.Parent.RemoveChild(c)
					}
				}
			}
			c = next
		}
		dropBareHeadings(n.Parent)
	}
}

// isTeaserRail reports TailCards or more sibling cards of one shape,
// each opening with a link (a teaser's title) and with under 300 letters
// beside it (its line of lead).
func isTeaserRail(n *html.Node, memo map[*html.Node]metrics, w *Weights) bool {
	if w.TailCards == 0 {
		return false
	}
	cs := cards(n)
	if len(cs) < w.TailCards {
		return false
	}
	for _, c := range cs {
		m := memo[c]
		if m.links == 0 || m.all-m.links >= 300 || !opensWithLinkText(c) {
			return false
		}
	}
	return true
}

// opensWithLinkText reports a block whose first text is inside a link.
func opensWithLinkText(n *html.Node) bool {
	var inLink func(*html.Node, bool) (found, link bool)
	inLink = func(n *html.Node, link bool) (bool, bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode && strings.TrimSpace(c.Data) != "":
				return true, link
			case c.Type == html.ElementNode && !dropped[c.DataAtom]:
				if f, l := inLink(c, link || c.DataAtom == atom.A); f {
					return f, l
				}
			}
		}
		return false, false
	}
	_, link := inLink(n, false)
	return link
}
