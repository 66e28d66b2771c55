package extract

import (
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestUnlikelyProseBesideTheArticle: a block that Readability finds
// unlikely by its name goes from an article page even when it holds a
// thousand letters of prose, if it sits beside the article (readers'
// comments) or is a list (a slideshow's captions: no article is wrapped
// in a list); the same prose in a box inside the article, around it or its
// named body, or on a page with no article or named body elsewhere, may
// be the article and stays.
func TestUnlikelyProseBesideTheArticle(t *testing.T) {
	story := "<p>" + strings.Repeat("Hotel owners say the towels are washed less often than guests believe, and sheets too. ", 4) + "</p>"
	legend := "<li><h2>3/50 Rates rise</h2><p>" + strings.Repeat("The bank raised its rates for the first time in seven years, and shares fell. ", 3) + "</p></li>"
	gallery := `<div class="full-gallery"><ul class="slides-related">` + strings.Repeat(legend, 6) + `</ul></div>`
	head := `<html><head><title>Hotel secrets</title><meta property="og:type" content="article"></head><body>`
	for _, tc := range []struct {
		name, page string
		gone       bool
	}{
		{"gallery in the body", head + `<article><h1>Hotel secrets</h1><div itemprop="articleBody">` + story + gallery + `</div></article></body></html>`, true},
		{"box in the body", head + `<article><h1>Hotel secrets</h1><div itemprop="articleBody">` + story + `<div class="extra-notes">` +
			strings.Repeat(legend[4:len(legend)-5], 6) + `</div></div></article></body></html>`, false},
		{"wrapper of the body", head + `<article><h1>Hotel secrets</h1><div class="o-row c-fixed-sidebar-layout"><div class="c-article__content">` + story +
			strings.Repeat(legend[4:len(legend)-5], 6) + `</div></div></article></body></html>`, false},
		{"wrapper of the article", head + `<div class="c-ad-section"><article><h1>Hotel secrets</h1>` + story +
			strings.Repeat(legend[4:len(legend)-5], 6) + `</article></div></body></html>`, false},
		{"comments beside the article", head + `<div class="article-content"><h1>Hotel secrets</h1>` + story + `</div>
<div class="user-post-box comment-box">` + strings.Repeat(legend[4:len(legend)-5], 6) + `</div></body></html>`, true},
		{"no article but it", head + `<div class="main-extra"><h2>Hotel secrets</h2>` + story +
			strings.Repeat(legend[4:len(legend)-5], 6) + `</div></body></html>`, false},
	} {
		_, text := extract(t, tc.page, Options{})
		if !strings.Contains(text, "Hotel owners say") {
			t.Errorf("%s: lost the story:\n%s", tc.name, text)
		}
		if kept := strings.Contains(text, "raised its rates"); kept == tc.gone {
			t.Errorf("%s: legends kept %v, want %v:\n%s", tc.name, kept, !tc.gone, text)
		}
	}
}

// TestArticleFooterGoesWhateverItsLength: an article's <footer> (the
// author's box, the post's meta) goes even when it holds more text than
// a short post, as Readability drops every <footer>.
func TestArticleFooterGoesWhateverItsLength(t *testing.T) {
	page := `<html><head><title>Podcast 39</title><meta property="og:type" content="article"></head><body><article><h1>Podcast 39</h1>
<p>In this episode we talk with Anna about knowledge graphs in small firms, and what they cost.</p>
<footer class="entry-meta"><div class="author-info"><p>` + strings.Repeat("Anna is the founder of a consultancy for knowledge management and has written three books on it. ", 3) +
		`</p></div><p>This entry was posted in Podcast and tagged Berlin.</p></footer></article></body></html>`
	_, text := extract(t, page, Options{})
	if !strings.Contains(text, "knowledge graphs") || strings.Contains(text, "founder of a consultancy") || strings.Contains(text, "This entry was posted") {
		t.Errorf("article with its footer:\n%s", text)
	}
}

// TestStandfirstStays: the lead under an article's headline stays with
// it, whether set as a heading at the end of the headline's box (which
// heads nothing, and is not a bare heading for that) or as a paragraph
// in a header left out of the content; a site's motto under its name in
// the banner does not come in.
func TestStandfirstStays(t *testing.T) {
	lead := "The regional government wants to cut the waiting time for new licences from six months to six weeks."
	story := "<p>" + strings.Repeat("The ministry said on Monday that it would hire forty more clerks and move the forms online by spring. ", 4) + "</p>"
	head := `<html><head><title>Licences in six weeks</title><meta property="og:type" content="article"></head><body>`
	for name, page := range map[string]string{
		"heading": head + `<article><div class="heading-wrapper"><h1>Licences in six weeks</h1><h2 class="article-lead">` + lead +
			`</h2></div><div class="article-wrapper">` + story + `</div></article></body></html>`,
		"header": head + `<div class="page"><header class="entry__header"><h1>Licences in six weeks</h1><p>12 May</p><p class="entry__subtitle">` + lead +
			`</p></header><main>` + story + `</main></div></body></html>`,
	} {
		_, text := extract(t, page, Options{})
		if !strings.Contains(text, lead) || !strings.Contains(text, "forty more clerks") || strings.Index(text, lead) > strings.Index(text, "forty more clerks") {
			t.Errorf("%s: lead lost or misplaced:\n%s", name, text)
		}
	}
	motto := "This is the shared home of Steven and Fiona, who love blue skies, the sea and a quiet life in the hills."
	page := head + `<div id="header"><div id="banner"><h1><a href="/">Licences in six weeks</a></h1><h2>` + motto + `</h2></div></div>
<div id="article-area"><h2>Licences in six weeks</h2>` + story + `</div></body></html>`
	if _, text := extract(t, page, Options{}); strings.Contains(text, "shared home") {
		t.Errorf("the banner's motto came in:\n%s", text)
	}
}

// TestDataTableStays: Readability's conditional cleaning leaves a table
// of data, however many of its cells are links (apps linked to their
// store pages); a small box of links set as a table still goes.
func TestDataTableStays(t *testing.T) {
	row := func(app, a, b, c string) string {
		return `<tr><td><a href="https://store.example/` + app + `">` + app + `</a></td><td>` + a + `</td><td>` + b + `</td><td>` + c + `</td></tr>`
	}
	page := `<html><head><title>Smaller updates</title><meta property="og:type" content="article"></head><body><article><h1>Smaller updates</h1>
<p>` + strings.Repeat("A new way of computing patches makes app updates much smaller for everyone who installs them. ", 4) + `</p>
<table>` + row("FarmHeroes", "71 MB", "13 MB", "8 MB") + row("Maps", "32 MB", "17 MB", "9 MB") + row("Photos", "20 MB", "9 MB", "5 MB") +
		row("Mail", "15 MB", "7 MB", "4 MB") + `</table>
<table><tr><td><a href="/a">Older post</a></td><td><a href="/b">Newer post</a></td></tr></table>
<p>` + strings.Repeat("The savings are largest for games, whose assets change little between versions. ", 3) + `</p></article></body></html>`
	_, text := extract(t, page, Options{Tables: true})
	if !strings.Contains(text, "FarmHeroes") || !strings.Contains(text, "71 MB") {
		t.Errorf("the table of data went:\n%s", text)
	}
	if strings.Contains(text, "Older post") {
		t.Errorf("the box of links stayed:\n%s", text)
	}
}

// A slideshow's captions, each opening with its counter ("3/50"), go
// from an article page when GalleryCards says so, however long they
// are: a fifty-picture gallery outweighs the story it sits in.
func TestSlideshowByItsCounters(t *testing.T) {
	story := "<p>" + strings.Repeat("Hotel owners say the towels are washed less often than guests believe, and sheets too. ", 4) + "</p>"
	var legends strings.Builder
	for i := 1; i <= 12; i++ {
		legends.WriteString(`<li><h2><span>` + strconv.Itoa(i) + `/12</span> Rates rise</h2><p>` + strings.Repeat("The bank raised its rates for the first time in seven years, and shares fell. ", 3) + `</p></li>`)
	}
	page := `<html><head><title>Hotel secrets</title><meta property="og:type" content="article"></head><body><article><h1>Hotel secrets</h1><div itemprop="articleBody">` +
		story + `<div class="full-gallery"><ul class="x">` + legends.String() + `</ul></div></div></article></body></html>`
	for _, cards := range []int{3, 0} {
		w := DefaultWeights
		w.GalleryCards = cards
		text := withWeights(t, page, w)
		if !strings.Contains(text, "Hotel owners say") || strings.Contains(text, "raised its rates") != (cards == 0) {
			t.Errorf("GalleryCards %d:\n%s", cards, text)
		}
	}
}

// TestFormAroundThePage: ASP.NET wraps a whole page in one <form>; when
// that page also has a comment box (a text area) and no <h1>, the form
// is still the page, not a comment form to drop. A comment form beside
// the story goes.
func TestFormAroundThePage(t *testing.T) {
	story := "<p>" + strings.Repeat("The president granted the police commissioner an extended leave of absence on Friday. ", 4) + "</p>"
	box := `<div><p>Have your say</p><textarea name="c"></textarea><input type="submit" value="Post"></div>`
	page := `<html><head><title>The Times - Article</title></head><body><form id="aspnetForm" method="post"><div><table><tr><td><a href="/">Home</a> <a href="/news">News</a></td></tr><tr><td class="MainArticleCell">` +
		story + story + `</td></tr></table>` + box + `</div></form></body></html>`
	if _, text := extract(t, page, Options{}); !strings.Contains(text, "extended leave of absence") {
		t.Errorf("the page in a form went with its comment box:\n%s", text)
	}
	beside := `<html><head><title>Leave</title></head><body><div>` + story + story + `</div><form method="post"><p>Leave a comment, and say what you think of the president's decision on the commissioner and of the way it was announced.</p><textarea name="c"></textarea></form></body></html>`
	if _, text := extract(t, beside, Options{}); strings.Contains(text, "Leave a comment") || !strings.Contains(text, "extended leave") {
		t.Errorf("a comment form beside the story:\n%s", text)
	}
}

// TestProseReadsAsArticle: a news page of 2008 says nothing of being an
// article (no og:type, no schema.org, no <article>), but eight
// paragraphs of prose and no code make it one (ProseParagraphs), and
// the article rules then take the list of links under the story out; a manual
// with as much prose and a listing stays a manual.
func TestProseReadsAsArticle(t *testing.T) {
	para := func(i int) string {
		return "<p>The council met again on Tuesday night, paragraph " + strconv.Itoa(i) + ", and the mayor said the bridge would stay shut until the engineers had finished their survey of its piers and the county had found the money to mend them.</p>"
	}
	var story strings.Builder
	for i := range 8 {
		story.WriteString(para(i))
	}
	menu := `<div class="x"><ul><li><a href="/a">Local news from the county</a></li><li><a href="/b">Weather and the roads</a></li><li><a href="/c">High school sports scores</a></li><li><a href="/d">Entertainment and the arts</a></li></ul></div>`
	page := `<html><head><title>Bridge shut</title></head><body><table><tr><td><div class="s">` + story.String() + menu + `</div></td></tr></table></body></html>`
	w := DefaultWeights
	w.ProseParagraphs = 8
	if text := withWeights(t, page, w); strings.Contains(text, "High school sports") || !strings.Contains(text, "paragraph 7") {
		t.Errorf("read as an article:\n%s", text)
	}
	w.ProseParagraphs = 0
	if text := withWeights(t, page, w); !strings.Contains(text, "High school sports") {
		t.Errorf("the menu went without the feature too, so the test shows nothing:\n%s", text)
	}
	// The same story set as runs of text between <br>s, not paragraphs.
	br := strings.NewReplacer("<p>", "", "</p>", "<br><br>").Replace(page)
	for _, tc := range []struct {
		page string
		want bool
	}{{br, true}, {strings.Replace(br, "<br>", "<br><code>x</code>", 1), false}, {strings.Replace(br, "paragraph 7", "paragraph 7<a href=/>", 1), false}} {
		doc, err := html.Parse(strings.NewReader(tc.page))
		if err != nil {
			t.Fatal(err)
		}
		if got := readsAsArticle(doc, 8, 0); got != tc.want {
			t.Errorf("text between <br>s: readsAsArticle %v, want %v", got, tc.want)
		}
	}
	manual := strings.Replace(page, `<div class="x">`, `<pre>make install</pre><div class="x">`, 1)
	w.ProseParagraphs = 8
	if text := withWeights(t, manual, w); !strings.Contains(text, "High school sports") {
		t.Errorf("a page with code was read as an article:\n%s", text)
	}
}

// TestDatedProseReadsAsArticle: a short story of 2008 (three paragraphs)
// under its dateline is read as an article (DatedParagraphs 3), so the
// list of links under it goes; the same three paragraphs with no dated
// line before them, or after a listing, stay a page of another kind, and
// a date after the story says nothing.
func TestDatedProseReadsAsArticle(t *testing.T) {
	para := func(i int) string {
		return "<p>The council met again on Tuesday night, paragraph " + strconv.Itoa(i) + ", and the mayor said the bridge would stay shut until the engineers had finished their survey of its piers and the county had found the money to mend them.</p>"
	}
	story := para(0) + para(1) + para(2)
	menu := `<div class="x"><ul><li><a href="/a">Local news from the county</a></li><li><a href="/b">Weather and the roads</a></li><li><a href="/c">High school sports scores</a></li><li><a href="/d">Entertainment and the arts</a></li></ul></div>`
	page := func(before, after string) string {
		return `<html><head><title>Bridge shut</title></head><body><table><tr><td><div class="s">` + before + story + after + menu + `</div></td></tr></table></body></html>`
	}
	w := DefaultWeights
	w.DatedParagraphs = 3
	for _, tc := range []struct {
		name, page string
		article    bool
	}{
		{"under its dateline", page("<b>Bridge shut</b><br>Associated Press - December 29, 2007 4:44 AM ET<br>", ""), true},
		{"no dateline", page("<b>Bridge shut</b><br>", ""), false},
		{"a date after it", page("", "<p>Posted Jan. 5, 2008</p>"), false},
		{"with code", page("<p>Posted Jan. 5, 2008</p>", "<pre>make install</pre>"), false},
	} {
		text := withWeights(t, tc.page, w)
		if !strings.Contains(text, "paragraph 2") {
			t.Errorf("%s: lost the story:\n%s", tc.name, text)
		}
		if gone := !strings.Contains(text, "High school sports"); gone != tc.article {
			t.Errorf("%s: menu gone %v, want %v:\n%s", tc.name, gone, tc.article, text)
		}
	}
	w.DatedParagraphs = 0
	if text := withWeights(t, page("<p>Posted Jan. 5, 2008</p>", ""), w); !strings.Contains(text, "High school sports") {
		t.Errorf("the menu went without the feature too, so the test shows nothing:\n%s", text)
	}
}
