package web

import (
	"bytes"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"hark/gateway/extract"
	"hark/gateway/text"
)

// page is what the engines know about one document after reading it.
type page struct {
	URL         string
	Title       string
	Description string
	Text        string // main content as plain text, the headline first
	// BodyText is Text without the headline, for format=text; empty for
	// pages that have no headline apart (markdown and plain-text files).
	BodyText string
	// Prose is Text without its data tables, when it keeps some: what a
	// search weighs a page's coverage of the query by (store.go).
	Prose       string
	Markdown    string // main content as markdown
	Links       []link
	Images      []image
	Favicon     string
	Published   time.Time // zero when the page states none
	Fetched     time.Time
	NoIndex     bool
	NoFollow    bool
	Canonical   string // <link rel=canonical>, when on the same site
	ArticleType bool   // og:type article or NewsArticle markup
	Parsed      []byte // as Config.Parse read it when it was indexed; nil when it was not
}

type link struct {
	URL    string
	Anchor string
}

type image struct {
	URL         string
	Description string // alt text, figure caption or title
}

// extractOptions select how much of a page is kept.
type extractOptions struct {
	Advanced bool // keep tables, images and embedded content (iframes, video, audio)
	Tables   bool // keep data tables
}

// indexed is how the index reads a page it is given to index (a folder,
// a crawl by index, a page research reads, a recheck): its data tables
// kept, as a fact a manual gives only in a table (a type's range, an
// option's default) is still a fact to find, and as a markdown page's
// tables are kept. vendor_extract's basic depth still leaves them out
// of what it returns, as the interface says.
var indexed = extractOptions{Tables: true}

// parsePage reads a fetched document. HTML goes through package extract;
// markdown is kept as sent and plain text is escaped into markdown.
func parsePage(fp *fetchedPage, opt extractOptions) (*page, error) {
	switch fp.kind() {
	case kindHTML:
		return parseHTML(fp.URL, fp.Body, fp.Header.Get("X-Robots-Tag"), fp.Fetched, opt)
	case kindMarkdown:
		return parsePlain(fp.URL, string(fp.Body), true, fp.Fetched), nil
	default:
		return parsePlain(fp.URL, string(fp.Body), false, fp.Fetched), nil
	}
}

func parsePlain(pageURL, body string, markdown bool, fetched time.Time) *page {
	body = strings.ToValidUTF8(strings.ReplaceAll(body, "\r\n", "\n"), "")
	p := &page{URL: pageURL, Fetched: fetched, Markdown: strings.TrimSpace(body), Text: strings.TrimSpace(body)}
	if markdown {
		p.Markdown, p.Text, p.Title = renderMarkdown(pageURL, body)
	} else {
		// Plain text must read the same through a markdown renderer:
		// "char *p" is not emphasis.
		p.Markdown = extract.EscapeText(p.Text)
	}
	for _, line := range strings.Split(body, "\n") {
		// reStructuredText's "=====" adornments and ".. directives" are
		// not a title.
		t := strings.TrimSpace(strings.TrimLeft(line, "# "))
		if t == "" || p.Title != "" || strings.HasPrefix(t, "..") || strings.Trim(t, t[:1]) == "" && strings.ContainsAny(t[:1], "=-~^*+`'\"_:.") {
			continue
		}
		p.Title = t
		break
	}
	p.Title = text.TruncateRunes(p.Title, 200)
	if u, err := url.Parse(pageURL); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		p.Favicon = u.Scheme + "://" + u.Host + "/favicon.ico"
	}
	if markdown {
		for _, m := range mdLink().FindAllStringSubmatch(body, -1) {
			if u, err := url.Parse(pageURL); err == nil {
				if l := resolveLink(u, m[2]); l != "" {
					if m[0][0] == '!' {
						p.Images = append(p.Images, image{URL: l, Description: m[1]})
					} else {
						p.Links = append(p.Links, link{URL: l, Anchor: m[1]})
					}
				}
			}
		}
	}
	return p
}

