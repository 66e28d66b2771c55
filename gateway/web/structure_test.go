package web

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// structureScores measures, on one page of testdata/extract, how much of
// the page's structure extraction keeps. Each score is the share of the
// page's items, among those in its main text (the truth file), that the
// extraction keeps:
//
//   - spacing: word boundaries at the edges of inline elements (code, tt,
//     em, a, ...): "value <code>x</code> y" must read "value x y" in text
//     and in markdown with its markup taken out, and "f(<code>x</code>)"
//     must stay "f(x)";
//   - headings: h1-h3 as markdown headings at their level, without
//     permalink glyphs;
//   - code: every line of every multi-line <pre>, in order, in markdown
//     and indented in text;
//   - lists: every list item as a markdown list item;
//   - links: every body link, resolved against the page URL.
type structureScores struct {
	spacing, headings, code, lists, links score
}

type score struct{ kept, all int }

func (s score) value() float64 {
	if s.all == 0 {
		return 1
	}
	return float64(s.kept) / float64(s.all)
}

func (s *score) count(kept bool) {
	s.all++
	if kept {
		s.kept++
	}
}

func (s *score) add(o score) { s.kept += o.kept; s.all += o.all }

// unmark takes markdown's markup out of the inline markdown extraction
// writes: escapes, code spans, emphasis, links and images. (Extraction
// escapes every literal '*', '[' and ']', so the bare ones are markup.)
func unmark(md string) string {
	var b strings.Builder
	for i := 0; i < len(md); {
		c := md[i]
		switch {
		case c == '\\' && i+1 < len(md) && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", md[i+1]) >= 0:
			b.WriteByte(md[i+1])
			i += 2
		case c == '`':
			n := 0
			for i+n < len(md) && md[i+n] == '`' {
				n++
			}
			fence := md[i : i+n]
			end := strings.Index(md[i+n:], fence)
			if end < 0 {
				b.WriteString(fence)
				i += n
				continue
			}
			inner := md[i+n : i+n+end]
			if len(inner) > 1 && inner[0] == ' ' && inner[len(inner)-1] == ' ' {
				inner = inner[1 : len(inner)-1]
			}
			b.WriteString(inner)
			i += 2*n + end
		case c == '*' || c == '~' || c == '[':
			i++
		case c == '!' && i+1 < len(md) && md[i+1] == '[':
			i++
		case c == ']' && i+1 < len(md) && md[i+1] == '(':
			depth := 0
			j := i + 1
			for ; j < len(md); j++ {
				if md[j] == '(' {
					depth++
				} else if md[j] == ')' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			i = j + 1
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

func squash(s string) string { return " " + strings.Join(strings.Fields(s), " ") + " " }

func measureStructure(t *testing.T, file string) structureScores {
	t.Helper()
	body, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	truthBytes, err := os.ReadFile(strings.TrimSuffix(file, ".html") + ".truth.txt")
	if err != nil {
		t.Fatal(err)
	}
	pageURL := "http://docs.example/manual/html/" + filepath.Base(file)
	p, err := parseHTML(pageURL, body, "", time.Now(), extractOptions{Advanced: true})
	if err != nil {
		t.Fatal(err)
	}
	truth := squash(string(truthBytes))
	truthLines := map[string]bool{}
	for _, l := range strings.Split(string(truthBytes), "\n") {
		truthLines[strings.Join(strings.Fields(l), " ")] = true
	}
	text, md := squash(p.Text), squash(unmark(p.Markdown))
	mdLines := map[string]bool{}
	for _, l := range strings.Split(p.Markdown, "\n") {
		mdLines[strings.TrimSpace(l)] = true
	}
	doc, _ := html.Parse(bytes.NewReader(body))
	base, _ := url.Parse(pageURL)
	var s structureScores
	misses := os.Getenv("STRUCTURE_MISSES") != ""
	note := func(kind string, kept bool, what string) bool {
		if !kept && misses {
			t.Logf("%s: %s missed: %q", filepath.Base(file), kind, what)
		}
		return kept
	}

	// Text in document order, to read what comes before and after an
	// inline element.
	var texts []*html.Node
	var collect func(*html.Node)
	collect = func(n *html.Node) {
		if n.Type == html.TextNode {
			texts = append(texts, n)
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style) {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			collect(c)
		}
	}
	collect(doc)
	index := map[*html.Node]int{}
	for i, n := range texts {
		index[n] = i
	}
	firstText := func(n *html.Node) (*html.Node, bool) {
		var out *html.Node
		var walk func(*html.Node)
		walk = func(n *html.Node) {
			if out != nil {
				return
			}
			if n.Type == html.TextNode {
				out = n
				return
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(n)
		return out, out != nil
	}
	lastText := func(n *html.Node) (*html.Node, bool) {
		var out *html.Node
		var walk func(*html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.TextNode {
				out = n
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(n)
		return out, out != nil
	}
	// boundary checks the join of two texts: "a b" when whitespace
	// separates them, "ab" when none does.
	boundary := func(before, after string) {
		bt, at := strings.TrimRightFunc(before, unicode.IsSpace), strings.TrimLeftFunc(after, unicode.IsSpace)
		if bt == "" || at == "" {
			return
		}
		bw, aw := strings.Fields(bt), strings.Fields(at)
		w1, w2 := bw[len(bw)-1], aw[0]
		sep := ""
		if len(bt) < len(before) || len(at) < len(after) {
			sep = " "
		}
		pair := " " + w1 + sep + w2 + " "
		if sep == "" {
			pair = w1 + w2
		}
		if strings.ContainsAny(pair, "¶§#") {
			return // permalink glyphs are meant to go
		}
		if !strings.Contains(truth, pair) {
			return // not main text, or not written down as one line
		}
		s.spacing.count(note("spacing (text)", strings.Contains(text, pair), pair))
		s.spacing.count(note("spacing (markdown)", strings.Contains(md, pair), pair))
	}

	// Table-of-contents entries repeat headings; they are navigation.
	headingTexts := map[string]bool{}
	var heads func(*html.Node)
	heads = func(n *html.Node) {
		switch n.DataAtom {
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			headingTexts[strings.Join(strings.Fields(strings.Trim(nodeText(n), " #¶§")), " ")] = true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			heads(c)
		}
	}
	heads(doc)
	isTOCEntry := func(item string) bool {
		for h := range headingTexts {
			if h != "" && strings.HasSuffix(h, item) {
				return true
			}
		}
		return false
	}

	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Code, atom.Tt, atom.Em, atom.I, atom.B, atom.Strong, atom.A, atom.Var, atom.Kbd, atom.Samp, atom.Span:
				if f, ok := firstText(n); ok && index[f] > 0 {
					boundary(texts[index[f]-1].Data, f.Data)
				}
				if l, ok := lastText(n); ok && index[l]+1 < len(texts) {
					boundary(l.Data, texts[index[l]+1].Data)
				}
			case atom.H1, atom.H2, atom.H3:
				h := strings.Join(strings.Fields(strings.Trim(nodeText(n), " #¶§")), " ")
				if h != "" && truthLines[h] {
					prefix := strings.Repeat("#", int(n.Data[1]-'0')) + " "
					kept := false
					for l := range mdLines {
						if strings.HasPrefix(l, prefix) && strings.Join(strings.Fields(unmark(strings.TrimPrefix(l, prefix))), " ") == h {
							kept = true
						}
					}
					s.headings.count(note("heading", kept, h))
				}
			case atom.Pre:
				raw := strings.TrimPrefix(preText(n), "\n")
				var lines []string
				for _, l := range strings.Split(strings.TrimRight(raw, "\n "), "\n") {
					lines = append(lines, strings.TrimRight(l, " \t"))
				}
				if len(lines) >= 2 && truthLines[strings.Join(strings.Fields(lines[0]), " ")] {
					s.code.count(note("code (markdown)", fencedIn(p.Markdown, lines), lines[0]))
					indented := "    " + strings.Join(lines, "\n    ")
					indented = regexp.MustCompile(`(?m)^ +$`).ReplaceAllString(indented, "")
					s.code.count(note("code (text)", strings.Contains(p.Text, indented), lines[0]))
				}
				return
			case atom.Li:
				item := strings.Join(strings.Fields(nodeText(n)), " ")
				if first := strings.SplitN(nodeText(n), "\n", 2)[0]; item != "" && truthLines[first] && !isTOCEntry(first) {
					kept := false
					for l := range mdLines {
						rest := strings.TrimLeft(l, "0123456789")
						if strings.HasPrefix(l, "- ") || rest != l && strings.HasPrefix(rest, ". ") {
							body := strings.TrimPrefix(strings.TrimPrefix(rest, ". "), "- ")
							if strings.HasPrefix(squash(unmark(body)), squash(first)[:min(len(squash(first)), 30)]) {
								kept = true
							}
						}
					}
					s.lists.count(note("list item", kept, first))
				}
			}
			if n.DataAtom == atom.A {
				href := strings.TrimSpace(attr(n, "href"))
				anchor := strings.Join(strings.Fields(nodeText(n)), " ")
				block := strings.Join(strings.Fields(nodeText(blockOf(n))), " ")
				inText := truthLines[block] || len(block) >= 40 && strings.Contains(truth, squash(block))
				if href != "" && !strings.HasPrefix(href, "#") && anchor != "" && inText && !isTOCEntry(block) {
					if ref, err := url.Parse(href); err == nil {
						abs := base.ResolveReference(ref).String()
						s.links.count(note("link", strings.Contains(p.Markdown, "]("+abs+")"), abs))
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return s
}

// fencedIn reports whether md holds lines as a fenced code block, at any
// indentation (a code block in a list item is indented).
func fencedIn(md string, lines []string) bool {
	for i := strings.Index(md, lines[0]); i >= 0; {
		start := strings.LastIndexByte(md[:i], '\n') + 1
		pad := md[start:i]
		if strings.TrimSpace(pad) == "" {
			var b strings.Builder
			for _, l := range lines {
				if l != "" {
					b.WriteString(pad)
				}
				b.WriteString(l + "\n")
			}
			if strings.HasPrefix(md[start:], b.String()+pad+"```") {
				return true
			}
		}
		next := strings.Index(md[i+1:], lines[0])
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

// blockOf is the paragraph, list item or cell that holds n.
func blockOf(n *html.Node) *html.Node {
	for p := n.Parent; p != nil; p = p.Parent {
		switch p.DataAtom {
		case atom.P, atom.Li, atom.Dd, atom.Dt, atom.Td, atom.Th, atom.Div, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			return p
		}
	}
	return n
}

func preText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.DataAtom == atom.Br {
			b.WriteByte('\n')
		}
		if n.DataAtom == atom.Button {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// TestExtractionStructure scores what extraction keeps of each page's
// structure (see structureScores) over testdata/extract, and fails when
// any score over the whole set is under 0.95. Run with -v for the table.
func TestExtractionStructure(t *testing.T) {
	files, _ := filepath.Glob("testdata/extract/*.html")
	sort.Strings(files)
	var total structureScores
	for _, f := range files {
		s := measureStructure(t, f)
		t.Logf("%-38s spacing %4d/%-4d headings %3d/%-3d code %3d/%-3d lists %3d/%-3d links %3d/%-3d", filepath.Base(f),
			s.spacing.kept, s.spacing.all, s.headings.kept, s.headings.all, s.code.kept, s.code.all,
			s.lists.kept, s.lists.all, s.links.kept, s.links.all)
		total.spacing.add(s.spacing)
		total.headings.add(s.headings)
		total.code.add(s.code)
		total.lists.add(s.lists)
		total.links.add(s.links)
	}
	for _, c := range []struct {
		name string
		s    score
	}{{"spacing", total.spacing}, {"headings", total.headings}, {"code", total.code}, {"lists", total.lists}, {"links", total.links}} {
		t.Logf("%-9s %.3f (%d of %d)", c.name, c.s.value(), c.s.kept, c.s.all)
		if c.s.all < 5 {
			t.Errorf("%s: only %d items measured; the test set lost its %s", c.name, c.s.all, c.name)
		}
		if c.s.value() < 0.95 {
			t.Errorf("%s score %.3f is under 0.95", c.name, c.s.value())
		}
	}
}

// Body links resolve against <base href> when the page has one, and
// against the page URL (not the site root) when it has none.
func TestBodyLinksResolveAgainstThePage(t *testing.T) {
	body := func(head string) []byte {
		return []byte(`<html><head>` + head + `</head><body><main><h1>Authors</h1>
<p>The people who wrote it are listed in <a href="dist.authors.html">the authors file</a>, beside the rest of the manual.</p></main></body></html>`)
	}
	cases := []struct{ head, want string }{
		{"", "[the authors file](http://host/valgrind/html/dist.authors.html)"},
		{`<base href="http://mirror.example/docs/">`, "[the authors file](http://mirror.example/docs/dist.authors.html)"},
		{`<base href="../">`, "[the authors file](http://host/valgrind/dist.authors.html)"},
	}
	for _, c := range cases {
		p, err := parseHTML("http://host/valgrind/html/index.html", body(c.head), "", time.Now(), extractOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.Markdown, c.want) {
			t.Errorf("with head %q: markdown lacks %q:\n%s", c.head, c.want, p.Markdown)
		}
	}
}

// A plain-text page comes back as markdown that renders as the same text.
func TestPlainTextPagesAreEscapedForMarkdown(t *testing.T) {
	p := parsePlain("http://host/notes.txt", "# not a heading\nchar *path = NULL; void *user_data;\n    int *indented_code;\n", false, time.Now())
	for _, want := range []string{`\# not a heading`, `char \*path = NULL; void \*user_data;`, "    int *indented_code;"} {
		if !strings.Contains(p.Markdown, want) {
			t.Errorf("markdown lacks %q:\n%s", want, p.Markdown)
		}
	}
	if !strings.Contains(p.Text, "char *path = NULL;") {
		t.Errorf("text changed: %q", p.Text)
	}
}
