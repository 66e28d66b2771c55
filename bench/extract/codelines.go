package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"hark/gateway/extract/score"
)

var codeLinesDir = flag.String("codelines", "", "check every code line of every HTML page under this folder (such as /usr/share/doc) against hark's markdown, and stop")

// codeLines reads every HTML page under root (Node's all.html, every
// page at once, aside) and counts the lines of its <pre> listings (each
// <code> of a <pre> that holds several as its own listing) that hark's
// markdown of the page does not hold, white space aside: a manual's
// examples are what a reader copies.
func codeLines(root string) error {
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".html") || strings.HasSuffix(p, ".htm")) && filepath.Base(p) != "all.html" {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	type loss struct {
		page  string
		lost  int
		first string
	}
	var losses []loss
	all, lost, pages := 0, 0, 0
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		want := listingLines(body)
		if len(want) == 0 {
			continue
		}
		pages++
		md, _, _ := hark(score.Page{HTML: body, URL: (&url.URL{Scheme: "file", Path: f}).String()})
		var flat strings.Builder
		for _, l := range strings.Split(md, "\n") {
			flat.WriteString(strings.Join(strings.Fields(l), " "))
			flat.WriteByte('\n')
		}
		have := flat.String()
		l := loss{page: f}
		for _, w := range want {
			all++
			if !strings.Contains(have, w) {
				lost++
				l.lost++
				if l.first == "" {
					l.first = w
				}
			}
		}
		if l.lost > 0 {
			losses = append(losses, l)
		}
	}
	sort.Slice(losses, func(i, j int) bool { return losses[i].lost > losses[j].lost })
	fmt.Printf("%d pages with code under %s: %d listing lines, %d kept (%.4f), %d lost on %d pages\n",
		pages, root, all, all-lost, float64(all-lost)/float64(max(all, 1)), lost, len(losses))
	for i, l := range losses {
		if i == 10 {
			break
		}
		fmt.Printf("  %4d  %s  (first: %q)\n", l.lost, l.page, l.first)
	}
	return nil
}

// listingLines are the non-blank lines of every listing of the page,
// white space collapsed.
func listingLines(body []byte) []string {
	doc, err := html.Parse(bytes.NewReader(toUTF8(body)))
	if err != nil {
		return nil
	}
	var out []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Pre {
			listings := []*html.Node{n}
			if codes := children(n, atom.Code); len(codes) > 1 {
				listings = codes
			}
			for _, l := range listings {
				for _, line := range strings.Split(score.PreText(l), "\n") {
					if line = strings.Join(strings.Fields(line), " "); line != "" {
						out = append(out, line)
					}
				}
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

func children(n *html.Node, a atom.Atom) []*html.Node {
	var out []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom == a {
			out = append(out, c)
		}
	}
	return out
}