var mdLink = text.LazyRegexp(`!?\[([^\]]*)\]\(([^)\s]+)[^)]*\)`)

func parseHTML(pageURL string, body []byte, robotsHeader string, fetched time.Time, opt extractOptions) (*page, error) {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, failf("cannot parse HTML: %v", err)
	}
	base, _ := url.Parse(pageURL)
	p := &page{URL: pageURL, Fetched: fetched}
	readHead(doc, base, p)
	applyRobotsDirectives(robotsHeader, p)
	if p.Favicon == "" && (base.Scheme == "http" || base.Scheme == "https") {
		p.Favicon = base.Scheme + "://" + base.Host + "/favicon.ico"
	}

	// Everything read from the whole tree is read before extract.Main
	// removes the page's furniture from it.
	var embeds []embed
	if opt.Advanced {
		embeds = embeddedContent(doc, base)
	}
	heading := firstHeading(doc)
	title := extract.Title(doc)
	main := extract.Main(doc)
	content := extract.Render(main, title, extract.Options{Base: base, Tables: opt.Advanced || opt.Tables, NoHistories: !opt.Advanced, Images: opt.Advanced})
	p.Markdown, p.Text, p.BodyText = content.Markdown(), content.Text(), content.Body().Text()
	if prose := content.WithoutTables(); len(prose.Blocks) < len(content.Blocks) {
		p.Prose = prose.Text()
	}
	if emb := listEmbeds(embeds, main); emb != "" {
		p.Markdown = strings.TrimSpace(p.Markdown + "\n\n" + emb)
		p.Text = strings.TrimSpace(p.Text + "\n\n" + emb)
		p.BodyText = strings.TrimSpace(p.BodyText + "\n\n" + emb)
	}
	if p.Title == "" {
		p.Title = heading
	}
	p.Title = text.TruncateRunes(strings.Join(strings.Fields(p.Title), " "), 300)
	return p, nil
}

