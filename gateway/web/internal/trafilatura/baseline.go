// Modified by hark: baseline no longer repeats short pages, and keeps one
// element per block (appendBlocks); see README.md.

package trafilatura

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/go-shiori/dom"
	"golang.org/x/net/html"
	"hark/gateway/web/internal/trafilatura/internal/etree"
)

var basicCleaningSelector = strings.Join([]string{
	`aside`,
	`footer`,
	`div[id*="footer"]`,
	`div[class*="footer"]`,
	`script`,
	`style`,
}, ", ")

func basicCleaning(doc *html.Node) *html.Node {
	discardedElements := dom.QuerySelectorAll(doc, basicCleaningSelector)
	for i := len(discardedElements) - 1; i >= 0; i-- {
		discardedElements[i].Parent.RemoveChild(discardedElements[i])
	}
	return doc
}

// baseline uses baseline extraction function targeting text paragraphs and/or JSON metadata.
func baseline(doc *html.Node) (*html.Node, string) {
	var tmpText string
	postBody := etree.Element("body")
	if doc == nil {
		return postBody, ""
	}

	// Scrape JSON+LD for article body
	for _, script := range dom.QuerySelectorAll(doc, `script[type="application/ld+json"]`) {
		// Get the json text inside the script
		jsonLdText := dom.TextContent(script)
		jsonLdText = strings.TrimSpace(jsonLdText)
		jsonLdText = html.UnescapeString(jsonLdText)
		if jsonLdText == "" {
			continue
		}

		// Decode JSON text, assuming it is an object
		data := map[string]any{}
		err := json.Unmarshal([]byte(jsonLdText), &data)
		if err != nil {
			continue
		}

		// Find article body recursively
		var articleBody string
		var findArticleBody func(obj map[string]any)

		findArticleBody = func(obj map[string]any) {
			for key, value := range obj {
				switch v := value.(type) {
				case string:
					v = trim(v)
					if strings.ToLower(key) == "articlebody" && v != "" {
						if strings.Contains(v, "<p>") {
							tmp := dom.CreateElement("div")
							dom.SetInnerHTML(tmp, v)
							articleBody = trim(dom.TextContent(tmp))
						} else {
							articleBody = v
						}
						return
					}

				case map[string]any:
					findArticleBody(v)

				case []any:
					for _, item := range v {
						if obj, isObject := item.(map[string]any); isObject {
							findArticleBody(obj)
						}
					}
				}
			}
		}

		findArticleBody(data)
		if articleBody != "" {
			p := etree.SubElement(postBody, "p")
			etree.SetText(p, articleBody)
			tmpText += " " + articleBody
		}
	}

	tmpText = trim(tmpText)
	if utf8.RuneCountInString(tmpText) > 100 {
		return postBody, tmpText
	}

	// Basic tree cleaning
	doc = basicCleaning(doc)

	// Scrape from article tag
	articleElement := dom.QuerySelector(doc, "article")
	if articleElement != nil {
		articleText := trim(dom.TextContent(articleElement))
		if utf8.RuneCountInString(articleText) > 100 {
			tmpText += " " + appendBlocks(postBody, articleElement)
		}
	}

	if len(dom.Children(postBody)) > 0 {
		tmpText = trim(tmpText)
		return postBody, tmpText
	}

	// Scrape from text paragraphs
	results := make(map[string]struct{})
	for _, element := range etree.Iter(doc, "blockquote", "pre", "q", "code", "p") {
		entry := trim(dom.TextContent(element))
		if _, exist := results[entry]; !exist {
			p := etree.SubElement(postBody, "p")
			etree.SetText(p, entry)
			tmpText += " " + entry
			results[entry] = struct{}{}
		}
	}

	tmpText = trim(tmpText)
	if utf8.RuneCountInString(tmpText) > 100 {
		return postBody, tmpText
	}

	// Default strategy: clean the tree and take everything. (hark: start a
	// new body, as the Python original does; the upstream Go port appended
	// the whole body after the paragraphs above, so short pages came out
	// twice, and it fell through to the <head>'s text for short bodies.)
	postBody = etree.Element("body")
	if body := dom.QuerySelector(doc, "body"); body != nil {
		if text := appendBlocks(postBody, body); text != "" {
			return postBody, text
		}
	}

	// New fallback
	text := trim(dom.TextContent(doc))
	elem := etree.SubElement(postBody, "p")
	etree.SetText(elem, text)
	return postBody, text
}

// blockTags are the elements appendBlocks treats as blocks.
var blockTags = sliceToMap("address", "article", "aside", "blockquote", "caption", "dd", "details",
	"div", "dl", "dt", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
	"header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody",
	"td", "tfoot", "th", "thead", "tr", "ul")

// appendBlocks adds to postBody one element per run of text between block
// boundaries under root (headings and pre keep their tag, the rest become
// p), and returns the text joined by spaces. (hark addition: upstream put
// the whole text in a single p, gluing headings and captions to sentences.)
func isBlock(tag string) bool {
	_, ok := blockTags[tag]
	return ok
}

func appendBlocks(postBody, root *html.Node) string {
	var parts []string
	var buf strings.Builder
	flush := func(tag string) {
		text := trim(buf.String())
		buf.Reset()
		if text == "" {
			return
		}
		switch tag {
		case "h1", "h2", "h3", "h4", "h5", "h6", "pre":
		default:
			tag = "p"
		}
		etree.SetText(etree.SubElement(postBody, tag), text)
		parts = append(parts, text)
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				buf.WriteString(c.Data)
			case c.Type != html.ElementNode:
			case c.Data == "script" || c.Data == "style" || c.Data == "template":
			case c.Data == "br":
				buf.WriteString(" ")
			case isBlock(c.Data):
				flush(n.Data)
				walk(c)
				flush(c.Data)
			default:
				walk(c)
			}
		}
	}
	walk(root)
	flush(root.Data)
	return strings.Join(parts, " ")
}
