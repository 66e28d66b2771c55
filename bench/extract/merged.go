package main

import (
	"bytes"
	"flag"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/net/html"

	"hark/gateway/extract/score"
)

var mergedDir = flag.String("merged", "", "j-szulc/html-cleaning-dataset-merged's folder (no licence stated: read where it lies, never committed): CleanEval's final set, L3S-GN1 (Google News, page-signal) and Dragnet's pages, each DIR/<set>/input/<id>.html with DIR/<set>/GoldStandard/<id>.txt (skipped when empty)")

// readMerged reads one set of j-szulc/html-cleaning-dataset-merged, a
// copy of the older public article-extraction sets in one layout:
//
//   - cleaneval-final: CleanEval's final test set (2007), 681 pages of
//     every kind (blogs, shops, forums, lists), its gold the page's
//     text with <p>, <h> and <l> marks and its address on the first
//     line; all the page's prose, headings included (titled);
//   - page-signal-master: L3S-GN1, 621 Google News articles (boilerpipe's
//     set), its gold the page's HTML with each block's label as a class:
//     x-nc-sel2 the article's text, x-nc-sel1 its headline (left out: the
//     truth is the body);
//   - dragnet_data: Dragnet's 1,381 news and blog pages, its gold the
//     article's text, opening with its headline (titled), and on 409
//     pages the readers' comments after a separator line, left out.
//
// A page's site is the address its gold gives (CleanEval), else the
// one its canonical link or og:url gives, else the registrable domain
// its absolute links name most (a page links most to its own site).
func readMerged(dir, set string) []page {
	files, _ := filepath.Glob(filepath.Join(dir, set, "input", "*.html"))
	sort.Strings(files)
	var pages []page
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".html")
		gold, err := os.ReadFile(filepath.Join(dir, set, "GoldStandard", name+".txt"))
		if err != nil {
			continue // CleanEval has pages without gold
		}
		body, err := os.ReadFile(f)
		if err != nil {
			log.Fatal(err)
		}
		var truth, u string
		titled := true
		switch set {
		case "cleaneval-final":
			truth, u = cleanEvalText(string(gold))
		case "page-signal-master":
			truth, titled = l3sText(gold), false
		default:
			// Dragnet's gold holds the readers' comments too, after a
			// line "!@#$%^&*()  COMMENTS": the article is what precedes it.
			truth, _, _ = strings.Cut(string(gold), "!@#$%^&*()")
		}
		if strings.TrimSpace(truth) == "" {
			continue
		}
		if u == "" {
			u = canonicalURL(body)
		}
		if u == "" {
			u = mostLinked(body)
		}
		site := score.SiteOf(u)
		if u == "" {
			u, site = "http://"+name+".example/", set+"/"+name
		}
		pages = append(pages, page{
			Page:    score.Page{Name: set + "/" + name, URL: u, HTML: body, Truth: []byte(truth)},
			article: true, titled: titled, site: site,
		})
	}
	return pages
}

var cleanEvalMark = regexp.MustCompile(`(?m)^\s*<[phl]>\s*`)

// cleanEvalText is CleanEval's gold without its marks, and the address
// its first line gives ("URL: http://…").
func cleanEvalText(gold string) (text, u string) {
	first, rest, _ := strings.Cut(gold, "\n")
	if strings.HasPrefix(first, "URL:") {
		u, gold = strings.TrimSpace(strings.TrimPrefix(first, "URL:")), rest
	}
	return cleanEvalMark.ReplaceAllString(gold, "\n"), u
}

// l3sText is the text of L3S-GN1's blocks labelled as the article's
// text (class x-nc-sel2), one block a line.
func l3sText(gold []byte) string {
	doc, err := html.Parse(bytes.NewReader(toUTF8(gold)))
	if err != nil {
		return ""
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if hasClassWord(c, "x-nc-sel2") {
				b.WriteString(score.NodeText(c))
				b.WriteString("\n")
				continue
			}
			walk(c)
		}
	}
	walk(doc)
	return b.String()
}

func hasClassWord(n *html.Node, w string) bool {
	for _, a := range n.Attr {
		if a.Key == "class" {
			for _, f := range strings.Fields(a.Val) {
				if f == w {
					return true
				}
			}
		}
	}
	return false
}

var linkRE = regexp.MustCompile(`(?i)href=["']?(https?://[^"' >]+)`)

// mostLinked is an address on the registrable domain that the page's
// absolute links name most, or "".
func mostLinked(body []byte) string {
	counts := map[string]int{}
	best, top := "", 0
	for _, m := range linkRE.FindAllSubmatch(body, -1) {
		s := score.SiteOf(string(m[1]))
		if s == "" || strings.Contains(s, "/") {
			continue
		}
		counts[s]++
		if counts[s] > top || counts[s] == top && s < best {
			best, top = s, counts[s]
		}
	}
	if top < 3 {
		return ""
	}
	return "http://" + best + "/"
}
