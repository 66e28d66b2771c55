package pages

import (
	"context"
	"strings"
	"testing"

	"hark/api"
	"hark/library"
	"hark/ui/common"
	"hark/ui/internal/uitest"
)

// In the reader, v selects the sentence at the top, j moves to the next,
// J takes one more, enter opens the note line; the note's #words are
// tags; the highlight is kept in the library against the page and shown
// underlined.
func TestReaderHighlightWithNote(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	dir := t.TempDir()
	c.Library = func() (*library.Store, error) { return library.Open(dir) }
	p := New(c)
	p.SetSize(80, 24)
	const u = "file:///srv/docs/okapi.md"
	body := "# Okapi facts\n\nThe okapi is a giraffid of the Congo. Its stripes hide it in the forest. It eats leaves.\n\nIt is shy."
	_, cmd := p.Update(common.OpenPagesMsg{ReadMarkdown: true, Read: []api.PageContent{{URL: u, RawContent: body}}})
	uitest.Settle(drive(p), cmd)
	if !strings.Contains(uitest.Plain(p.View()), "giraffid") {
		t.Fatalf("the page is not shown:\n%s", uitest.Plain(p.View()))
	}
	press(p, "v")
	if !p.mark.Selecting() || !strings.Contains(uitest.Plain(p.View()), "select 1 sentence") {
		t.Fatalf("v did not select:\n%s", uitest.Plain(p.View()))
	}
	press(p, "j", "J", "enter")
	if !p.mark.Noting() || p.mark.Quote() != "Its stripes hide it in the forest. It eats leaves" {
		t.Fatalf("selection %q, noting %v", p.mark.Quote(), p.mark.Noting())
	}
	for _, k := range uitest.Type("camouflage #zoology") {
		p.Update(k)
	}
	press(p, "enter")
	s, err := c.Library()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hs, err := s.Highlights(context.Background(), "", 0)
	if err != nil || len(hs) != 1 {
		t.Fatalf("kept: %v %d", err, len(hs))
	}
	h := hs[0]
	if h.Quote != "Its stripes hide it in the forest. It eats leaves" || h.Note != "camouflage" || strings.Join(h.Tags, ",") != "zoology" || h.URL != u {
		t.Errorf("highlight %+v", h)
	}
	it, _ := s.Get(context.Background(), h.ItemID)
	if it.Body[h.Start:h.End] != "Its stripes hide it in the forest. It eats leaves" {
		t.Errorf("offsets point at %q", it.Body[h.Start:h.End])
	}
	if p.mark.Selecting() || !strings.Contains(p.View(), "\x1b[4m") {
		t.Errorf("the highlight is not underlined:\n%q", p.View())
	}
	// Opened again, the page shows it again.
	p.mark.Reset(&p.scroll)
	uitest.Settle(drive(p), p.read(p.reading))
	if !strings.Contains(p.View(), "\x1b[4m") {
		t.Errorf("a page opened again does not underline its highlight")
	}
}

// A heading is not a sentence to select: v takes the first sentence
// under it, and a passage never runs across the next heading, so no
// quote holds a heading's words ("Summary If a working tree…").
func TestHighlightStepsOverHeadings(t *testing.T) {
	const u = "file:///srv/docs/git.md"
	body := "# Git worktrees\n\n## Summary\n\nIf a working tree is dirty, `git worktree remove` refuses. Use force to drop it.\n\n## Details\n\nA worktree shares the repository's objects."
	p := readMarkdown(t, 80, 24, u, body)
	press(p, "v")
	if q := p.mark.Quote(); !strings.HasPrefix(q, "If a working tree is dirty") {
		t.Fatalf("v selected %q, not the first sentence under the headings", q)
	}
	press(p, "J", "J", "J")
	if q := p.mark.Quote(); strings.Contains(q, "Details") || !strings.HasSuffix(q, "Use force to drop it") {
		t.Errorf("J ran the passage across a heading: %q", q)
	}
	press(p, "j")
	if q := p.mark.Quote(); q != "A worktree shares the repository's objects" {
		t.Errorf("j from the section's last sentence selected %q", q)
	}
	press(p, "k", "k")
	if q := p.mark.Quote(); !strings.HasPrefix(q, "If a working tree is dirty") {
		t.Errorf("k back selected %q", q)
	}
}

// A sentence that opens with a link is selected where it stands: the
// rendered line shows the link's URL after its text ("Rust
// https://www.rust-lang.org/ is a modern…"), which hid the sentence's
// first words, so v took the sentence after it.
func TestHighlightSentenceWithLink(t *testing.T) {
	const u = "http://127.0.0.1:18777/index.html"
	body := "[Rust](https://www.rust-lang.org/) is a modern systems programming language focusing on safety. It accomplishes these goals by being memory safe.\n\nNow let's begin!"
	p := readMarkdown(t, 80, 24, u, body)
	if !strings.Contains(uitest.Plain(p.View()), "https://www.rust-lang.org/ is a modern") {
		t.Fatalf("the link's URL is not shown after its text (the case this test is for):\n%s", uitest.Plain(p.View()))
	}
	press(p, "v")
	if q := p.mark.Quote(); !strings.HasPrefix(q, "Rust is a modern systems") {
		t.Errorf("v selected %q, not the sentence at the top", q)
	}
}