// readHead collects metadata, links, images and robots directives from the
// whole document (navigation included: links there are how a crawler moves).
func readHead(doc *html.Node, base *url.URL, p *page) {
	seenImg := map[string]bool{}
	var walk func(n *html.Node, inFigure *html.Node)
	walk = func(n *html.Node, fig *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Base:
				if h := attr(n, "href"); h != "" {
					if b, err := base.Parse(h); err == nil {
						*base = *b
					}
				}
			case atom.Title:
				if p.Title == "" {
					p.Title = nodeText(n)
				}
			case atom.Meta:
				name := strings.ToLower(attr(n, "name") + attr(n, "property") + attr(n, "itemprop"))
				content := attr(n, "content")
				switch name {
				case "robots", "googlebot":
					applyRobotsDirectives(content, p)
				case "description", "og:description":
					if p.Description == "" {
						p.Description = content
					}
				case "og:title":
					if p.Title == "" {
						p.Title = content
					}
				case "og:type":
					p.ArticleType = p.ArticleType || strings.Contains(strings.ToLower(content), "article")
				case "article:published_time", "datepublished", "date", "dc.date", "dc.date.issued", "pubdate", "publish-date":
					if t, ok := parseDate(content); ok && p.Published.IsZero() {
						p.Published = t
					}
				}
			case atom.Link:
				rel := strings.ToLower(attr(n, "rel"))
				href := attr(n, "href")
				switch {
				case strings.Contains(rel, "icon") && p.Favicon == "":
					if l := resolveAny(base, href); l != "" {
						p.Favicon = l
					}
				case rel == "canonical":
					if l := resolveLink(base, href); l != "" && sameSite(hostOf(l), base.Hostname()) {
						p.Canonical = l
					}
				}
			case atom.A:
				if l := resolveLink(base, attr(n, "href")); l != "" {
					rel := strings.ToLower(attr(n, "rel"))
					if !strings.Contains(rel, "nofollow") {
						p.Links = append(p.Links, link{URL: l, Anchor: text.TruncateRunes(nodeText(n), 200)})
					}
				}
			case atom.Time:
				if t, ok := parseDate(attr(n, "datetime")); ok && p.Published.IsZero() && attr(n, "pubdate") != "" {
					p.Published = t
				}
			case atom.Figure:
				fig = n
			case atom.Img:
				src := attr(n, "src")
				if src == "" {
					src = attr(n, "data-src")
				}
				if l := resolveAny(base, src); l != "" && !seenImg[l] && len(p.Images) < 50 {
					seenImg[l] = true
					desc := strings.TrimSpace(attr(n, "alt"))
					if fig != nil {
						if c := figCaption(fig); c != "" {
							if desc != "" && !strings.Contains(c, desc) {
								desc = desc + ": " + c
							} else {
								desc = c
							}
						}
					}
					if desc == "" {
						desc = strings.TrimSpace(attr(n, "title"))
					}
					p.Images = append(p.Images, image{URL: l, Description: text.TruncateRunes(desc, 300)})
				}
			case atom.Script:
				if strings.Contains(attr(n, "type"), "ld+json") && n.FirstChild != nil {
					ld := n.FirstChild.Data
					if strings.Contains(ld, "NewsArticle") || strings.Contains(ld, `"Article"`) || strings.Contains(ld, "BlogPosting") {
						p.ArticleType = true
					}
					if m := ldDate().FindStringSubmatch(ld); m != nil && p.Published.IsZero() {
						if t, ok := parseDate(m[1]); ok {
							p.Published = t
						}
					}
				}
				return
			case atom.Style, atom.Noscript, atom.Template:
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, fig)
		}
	}
	walk(doc, nil)
	p.Description = strings.TrimSpace(p.Description)
}

var ldDate = text.LazyRegexp(`"datePublished"\s*:\s*"([^"]+)"`)

func applyRobotsDirectives(v string, p *page) {
	for _, d := range strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return r == ',' || r == ' ' }) {
		switch strings.TrimSpace(d) {
		case "noindex":
			p.NoIndex = true
		case "nofollow":
			p.NoFollow = true
		case "none":
			p.NoIndex, p.NoFollow = true, true
		}
	}
}

func figCaption(fig *html.Node) string {
	var out string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if out != "" {
			return
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Figcaption {
			out = nodeText(n)
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(fig)
	return strings.Join(strings.Fields(out), " ")
}

// resolveAny resolves an image or icon reference; unlike page links these
// may be any http(s) URL.
func resolveAny(base *url.URL, href string) string {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(strings.ToLower(href), "data:") {
		return ""
	}
	ref, err := url.Parse(href)
	if err != nil {
		return ""
	}
	abs := base.ResolveReference(ref)
	if abs.Scheme != "http" && abs.Scheme != "https" && abs.Scheme != "file" {
		return ""
	}
	return abs.String()
}

var dateLayouts = []string{
	time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02", time.RFC1123, time.RFC1123Z,
	"2006/01/02", "January 2, 2006", "2 January 2006", "Jan 2, 2006",
}

func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			if t.Year() < 1990 || t.After(time.Now().Add(48*time.Hour)) {
				return time.Time{}, false
			}
			return t.UTC(), true
		}
	}
	if len(s) >= 10 {
		if t, err := time.Parse("2006-01-02", s[:10]); err == nil && t.Year() >= 1990 {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if strings.EqualFold(a.Key, key) {
			return a.Val
		}
	}
	return ""
}

