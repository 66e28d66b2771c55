package extract

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// TestArticlePrecisionRules checks trafilatura's rules as hark applies
// them inside articles, each on a block that must go and, beside it, one
// like it that must stay.
func TestArticlePrecisionRules(t *testing.T) {
	para := func(s string) string { return "<p>" + strings.Repeat(s+" ", 3) + "</p>" }
	story := para("The council voted on Tuesday to open the library on Sundays, after a year of petitions from readers.") +
		para("Librarians said the change needs four more staff, and the budget, which the council also passed, pays for them.")
	page := `<html><head><title>Library opens on Sundays</title><meta property="og:type" content="article"></head><body>
<div class="layout"><div class="story-body"><h1>Library opens on Sundays</h1>
<p class="article-teaser">Readers asked for a year; the council said yes.</p><p><time datetime="2011-05-23">23 May 2011</time></p>` + story + `
<div class="component article-body-text"><p>The mayor opened the doors at nine on the first Sunday.</p></div>
<p>The library first opened on a <time>Sunday</time> in June, to a queue of readers that went round the block.</p><time>24 May 2011</time>
<p><strong>Read more:</strong> <a href="/pool">Pool closes for repairs in May</a></p>
<p>Source files: <a href="/a.js">a.js</a>, <a href="/b.js">b.js</a></p>
<figure><img src="/room.jpg"><figcaption>The new reading room <span class="image-credit">Photo: J. Smith</span></figcaption></figure>
<div class="post-ratings">Was this article useful? Rate it with the stars.</div>
<div class="c-teaser-list"><div><a href="/x">Bus line</a> opens between the two stations next spring, the mayor said on Monday.</div></div>
<div class="group"><span>Published 23 May 2011 in Environment</span> <span>Print this page</span> <a href="/p/RPYx">Permalink</a></div>
<div class="bmg-content-box bmg-author-box">` + para("Hello, I am the food blogger behind these pages, and I love cakes and long walks.") +
		para("I bake every Sunday and write about it on Monday.") + `</div>
<h2>More stories</h2><p> </p>
</div></div></body></html>`
	_, text := extract(t, page, Options{})
	for _, w := range []string{"The council voted", "Readers asked for a year", "Source files: a.js, b.js", "opened on a Sunday in June", "The mayor opened the doors"} {
		if !strings.Contains(text, w) {
			t.Errorf("article lost %q:\n%s", w, text)
		}
	}
	// A caption goes too: the fitted weights take captions out of
	// articles (CaptionLetters).
	for _, w := range []string{"The new reading room", "Pool closes", "J. Smith", "Was this article useful", "Bus line", "Permalink", "food blogger", "More stories", "May 2011"} {
		if strings.Contains(text, w) {
			t.Errorf("article kept %q:\n%s", w, text)
		}
	}
	// A manual says none of this is an article: its pointer stays.
	manual := `<html><head><title>Reference</title></head><body><div class="body"><h1>Reference</h1>` + story + `
<p><strong>See also:</strong> <a href="/ch2.html">Chapter 2, the library's opening hours</a></p></div></body></html>`
	_, text = extract(t, manual, Options{})
	if !strings.Contains(text, "See also: Chapter 2") {
		t.Errorf("manual lost its pointer:\n%s", text)
	}
}

// TestArticleEndsOnItsOwnText checks that an article does not end on the
// label of a box cleaning took away, nor on a lone link, while a closing
// sentence and a page's own last heading-led section stay.
func TestArticleEndsOnItsOwnText(t *testing.T) {
	story := "<p>" + strings.Repeat("The ferry to the island runs twice a day, and in summer, when the tourists come, four times. ", 4) + "</p>"
	for _, tc := range []struct{ end, gone string }{
		{`<p><strong>Schon gelesen?</strong></p><ul class="related"><li><a href="/a">Bridge opens</a></li><li><a href="/b">Port closes</a></li></ul>`, "Schon gelesen"},
		{`<p><a href="/next">Ferry prices for 2024</a></p>`, "Ferry prices"},
		{`<h3>More from the coast</h3>`, "More from the coast"},
		{`<p>Filed under <a href="/t/travel">Travel</a>, <a href="/t/islands">Islands</a></p>`, "Filed under"},
		{`<div><strong>Would you like to share this article?</strong><br><a href="https://facebook.example/share"><div class="fb"></div></a></div><br>`, "like to share"},
	} {
		page := `<html><head><title>Ferry</title><meta property="og:type" content="article"></head><body><article><h1>Ferry</h1>` +
			story + `<p>Tickets cost four euros.</p>` + tc.end + `</article></body></html>`
		_, text := extract(t, page, Options{})
		if strings.Contains(text, tc.gone) || !strings.HasSuffix(text, "Tickets cost four euros.") {
			t.Errorf("article ending %q:\n%s", tc.end, text)
		}
	}
}

