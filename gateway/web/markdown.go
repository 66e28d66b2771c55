package web

import (
	"bytes"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"hark/gateway/extract"
	"hark/gateway/text"
)

// A markdown file is read the way an HTML page is: goldmark renders it
// (CommonMark with GitHub's tables, strikethrough and autolinks, and
// footnotes) and the extractor writes its markdown and text from that,
// so code stays code and never runs into sentences, list items stay
// apart, emphasis marks and link definitions are not read as words, and
// relative links resolve against the file's URL. MyST, the markdown of
// Sphinx documentation (pip's, for one), is read too: roles
// ({ref}`pip wheel`) are their text, admonitions ("```{note}") are prose,
// command blocks stay code, and tables of contents and label targets are
// left out.

// renderMarkdown reads src, a markdown file at pageURL, into its markdown
// and text as the extractor writes them, and the title its front matter
// or first heading gives (empty when it has neither).
func renderMarkdown(pageURL, src string) (md, plain, title string) {
	src, title = frontMatter(src)
	var buf bytes.Buffer
	if err := text.Markdown().Convert([]byte(myst(src)), &buf); err != nil {
		return "", "", title
	}
	doc, err := html.Parse(&buf)
	if err != nil {
		return "", "", title
	}
	body := findElement(doc, atom.Body)
	if body == nil {
		body = doc
	}
	base, _ := url.Parse(pageURL)
	d := extract.Render(body, nil, extract.Options{Base: base, Tables: true, Images: true})
	if title == "" {
		for _, b := range d.Blocks {
			if b.Kind == extract.Heading {
				title = b.Text
				break
			}
		}
	}
	return d.Markdown(), d.Text(), title
}

func findElement(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findElement(c, a); f != nil {
			return f
		}
	}
	return nil
}

var frontTitle = text.LazyRegexp(`(?m)^title:\s*(.+?)\s*$`)

// frontMatter splits off a leading YAML front matter block ("---" lines,
// as Jekyll and Hugo pages have) and returns the rest and its title.
func frontMatter(src string) (rest, title string) {
	src = strings.TrimPrefix(src, "\ufeff")
	if !strings.HasPrefix(src, "---\n") {
		return src, ""
	}
	head, rest, ok := strings.Cut(src[4:], "\n---\n")
	if !ok || len(head) > 8<<10 {
		return src, ""
	}
	if m := frontTitle().FindStringSubmatch(head); m != nil {
		title = strings.Trim(m[1], `"'`)
	}
	return rest, title
}

var (
	// mystRole is a role and its code span: {ref}`pip wheel`, with an
	// explicit title before the target: {ref}`a venv <pypug:Virtual Environments>`.
	mystRole = text.LazyRegexp("\\{[A-Za-z][\\w:.+-]*\\}`([^`]*)`")
	// mystTitled is a role's text that names its title and its target.
	mystTitled = text.LazyRegexp(`^(.*?\S)\s*<[^<>]+>$`)
	// mystTarget is a label line: (editable-installs)=
	mystTarget = text.LazyRegexp(`^\([\w.:-]+\)=\s*$`)
	// mystDirective opens a directive: ```{note}, :::{tip}, ````{code-block} python
	mystDirective = text.LazyRegexp("^(`{3,}|:{3,})\\{([\\w:.-]+)\\}\\s*(.*)$")
	// mystOption is a directive's option line: ":caption: Example".
	mystOption = text.LazyRegexp(`^:[\w-]+:`)
)

// versionLabels are what Sphinx writes for the version directives, before
// their version: "New in version 10.0."
var versionLabels = map[string]string{
	"versionadded": "New in version", "versionchanged": "Changed in version",
	"deprecated": "Deprecated since version", "versionremoved": "Removed in version",
}

// role reads a MyST role as Sphinx shows it: the title when it has one
// ("virtual environment"), else its text as code.
func role(m string) string {
	text := mystRole().FindStringSubmatch(m)[1]
	if t := mystTitled().FindStringSubmatch(text); t != nil {
		return extract.EscapeText(t[1]) // it was code: literal text
	}
	return "`" + text + "`"
}

// What each MyST directive becomes: code (its lines as a code block),
// gone (left out), else prose (its content read as markdown).
var mystCode = text.LazyRegexp(`(?i)code|cli|console|shell|literal|prompt|eval`)
var mystGone = text.LazyRegexp(`(?i)^(?:toctree|contents|include|literalinclude|auto\w*|only|raw|image|figure|rst-class|meta|glossary)$`)

// myst rewrites MyST's extensions of markdown into CommonMark.
func myst(src string) string {
	type open struct {
		fence string
		mode  byte // 'c' code, 'g' gone, 'p' prose
	}
	var stack []open
	var out []string
	code := "" // the fence of a plain code block being copied
	options := false
	gone := func() bool {
		for _, o := range stack {
			if o.mode == 'g' {
				return true
			}
		}
		return false
	}
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if code != "" {
			if closes(t, code) {
				code = ""
			}
			if !gone() {
				out = append(out, line)
			}
			continue
		}
		if n := len(stack); n > 0 && closes(t, stack[n-1].fence) {
			if stack[n-1].mode == 'c' && !gone() {
				out = append(out, "```")
			}
			stack = stack[:n-1]
			options = false
			continue
		}
		if m := mystDirective().FindStringSubmatch(t); m != nil {
			mode := byte('p')
			switch {
			case mystGone().MatchString(m[2]):
				mode = 'g'
			case mystCode().MatchString(m[2]):
				mode = 'c'
			}
			stack = append(stack, open{m[1], mode})
			switch {
			case gone():
			case mode == 'c':
				lang, _, _ := strings.Cut(m[3], " ")
				out = append(out, "```"+lang)
			case versionLabels[strings.ToLower(m[2])] != "":
				// "{versionadded} 10.0" is "New in version 10.0.", not a
				// stray "10.0".
				label := versionLabels[strings.ToLower(m[2])]
				if m[3] != "" {
					label += " " + m[3]
				} else {
					label, _, _ = strings.Cut(label, " ") // "Deprecated."
				}
				out = append(out, "", "*"+label+".*", "")
			case m[3] != "":
				out = append(out, "", "**"+m[3]+"**", "") // an admonition's title
			}
			options = true
			continue
		}
		if options && (mystOption().MatchString(t) || t == "---") {
			continue
		}
		options = false
		if gone() {
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].mode == 'c' {
			out = append(out, line)
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			code = t[:3]
			for _, r := range t[3:] {
				if r != rune(t[0]) {
					break
				}
				code += string(r)
			}
			out = append(out, line)
			continue
		}
		if mystTarget().MatchString(t) {
			continue
		}
		out = append(out, mystRole().ReplaceAllStringFunc(line, role))
	}
	return strings.Join(out, "\n")
}

// closes reports whether line t closes a block opened by fence: the same
// character, at least as many, and nothing else.
func closes(t, fence string) bool {
	return len(t) >= len(fence) && strings.Trim(t, fence[:1]) == ""
}