// A selected sentence that holds a link is shown selected whole, on
// each of its lines: the rendered text has the link's URL after its
// words, so the sentence as said is not found as shown, and only its
// first six words were painted.
func TestHighlightWholeSentenceWithLink(t *testing.T) {
	const u = "http://127.0.0.1:18777/hello.html"
	body := "Rust by Example is a collection of runnable examples that illustrate various Rust concepts and standard libraries, which you can read alongside [the Rust book](https://doc.rust-lang.org/book/) and try in the playground before you write programs of your own at home.\n\nNow let's begin!"
	p := readMarkdown(t, 80, 24, u, body)
	press(p, "v")
	if q := p.mark.Quote(); !strings.HasSuffix(q, "programs of your own at home") {
		t.Fatalf("v selected %q", q)
	}
	var selected []string
	for _, l := range strings.Split(p.View(), "\n") {
		if strings.Contains(l, "\x1b[7m") {
			selected = append(selected, uitest.Plain(l))
		}
	}
	all := strings.Join(selected, " ")
	if len(selected) < 3 || !strings.Contains(all, "at home.") || strings.Contains(all, "begin") {
		t.Errorf("the lines shown selected: %q; want the sentence's every line, to its last words", selected)
	}
}

// A sentence that ends on a link is quoted without the link's bracket
// and shown selected to its end: it was found up to its last word,
// inside the link's text, so its quote read "… check out the [official
// docs" (and was kept so) and was not found as rendered.
func TestHighlightSentenceEndingOnALink(t *testing.T) {
	body := "Rust by Example (RBE) is a collection of runnable examples. To get even more out of these examples, don't forget to [install Rust locally](https://www.rust-lang.org/tools/install) and check out the [official docs](https://doc.rust-lang.org/std/). Additionally for the curious, you can also read the source.\n\nNow let's begin!"
	p := readMarkdown(t, 120, 40, "http://127.0.0.1:18777/index.html", body)
	press(p, "v", "j")
	if q := p.mark.Quote(); q != "To get even more out of these examples, don't forget to install Rust locally and check out the official docs" {
		t.Fatalf("quote %q", q)
	}
	var selected []string
	for _, l := range strings.Split(p.View(), "\n") {
		if strings.Contains(l, "\x1b[7m") {
			selected = append(selected, uitest.Plain(l))
		}
	}
	if all := strings.Join(selected, " "); !strings.Contains(all, "check out the official docs") {
		t.Errorf("the lines shown selected: %q; want the sentence to its end", selected)
	}
}

// A highlight kept from sentences that end on a link is kept as said,
// without the link's markup: the library's anchor trimmed the span's
// end into the link's destination and kept "… the [official
// docs](https://doc.rust-lang.org/std".
func TestHighlightKeptEndingOnALink(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	dir := t.TempDir()
	c.Library = func() (*library.Store, error) { return library.Open(dir) }
	p := New(c)
	p.SetSize(120, 40)
	body := "# Rust by Example\n\nRust by Example (RBE) is a collection of runnable examples. To get even more out of these examples, don't forget to [install Rust locally](https://www.rust-lang.org/tools/install) and check out the [official docs](https://doc.rust-lang.org/std/). Additionally for the curious, you can also read the source.\n\nNow let's begin!"
	_, cmd := p.Update(common.OpenPagesMsg{ReadMarkdown: true, Read: []api.PageContent{{URL: "http://127.0.0.1:18777/", RawContent: body}}})
	uitest.Settle(drive(p), cmd)
	press(p, "v", "J", "enter", "x", "enter")
	s, err := c.Library()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hs, err := s.Highlights(context.Background(), "", 0)
	if err != nil || len(hs) != 1 {
		t.Fatalf("kept: %v %d", err, len(hs))
	}
	const want = "Rust by Example (RBE) is a collection of runnable examples. To get even more out of these examples, don't forget to install Rust locally and check out the official docs"
	if hs[0].Quote != want {
		t.Errorf("kept %q", hs[0].Quote)
	}
}

// readMarkdown is a Pages pane of the given size reading body, a
// markdown page at u.
// A page opened at a report's quote highlights the whole quote, across
// the lines it wraps onto, and opens there; a quote the rendered page
// does not hold word for word is found by its opening words.
func TestOpenedAtAQuoteHighlightsIt(t *testing.T) {
	var body strings.Builder
	body.WriteString("# Okapi facts\n\n")
	for range 30 {
		body.WriteString("Filler about the forest and its trees, which says nothing of note.\n\n")
	}
	quote := "The okapi is a giraffid of the Congo rainforest, shy and seldom seen by anyone who looks for it."
	body.WriteString(quote + " Its stripes hide it.\n\nWhen the forest is quiet, count them with `okapi --count`. Then rest.\n")
	for _, tc := range []struct{ at, want string }{
		{quote, quote},
		{"When the forest is quiet, count them with okapi --count.", "When the forest is quiet, count"},
	} {
		c, _ := uitest.Common(t, nil)
		p := New(c)
		p.SetSize(60, 20)
		_, cmd := p.Update(common.OpenPagesMsg{ReadMarkdown: true, At: tc.at, Read: []api.PageContent{{URL: "https://docs.example/okapi", RawContent: body.String()}}})
		uitest.Settle(drive(p), cmd)
		v := p.View()
		// The status names it by its first words: the page's address
		// still fits beside it.
		if st := p.rd.Status(); st != "“"+strings.Join(strings.Fields(tc.want)[:4], " ")+"…” 1 of 1 (n/N)" {
			t.Errorf("opened at %q: status %q", tc.at, st)
		}
		if !strings.Contains(v, "\x1b[1;7m") || !strings.Contains(uitest.Plain(v), strings.Fields(tc.want)[0]) {
			t.Errorf("opened at %q: not shown highlighted:\n%s", tc.at, uitest.Plain(v))
		}
	}
}

func readMarkdown(t *testing.T, width, height int, u, body string) *Pane {
	t.Helper()
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(width, height)
	_, cmd := p.Update(common.OpenPagesMsg{ReadMarkdown: true, Read: []api.PageContent{{URL: u, RawContent: body}}})
	uitest.Settle(drive(p), cmd)
	return p
}
