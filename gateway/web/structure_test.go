package web

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"hark/gateway/extract/score"
)

// testPage reads one page of testdata/extract with its truth.
func testPage(t *testing.T, file string) score.Page {
	t.Helper()
	body, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	truth, err := os.ReadFile(strings.TrimSuffix(file, ".html") + ".truth.txt")
	if err != nil {
		t.Fatal(err)
	}
	return score.Page{Name: filepath.Base(file), URL: "http://docs.example/manual/html/" + filepath.Base(file), HTML: body, Truth: truth}
}

// measureStructure scores the advanced extraction of one page (see
// score.Structures); STRUCTURE_MISSES=1 logs each item lost.
func measureStructure(t *testing.T, file string) score.Structures {
	t.Helper()
	pg := testPage(t, file)
	p, err := parseHTML(pg.URL, pg.HTML, "", time.Now(), extractOptions{Advanced: true})
	if err != nil {
		t.Fatal(err)
	}
	var miss func(kind, what string)
	if os.Getenv("STRUCTURE_MISSES") != "" {
		miss = func(kind, what string) { t.Logf("%s: %s missed: %q", pg.Name, kind, what) }
	}
	return score.Structure(pg, p.Markdown, p.Text, miss)
}

// TestExtractionStructure scores what extraction keeps of each page's
// structure (see structureScores) over testdata/extract, and fails when
// any score over the whole set is under 0.95. Run with -v for the table.
func TestExtractionStructure(t *testing.T) {
	files, _ := filepath.Glob("testdata/extract/*.html")
	sort.Strings(files)
	var total score.Structures
	for _, f := range files {
		s := measureStructure(t, f)
		t.Logf("%-38s spacing %4d/%-4d headings %3d/%-3d code %3d/%-3d lists %3d/%-3d links %3d/%-3d", filepath.Base(f),
			s.Spacing.Kept, s.Spacing.All, s.Headings.Kept, s.Headings.All, s.Code.Kept, s.Code.All,
			s.Lists.Kept, s.Lists.All, s.Links.Kept, s.Links.All)
		total.Add(s)
	}
	for _, c := range []struct {
		name string
		s    score.Count
	}{{"spacing", total.Spacing}, {"headings", total.Headings}, {"code", total.Code}, {"lists", total.Lists}, {"links", total.Links}} {
		t.Logf("%-9s %.3f (%d of %d)", c.name, c.s.Value(), c.s.Kept, c.s.All)
		if c.s.All < 5 {
			t.Errorf("%s: only %d items measured; the test set lost its %s", c.name, c.s.All, c.name)
		}
		if c.s.Value() < 0.95 {
			t.Errorf("%s score %.3f is under 0.95", c.name, c.s.Value())
		}
	}
}

// Body links resolve against <base href> when the page has one, and
// against the page URL (not the site root) when it has none.
func TestBodyLinksResolveAgainstThePage(t *testing.T) {
	body := func(head string) []byte {
		return []byte(`<html><head>` + head + `</head><body><main><h1>Authors</h1>
<p>The people who wrote it are listed in <a href="dist.authors.html">the authors file</a>, beside the rest of the manual.</p></main></body></html>`)
	}
	cases := []struct{ head, want string }{
		{"", "[the authors file](http://host/valgrind/html/dist.authors.html)"},
		{`<base href="http://mirror.example/docs/">`, "[the authors file](http://mirror.example/docs/dist.authors.html)"},
		{`<base href="../">`, "[the authors file](http://host/valgrind/dist.authors.html)"},
	}
	for _, c := range cases {
		p, err := parseHTML("http://host/valgrind/html/index.html", body(c.head), "", time.Now(), extractOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.Markdown, c.want) {
			t.Errorf("with head %q: markdown lacks %q:\n%s", c.head, c.want, p.Markdown)
		}
	}
}

