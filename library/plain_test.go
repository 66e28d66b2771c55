package library

import (
	"strings"
	"testing"

	"hark/api"
)

// Snippets, previews and titles read as text: no escapes, fences,
// autolink brackets, link syntax, heading or table marks.
func TestPlainText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"**1. Background**\n\n---\n\nthe *okapi* lives <http://okapi.example/x> in `C` code", "1. Background the okapi lives http://okapi.example/x in C code"},
		{"## Summary\n\n> see [the manual](https://valgrind.org/docs) and ![logo](x.png)", "Summary see the manual and logo"},
		{"| col | two |\n|---|---|\n| --leak-check=full | x |", "col two --leak-check=full x"},
		{"The type is `ffi_cif \\*cif`:\n\n```c\nffi_cif cif;\n```\n", "The type is ffi_cif *cif: ffi_cif cif;"},
		{"# Tilde \\~ and caret ^", "Tilde ~ and caret ^"},
		{"- snake_case and a*b stay", "snake_case and a*b stay"},
	} {
		if got := PlainText(tc.in); got != tc.want {
			t.Errorf("PlainText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A page is titled by its first heading of any level, as text; only a
// page with none by its URL.
func TestPageTitle(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"### 2.3 Types\n\n- [Primitive Types](x)", "2.3 Types"},
		{"# Tilde \\~ and caret ^\n\ntext", "Tilde ~ and caret ^"},
		{"```\n# not a heading\n```\n\n## Real", "Real"},
		{"just text", "http://h/p.html"},
	} {
		if got := PageTitle(api.PageContent{URL: "http://h/p.html", RawContent: tc.body}); got != tc.want {
			t.Errorf("PageTitle(%q) = %q, want %q", tc.body, got, tc.want)
		}
	}
}

// Library search's snippets are text, not markdown.
func TestSearchSnippetsAreText(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	body := "## Closures\n\nThe closure API takes `ffi_cif \\*cif` and <http://sourceware.org/libffi/>:\n\n```c\nffi_prep_closure_loc(closure, &cif, fun, NULL, code);\n```\n"
	if err := s.Add(t.Context(), &Item{Kind: KindPage, Tool: api.ToolExtract, Title: "Closures", URL: "http://h/c.html", Body: body}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Search(t.Context(), "closure", "", 5)
	if err != nil || len(got) != 1 {
		t.Fatalf("search: %v %v", got, err)
	}
	for _, bad := range []string{`\*`, "```", "<http", "`"} {
		if strings.Contains(got[0].Snippet, bad) {
			t.Errorf("snippet %q holds %q", got[0].Snippet, bad)
		}
	}
	list, _ := s.List(t.Context(), "", 5)
	if len(list) != 1 || strings.Contains(list[0].Snippet, "```") || strings.Contains(list[0].Snippet, `\*`) {
		t.Errorf("list preview %q", list[0].Snippet)
	}
}

// BibTeX titles: text without markdown escapes, ~ and ^ as LaTeX
// commands (a raw ~ is a space, a raw ^ an error), acronyms and inner
// capitals in braces; entries are @misc, which BibTeX and biblatex both
// read, and the file says so.
func TestBibTeXTitles(t *testing.T) {
	for in, want := range map[string]string{
		`Tilde \~ and caret ^`:              `Tilde \textasciitilde{} and caret \textasciicircum{}`,
		"Misuses of the POSIX pthreads API": "Misuses of the {POSIX} pthreads {API}",
		"JavaScript on macOS, 100% & more":  `{JavaScript} on {macOS,} 100\% \& more`,
		"a_b {c} -- 42":                     `a\_b \{c\} -- 42`,
	} {
		if got := bibTitle(in); got != want {
			t.Errorf("bibTitle(%q) = %q, want %q", in, got, want)
		}
	}
	it := Item{Kind: KindPage, Title: `Tilde \~ and caret ^`, URL: "https://docs.example/t", Gateway: "embedded"}
	b := BibTeX(it)
	if !strings.Contains(b, "@misc{docs-tilde-caret,") || !strings.Contains(b, `howpublished = {\url{https://docs.example/t}}`) ||
		!strings.Contains(b, "% Sources kept by hark, as @misc entries") || strings.Contains(b, "@online") || strings.Contains(b, `\textbackslash{}`) {
		t.Errorf("bibtex:\n%s", b)
	}
}

// Two searches of one query with other options are told apart by their
// titles; the same options give the same title (and replace each other).
func TestSearchTitlesSayTheOptions(t *testing.T) {
	out := []byte(`{"query":"okapi","results":[]}`)
	plain := Items(api.Result{Tool: api.ToolSearch, Inputs: map[string]any{"query": "okapi"}, Output: out})
	more := Items(api.Result{Tool: api.ToolSearch, Inputs: map[string]any{"query": "okapi", "max_results": 6, "topic": "news"}, Output: out})
	if plain[0].Title != "okapi" || more[0].Title != "okapi · max_results=6, topic=news" {
		t.Errorf("titles %q and %q", plain[0].Title, more[0].Title)
	}
}
