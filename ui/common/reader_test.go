package common

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func keys(r *Reader, s *Scroll, text string) {
	for _, c := range text {
		r.FindKey(tea.KeyPressMsg{Code: c, Text: string(c)}, s)
	}
	r.FindKey(tea.KeyPressMsg{Code: tea.KeyEnter}, s)
}

func doc(n int) (string, *Scroll) {
	var md, rendered []string
	for i := range n {
		md = append(md, "## Part "+string(rune('A'+i)), "", "Text of part with a Quagga here.", "")
		rendered = append(rendered, "  \x1b[1m## Part "+string(rune('A'+i))+"\x1b[m", "", "  Text of part with a \x1b[3mQuagga\x1b[m here.", "")
	}
	s := &Scroll{}
	s.SetContent(strings.Join(rendered, "\n"))
	s.SetHeight(6)
	return strings.Join(md, "\n"), s
}

// A quote is found whole where the lines hold it, else by its opening
// words; lines rendered anew (the page's glamour rendering arriving
// after its interim text) are searched for the whole quote again: the
// first lines' fallback opened a report's source with "The bb is
// expanded by 4" alone highlighted.
func TestFindQuoteWholeOnceRendered(t *testing.T) {
	quote := "The bb is expanded by 4 graph-units in all directions (pad) to allow for finite line widths."
	s := &Scroll{}
	s.SetHeight(6)
	s.SetContent("Q40.\n\n1. The bb is expanded by 4 graph\\-units in all directions \\(pad\\) …")
	var r Reader
	FindQuote(&r, quote, s)
	if st := r.Status(); st != "“The bb is expanded…” 1 of 1 (n/N)" {
		t.Errorf("interim lines: %q", st)
	}
	s.SetContent("  Q40.\n\n  1. The bb is expanded by 4 \x1b[1mgraph-units\x1b[m in all directions (pad) to allow\n  for finite line widths.")
	r.Refresh(s)
	if st := r.Status(); st != "“The bb is expanded…” 1 of 1 (n/N)" || len(r.matches) != 1 || r.matches[0].endLine != 3 {
		t.Errorf("rendered lines: %q %+v", st, r.matches)
	}
	r.Find("okapi", s)
	s.SetContent("The bb is expanded by 4 okapis.")
	r.Refresh(s)
	if r.Status() != "“okapi” 1 of 1 (n/N)" {
		t.Errorf("a find typed after the quote still falls back: %q", r.Status())
	}
}

func TestFindHighlightsAndMoves(t *testing.T) {
	_, s := doc(5)
	var r Reader
	r.StartFind(nil)
	keys(&r, s, "quagga")
	if r.Finding() || r.Status() != "“quagga” 1 of 5 (n/N)" {
		t.Fatalf("status %q", r.Status())
	}
	v := s.View()
	if !strings.Contains(v, "\x1b[1;7mQuagga\x1b[m") {
		t.Errorf("the current match is not highlighted: %q", v)
	}
	r.Next(s, false)
	r.Next(s, false)
	if r.Status() != "“quagga” 3 of 5 (n/N)" || s.Offset() != 8 {
		t.Errorf("after n n: %q, offset %d", r.Status(), s.Offset())
	}
	r.Next(s, true)
	r.Next(s, true)
	r.Next(s, true)
	if r.Status() != "“quagga” 5 of 5 (n/N)" {
		t.Errorf("N wraps around: %q", r.Status())
	}
	// Rendered again (another width): the matches follow.
	s.SetContent(strings.Repeat("x\n", 3) + "a Quagga\n")
	r.Refresh(s)
	if r.Status() != "“quagga” 1 of 1 (n/N)" {
		t.Errorf("after refresh: %q", r.Status())
	}
	r.StartFind(nil)
	for range 10 {
		r.FindKey(tea.KeyPressMsg{Code: tea.KeyBackspace}, s)
	}
	keys(&r, s, "okapi")
	if r.Status() != "“okapi” not found" {
		t.Errorf("no match: %q", r.Status())
	}
}

