package score

import (
	"fmt"
	"math"
	"testing"
)

// The yardstick reads markdown as markdown: a hard line break is a break,
// and a destination may carry its parentheses percent-encoded.
func TestStructureReadsMarkdownAsMarkdown(t *testing.T) {
	pg := Page{Name: "p", URL: "http://host/blog/post.html",
		HTML: []byte(`<body><p>This is similar to XHR's <code>withCredentials</code><br>flag, and
<a href="https://archive.example/2016.html#31_October_(Sizes)">the archive entry</a> says why at length.</p>
<pre>
int x;
int y;</pre></body>`),
		Truth: []byte("This is similar to XHR's withCredentials flag, and the archive entry says why at length.\nint x;\nint y;\n"),
	}
	md := "This is similar to XHR's `withCredentials`\\\nflag, and [the archive entry](https://archive.example/2016.html#31_October_%28Sizes%29) says why at length.\n\n```\nint x;\nint y;\n```\n"
	text := "This is similar to XHR's withCredentials\nflag, and the archive entry says why at length.\n\n    int x;\n    int y;\n"
	var missed []string
	s := Structure(pg, md, text, func(kind, what string) { missed = append(missed, kind+": "+what) })
	if s.Spacing.Kept != s.Spacing.All || s.Links.All != 1 || s.Links.Kept != 1 || s.Code.All != 2 || s.Code.Kept != 2 {
		t.Errorf("scores %+v, missed %q", s, missed)
	}
}

// A code block whose first line is empty once its leading newline is
// gone is not measured, and does not crash the scorer.
func TestFencedInEmptyFirstLine(t *testing.T) {
	if fencedIn("```\n\nx\n```\n", []string{"", "x"}) {
		t.Error("an empty first line matched")
	}
}

// The public benchmarks' own measures: Scrapinghub's 4-shingles with
// repeats, normalised per page, and WCXB's bag of words.
func TestPublicMeasures(t *testing.T) {
	tp, fp, fn := Shingles4("one two three four five", "one two three four five six")
	if tp != 2.0/3 || fp != 0 || fn != 1.0/3 { // two shingles of three
		t.Errorf("Shingles4 = %v %v %v, want 2/3 0 1/3", tp, fp, fn)
	}
	if p, r, f := Mean4([][3]float64{{tp, fp, fn}, {1, 0, 0}}); p != 1 || math.Abs(r-5.0/6) > 1e-9 || math.Abs(f-10.0/11) > 1e-9 {
		t.Errorf("Mean4 = %v %v %v", p, r, f)
	}
	if p, r, _ := Words("The cat the", "the cat sat"); p != 2.0/3 || r != 2.0/3 {
		t.Errorf("Words = %v %v", p, r)
	}
}

func TestSiteSplit(t *testing.T) {
	for raw, want := range map[string]string{
		"https://www.bbc.co.uk/news/x":                                    "bbc.co.uk",
		"http://blog.example.com/post":                                    "example.com",
		"https://web.archive.org/web/20160218174457/http://a.lettern.de/": "lettern.de",
		"http://localhost/":                                               "localhost",
	} {
		if got := SiteOf(raw); got != want {
			t.Errorf("SiteOf(%q) = %q, want %q", raw, got, want)
		}
	}
	for name, want := range map[string]string{"rdb_wikipedia-2.html": "wikipedia", "blog_x.html": "blog_x", "valgrind_manual.html": "valgrind"} {
		if got := CommittedSite(name); got != want {
			t.Errorf("CommittedSite(%q) = %q, want %q", name, got, want)
		}
	}
	// A third of the sites or so are held out, and the rest fall in
	// every fold: the split is not degenerate.
	held, folds := 0, map[int]int{}
	for i := 0; i < 3000; i++ {
		site := fmt.Sprintf("site%d.example", i)
		if HeldOut(site) {
			held++
		} else {
			folds[Fold(site)]++
		}
	}
	if held < 900 || held > 1100 || len(folds) != Folds {
		t.Errorf("%d of 3000 sites held out, %d folds used", held, len(folds))
	}
}
