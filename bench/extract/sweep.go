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
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"hark/gateway/extract/score"
)

var sweepDir = flag.String("sweep", "", "check every code line and every long paragraph of every HTML page under this folder (such as /usr/share/doc) against hark's markdown, and stop")

// sweep reads every HTML page under root (Node's all.html, every page at
// once, aside) and counts what hark's markdown of the page lacks: lines
// of its <pre> listings (each <code> of a <pre> that holds several as
// its own listing), white space aside, since a manual's examples are
// what a reader copies; and paragraphs of 25 words or more outside
// <nav>, <header>, <footer> and <aside>, by their letters and digits
// (inline markup aside). No truth files: every page a system's manuals
// hold is measured, not a chosen few.
func sweep(root string) error {
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
	var losses, paraLosses, headLosses []loss
	all, lost, pages := 0, 0, 0
	paras, parasLost := 0, 0
	heads, headsLost := 0, 0
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		want, long, headings := listingLines(body)
		if len(want) == 0 && len(long) == 0 && len(headings) == 0 {
			continue
		}
		pages++
		md, txt, _ := hark(score.Page{HTML: body, URL: (&url.URL{Scheme: "file", Path: f}).String()})
		letters := lettersOf(txt)
		pl := loss{page: f}
		for _, p := range long {
			paras++
			if k := lettersOf(p); !strings.Contains(letters, k[:min(len(k), 80)]) {
				parasLost++
				pl.lost++
				if pl.first == "" {
					pl.first = p
				}
			}
		}
		if pl.lost > 0 {
			paraLosses = append(paraLosses, pl)
		}
		mdHeads := "\n"
		for _, l := range strings.Split(md, "\n") {
			if strings.HasPrefix(l, "#") {
				mdHeads += lettersOf(score.Unmark(strings.TrimLeft(l, "# "))) + "\n"
			}
		}
		hl := loss{page: f}
		for _, h := range headings {
			heads++
			if !strings.Contains(mdHeads, "\n"+lettersOf(h)+"\n") {
				headsLost++
				hl.lost++
				if hl.first == "" {
					hl.first = h
				}
			}
		}
		if hl.lost > 0 {
			headLosses = append(headLosses, hl)
		}
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
	fmt.Printf("%d pages under %s\n", pages, root)
	for _, r := range []struct {
		what    string
		n, lost int
		losses  []loss
	}{{"listing lines", all, lost, losses}, {"paragraphs of 25 words or more", paras, parasLost, paraLosses},
		{"h2 and h3 headings (as markdown headings)", heads, headsLost, headLosses}} {
		sort.Slice(r.losses, func(i, j int) bool { return r.losses[i].lost > r.losses[j].lost })
		fmt.Printf("%s: %d, %d kept (%.4f), %d lost on %d pages\n", r.what, r.n, r.n-r.lost, float64(r.n-r.lost)/float64(max(r.n, 1)), r.lost, len(r.losses))
		for i, l := range r.losses {
			if i == 8 {
				break
			}
			fmt.Printf("  %4d  %s  (first: %.80q)\n", l.lost, l.page, l.first)
		}
	}
	return nil
}

// lettersOf is s's letters and digits only.
func lettersOf(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// listingLines are the non-blank lines of every listing of the page,
// white space collapsed, and its paragraphs of 25 words or more and its
// h2 and h3 headings outside the page's furniture.
func listingLines(body []byte) (out, long, headings []string) {
	doc, err := html.Parse(bytes.NewReader(toUTF8(body)))
	if err != nil {
		return nil, nil, nil
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.DataAtom {
		case atom.Nav, atom.Header, atom.Footer, atom.Aside, atom.Script, atom.Style:
			return
		case atom.P:
			if t := strings.Fields(score.NodeText(n)); len(t) >= 25 {
				long = append(long, strings.Join(t, " "))
			}
			return
		case atom.H2, atom.H3:
			if t := strings.Join(strings.Fields(score.NodeText(n)), " "); t != "" {
				headings = append(headings, t)
			}
			return
		}
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
	return out, long, headings
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