func TestContentsJump(t *testing.T) {
	md, s := doc(6)
	md = "# Title\n\n```\n## not a heading\n```\n\n" + md
	s.SetContent("  Title\n\n  ## not a heading\n\n" + strings.Join(s.lines, "\n"))
	var r Reader
	if !r.OpenTOC(md, s) || !r.TOCOpen() {
		t.Fatal("no contents")
	}
	if len(r.toc) != 7 || r.toc[0].Text != "Title" || r.toc[0].Line != 0 || r.toc[1].Line != 4 || r.toc[4].Text != "Part D" || r.toc[4].Line != 16 {
		t.Fatalf("contents: %+v", r.toc)
	}
	v := ansi.Strip(r.TOCView(NewStyles(true, true), 40, 10))
	if !strings.Contains(v, "> Title") || !strings.Contains(v, "    Part D") {
		t.Errorf("contents view:\n%s", v)
	}
	for range 4 {
		r.TOCKey(tea.KeyPressMsg{Code: tea.KeyDown}, s)
	}
	r.TOCKey(tea.KeyPressMsg{Code: tea.KeyEnter}, s)
	if r.TOCOpen() || s.Offset() != 16 {
		t.Errorf("jump to Part D: open %v, offset %d", r.TOCOpen(), s.Offset())
	}
	if new(Reader).OpenTOC("no headings here", s) {
		t.Error("contents of a document without headings")
	}
}

// A heading is listed, and found, as it renders: without its emphasis,
// code spans, links and escapes.
func TestPlainHeading(t *testing.T) {
	for in, want := range map[string]string{
		"Do we need *non*-standalone Wasm?":               "Do we need non-standalone Wasm?",
		"The `malloc_usable_size` call":                   "The malloc_usable_size call",
		"**Bold** and _emphasis_ in [a link](http://x/y)": "Bold and emphasis in a link",
		`Pointers: char \*path and snake_case`:            "Pointers: char *path and snake_case",
	} {
		if got := plainHeading(in); got != want {
			t.Errorf("plainHeading(%q) = %q, want %q", in, got, want)
		}
	}
}

// Plain text (a page kept as text) lists its numbered headings.
func TestTextContents(t *testing.T) {
	text := "8. DRD: a thread error detector\n\nTo use this tool, you must specify --tool=drd.\n\n8.1. Overview\n\nDRD is a tool.\n\n8.1.1. Multithreaded Programming Paradigms\n\nThere are two reasons:\n\n1. To model concurrent activities.\n"
	s := &Scroll{}
	s.SetContent(text)
	s.SetHeight(4)
	var r Reader
	if !r.OpenTextTOC(text, s) {
		t.Fatal("no contents")
	}
	var got []string
	for _, h := range r.toc {
		got = append(got, strings.Repeat(">", h.Level)+h.Text)
	}
	if strings.Join(got, "|") != ">8. DRD: a thread error detector|>>8.1. Overview|>>>8.1.1. Multithreaded Programming Paradigms" {
		t.Errorf("contents %q", got)
	}
	if r.toc[2].Line != 8 {
		t.Errorf("8.1.1 found at line %d", r.toc[2].Line)
	}
}

// highlighted is the text each highlight covers in a view, in order, with
// "*" before the current match's.
func highlighted(v string) []string {
	var out []string
	for _, part := range strings.Split(v, "\x1b[")[1:] {
		cur := strings.HasPrefix(part, "1;7m")
		if !cur && !strings.HasPrefix(part, "7m") {
			continue
		}
		text := part[strings.IndexByte(part, 'm')+1:]
		if cur {
			text = "*" + text
		}
		if text != "" && text != "*" {
			out = append(out, text)
		}
	}
	return out
}