var blockAtoms = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Br: true, atom.Li: true, atom.H1: true, atom.H2: true, atom.H3: true,
	atom.H4: true, atom.H5: true, atom.H6: true, atom.Tr: true, atom.Pre: true, atom.Blockquote: true,
	atom.Section: true, atom.Article: true, atom.Table: true, atom.Ul: true, atom.Ol: true, atom.Dt: true, atom.Dd: true,
	atom.Td: true, atom.Th: true, atom.Caption: true, atom.Figure: true, atom.Figcaption: true, atom.Main: true,
	atom.Header: true, atom.Footer: true, atom.Hr: true,
}

// nodeText renders an element's text with line breaks at block elements.
func nodeText(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	pre := 0
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			if pre > 0 {
				b.WriteString(n.Data)
			} else {
				// Line breaks in HTML source are spaces.
				b.WriteString(strings.ReplaceAll(n.Data, "\n", " "))
			}
			return
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Script, atom.Style, atom.Noscript, atom.Template:
				return
			}
		}
		a := n.DataAtom
		block := n.Type == html.ElementNode && blockAtoms[a]
		isPre := n.Type == html.ElementNode && (a == atom.Pre || a == atom.Textarea)
		if block {
			b.WriteByte('\n')
		}
		if isPre {
			pre++
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if isPre {
			pre--
		}
		if block {
			b.WriteByte('\n')
		}
	}
	walk(n)
	lines := strings.Split(b.String(), "\n")
	out := lines[:0]
	for _, l := range lines {
		l = strings.Join(strings.Fields(l), " ")
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func firstHeading(doc *html.Node) string {
	var out string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if out != "" {
			return
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.H1 || n.DataAtom == atom.H2) {
			out = nodeText(n)
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

// embed is an iframe, video, audio or object of the page, with the
// element that holds it.
type embed struct {
	line   string // "- Video: [title](url)"
	parent *html.Node
}

// embeddedContent finds the page's iframes, video and audio sources,
// which advanced extraction keeps as links since their content is not
// text. Read it before extract.Main, which drops them.
func embeddedContent(doc *html.Node, base *url.URL) []embed {
	var out []embed
	seen := map[string]bool{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			kind := ""
			switch n.DataAtom {
			case atom.Iframe:
				kind = "Embedded frame"
			case atom.Video:
				kind = "Video"
			case atom.Audio:
				kind = "Audio"
			case atom.Source:
				if n.Parent != nil && (n.Parent.DataAtom == atom.Video || n.Parent.DataAtom == atom.Audio) {
					kind = "Media source"
				}
			case atom.Embed, atom.Object:
				kind = "Embedded object"
			}
			if kind != "" {
				src := attr(n, "src")
				if src == "" {
					src = attr(n, "data")
				}
				if l := resolveAny(base, src); l != "" && !seen[l] {
					seen[l] = true
					title := attr(n, "title")
					if title == "" {
						title = l
					}
					out = append(out, embed{"- " + kind + ": [" + title + "](" + l + ")", n.Parent})
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

// listEmbeds lists, under "Embedded content", the embeds that sit in the
// main content: an advert's or a like button's frame in the furniture
// that extract.Main removed is not part of what the page says.
func listEmbeds(embeds []embed, main *html.Node) string {
	var lines []string
	for _, e := range embeds {
		for p := e.parent; p != nil; p = p.Parent {
			if p == main {
				lines = append(lines, e.line)
				break
			}
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return "Embedded content:\n\n" + strings.Join(lines, "\n")
}

func collapseBlankLines(s string) string {
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return s
}

// linksOnly reads what map needs from an HTML page: title, links, robots
// directives and canonical link, without extracting content.
func linksOnly(fp *fetchedPage) (*page, error) {
	doc, err := html.Parse(bytes.NewReader(fp.Body))
	if err != nil {
		return nil, failf("cannot parse HTML: %v", err)
	}
	base, _ := url.Parse(fp.URL)
	p := &page{URL: fp.URL, Fetched: fp.Fetched}
	readHead(doc, base, p)
	applyRobotsDirectives(fp.Header.Get("X-Robots-Tag"), p)
	return p, nil
}
