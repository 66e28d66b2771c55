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

var sweepDir = flag.String("sweep", "", "check every listing line, long paragraph and h2 and h3 heading of every HTML page under this folder (such as /usr/share/doc) against hark's output, and stop")

// sweep reads every HTML page under root (Node's all.html, every page at
// once, aside) and counts what hark's output of the page lacks: lines of
// its <pre> listings (each <code> of a <pre> that holds several as its
// own listing), white space aside, since a manual's examples are what a
// reader copies; paragraphs of 25 words or more outside <nav>, <header>,
// <footer> and <aside>, by their letters and digits (inline markup
// aside); and h2 and h3 headings written as markdown headings. No truth
// files: every page a system's manuals hold is measured, not a chosen
// few.
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
	code := &tally{what: "listing lines"}
	paras := &tally{what: "paragraphs of 25 words or more"}
	heads := &tally{what: "h2 and h3 headings (as markdown headings)"}
	pages := 0
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		lines, long, headings := pageItems(body)
		if len(lines) == 0 && len(long) == 0 && len(headings) == 0 {
			continue
		}
		pages++
		md, txt, _ := hark(score.Page{HTML: body, URL: (&url.URL{Scheme: "file", Path: f}).String()})
		var flat, mdHeads strings.Builder
		mdHeads.WriteByte('\n')
		for _, l := range strings.Split(md, "\n") {
			flat.WriteString(strings.Join(strings.Fields(l), " ") + "\n")
			if strings.HasPrefix(l, "#") {
				mdHeads.WriteString(lettersOf(score.Unmark(strings.TrimLeft(l, "# "))) + "\n")
			}
		}
		letters := lettersOf(txt)
		for _, l := range lines {
			code.count(f, l, strings.Contains(flat.String(), l))
		}
		for _, p := range long {
			k := lettersOf(p)
			paras.count(f, p, strings.Contains(letters, k[:min(len(k), 80)]))
		}
		for _, h := range headings {
			heads.count(f, h, strings.Contains(mdHeads.String(), "\n"+lettersOf(h)+"\n"))
		}
	}
	fmt.Printf("%d pages under %s\n", pages, root)
	for _, t := range []*tally{code, paras, heads} {
		t.print()
	}
	return nil
}

// tally counts one kind of item and the pages that lost some.
type tally struct {
	what    string
	n, lost int
	pages   []loss
}

// loss is what one page lost of a kind: how many, and the first.
type loss struct {
	page  string
	lost  int
	first string
}

func (t *tally) count(page, item string, kept bool) {
	t.n++
	if kept {
		return
	}
	t.lost++
	if len(t.pages) == 0 || t.pages[len(t.pages)-1].page != page {
		t.pages = append(t.pages, loss{page: page, first: item})
	}
	t.pages[len(t.pages)-1].lost++
}

func (t *tally) print() {
	sort.SliceStable(t.pages, func(i, j int) bool { return t.pages[i].lost > t.pages[j].lost })
	fmt.Printf("%s: %d, %d kept (%.4f), %d lost on %d pages\n", t.what, t.n, t.n-t.lost, float64(t.n-t.lost)/float64(max(t.n, 1)), t.lost, len(t.pages))
	for i, l := range t.pages {
		if i == 8 {
			break
		}
		fmt.Printf("  %4d  %s  (first: %.80q)\n", l.lost, l.page, l.first)
	}
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

// pageItems are the non-blank lines of every listing of the page, white
// space collapsed, and its paragraphs of 25 words or more and its h2 and
// h3 headings outside the page's furniture.
func pageItems(body []byte) (out, long, headings []string) {
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
