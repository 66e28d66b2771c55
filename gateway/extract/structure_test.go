package extract

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// withWeights extracts page's text with w.
func withWeights(t *testing.T, page string, w Weights) string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	title := Title(doc)
	return Render(MainWith(doc, w), title, Options{Tables: true}).Text()
}

// Each structural feature takes out what it names, by structure alone
// (no class or id says what the block is), when its weight turns it on,
// and leaves the article's prose.
func TestStructuresGoByShape(t *testing.T) {
	story := "<p>" + strings.Repeat("The council voted on Tuesday to close the old bridge to cars from March, after a survey found cracks. ", 3) + "</p>"
	end := "<p>" + strings.Repeat("Cyclists and walkers may still cross it while the repairs go on, the council said. ", 2) + "</p>"
	head := `<html><head><title>Bridge to close</title><meta property="og:type" content="article"></head><body><article><h1>Bridge to close</h1>`
	card := func(i string) string {
		return `<div class="c"><a href="/story/` + i + `"><h4>Another story number ` + i + `</h4><span>A teaser line for story ` + i + ` that says little of what the story says, and goes on for a while</span></a></div>`
	}
	comment := func(i string) string {
		return `<div class="x"><img src="/u/` + i + `.png" width="48" height="48"><b>reader` + i + `</b><time>1 May</time><p>I drive over that bridge every day and I think it is about time they fixed it, number ` + i + `.</p></div>`
	}
	pic := func(i string) string {
		return `<div class="s"><img src="/p/` + i + `.jpg"><span>Slide ` + i + ` of the old bridge in snow</span></div>`
	}
	for _, tc := range []struct {
		name, block, gone string
		w                 Weights
	}{
		{"rail", `<section><h3>Popular</h3><div>` + card("1") + card("2") + card("3") + card("4") + card("5") + card("6") + card("7") + card("8") + `</div></section>`, "Another story number", Weights{RailCards: 3, RailLinks: 0.8}},
		{"comments", `<div><h3>12 responses</h3>` + comment("1") + comment("2") + comment("3") + `</div>`, "I drive over that bridge", Weights{CommentItems: 3}},
		{"marked comments", `<div itemprop="comment"><p>What a shame, I loved that bridge, it has been there since my grandmother was a child.</p></div>`, "What a shame", Weights{}},
		{"gallery", `<div>` + pic("1") + pic("2") + pic("3") + `</div>`, "Slide 2 of the old bridge", Weights{GalleryCards: 3, GalleryLetters: 300}},
		{"short caption", `<figure><img src="/b.jpg"><figcaption>The bridge, 1901</figcaption></figure>`, "The bridge, 1901", Weights{CaptionLetters: 40}},
		{"teasers after the end", `<div class="x"><div class="y"><a href="/a"><h4>Bridges of the county</h4></a><p>Their long history, told by the people who built them and the people who cross them every day of the year.</p></div><div class="y"><a href="/b"><h4>Roads closed</h4></a><p>In the north of the county this winter, with the dates of each closure and the way round it for drivers.</p></div><div class="y"><a href="/c"><h4>The budget</h4></a><p>What the council will spend next year on roads, bridges and the buses that run over them, line by line.</p></div></div>`, "dates of each closure", Weights{}},
		{"tail links", `<ul><li><a href="/0">Another long headline of the county news, number 0</a></li><li><a href="/1">Another long headline of the county news, number 1</a></li><li><a href="/2">Another long headline of the county news, number 2</a></li><li><a href="/3">Another long headline of the county news, number 3</a></li><li><a href="/4">Another long headline of the county news, number 4</a></li><li><a href="/5">Another long headline of the county news, number 5</a></li><li><a href="/6">Another long headline of the county news, number 6</a></li><li><a href="/7">Another long headline of the county news, number 7</a></li><li><a href="/8">Another long headline of the county news, number 8</a></li><li><a href="/9">Another long headline of the county news, number 9</a></li><li><a href="/10">Another long headline of the county news, number 10</a></li><li><a href="/11">Another long headline of the county news, number 11</a></li></ul>`, "headline of the county news, number 7", Weights{TailLinks: 0.6}},
	} {
		w := DefaultWeights
		w.RailCards, w.CommentItems, w.GalleryCards, w.CaptionLetters, w.TailLinks = tc.w.RailCards, tc.w.CommentItems, tc.w.GalleryCards, tc.w.CaptionLetters, max(tc.w.TailLinks, 0)
		if tc.w.TailLinks == 0 {
			w.TailLinks = 1
		}
		if tc.w.RailLinks > 0 {
			w.RailLinks = tc.w.RailLinks
		}
		page := head + story + tc.block + end + `</article></body></html>`
		if tc.name == "teasers after the end" {
			w.TailCards = 3
		}
		if tc.name == "tail links" || tc.name == "teasers after the end" {
			page = head + story + end + tc.block + `</article></body></html>`
		}
		text := withWeights(t, page, w)
		if strings.Contains(text, tc.gone) || !strings.Contains(text, "survey found cracks") || !strings.Contains(text, "repairs go on") {
			t.Errorf("%s:\n%s", tc.name, text)
		}
		off := DefaultWeights
		off.RailCards, off.CommentItems, off.GalleryCards, off.CaptionLetters, off.TailLinks = 0, 0, 0, 0, 1
		if tc.name != "marked comments" && tc.name != "rail" && !strings.Contains(withWeights(t, page, off), tc.gone) {
			t.Errorf("%s: gone with the feature off too, so the test shows nothing", tc.name)
		}
	}
}

