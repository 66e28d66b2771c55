package markdown

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// PlainText reads markdown as plain text: no markup, no escapes,
// headings and list items on lines of their own, code indented and
// unwrapped, tables in columns, link texts hyperlinked line by line.
func TestPlainText(t *testing.T) {
	md := "# Pointer page\n\nDeclare `char *path` or char \\*path with *care* &amp; see [the readme file of the project](http://127.0.0.1/readme.html) now.\n" +
		"A hard break\\\nhere.\n\n## Lists\n\n- one item long enough to wrap when the terminal is narrow\n- two\n  - nested **bold**\n\n3. third\n4. fourth\n\n" +
		"```c\nint *p = NULL; /* a long comment that goes past the wrap width of the text */\n```\n\n> quoted\n\n| name | value |\n|---|---|\n| x-y | 1 |\n\n---\n\n<https://example.org/a-b>\n"
	got := PlainText(md, 40)
	want := `Pointer page

Declare char *path or char *path with
care & see the readme file of the
project now. A hard break
here.

Lists

• one item long enough to wrap when the
  terminal is narrow
• two
  • nested bold

3. third
4. fourth

    int *p = NULL; /* a long comment that goes past the wrap width of the text */

  quoted

name  value
x-y   1

https://example.org/a-b`
	if ansi.Strip(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", ansi.Strip(got), want)
	}
	for i, l := range strings.Split(got, "\n") {
		if strings.Count(l, "\x1b]8;;http")+0 != strings.Count(l, "\x1b]8;;\a")+strings.Count(l, "\x1b]8;;\x1b\\") {
			t.Errorf("line %d opens a hyperlink it does not close: %q", i, l)
		}
		if w := ansi.StringWidth(l); w > 40 && !strings.HasPrefix(l, "    int") {
			t.Errorf("line %d is %d cells wide: %q", i, w, l)
		}
	}
	if !strings.Contains(got, "\x1b]8;;http://127.0.0.1/readme.html") {
		t.Errorf("the link text is not a hyperlink: %q", got)
	}
}

// BenchmarkPlainText200KB makes the text view (t) of a 200 KB report at
// 100 columns, as the Pages reader does in a command beside glamour's
// rendering.
func BenchmarkPlainText200KB(b *testing.B) {
	md := report(200 << 10)
	for i := 0; i < b.N; i++ {
		PlainText(md, 100)
	}
}
