package extract

import (
	"strings"
	"testing"
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
<p class="article-teaser">Readers asked for a year; the council said yes.</p>` + story + `
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
	for _, w := range []string{"The council voted", "Readers asked for a year", "Source files: a.js, b.js", "The new reading room"} {
		if !strings.Contains(text, w) {
			t.Errorf("article lost %q:\n%s", w, text)
		}
	}
	for _, w := range []string{"Pool closes", "J. Smith", "Was this article useful", "Bus line", "Permalink", "food blogger", "More stories"} {
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