// A block the page holds twice is kept once: a pull quote repeating a
// sentence, a gallery caption shown in the strip and under the picture.
func TestRepeatedBlocksKeptOnce(t *testing.T) {
	quote := "Nobody should have to wait six months for a licence to open a bakery."
	page := `<html><head><title>Licences</title><meta property="og:type" content="article"></head><body><article><h1>Licences</h1>
<p>` + strings.Repeat("The ministry said on Monday that it would hire forty more clerks and move the forms online. ", 3) + `</p>
<p>` + quote + `</p><p>` + strings.Repeat("The unions welcomed the plan but asked for the clerks to be hired for good. ", 3) + `</p>
<blockquote><p>` + quote + `</p></blockquote></article></body></html>`
	w := DefaultWeights
	w.RepeatLetters = 20
	if text := withWeights(t, page, w); strings.Count(text, quote) != 1 {
		t.Errorf("the quote is not there once:\n%s", text)
	}
}

// dropStructures on its own: a rail of link cards goes when RailCards
// says so, and stays when the feature is off (the article rules that run
// before it take most rails, not all: a rail longer than the story).
func TestRailByShape(t *testing.T) {
	var cards strings.Builder
	for _, i := range []string{"1", "2", "3", "4"} {
		cards.WriteString(`<article class="item"><a href="/v/` + i + `"><h4>Video ` + i + `</h4><p>What happened in part ` + i + ` of the hearing</p></a></article>`)
	}
	for _, on := range []bool{true, false} {
		doc, _ := html.Parse(strings.NewReader(`<div><p>` + strings.Repeat("The hearing went on for nine hours. ", 4) + `</p><section><h3>Popular</h3><div>` + cards.String() + `</div></section></div>`))
		root := findFirst(doc, func(n *html.Node) bool { return n.Data == "div" })
		w := DefaultWeights
		w.RailCards, w.RailLinks, w.TailLinks = 0, 0.8, 1
		if on {
			w.RailCards = 3
		}
		dropStructures(root, nil, &w)
		text := textOf(root)
		if strings.Contains(text, "Video 2") == on || strings.Contains(text, "Popular") == on || !strings.Contains(text, "nine hours") {
			t.Errorf("rails on %v: %q", on, text)
		}
	}
}

// A page rendered by streaming holds its finished parts in hidden
// elements at the end of <body>, with a <template> where each goes (one
// part may hold another's slot): they are read where they go. A hidden
// dialog stays hidden.
func TestStreamedPartsAreRead(t *testing.T) {
	prose := strings.Repeat("The ministry said on Monday that it would hire forty more clerks and move the forms online by spring. ", 6)
	page := `<html><head><title>Licences</title></head><body><div>Site name</div><main><!--$?--><template id="B:0"></template>Loading…<!--/$--></main>
<div hidden id="S:1"><p>` + prose + `</p></div>
<div hidden id="S:0"><article><h1>Licences</h1><template id="B:1"></template><p>The unions welcomed the plan but asked for the clerks to be hired for good, not for a year or two.</p></article></div>
<div hidden><p>Sign in to keep reading, it takes a minute and costs nothing at all for the first month.</p></div></body></html>`
	_, text := extract(t, page, Options{})
	if !strings.Contains(text, "forty more clerks") || !strings.Contains(text, "unions welcomed") || strings.Contains(text, "Sign in") {
		t.Errorf("streamed parts:\n%s", text)
	}
	if strings.Index(text, "forty more clerks") > strings.Index(text, "unions welcomed") {
		t.Errorf("a part is not where its slot is:\n%s", text)
	}
}

