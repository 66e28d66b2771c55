package extract

import (
	"strings"
	"testing"
)

// TestUnlikelyProseBesideTheArticle: a block that Readability finds
// unlikely by its name goes from an article page even when it holds a
// thousand letters of prose, if it sits beside the article (readers'
// comments); the same prose inside the article (a gallery's legends),
// around it or its named body, or on a page with no article or named
// body elsewhere, may be the article and stays.
func TestUnlikelyProseBesideTheArticle(t *testing.T) {
	story := "<p>" + strings.Repeat("Hotel owners say the towels are washed less often than guests believe, and sheets too. ", 4) + "</p>"
	legend := "<li><h2>3/50 Rates rise</h2><p>" + strings.Repeat("The bank raised its rates for the first time in seven years, and shares fell. ", 3) + "</p></li>"
	gallery := `<div class="full-gallery"><ul class="legends">` + strings.Repeat(legend, 6) + `</ul></div>`
	head := `<html><head><title>Hotel secrets</title><meta property="og:type" content="article"></head><body>`
	for _, tc := range []struct {
		name, page string
		gone       bool
	}{
		{"gallery in the body", head + `<article><h1>Hotel secrets</h1><div itemprop="articleBody">` + story + gallery + `</div></article></body></html>`, false},
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
