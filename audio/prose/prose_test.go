package prose

import (
	"strings"
	"testing"
)

func TestSentences(t *testing.T) {
	md := "# How does memcheck find leaks?\n\n" +
		"Memcheck tracks every block [1]. It reports leaks at exit, e.g. with **--leak-check=full**. See [the manual](https://valgrind.org/docs/manual.html) or https://www.valgrind.org/faq.\n" +
		"A wrapped line of the same paragraph ends here.\n\n" +
		"```c\nint *p = malloc(10);\nfree(p);\n```\n\n" +
		"- First item\n- Second item with ![a chart](c.png)\n\n" +
		"| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n" +
		"> A quoted line\n\n## Sources\n"
	var got []string
	var lines []int
	for _, s := range Sentences(md) {
		got = append(got, s.Text)
		lines = append(lines, s.Line)
	}
	want := []string{
		"How does memcheck find leaks?",
		"Memcheck tracks every block.",
		"It reports leaks at exit, e.g. with --leak-check=full.",
		"See the manual or a link to valgrind.org.",
		"A wrapped line of the same paragraph ends here.",
		"A code block of 2 lines.",
		"First item.",
		"Second item with (image: a chart).",
		"A table of 2 rows.",
		"A quoted line.",
		"Sources.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if lines[0] != 0 || lines[1] != 2 || lines[5] != 5 || lines[6] != 10 {
		t.Errorf("lines %v", lines)
	}
}

// What read aloud must not spell out, one case each.
func TestSentencesLeaveMarkupUnsaid(t *testing.T) {
	for _, c := range []struct{ name, md, want string }{
		{"indented code block", "Run this:\n\n    indented code line one\n    indented code line two\n\n    line three after a blank\n\nThen read on.",
			"Run this:|A code block of 4 lines.|Then read on."},
		{"indented line inside a paragraph", "A paragraph\n    with a lazy indented line.", "A paragraph with a lazy indented line."},
		{"indented list continuation", "- An item\n\n    its second paragraph.", "An item.|its second paragraph."},
		{"citations in brackets", "Memcheck tracks blocks (see [12], [3,4]). It is slow [2-5].", "Memcheck tracks blocks.|It is slow."},
		{"citation mid-sentence", "Leaks [1] are reported at exit.", "Leaks are reported at exit."},
		{"footnotes", "Okapis are shy.[^1] They live alone[^note].\n\n[^1]: The footnote text.\n    More of it.\n[^note]: Another.\n\nThe end.",
			"Okapis are shy.|They live alone.|The end."},
		{"underscores in words", "Run bin/build_flite and `make_all` or _emphasis_ and __strong__.", "Run bin/build_flite and make_all or emphasis and strong."},
		{"HTML comment", "<!-- source: http://127.0.0.1:8080/page -->\n# Title\n\nText <!-- inline --> here.", "Title.|Text here."},
		{"multi-line HTML comment", "Before.\n\n<!--\nhidden\nlines\n-->\n\nAfter.", "Before.|After."},
		{"code span keeps its markup", "Include `<stdio.h>` and use `*p`.", "Include <stdio.h> and use *p."},
	} {
		var got []string
		for _, s := range Sentences(c.md) {
			got = append(got, s.Text)
		}
		if g := strings.Join(got, "|"); g != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, g, c.want)
		}
	}
	// A comment's lines still count: the heading after one keeps its line.
	if s := Sentences("<!--\na\n-->\n# Title"); len(s) != 1 || s[0].Line != 3 {
		t.Errorf("line after a comment: %+v", s)
	}
}

// Escapes are said as their character ("backslash tilde" was spoken), and
// a hark report's Method section, boilerplate, is not read; another
// document's "Method" is.
func TestEscapesAndReportMethod(t *testing.T) {
	report := "# Tilde \\~ and caret ^\n\nUse `a\\b` and \\*not\\* emphasis.\n\n## Method\n\nModel `mini`: 1 search round, 2 searches, 5 sources read, 2 cited. Quotes are whole sentences.\n\n## Sources\n\n1. [A](https://a.example)\n"
	var got []string
	for _, s := range Sentences(report) {
		got = append(got, s.Text)
	}
	want := []string{"Tilde ~ and caret ^.", "Use a\\b and *not* emphasis.", "Sources.", "A."}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	paper := "## Method\n\nWe counted okapis.\n"
	if s := Sentences(paper); len(s) != 2 || s[1].Text != "We counted okapis." {
		t.Errorf("a paper's Method section: %+v", s)
	}
}