// TestSidebarIsFurniture: a column named sidebar is furniture on any
// page (a Drupal node's second column of teasers, which no article signal
// marks), but not when its name says it holds the article.
func TestSidebarIsFurniture(t *testing.T) {
	prose := "<p>" + strings.Repeat("We visit universities, colleges and schools to talk about open licences. ", 3) + "</p>"
	for class, want := range map[string]bool{
		"region region-sidebar-second":           true,
		"sidebar-wrapper":                        true,
		"l-sidebar-fixed l-article-body-segment": false,
		"sidebar_content":                        false,
		"sidebarred":                             false,
	} {
		doc, err := html.Parse(strings.NewReader(`<html><body><div class="` + class + `">` + prose + `</div></body></html>`))
		if err != nil {
			t.Fatal(err)
		}
		p := &pruner{}
		p.prune(doc, false)
		p.detach()
		if got := findFirst(doc, func(n *html.Node) bool { return n.DataAtom == atom.Div }) == nil; got != want {
			t.Errorf("div.%s left out: %v, want %v", class, got, want)
		}
	}
}

// TestArticleInBlockNamedSidebar: when a block set aside by its name
// alone held the article (La Nación wraps its article and its links to
// other stories in "lay-sidebar"), the article is read again with it, as
// Readability tries again without its unlikely names.
func TestArticleInBlockNamedSidebar(t *testing.T) {
	var links strings.Builder
	for i := range 12 {
		fmt.Fprintf(&links, `<li><a href="/s%d">Another story about the senate and its committees, number %d</a></li>`, i, i)
	}
	page := `<html><head><title>Senate</title><meta property="og:type" content="article"></head><body><main><h1>Senate</h1>
<div class="lay-sidebar"><p>` + strings.Repeat("The senate committee met on Tuesday to debate the bill on vaccines, which the lower house passed. ", 8) + `</p>
<ul>` + links.String() + `</ul></div></main></body></html>`
	if _, text := extract(t, page, Options{}); !strings.Contains(text, "The senate committee met") {
		t.Errorf("article lost with its wrapper:\n%s", text)
	}
}

// TestHeaderLeftOpen: a page whose <header role="banner"> is never closed
// holds the whole page, <main> too; the header's navigation goes, the
// article stays.
func TestHeaderLeftOpen(t *testing.T) {
	page := `<html><head><title>Singer</title><meta property="og:type" content="article"></head><body>
<header class="header" role="banner"><nav><a href="/">Home</a> <a href="/news">News</a></nav>
<main><article><h1>Singer asks for his name</h1><p>` + strings.Repeat("The singer asked the registry on Thursday for the sole right to use his stage name. ", 4) + `</p></article></main>
</body></html>`
	_, text := extract(t, page, Options{})
	if !strings.Contains(text, "The singer asked the registry") || strings.Contains(text, "Home") {
		t.Errorf("page inside an open header:\n%s", text)
	}
}

// TestHiddenByClass: blocks a stylesheet hides by the conventional class
// names (Bootstrap's hidden and d-none, WordPress's screen-reader-text)
// are not read; a class that only contains the word is.
func TestHiddenByClass(t *testing.T) {
	story := "<p>" + strings.Repeat("The harbour reopened on Monday after the storm, and the ferries run again. ", 4) + "</p>"
	page := `<html><head><title>Harbour</title></head><body><main><h1>Harbour</h1>` + story + `
<div class="infobox hidden">Weitere Informationen zum Hafen</div><span class="screen-reader-text">Posted on</span>
<p class="hiddenGem">The fish market opens at six.</p></main></body></html>`
	_, text := extract(t, page, Options{})
	if strings.Contains(text, "Weitere Informationen") || strings.Contains(text, "Posted on") || !strings.Contains(text, "fish market") {
		t.Errorf("hidden blocks:\n%s", text)
	}
}