// Letters whose lower case is longer or shorter in UTF-8 (Ⱥ is 2 bytes,
// ⱥ 3; İ lowers to two runes) neither crash find nor shift what is
// highlighted.
func TestFindAnyLetters(t *testing.T) {
	for _, tc := range []struct {
		line, query, want string
		n                 int
	}{
		{strings.Repeat("Ⱥ", 20) + " leak", "leak", "leak", 1},
		{strings.Repeat("İ", 9) + " leak and LEAK", "leak", "leak|LEAK", 2},
		{"ⱥȺ ⱥȺ", "ȺȺ", "ⱥȺ|ⱥȺ", 2},
		{"İstanbul, istanbul", "İST", "İst", 1},
		{"Straße STRASSE", "straße", "Straße", 1},
		{"200 \u212a (temperature) and 3 k", "K", "\u212a|k", 2},
	} {
		s := &Scroll{}
		s.SetContent("  \x1b[38;5;252m" + tc.line + "\x1b[m")
		s.SetHeight(3)
		var r Reader
		r.Find(tc.query, s)
		if len(r.matches) != tc.n {
			t.Errorf("%q in %q: %d matches, want %d", tc.query, tc.line, len(r.matches), tc.n)
			continue
		}
		v := s.View()
		got := strings.Join(highlighted(v), "|")
		if strings.TrimPrefix(got, "*") != tc.want {
			t.Errorf("%q in %q: highlighted %q, want %q", tc.query, tc.line, got, tc.want)
		}
		if ansi.Strip(v) != "  "+tc.line {
			t.Errorf("highlighting changed the text: %q", ansi.Strip(v))
		}
	}
}

// Find counts matches, not lines: three on one line are three stops for
// n, each highlighted, only the current one bold.
func TestFindStepsThroughMatchesOnALine(t *testing.T) {
	s := &Scroll{}
	s.SetContent("a leak, a leak, a leak\nno match\nleak")
	s.SetHeight(3)
	var r Reader
	r.Find("leak", s)
	if r.Status() != "“leak” 1 of 4 (n/N)" {
		t.Fatalf("status %q", r.Status())
	}
	for i, want := range []string{"*leak|leak|leak", "leak|*leak|leak", "leak|leak|*leak"} {
		if got := strings.Join(highlighted(s.View()), "|"); !strings.HasPrefix(got, want) {
			t.Errorf("after %d n: %q, want %q…", i, got, want)
		}
		r.Next(s, false)
	}
	if r.Status() != "“leak” 4 of 4 (n/N)" {
		t.Errorf("status %q", r.Status())
	}
}

// A highlighted line keeps its styles and its hyperlink: the match is
// reversed inside them, and the line's style comes back after it.
func TestFindKeepsStylesAndLinks(t *testing.T) {
	link := ansi.SetHyperlink("https://x.test/leak") + "a leak page" + ansi.ResetHyperlink()
	line := "  \x1b[1mBold leak\x1b[m see " + link + "\x1b[38;5;30m tail\x1b[m"
	s := &Scroll{}
	s.SetContent(line)
	s.SetHeight(1)
	var r Reader
	r.Find("leak", s)
	v := s.View()
	if ansi.Strip(v) != ansi.Strip(line) {
		t.Fatalf("text changed: %q", ansi.Strip(v))
	}
	for _, want := range []string{
		"\x1b[1mBold \x1b[1;7mleak\x1b[m\x1b[1m", // bold again after the match
		ansi.SetHyperlink("https://x.test/leak") + "a \x1b[7mleak\x1b[m page" + ansi.ResetHyperlink(),
		"\x1b[38;5;30m tail",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%q", want, v)
		}
	}
	// A style reset inside a match does not end its highlight.
	s.SetContent("a \x1b[3mle\x1b[mak")
	r.Refresh(s)
	if !strings.Contains(s.View(), "\x1b[1;7mle\x1b[m\x1b[1;7mak\x1b[m") {
		t.Errorf("highlight lost after a reset: %q", s.View())
	}
}

// A phrase wrapped onto the next line (glamour's indent before it) is
// found and highlighted on both lines.
func TestFindAcrossALineBreak(t *testing.T) {
	s := &Scroll{}
	s.SetContent("  the heap block\n  overrun was found\n\n  heap\n\n  block overrun")
	s.SetHeight(6)
	var r Reader
	r.Find("Heap  Block overrun", s)
	if r.Status() != "“Heap  Block overrun” 1 of 1 (n/N)" {
		t.Fatalf("status %q (a blank line ends a paragraph)", r.Status())
	}
	lines := strings.Split(s.View(), "\n")
	if got := highlighted(lines[0]); len(got) != 1 || got[0] != "*heap block" {
		t.Errorf("first line: %q", lines[0])
	}
	if !strings.HasPrefix(lines[1], "  \x1b[1;7moverrun\x1b[m") {
		t.Errorf("second line: %q", lines[1])
	}
}

