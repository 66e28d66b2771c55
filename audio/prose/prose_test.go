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