// TestTitledArticleOfSeveral: on a news page that runs several stories
// one after another (an endless scroll), the story under the page's
// title heading is the article, not the best-scoring one, unless it
// scores under a third of it or holds next to no prose (a box around
// the site's banner heading).
func TestTitledArticleOfSeveral(t *testing.T) {
	doc, err := html.Parse(strings.NewReader(`<html><body><main><article id="a"><h1>Cars blessed</h1><p>` + strings.Repeat("One. ", 50) + `</p></article>` +
		`<article id="b"><h1>Floods</h1><p>Two.</p></article>` +
		`<div id="c"><h2>Banner</h2><a href="/">Home</a></div></main></body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	byID := func(id string) *html.Node {
		return findFirst(doc, func(n *html.Node) bool { return attr(n, "id") == id })
	}
	a, b := byID("a"), byID("b")
	title := findFirst(a, func(n *html.Node) bool { return n.DataAtom == atom.H1 })
	main := a.Parent
	for _, tc := range []struct {
		sa, sb float64
		want   *html.Node
	}{{40, 60, a}, {10, 60, b}} {
		scores := map[*html.Node]float64{a: tc.sa, b: tc.sb, main: tc.sa + tc.sb}
		if got := titledArticle(b, title, scores); got != tc.want {
			t.Errorf("scores %v/%v: got #%s, want #%s", tc.sa, tc.sb, attr(got, "id"), attr(tc.want, "id"))
		}
	}
	if got := titledArticle(a, title, map[*html.Node]float64{a: 1, b: 60}); got != a {
		t.Errorf("the titled article itself: got #%s", attr(got, "id"))
	}
	c := byID("c")
	banner := findFirst(c, func(n *html.Node) bool { return n.DataAtom == atom.H2 })
	if got := titledArticle(b, banner, map[*html.Node]float64{b: 30, c: 20}); got != b {
		t.Errorf("a banner's box: got #%s, want #b", attr(got, "id"))
	}
}

// TestNamesThatMarkEverything: a page builder that names every block of
// the article for boilerplate ("elementor-widget-wrap") names its layout;
// the article's text stays, while a box so named beside plain paragraphs
// goes.
func TestNamesThatMarkEverything(t *testing.T) {
	block := func(s string) string {
		return `<div class="elementor-widget-wrap"><div class="elementor-widget-container"><p>` + s + `</p></div></div>`
	}
	page := `<html><head><title>About us</title><meta property="og:type" content="article"></head><body><article><h1>About us</h1>` +
		block("We are a network of young researchers, founded in 2015, who write on politics and society.") +
		block("Our hub brought thirty members together last year, in Berlin, for a week of workshops.") +
		block("The book project, our largest, collects essays by members from twelve countries.") +
		`</article></body></html>`
	_, text := extract(t, page, Options{})
	for _, w := range []string{"network of young researchers", "thirty members", "The book project"} {
		if !strings.Contains(text, w) {
			t.Errorf("lost %q:\n%s", w, text)
		}
	}
	plain := `<html><head><title>About us</title><meta property="og:type" content="article"></head><body><article><h1>About us</h1>` +
		"<p>" + strings.Repeat("We are a network of young researchers, founded in 2015, who write on politics and society. ", 4) + "</p>" +
		block("Follow us, and share this page with your friends and colleagues.") + `</article></body></html>`
	if _, text := extract(t, plain, Options{}); strings.Contains(text, "Follow us") {
		t.Errorf("kept a widget box beside the article:\n%s", text)
	}
}

// TestWhatFollowsTheNamedBody: what an article holds after the element
// its system names as the body (trafilatura's body names) is the post's
// footer, and goes, as do the picture and dateline above it; a lead
// above the body stays, a second part of a body
// split by an advert stays, and a body named on a small part of the text
// cuts nothing.
func TestWhatFollowsTheNamedBody(t *testing.T) {
	para := func(s string) string { return "<p>" + strings.Repeat(s+" ", 3) + "</p>" }
	lead := para("The valley's last dairy closes this spring, after ninety years.")
	body := para("The cooperative's members voted on Friday to sell the building, which needs a new roof and cooling.") +
		para("Most of the twelve farms will now send their milk to the town, forty kilometres away, by lorry.")
	bio := `<div class="post-bottom"><p>Anna Berg writes about farming and the countryside, and has lived in the valley for twenty years.</p></div>`
	page := func(inner string) string {
		return `<html><head><title>Dairy closes</title><meta property="og:type" content="article"></head><body><article><h1>Dairy closes</h1>` +
			inner + `</article></body></html>`
	}
	header := `<figure><img src="/dairy.jpg"><figcaption>The dairy in 1950</figcaption></figure><div class="when">12 May 2024</div>`
	_, text := extract(t, page(header+lead+`<div class="entry-content">`+body+`</div>`+bio), Options{})
	if !strings.Contains(text, "last dairy closes") || !strings.Contains(text, "twelve farms") || strings.Contains(text, "Anna Berg") ||
		strings.Contains(text, "in 1950") || strings.Contains(text, "May 2024") {
		t.Errorf("named body, then an author's box:\n%s", text)
	}
	_, text = extract(t, page(lead+`<div class="story-body">`+body+`</div>`+bio), Options{})
	if !strings.Contains(text, "twelve farms") || strings.Contains(text, "Anna Berg") {
		t.Errorf("body named by trafilatura's third expression, then an author's box:\n%s", text)
	}
	_, text = extract(t, page(`<div class="article-body">`+body+`</div><div class="ad">Advert</div><div class="article-body">`+
		para("The last cheese will be sold at the market in June, the members said.")+`</div>`), Options{})
	if !strings.Contains(text, "last cheese") {
		t.Errorf("a body in two parts lost its second:\n%s", text)
	}
	_, text = extract(t, page(`<div class="entry-content">`+lead+`</div>`+body), Options{})
	if !strings.Contains(text, "twelve farms") {
		t.Errorf("a body named on its lead cut the text:\n%s", text)
	}
}

// TestNamedBodyWithoutArticleSignals: a blog that gives no article
// signal still names its post's body, and what follows it in the
// content (another post's teaser) goes.
func TestNamedBodyWithoutArticleSignals(t *testing.T) {
	para := func(s string) string { return "<p>" + strings.Repeat(s+" ", 3) + "</p>" }
	page := `<html><head><title>Tach auch</title></head><body><div class="main"><div class="post"><h1>Tach auch</h1><div class="post-body entry-content">` +
		para("We moved the blog to a new server this week, and the old comments came with it.") +
		para("If something looks broken, write to us and we will fix it as soon as we can.") +
		`</div></div><div class="box"><h2>Most read</h2>` + para("After the auction house closed last year, the station tried a shopping channel instead.") +
		`</div></div></body></html>`
	_, text := extract(t, page, Options{})
	if !strings.Contains(text, "new server") || strings.Contains(text, "auction house") || strings.Contains(text, "Most read") {
		t.Errorf("post body then a teaser box:\n%s", text)
	}
}

// TestArticleInNoscript: a post that a script renders from a template,
// and that a <noscript> holds for readers without scripts, is read from
// the <noscript>; a <noscript> holding a tracking pixel stays out.
func TestArticleInNoscript(t *testing.T) {
	para := "<p>" + strings.Repeat("Safe Browsing now checks the sites you visit against a list updated every half hour. ", 4) + "</p>"
	page := `<html><head><title>Enhanced protection</title></head><body><noscript><img src="/pixel.gif" alt="pixel"></noscript>
<div class="post"><h2>Enhanced protection</h2><div class="post-body"><script type="text/template">` + para + para + `</script>
<noscript>` + para + para + `</noscript></div></div></body></html>`
	_, text := extract(t, page, Options{})
	if strings.Count(text, "Safe Browsing now checks") != 8 || strings.Contains(text, "pixel") {
		t.Errorf("article in a <noscript>:\n%s", text)
	}
}

// TestAsideHoldingThePage: an <aside> is furniture, unless it holds the
// page's headline (a tag misused for the whole article).
func TestAsideHoldingThePage(t *testing.T) {
	para := "<p>" + strings.Repeat("For a novel about the old republic, the author won this year's book prize in Frankfurt. ", 4) + "</p>"
	page := `<html><head><title>Book prize</title><meta property="og:type" content="article"></head><body><main>
<aside class="pa"><h1>Book prize</h1><article>` + para + `</article></aside>
<aside class="more"><p>Other news: the fair opens on Wednesday with four thousand publishers from a hundred countries.</p></aside></main></body></html>`
	_, text := extract(t, page, Options{})
	if !strings.Contains(text, "For a novel") || strings.Contains(text, "Other news") {
		t.Errorf("article in an <aside>:\n%s", text)
	}
}

// TestHeaderPictureLeaves: the lead picture an article's <header> holds
// beside its headline goes with its caption; a picture in the body keeps
// its caption when the weights keep captions (CaptionLetters 0; the
// fitted ones take every caption out).
func TestHeaderPictureLeaves(t *testing.T) {
	para := "<p>" + strings.Repeat("Striking lecturers marched through the city centre on Thursday, the third day of the strike. ", 4) + "</p>"
	page := `<html><head><title>Lecturers strike</title><meta property="og:type" content="article"></head><body><article>
<header><h1>Lecturers strike</h1><figure><img src="/march.jpg"><figcaption>Members of the union on the march. Photo: J. Doe</figcaption></figure></header>` +
		para + `<figure><img src="/hall.jpg"><figcaption>The great hall, empty on Thursday</figcaption></figure>` + para + `</article></body></html>`
	w := DefaultWeights
	w.CaptionLetters = 0
	text := withWeights(t, page, w)
	if !strings.HasPrefix(text, "Lecturers strike") || strings.Contains(text, "on the march") || !strings.Contains(text, "great hall") {
		t.Errorf("header picture:\n%s", text)
	}
	if _, text := extract(t, page, Options{}); strings.Contains(text, "great hall") || !strings.Contains(text, "third day of the strike") {
		t.Errorf("with the fitted weights:\n%s", text)
	}
}
