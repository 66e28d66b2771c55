package common

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A new find starts empty: "suppression" then "leak-check=full" finds
// the second, not "suppressionleak-check=full"; enter on the empty line
// finds the last term again, as in less.
func TestFindStartsFresh(t *testing.T) {
	s := &Scroll{}
	s.SetContent("a suppression file\n\nrun with leak-check=full here\n")
	s.SetHeight(3)
	var r Reader
	r.StartFind(nil)
	keys(&r, s, "suppression")
	r.StartFind(nil)
	if v := r.find.Value(); v != "" {
		t.Fatalf("the find line starts with %q, want empty", v)
	}
	if r.find.Placeholder != "suppression" {
		t.Errorf("the last term is not offered: placeholder %q", r.find.Placeholder)
	}
	keys(&r, s, "leak-check=full")
	if r.Status() != "“leak-check=full” 1 of 1 (n/N)" {
		t.Errorf("second find: %q", r.Status())
	}
	r.StartFind(nil)
	keys(&r, s, "")
	if r.Status() != "“leak-check=full” 1 of 1 (n/N)" {
		t.Errorf("enter on the empty line: %q", r.Status())
	}
}

// Wrapped anew at another width, the text keeps its top line at the top:
// resizing from 100 to 60 columns does not move the view back.
func TestSetContentKeepsTheTopLine(t *testing.T) {
	var para []string
	for i := range 400 {
		para = append(para, "w"+strings.Repeat("x", i%7)+string(rune('a'+i%26)))
	}
	text := strings.Join(para, " ")
	s := &Scroll{}
	s.SetHeight(10)
	s.SetContent(Wrap(text, 100))
	s.ScrollBy(12)
	top := strings.Fields(s.View())[0]
	s.SetContent(Wrap(text, 60))
	if got := strings.Fields(strings.Split(s.View(), "\n")[0]); !contains(got, top) {
		t.Errorf("at 60 columns the top line is %q; the word %q that was at the top is not on it", got, top)
	}
	if s.Offset() <= 12 {
		t.Errorf("at 60 columns the view is at line %d, not further down than at 100 (12): it moved back", s.Offset())
	}
	// And back to 100: the same line as before.
	s.SetContent(Wrap(text, 100))
	if s.Offset() != 12 {
		t.Errorf("back at 100 columns the view is at line %d, want 12", s.Offset())
	}
}

func contains(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

// A link to an anchor that is no heading ("#opt.log-file" on a term of
// an options list) opens at the term, not the top of the page nor a
// heading that shares a word; a heading's own id still wins.
func TestSectionOnATerm(t *testing.T) {
	md := "# 2. Using and understanding the Valgrind core\n\n## 2.6. Core Command-line Options\n\nThe options --log-fd and --log-file decide where output goes.\n\n" +
		strings.Repeat("Filler text.\n\n", 30) + "**`--log-fd=<number> [default: 2]`**\n\nSends to a descriptor. See the description of\n--log-file for details.\n\n" +
		strings.Repeat("Filler text.\n\n", 30) + "**`--log-file=<filename>`**\n\nSends to a file.\n\n" + strings.Repeat("Filler text.\n\n", 30)
	lines := strings.Split(md, "\n")
	// The rendered lines: indented, the term in bold.
	for i, l := range lines {
		lines[i] = "  " + strings.ReplaceAll(strings.ReplaceAll(l, "**", "\x1b[1m"), "`", "\u00a0") // glamour pads code with no-break spaces
	}
	s := &Scroll{}
	s.SetContent(strings.Join(lines, "\n"))
	s.SetHeight(5)
	const page = "http://127.0.0.1:1/valgrind/html/manual-core.html"
	if !GoToSection(md, false, page, "opt.log-file", "--log-file", s) {
		t.Fatal("no place found for #opt.log-file")
	}
	if v := strings.Split(s.View(), "\n")[0]; !strings.Contains(v, "--log-file=<filename>") {
		t.Errorf("#opt.log-file opens at %q, want the --log-file term", v)
	}
	// A link whose text does not name the fragment goes by the headings.
	s.Top()
	if !GoToSection(md, false, page, "manual-core.options", "Core Command-line Options", s) || !strings.Contains(strings.Split(s.View(), "\n")[0], "2.6. Core Command-line Options") {
		t.Errorf("#manual-core.options opens at %q", strings.Split(s.View(), "\n")[0])
	}
}

// The find line shows the last term whole as its placeholder.
func TestFindPlaceholderWhole(t *testing.T) {
	s := &Scroll{}
	s.SetContent("a suppression file")
	s.SetHeight(3)
	var r Reader
	r.StartFind(nil)
	keys(&r, s, "suppression")
	r.StartFind(nil)
	if v := ansi.Strip(r.FindView()); !strings.Contains(v, "find: suppression") {
		t.Errorf("find line %q", v)
	}
}

// A site that cannot be reached gets a hint of its own, as a private
// address does.
func TestUnreachableSiteHints(t *testing.T) {
	for reason, want := range map[string]string{
		"cannot resolve host docs.invalid: no such host": "does not resolve",
		"connection refused by 127.0.0.1:1":              "Nothing answers",
	} {
		if h := FailureHint(reason, "embedded"); !strings.Contains(h, want) {
			t.Errorf("%q: hint %q", reason, h)
		}
	}
}