// A plain-text page comes back as markdown that renders as the same text.
func TestPlainTextPagesAreEscapedForMarkdown(t *testing.T) {
	p := parsePlain("http://host/notes.txt", "# not a heading\nchar *path = NULL; void *user_data;\n    int *indented_code;\n", false, time.Now())
	for _, want := range []string{`\# not a heading`, `char \*path = NULL; void \*user_data;`, "    int *indented_code;"} {
		if !strings.Contains(p.Markdown, want) {
			t.Errorf("markdown lacks %q:\n%s", want, p.Markdown)
		}
	}
	if !strings.Contains(p.Text, "char *path = NULL;") {
		t.Errorf("text changed: %q", p.Text)
	}
}

// Advanced extraction lists the video and frames of the article, not the
// like buttons and advert frames of the page around it.
func TestEmbeddedContentIsTheArticles(t *testing.T) {
	page := []byte(`<html><head><title>Launch</title></head><body>
<header><iframe src="https://ads.example/banner.html"></iframe></header>
<article><h1>Launch</h1><p>The launch went well, and the whole of it was filmed from the tower for the archive.</p>
<video src="launch.mp4" title="The launch"></video>
<iframe src="https://maps.example/embed?site=7" title="Launch site"></iframe>
<div class="sharedaddy"><iframe src="https://widgets.example/likes.html"></iframe></div></article>
<aside><iframe src="https://social.example/xd_arbiter.html"></iframe></aside></body></html>`)
	p, err := parseHTML("http://host/news/launch.html", page, "", time.Now(), extractOptions{Advanced: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Embedded content:", "- Video: [The launch](http://host/news/launch.mp4)", "- Embedded frame: [Launch site](https://maps.example/embed?site=7)"} {
		if !strings.Contains(p.Markdown, want) || !strings.Contains(p.Text, want) {
			t.Errorf("lacks %q:\n%s", want, p.Markdown)
		}
	}
	for _, not := range []string{"ads.example", "widgets.example", "social.example"} {
		if strings.Contains(p.Markdown, not) {
			t.Errorf("lists the page furniture's %s:\n%s", not, p.Markdown)
		}
	}
}

// The structure scores count only what the truth files hold; these real
// reference pages must also keep the headings, links and code that make
// them what they are, in basic and advanced extraction alike.
func TestReferencePagesKeepTheirShape(t *testing.T) {
	cases := []struct {
		file string
		md   []string
	}{
		{"libxslt1-dev_html_APIconstructors.html", []string{
			"## Type const xmlChar \\*:\n\n[xsltEvalStaticAttrValueTemplate](http://docs.example/manual/html/html/libxslt-templates.html#xsltEvalStaticAttrValueTemplate)\\\n[xsltGetCNsProp]",
			"## Type xsltTransformFunction:"}},
		{"libffi8_Types.html", []string{"### 2.3 Types\n\n- [Primitive Types](http://docs.example/manual/html/Primitive-Types.html)\n- [Structures]"}},
		{"valgrind_index.html", []string{"[Valgrind User Manual](http://docs.example/manual/html/manual.html)", "[GNU Licenses](http://docs.example/manual/html/licenses.html)"}},
		{"libpocketsphinx-dev_dict_8h_source.html", []string{"# dict.h\n\n```\n/* -*- c-basic-offset: 4; indent-tabs-mode: nil -*- */\n",
			"typedef struct {\n    char *word;\n    s3cipid_t *ciphone;", "} dictword_t;\n", "#endif\n```"}},
		{"libpocketsphinx-dev_dict_8h.html", []string{"# dict.h File Reference", "## Macros\n\n\\#define [S3DICT_INC_SZ]",
			"## dict_init()\n\n```\ndict_t * dict_init (cmd_ln_t * config, bin_mdef_t * mdef)\n```"}},
	}
	for _, c := range cases {
		pg := testPage(t, "testdata/extract/"+c.file)
		for _, adv := range []bool{false, true} {
			p, err := parseHTML(pg.URL, pg.HTML, "", time.Now(), extractOptions{Advanced: adv})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.md {
				if !strings.Contains(p.Markdown, w) {
					t.Errorf("%s (advanced %v): markdown lacks %q:\n%.1500s", c.file, adv, w, p.Markdown)
				}
			}
			if strings.Contains(p.Markdown, "◆") || strings.Contains(p.Markdown, "****") {
				t.Errorf("%s: a glyph or nested bold:\n%.1500s", c.file, p.Markdown)
			}
		}
	}
}
