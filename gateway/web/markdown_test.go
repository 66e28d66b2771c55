package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/text"
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
	for _, s := range text.SentencesUnder(p.Text) {
		if strings.Contains(s.Text, "pip install") || strings.Contains(s.Text, "print(") {
			t.Errorf("a sentence out of code: %q", s.Text)
		}
		if strings.HasPrefix(s.Text, "You can install local projects") {
			found = s.Code == "$ pip install -e path/to/SomeProject" && s.Heading == "Editable installs"
		}
	}
	if !found {
		t.Errorf("the sentence introducing the command does not carry it: %+v", text.SentencesUnder(p.Text))
	}
}

// MyST as Sphinx shows it: a role with an explicit title reads as its
// title, not its target, and the version directives read as Sphinx
// writes them, not as a stray version number. (pip's topics/
// authentication.md and getting-started.md, MIT licence.)
func TestMySTRolesAndVersionDirectives(t *testing.T) {
	src := "# Authentication\n\n" +
		"```{versionadded} 10.0\n```\n\n" +
		"Use a {ref}`virtual environment <pypug:Creating and using Virtual Environments>` and {ref}`--no-deps <install_--no-deps>`, see {ref}`pip wheel`.\n\n" +
		"```{versionchanged} 22.2\nExperimental support, behind `--use-feature=truststore`.\n```\n\n" +
		"```{deprecated}\n```\n"
	p := parsePlain("http://h/topics/authentication.md", src, true, time.Now())
	for _, want := range []string{"New in version 10.0.\n\nUse a virtual environment and --no-deps, see pip wheel.",
		"Changed in version 22.2.\n\nExperimental support, behind --use-feature=truststore.", "Experimental support, behind --use-feature=truststore.\n\nDeprecated."} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, p.Text)
		}
	}
	for _, bad := range []string{"pypug", "install_", "<", "\n10.0\n", "{"} {
		if strings.Contains(p.Text, bad) || strings.Contains(p.Markdown, bad) {
			t.Errorf("holds %q:\n%s\n---\n%s", bad, p.Text, p.Markdown)
		}
	}
	if !strings.Contains(p.Markdown, "*New in version 10.0.*") || !strings.Contains(p.Markdown, "`pip wheel`") {
		t.Errorf("markdown:\n%s", p.Markdown)
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

// A reStructuredText file (pip's news.rst, served as
// text/prs.fallenstein.rst) and other text types are read as plain
// text, not refused; JSON and XML pages still are.
func TestTextTypesReadAsPlainText(t *testing.T) {
	types := map[string]string{"/news.rst": "text/prs.fallenstein.rst", "/data.csv": "text/csv; charset=utf-8",
		"/data.json": "application/json", "/feed.xml": "text/xml"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", types[r.URL.Path])
		w.Write([]byte("=================\n24.0 (2024-02-03)\n=================\n\nDeprecations and *Removals*\n"))
	}))
	defer srv.Close()
	e := testEngine(t, nil)
	out, err := e.Extract(context.Background(), api.ExtractInput{URLs: api.URLList{srv.URL + "/news.rst", srv.URL + "/data.csv", srv.URL + "/data.json", srv.URL + "/feed.xml"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/news.rst", "/data.csv"} {
		r := resultFor(out.Results, srv.URL+path)
		if r == nil {
			t.Errorf("%s (%s) failed: %q", path, types[path], failedReason(out, srv.URL+path))
			continue
		}
		if !strings.Contains(r.RawContent, "24.0 (2024-02-03)") || !strings.Contains(r.RawContent, `Deprecations and \*Removals\*`) {
			t.Errorf("%s: not its text escaped for markdown: %q", path, r.RawContent)
		}
	}
	if p := parsePlain("http://h/news.rst", "=========\nChangelog\n=========\n\n.. towncrier release notes start\n", false, time.Now()); p.Title != "Changelog" {
		t.Errorf("title %q, want the first heading, not its adornment", p.Title)
	}
	for _, path := range []string{"/data.json", "/feed.xml"} {
		if got := failedReason(out, srv.URL+path); !strings.Contains(got, "unsupported content type") {
			t.Errorf("%s: failed with %q, want unsupported content type", path, got)
		}
	}
}
