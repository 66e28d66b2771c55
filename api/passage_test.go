package api

import (
	"strings"
	"testing"
)

func TestLocate(t *testing.T) {
	page := "Intro.\n\nTo call a function, use the ffi_call function:\n\n    ffi_call(cif, fn, rv, av);\n\n“Still reachable”. A start-pointer is found."
	for _, c := range []struct{ quote, want string }{
		{"To call a function, use the `ffi_call` function:", "To call a function, use the ffi_call function"},
		{"\"Still reachable\". A start-pointer is found.", "Still reachable”. A start-pointer is found"},
		{"ffi_call(cif, fn, rv, av);", "ffi_call(cif, fn, rv, av"},
	} {
		s, e, ok := Locate(page, c.quote, 0)
		if !ok || page[s:e] != c.want {
			t.Errorf("Locate(%q) = %d %d %v: %q, want %q", c.quote, s, e, ok, page[max(s, 0):max(e, 0)], c.want)
		}
	}
	// A sentence holding markdown links is found by its words: the
	// links' destinations are not words of it.
	md := "Intro.\n\n[Rust](https://www.rust-lang.org/) is a language; see [the book](../book/ch01(2).html \"The book\") and ![logo](a.png)."
	if s, e, ok := Locate(md, "Rust is a language; see the book and logo.", 0); !ok || s != strings.Index(md, "Rust") || e != strings.Index(md, "logo")+4 {
		t.Errorf("a sentence with links: %d %d %v: %q", s, e, ok, md[max(s, 0):max(e, 0)])
	}
	if _, _, ok := Locate(md, "Rust https www rust lang org is", 0); ok {
		t.Error("a link's destination read as words of the text")
	}
	if _, _, ok := Locate(page, "not on the page", 0); ok {
		t.Error("found a quote the page does not hold")
	}
	// From an offset: the second of two equal sentences.
	two := "It works. It works."
	if s, _, _ := Locate(two, "It works.", 5); s != 10 {
		t.Errorf("from 5: %d, want 10", s)
	}
}

func TestPassageVerify(t *testing.T) {
	page := "One. The quote is here. Two."
	p := ResearchPassage{Quote: "The quote is here.", Start: 5, End: 22}
	if st, _, _ := p.Verify(page); st != PassageStands {
		t.Errorf("in place: %s", st)
	}
	if st, s, _ := p.Verify("New intro. " + page); st != PassageMoved || s != 16 {
		t.Errorf("after an insert: %s at %d", st, s)
	}
	if st, _, _ := p.Verify("One. Two."); st != PassageGone {
		t.Errorf("removed: %s", st)
	}
}

func TestAnchorContext(t *testing.T) {
	page := "Alpha says it works. Beta says it works. Gamma ends."
	a := AnchorAt(page, 31, 40) // the second "it works."
	if a.Quote != "it works" || a.Prefix != "Alpha says it works. Beta says" || a.Suffix != ". Gamma ends." {
		t.Fatalf("anchor %+v", a)
	}
	if st, s, _ := a.Verify(page); st != PassageStands || s != 31 {
		t.Errorf("in place: %s at %d", st, s)
	}
	// Re-extracted with the first sentence rewritten and markup added:
	// the quote is found after "Beta says", not at its first occurrence.
	again := "# Notes\n\nAlpha now says it works, *mostly*. **Beta** says it works. Gamma ends."
	st, s, e := a.Verify(again)
	if st != PassageMoved || again[s:e] != "it works" || s < strings.Index(again, "Beta") {
		t.Errorf("moved: %s %q at %d", st, again[max(s, 0):max(e, 0)], s)
	}
	if st, _, _ := a.Verify("Alpha and Beta left."); st != PassageGone {
		t.Errorf("gone: %s", st)
	}
}

// A quote reads a markdown link as its text, whole or begun inside it.
func TestQuoteText(t *testing.T) {
	for in, want := range map[string]string{
		"[Rust](https://www.rust-lang.org/) is\n  a language":       "Rust is a language",
		"Rust](https://www.rust-lang.org/) is a language":           "Rust is a language",
		"see ![logo](a.png) and [the book](b(2).html \"The book\")": "see logo and the book",
		"an array [0] (the first) and `a[i](x)`":                    "an array [0] (the first) and `a[i](x)`",
		"impl \\![Send](https://doc.rust-lang.org/Send.html) for T": "impl \\!Send for T",
	} {
		if got := QuoteText(in); got != want {
			t.Errorf("QuoteText(%q) = %q, want %q", in, got, want)
		}
	}
	md := "Intro. [Rust](https://www.rust-lang.org/) is a language. End."
	a := AnchorAt(md, strings.Index(md, "[Rust"), strings.Index(md, " End"))
	if a.Quote != "Rust is a language" {
		t.Errorf("anchor quote %q", a.Quote)
	}
	if st, _, _ := a.Verify(md); st != PassageStands {
		t.Errorf("the anchor does not stand in its own text: %s", st)
	}
	// A span that ends on a link, at its text or past its destination,
	// is quoted without the link's markup and ends at its last word.
	md = "To begin, check out the [official docs](https://doc.rust-lang.org/std/). Then read on."
	for _, end := range []int{strings.Index(md, "]("), strings.Index(md, ". Then")} {
		a := AnchorAt(md, 0, end)
		if a.Quote != "To begin, check out the official docs" || md[a.End-4:a.End] != "docs" {
			t.Errorf("span to %d: quote %q ending %q", end, a.Quote, md[:a.End])
		}
		if st, _, _ := a.Verify(md); st != PassageStands {
			t.Errorf("span to %d: the anchor does not stand in its own text: %s", end, st)
		}
	}
}
