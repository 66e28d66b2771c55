package web

import (
	"strings"
	"testing"
	"time"
)

// An excerpt of pip's documentation (docs/html/topics/local-project-
// installs.md, MIT licence), with front matter, a footnote, a table and
// the MyST it is written in.
const pipLocalInstalls = "---\ntitle: \"Local project installs\"\nlayout: page\n---\n" +
	"# Installing local projects\n\n" +
	"It is extremely common to have a project [^1] that you wish to install. See {ref}`pip wheel` and _exactly_ what it does.\n\n" +
	"- A regular install\n- An editable install\n\n" +
	"(editable-installs)=\n\n## Editable installs\n\n" +
	"You can install local projects in \"editable\" mode:\n\n" +
	"```{pip-cli}\n$ pip install -e path/to/SomeProject\n```\n\n" +
	"```{caution}\nIt is possible to see behaviour differences. See [the guide](../user_guide.md) and [setuptools' develop mode].\n```\n\n" +
	"```{toctree}\n:hidden:\ngetting-started\n```\n\n" +
	"````{admonition} Why this matters\n:class: tip\nBuilds happen *in place*:\n```python\nprint(\"in place\")\n```\n````\n\n" +
	"| Mode | Copies |\n|---|---|\n| regular | yes |\n\n" +
	"[setuptools' develop mode]: https://setuptools.example/develop\n\n[^1]: A folder on your computer.\n"

// A markdown file is read as a page is: code stays code, list items and
// headings are lines of their own, markup and link definitions are not
// words, relative links resolve, and MyST's roles, labels, admonitions,
// command blocks and tables of contents read as Sphinx shows them.
func TestMarkdownFilesReadLikePages(t *testing.T) {
	p := parsePlain("file:///usr/share/doc/pip/topics/local-project-installs.md", pipLocalInstalls, true, time.Now())
	if p.Title != "Local project installs" {
		t.Errorf("title %q, want the front matter's", p.Title)
	}
	for _, want := range []string{
		"Installing local projects\n\n",
		"See pip wheel and exactly what it does.",
		"A regular install\nAn editable install",
		"\n\nEditable installs\n\n",
		"mode:\n\n    $ pip install -e path/to/SomeProject\n\n",
		"It is possible to see behaviour differences. See the guide and setuptools' develop mode.",
		"Why this matters",
		"Builds happen in place:\n\n    print(\"in place\")",
		"regular | yes",
		"A folder on your computer.",
	} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, p.Text)
		}
	}
	for _, bad := range []string{"{ref}", "(editable-installs)=", "{pip-cli}", "{caution}", "getting-started", ":hidden:", ":class:", "_exactly_", "[setuptools", "https://setuptools", "↩", "```"} {
		if strings.Contains(p.Text, bad) {
			t.Errorf("text holds %q:\n%s", bad, p.Text)
		}
	}
	for _, want := range []string{
		"[the guide](file:///usr/share/doc/pip/user_guide.md)",
		"[setuptools' develop mode](https://setuptools.example/develop)",
		"```\n$ pip install -e path/to/SomeProject\n```",
		"```python\nprint(\"in place\")\n```",
		"| regular | yes |",
		"## Editable installs",
	} {
		if !strings.Contains(p.Markdown, want) {
			t.Errorf("markdown lacks %q:\n%s", want, p.Markdown)
		}
	}
	// Research reads the command with the sentence that introduces it,
	// and never a sentence out of code.
	var found bool
	for _, s := range sentencesUnder(p.Text) {
		if strings.Contains(s.text, "pip install") || strings.Contains(s.text, "print(") {
			t.Errorf("a sentence out of code: %q", s.text)
		}
		if strings.HasPrefix(s.text, "You can install local projects") {
			found = s.code == "$ pip install -e path/to/SomeProject" && s.heading == "Editable installs"
		}
	}
	if !found {
		t.Errorf("the sentence introducing the command does not carry it: %+v", sentencesUnder(p.Text))
	}
}

// Plain markdown with no front matter takes its title from its first
// heading, and a file with no heading from its first line.
func TestMarkdownTitle(t *testing.T) {
	if p := parsePlain("http://h/a.md", "Intro text here.\n\n# Heading\n", true, time.Now()); p.Title != "Heading" {
		t.Errorf("title %q", p.Title)
	}
	if p := parsePlain("http://h/b.md", "Just some notes, no heading.\n", true, time.Now()); p.Title != "Just some notes, no heading." {
		t.Errorf("title %q", p.Title)
	}
}
