package markdown

import (
	"fmt"
	"strings"
	"testing"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/ui/common"
)

func report(size int) string {
	var b strings.Builder
	b.WriteString("# Research report\n\n")
	for i := 1; b.Len() < size; i++ {
		fmt.Fprintf(&b, "## Section %d\n\nTerminal interfaces stay **responsive** over slow links because they send only what changed. "+
			"Section %d looks at [source %d](https://example.com/s%d) and compares `render` costs across widths.\n\n"+
			"- a first finding that wraps onto a second line when the terminal is narrow enough\n- a second finding\n\n", i, i, i, i)
	}
	return b.String()
}

func TestRenderStripsPaddingKeepsText(t *testing.T) {
	md := report(4 << 10)
	r := NewRenderer()
	got, err := r.Render(md, "dark", 80)
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := glamour.NewTermRenderer(glamour.WithStandardStyle("dark"), glamour.WithWordWrap(80))
	raw, _ := tr.Render(md)
	if len(got)*3 > len(raw) {
		t.Errorf("stripped %d bytes, raw %d: padding not removed", len(got), len(raw))
	}
	want := strings.Split(strings.Trim(ansi.Strip(raw), "\n"), "\n")
	have := strings.Split(ansi.Strip(got), "\n")
	if len(want) != len(have) {
		t.Fatalf("%d lines, want %d", len(have), len(want))
	}
	for i := range want {
		if strings.TrimRight(want[i], " ") != have[i] {
			t.Errorf("line %d: %q, want %q", i, have[i], want[i])
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if strings.HasSuffix(ansi.Strip(l), " ") {
			t.Errorf("trailing blank left: %q", l)
		}
	}
	// Cached by width and style.
	if len(r.cache) != 1 {
		t.Errorf("%d renderers cached", len(r.cache))
	}
	r.Render(md, "dark", 80)
	r.Render(md, "dark", 60)
	if len(r.cache) != 2 {
		t.Errorf("%d renderers cached, want 2", len(r.cache))
	}
	if WrapWidth(500) != MaxWidth || WrapWidth(5) != 20 {
		t.Error("wrap width not clamped")
	}
	_ = common.StripLine
}

// BenchmarkRender200KB renders a 200 KB report at 100 columns, as the
// Research pane does in a command, and reports the bytes per line that
// reach the terminal with and without the padding stripped.
func BenchmarkRender200KB(b *testing.B) {
	md := report(200 << 10)
	r := NewRenderer()
	var out string
	for i := 0; i < b.N; i++ {
		var err error
		out, err = r.Render(md, "dark", 100)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	tr, _ := glamour.NewTermRenderer(glamour.WithStandardStyle("dark"), glamour.WithWordWrap(100))
	raw, _ := tr.Render(md)
	lines := strings.Count(out, "\n") + 1
	b.ReportMetric(float64(len(out))/float64(lines), "B/line")
	b.ReportMetric(float64(len(raw))/float64(strings.Count(raw, "\n")+1), "raw-B/line")
	b.ReportMetric(float64(lines), "lines")
}

// TestCodeBlocksAreHighlighted covers the chroma stand-in (replace/chroma):
// a fenced block in a named language gets the keyword and the string in
// styles of their own, and an unnamed one still renders its text.
func TestCodeBlocksAreHighlighted(t *testing.T) {
	r := NewRenderer()
	got, err := r.Render("```go\nfunc main() { println(\"hi\") }\n```\n\n```\nplain words\n```\n", "dark", 80)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ansi.Strip(got), `func main() { println("hi") }`) || !strings.Contains(ansi.Strip(got), "plain words") {
		t.Fatalf("code lost:\n%s", ansi.Strip(got))
	}
	style := func(word string) string {
		i := strings.Index(got, word)
		if i < 0 {
			t.Fatalf("%q not rendered as one run:\n%q", word, got)
		}
		j := strings.LastIndex(got[:i], "\x1b[")
		return got[j:i]
	}
	if kw, str := style("func"), style(`"hi"`); kw == str || kw == style("main") {
		t.Errorf("keyword, name and string share styles: %q %q %q", kw, style("main"), str)
	}
}

// A URL or an option that fits on a line is never split at its hyphens;
// bullets, rules and table borders keep theirs.
func TestWordsWithHyphensStayWhole(t *testing.T) {
	r := NewRenderer()
	const u = "https://docs.example/some-long-path/with-more-hyphens.html"
	md := "Words before the link to fill the line: see " + u + " for the details of " +
		"--leak-check=full and its well-known cousin --show-leak-kinds=definite.\n\n- one\n- two\n\n---\n\n| a | b |\n|---|---|\n| x-y | 1 |\n"
	for _, w := range []int{40, 64, 80} {
		out, err := r.Render(md, "notty", w)
		if err != nil {
			t.Fatal(err)
		}
		plain := ansi.Strip(out)
		for _, whole := range []string{u, "--leak-check=full", "--show-leak-kinds=definite", "well-known", "x-y"} {
			if len(whole) < w-4 && !strings.Contains(plain, whole) {
				t.Errorf("width %d: %q was split:\n%s", w, whole, plain)
			}
		}
		if !strings.Contains(plain, "• one") || !strings.Contains(plain, "|---") && !strings.Contains(plain, "--|--") {
			t.Errorf("width %d: bullets or table borders lost:\n%s", w, plain)
		}
		if strings.Contains(out, "\ufdd0") {
			t.Errorf("width %d: a non-breaking hyphen was left in the output", w)
		}
	}
}

// URLs in list items, in link lists and bare stay whole when they fit on
// a line: glamour breaks list items at dots and commas too. Each is one
// hyperlink over the whole URL. Ordered lists, e-mail addresses and code
// keep their dots and pluses.
func TestURLsStayWholeInListItems(t *testing.T) {
	r := NewRenderer()
	const (
		freebsd = "https://docs.freebsd.org/info/gxxint/gxxint.info.Free_Store.html"
		local   = "http://127.0.0.1:31723/valgrind/html/hg-manual.html#hg-manual.api-checks"
		bare    = "https://docs.example.org/some-long-path/with.dots,and;more+signs.html"
	)
	md := "- It might be a pointer to an array of C++ objects, i.e. an interior-pointer. See [this page](" + freebsd + ") for more information.\n" +
		"- Bare: a URL to read after these words " + bare + " and on.\n\n" +
		"1. [Misuses of the POSIX pthreads API.](" + local + ")\n" +
		"2. Write to <someone.else@example.org>, or see www.example.org.\n\n" +
		"```c++\nint x = a.b + 1;\n```\n\nThe file `gxxint.info.Free_Store.html` is named in code.\n"
	for _, w := range []int{80, 100} {
		out, err := r.Render(md, "dark", w)
		if err != nil {
			t.Fatal(err)
		}
		plain := ansi.Strip(out)
		for _, whole := range []string{freebsd, local, bare, "1. Misuses", "2. Write", "someone.else@example.org", "http://www.example.org", "int x = a.b + 1;", "gxxint.info.Free_Store.html"} {
			if !strings.Contains(plain, whole) {
				t.Errorf("width %d: %q was split or lost:\n%s", w, whole, plain)
			}
		}
		for _, u := range []string{freebsd, local, bare} {
			if !strings.Contains(out, u+"\x07"+u) && !strings.Contains(out, u+"\x1b\\"+u) {
				t.Errorf("width %d: %s is not one hyperlink over the whole URL:\n%q", w, u, out)
			}
		}
		if strings.Contains(out, "\xef\xb7") {
			t.Errorf("width %d: a stand-in was left in the output", w)
		}
	}
}

// An ampersand escaped before a letter ("\&str", as extraction writes
// Rust's &str) shows as "&str": glamour showed the backslash. In a code
// span the backslash is the code's, as is an escaped backslash's.
func TestEscapedAmpersandShowsPlain(t *testing.T) {
	r := NewRenderer()
	got, err := r.Render("# String and \\&str\n\nBorrow with \\&str and \\&mut, not `s/x/\\&/` or \\\\&x.", "dark", 80)
	if err != nil {
		t.Fatal(err)
	}
	plain := ansi.Strip(got)
	for _, want := range []string{"String and &str", "Borrow with &str and &mut", `s/x/\&/`, `or \&x.`} {
		if !strings.Contains(plain, want) {
			t.Errorf("rendered lacks %q:\n%s", want, plain)
		}
	}
	if strings.Contains(plain, `\&str`) || strings.Contains(plain, `\&mut`) {
		t.Errorf("an escape shown:\n%s", plain)
	}
}

// A heading's links read as their text: glamour writes a link's URL
// after its text, and a rustdoc heading, every type in it a link, read
// as URLs with words between. The body's links keep their URLs.
func TestHeadingLinksReadAsText(t *testing.T) {
	md := "# Struct [syn](http://127.0.0.1:18082/syn/index.html)::Ident\n\n" +
		"#### fn [try_from](https://doc.rust-lang.org/core/convert/trait.TryFrom.html#tymethod.try_from)(value: U) -> [Result](https://doc.rust-lang.org/core/result/enum.Result.html)\n\n" +
		"Performs the conversion, as [TryFrom](https://doc.rust-lang.org/core/convert/trait.TryFrom.html) says.\n"
	got, err := NewRenderer().Render(md, "dark", 100)
	if err != nil {
		t.Fatal(err)
	}
	plain := ansi.Strip(got)
	for _, want := range []string{"Struct syn::Ident", "fn try_from(value: U) -> Result", "TryFrom https://doc.rust-lang.org/core/convert/trait.TryFrom.html"} {
		if !strings.Contains(plain, want) {
			t.Errorf("rendered without %q:\n%s", want, plain)
		}
	}
	if strings.Contains(plain, "index.html") || strings.Contains(plain, "enum.Result") {
		t.Errorf("a heading's link shows its URL:\n%s", plain)
	}
}
