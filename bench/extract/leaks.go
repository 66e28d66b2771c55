package main

import (
	"bytes"
	"flag"
	"fmt"
	"strings"

	"golang.org/x/net/html"

	"hark/gateway/extract/score"
)

// whereLeaks prints (-leaks-held-out: as totals only), for each boilerplate snippet hark keeps on a tuning
// page, where it sits in hark's text and the source element holding it;
// and, for each body snippet it misses, the element holding that.
func whereLeaks(pages []page) {
	// On the held-out part only totals are printed: where the snippets
	// kept sit, how many of them are in a caption, how many body
	// snippets are missed; never a page, a snippet or an element.
	totals := map[string]int{}
	defer func() {
		part := "tuning"
		if *leaksHeldOut {
			part = "held-out"
		}
		fmt.Printf("%s totals: kept boilerplate at the head %d, in the middle %d, at the tail %d, in a caption %d; body snippets missed %d\n",
			part, totals["head"], totals["mid"], totals["tail"], totals["caption"], totals["miss"])
	}()
	for _, pg := range pages {
		if heldOut(pg) != *leaksHeldOut || pg.with == nil {
			continue
		}
		text := harkText(pg)
		t := strings.Join(strings.Fields(text), " ")
		first, last := len(t), -1
		for _, w := range pg.with {
			i := strings.Index(t, strings.Join(strings.Fields(w), " "))
			if i >= 0 {
				first = min(first, i)
				last = max(last, i)
			}
		}
		doc, _ := html.Parse(bytes.NewReader(pg.HTML))
		for _, w := range pg.with {
			if !strings.Contains(t, strings.Join(strings.Fields(w), " ")) {
				totals["miss"]++
				if *leaksHeldOut {
					continue
				}
				fmt.Printf("MISS %s %q :: %s\n", pg.Name, w, chain(doc, strings.Join(strings.Fields(w), " ")))
			}
		}
		for _, w := range pg.without {
			ws := strings.Join(strings.Fields(w), " ")
			i := strings.Index(t, ws)
			if i < 0 {
				continue
			}
			pos := "mid"
			if i < first {
				pos = "head"
			} else if i > last {
				pos = "tail"
			}
			where := chain(doc, ws)
			totals[pos]++
			if strings.Contains(strings.ToLower(where), "caption") {
				totals["caption"]++
			}
			if *leaksHeldOut {
				continue
			}
			fmt.Printf("LEAK %s %s %q :: %s\n", pos, pg.Name, w, where)
		}
	}
}

var chainDepth = flag.Int("depth", 6, "elements -leaks and -where print up the chain")

func chain(doc *html.Node, s string) string {
	var best *html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && strings.Contains(strings.Join(strings.Fields(score.NodeText(c)), " "), s) {
				best = c
				walk(c)
				return
			}
		}
	}
	walk(doc)
	var parts []string
	for n := best; n != nil && n.Type == html.ElementNode && len(parts) < *chainDepth; n = n.Parent {
		p := n.Data
		for _, a := range n.Attr {
			if a.Key == "class" || a.Key == "id" {
				p += "." + strings.ReplaceAll(a.Val, " ", ".")
			}
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " < ")
}
