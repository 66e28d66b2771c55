package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Code blocks: a <pre> and what pages use instead of one (Doxygen's
// line divs, its prototype tables), and the language a block is in.

// code keeps a preformatted block line for line.
func (r *renderer) code(n *html.Node) {
	if ls := listings(n); ls != nil {
		for _, c := range ls {
			r.codeBlock(c, codeLanguage(c))
		}
		return
	}
	r.codeBlock(n, codeLanguage(n))
}

// listings are the <code>s of a <pre> that holds several whole listings
// side by side, or nil: Node.js's manuals give each example as ES
// modules and as CommonJS in one <pre>, showing one. Read as one text,
// the first one's last line and the next one's first run together
// ("console.log(getHashes());const {"). A <pre> whose <code>s are its
// lines (each ending in a line break) is one listing.
func listings(pre *html.Node) []*html.Node {
	var codes []*html.Node
	for c := pre.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) != "":
			return nil
		case c.Type == html.ElementNode && c.DataAtom == atom.Code:
			codes = append(codes, c)
		}
	}
	if len(codes) < 2 {
		return nil
	}
	for _, c := range codes[:len(codes)-1] {
		if strings.HasSuffix(rawText(c), "\n") {
			return nil
		}
	}
	return codes
}

// codeBlock adds n's text as one code block, its lines as written.
func (r *renderer) codeBlock(n *html.Node, lang string) {
	text := strings.ReplaceAll(rawText(n), "\r\n", "\n")
	text = strings.TrimPrefix(text, "\n")
	lines := strings.Split(strings.TrimRight(text, " \t\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	if len(lines) == 0 {
		return
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	body := strings.Join(lines, "\n")
	r.add(Block{Kind: Code, Lang: lang, Markdown: body, Text: body})
}

// isLineListing reports a code listing written as one <div class="line">
// per line, as Doxygen's div.fragment is: it has no <pre> to keep its
// lines.
func isLineListing(n *html.Node) bool {
	return hasClass(n, "fragment") && findFirst(n, func(c *html.Node) bool { return c.DataAtom == atom.Div && hasClass(c, "line") }) != nil
}

// lineListing keeps a listing of line divs as one code block, without
// its line numbers.
func (r *renderer) lineListing(n *html.Node) {
	var lines []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || hasClass(c, "lineno") || hasClass(c, "ttc") {
				continue
			}
			if c.DataAtom == atom.Div && hasClass(c, "line") {
				l := strings.ReplaceAll(rawText(c, "lineno"), "\u00a0", " ")
				lines = append(lines, strings.TrimRight(strings.ReplaceAll(l, "\n", " "), " \t"))
				continue
			}
			walk(c)
		}
	}
	walk(n)
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return
	}
	body := strings.Join(lines, "\n")
	r.add(Block{Kind: Code, Lang: codeLanguage(n), Markdown: body, Text: body})
}

// declaration reads Doxygen's table of a function's or macro's prototype
// (table.memname: name, "(", each parameter on a row of its own, ")") as
// the one line of code it stands for.
func (r *renderer) declaration(n *html.Node) {
	var parts []string
	for _, tr := range tableRows(n) {
		for _, c := range rowCells(tr) {
			if t := strings.Join(strings.Fields(rawText(c)), " "); t != "" {
				parts = append(parts, t)
			}
		}
	}
	line := strings.NewReplacer("( ", "(", " )", ")", " ,", ",").Replace(strings.Join(parts, " "))
	if line == "" {
		return
	}
	r.add(Block{Kind: Code, Markdown: line, Text: line})
}

// codeLanguage reads a language from the classes of a <pre>, its <code>
// or the wrappers around it: language-go, lang-go, highlight-go, brush: go,
// sourceCode go. Sphinx names it on a wrapper (div.highlight-python >
// div.highlight > pre), and so does GitHub (div.highlight-source-shell).
func codeLanguage(n *html.Node) string {
	if l := attr(n, "data-lang") + attr(n, "data-language"); l != "" {
		return cleanLang(l)
	}
	if c := findFirst(n, func(c *html.Node) bool { return c.DataAtom == atom.Code }); c != nil {
		if l := langOf(attr(c, "class")+" "+attr(c, "data-lang"), false); l != "" {
			return l
		}
	}
	if l := langOf(attr(n, "class"), false); l != "" {
		return l
	}
	p := n.Parent
	for i := 0; i < 3 && p != nil && (p.DataAtom == atom.Div || p.DataAtom == atom.Figure); i, p = i+1, p.Parent {
		if l := attr(p, "data-lang") + attr(p, "data-language"); l != "" {
			return cleanLang(l)
		}
		if l := langOf(attr(p, "class"), true); l != "" {
			return l
		}
	}
	return ""
}

// langOf reads a language from class words. On a wrapper, "lang-en" is
// more likely the page's tongue than code's, so only language-,
// highlight- and brush: count there.
func langOf(classes string, wrapper bool) string {
	fields := strings.Fields(strings.ToLower(classes))
	for i, f := range fields {
		for _, p := range []string{"language-", "lang-", "highlight-source-", "highlight-text-", "highlight-", "brush:"} {
			if strings.HasPrefix(f, p) && !(wrapper && p == "lang-") {
				v := strings.TrimPrefix(f, p)
				if v == "" && p == "brush:" && i+1 < len(fields) {
					v = fields[i+1]
				}
				switch l := cleanLang(v); l {
				case "", "none", "text", "plaintext", "default":
				default:
					return l
				}
			}
		}
		if f == "sourcecode" && i+1 < len(fields) {
			return cleanLang(fields[i+1])
		}
	}
	return ""
}

func cleanLang(s string) string {
	s = strings.ToLower(strings.Trim(strings.TrimSpace(s), ";"))
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '#' || r == '_') {
			return ""
		}
	}
	if len(s) > 20 {
		return ""
	}
	return s
}