// Whatever the letters and the query, find neither panics nor changes
// the text, and highlights text that folds to the query.
func FuzzFind(f *testing.F) {
	for _, seed := range [][2]string{{"ȺȺȺȺ leak", "leak"}, {"İİ x İ", "i̇"}, {"a \x1b[1mb\x1b[m c\nd", "b c"}, {"ß ẞ ss", "SS"}, {"\u212a k K", "k"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, text, query string) {
		if !utf8.ValidString(text) || !utf8.ValidString(query) || strings.ContainsAny(text, "\x1b\r") {
			return
		}
		s := &Scroll{}
		s.SetContent("  \x1b[3m" + text)
		s.SetHeight(strings.Count(text, "\n") + 1)
		var r Reader
		r.Find(query, s)
		v := s.View()
		if ansi.Strip(v) != ansi.Strip("  \x1b[3m"+text) {
			t.Fatalf("text changed: %q", v)
		}
		q := string(foldQuery(query))
		for _, h := range highlighted(strings.ReplaceAll(v, "\n", " ")) {
			h = strings.TrimPrefix(h, "*")
			var folded []rune
			for _, c := range h {
				if !unicode.IsSpace(c) {
					folded = append(folded, fold(c))
				}
			}
			if !strings.Contains(strings.ReplaceAll(q, " ", ""), string(folded)) {
				t.Fatalf("highlighted %q for %q", h, query)
			}
		}
	})
}

// A link's #fragment opens its page at the section it names: by the
// heading's id, or, where extraction dropped the ids, by the heading
// sharing most words with the fragment and the link's text.
func TestSectionFor(t *testing.T) {
	var toc []Heading
	for i, h := range []string{"7. Helgrind: a thread error detector", "7.1. Overview", "7.2. Detected errors: Misuses of the POSIX pthreads API",
		"7.3. Detected errors: Inconsistent Lock Orderings", "7.4. Detected errors: Data Races", "7.4.3. Interpreting Race Error Messages",
		"7.5. Hints and Tips for Effective Use of Helgrind", "7.6. Helgrind Command-line Options", "7.9. A To-Do List for Helgrind", "Install on Linux"} {
		toc = append(toc, Heading{Level: 2, Text: h, Line: i * 10})
	}
	const page = "http://127.0.0.1:31723/valgrind/html/hg-manual.html"
	for _, tc := range []struct {
		fragment, text, want string
	}{
		{"hg-manual.api-checks", "Misuses of the POSIX pthreads API.", "7.2. Detected errors: Misuses of the POSIX pthreads API"},
		{"hg-manual.api-checks", "", "7.2. Detected errors: Misuses of the POSIX pthreads API"},
		{"hg-manual.lock-orders", "", "7.3. Detected errors: Inconsistent Lock Orderings"},
		{"hg-manual.data-races", "Data races -- accessing memory without adequate locking", "7.4. Detected errors: Data Races"},
		{"hg-manual.effective-use", "hints and tips on how to get the best out of Helgrind.", "7.5. Hints and Tips for Effective Use of Helgrind"},
		{"hg-manual.todolist", "", "7.9. A To-Do List for Helgrind"},
		{"install-on-linux", "", "Install on Linux"},
		{"hg-manual.nothing-like-it", "", ""},
		{"", "Overview", ""},
	} {
		got := ""
		if i := sectionFor(toc, page, tc.fragment, tc.text); i >= 0 {
			got = toc[i].Text
		}
		if got != tc.want {
			t.Errorf("#%s %q: %q, want %q", tc.fragment, tc.text, got, tc.want)
		}
	}
}

// BenchmarkFindInReport finds a word in 5 200 styled lines (a 200 KB
// report rendered), as enter on the find line and every re-render do in
// Update.
func BenchmarkFindInReport(b *testing.B) {
	var lines []string
	for i := range 5200 {
		lines = append(lines, fmt.Sprintf("  \x1b[38;5;252mTerminal interfaces stay \x1b[1mresponsive\x1b[m\x1b[38;5;252m over slow links, section %d looks at render costs.\x1b[m", i))
	}
	s := &Scroll{}
	s.SetContent(strings.Join(lines, "\n"))
	s.SetHeight(40)
	var r Reader
	for i := 0; i < b.N; i++ {
		r.Find("render costs", s)
	}
	b.ReportMetric(float64(len(r.matches)), "matches")
}