// A short line with a date or a time before the article's first
// paragraph or after its last is a dateline, in any language; the same
// line between paragraphs, a sentence that ends with a date, and a long
// line stay.
func TestDatelinesAtTheEdgesGo(t *testing.T) {
	para := `<p>` + strings.Repeat("The council voted to keep the library open on Sundays after a long debate. ", 2) + `</p>`
	for _, c := range []struct {
		page string
		gone []string
		kept []string
	}{
		{`<div><div>sexta-feira, 22 de outubro de 2010 às 20:13</div>` + para + `<div>Entry of 2019-11-20</div>` + para + `<p>Updated at 1:23 p.m.</p></div>`,
			[]string{"outubro", "Updated"}, []string{"Entry of"}},
		{`<div><p>by Jeff Foust Monday, November 18, 2019</p>` + para + `<div>기사입력 :[ 2018-08-25 15:24 ]</div></div>`,
			[]string{"Foust", "기사입력"}, nil},
		{`<div><p>It opened on 12 May 2019.</p>` + para + `<p>The vote was held on Monday, November 18, 2019, in the old town hall, with most seats full.</p></div>`,
			nil, []string{"12 May", "old town hall"}},
	} {
		for _, on := range []bool{true, false} {
			doc, _ := html.Parse(strings.NewReader(c.page))
			root := findFirst(doc, func(n *html.Node) bool { return n.Data == "div" })
			w := DefaultWeights
			if !on {
				w.DatelineWords = 0
			}
			trimDatelines(root, &w)
			text := textOf(root)
			for _, s := range c.gone {
				if strings.Contains(text, s) == on {
					t.Errorf("datelines on %v: %q kept %v in %q", on, s, !on, text)
				}
			}
			for _, s := range append(c.kept, "library open") {
				if !strings.Contains(text, s) {
					t.Errorf("datelines on %v: %q lost from %q", on, s, text)
				}
			}
		}
	}
}

// A block named caption beside a picture, outside any <figure> (a
// gallery's item: the picture in one box, its caption in the next), is
// the picture's caption when CaptionLevels reaches the box that holds
// both; a block named caption with no picture near it is not.
func TestCaptionBesideAPicture(t *testing.T) {
	story := "<p>" + strings.Repeat("The council voted on Tuesday to close the old bridge to cars from March, after a survey found cracks. ", 3) + "</p>"
	head := `<html><head><title>Bridge to close</title><meta property="og:type" content="article"></head><body><article><h1>Bridge to close</h1>`
	item := `<ul class="g"><li class="i"><div class="img-wrap"><img src="/b.jpg"></div><div class="caption"><div class="caption-full">The bridge in the snow of 1901, seen from the river bank</div></div></li></ul>`
	lone := `<div class="caption-note">A note on the vote, kept whatever the weights say</div>`
	page := head + story + item + lone + story + `</article></body></html>`
	w := DefaultWeights
	w.CaptionLetters, w.CaptionLevels = 1000, 3
	text := withWeights(t, page, w)
	if strings.Contains(text, "snow of 1901") || !strings.Contains(text, "A note on the vote") || !strings.Contains(text, "survey found cracks") {
		t.Errorf("with CaptionLevels 3:\n%s", text)
	}
	w.CaptionLevels = 0
	if text := withWeights(t, page, w); !strings.Contains(text, "snow of 1901") {
		t.Errorf("with CaptionLevels 0 the caption went too, so the test shows nothing:\n%s", text)
	}
}

// TestWeightsFile: the built-in weights.json names every weight once,
// and a file that leaves one out, names one that is not, or is not JSON
// is refused by the weight's name.
func TestWeightsFile(t *testing.T) {
	w, err := ParseWeights(weightsFile)
	if err != nil || w != DefaultWeights {
		t.Fatalf("weights.json: %v (%+v against %+v)", err, w, DefaultWeights)
	}
	if w.ClassName == 0 || w.ArticleShare == 0 || w.DatelineWords == 0 {
		t.Errorf("weights.json read as zeros: %+v", w)
	}
	missing := strings.Replace(string(weightsFile), `"TailLinks"`, `"TailLink"`, 1)
	if _, err := ParseWeights([]byte(missing)); err == nil || !strings.Contains(err.Error(), "TailLinks") {
		t.Errorf("a file without TailLinks: %v", err)
	}
	extra := strings.Replace(string(weightsFile), `"ClassName"`, `"Unknown": 1, "ClassName"`, 1)
	if _, err := ParseWeights([]byte(extra)); err == nil || !strings.Contains(err.Error(), "Unknown") {
		t.Errorf("a file with an unknown weight: %v", err)
	}
	if _, err := ParseWeights([]byte("{")); err == nil {
		t.Error("a file that is not JSON was read")
	}
}
