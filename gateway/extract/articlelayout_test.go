package extract

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// TestTableLayoutColumns: a news page of 2008 laid out in tables, with
// no article signal: a bar of menus named as nothing above a table
// whose columns are a weather box and the story's column, which holds a
// toolbar and, in a cell deeper down, the story. A cell that holds
// tables or paragraphs is a column of the layout, so its paragraphs
// score, not the column as one paragraph (which had made the layout's
// table the article, and kept the menus beside it).
func TestTableLayoutColumns(t *testing.T) {
	var menu strings.Builder
	for _, s := range []string{"Local News", "National News", "Weather", "Sports", "Traffic", "Entertainment", "Recipes", "Pet of the Week", "Contests", "Jobs", "Real Estate", "Coupons"} {
		menu.WriteString(`<li><a href="/` + strings.ReplaceAll(s, " ", "") + `">` + s + " section for the whole state</a></li>")
	}
	story := `<p>Fairfield (AP) _ Investigators looking into a fire that damaged a commuter rail station in Fairfield last week also have a car-theft case on their hands, police said.&nbsp;&nbsp; ` +
		`Police say someone stole a cruiser that was parked at the scene while officers were busy at the fire, and the car was found later in Westport, without its keys.&nbsp;&nbsp; ` +
		`State officials are working to offer bus service and shelter for commuters who use the station, which also housed an art gallery.</p>`
	page := `<html><head><title>Police cruiser stolen at train station fire</title></head><body>
<div class="bar"><ul>` + menu.String() + `</ul></div>
<table><tr><td><table><tr><td>SITE SEARCH WEB SEARCH BY</td></tr></table>
<table><tr><td>Storm Team 8: sunny, with a high of 45, and light winds.</td></tr></table></td>
<td><table><tr><td><a href="/email">Email</a></td><td><a href="/print">Print</a></td><td>Text Size</td></tr></table>
<table><tr><td><font><b>Police cruiser stolen at train station fire</b><br><div id="storyBody">` + story + `</div></font></td></tr></table></td></tr></table>
</body></html>`
	_, text := extract(t, page, Options{})
	if !strings.Contains(text, "Investigators looking into a fire") {
		t.Fatalf("lost the story:\n%s", text)
	}
	if strings.Contains(text, "Pet of the Week") {
		t.Errorf("kept the menu column:\n%s", text)
	}
}

// TestClosingNotice: the line that closes a page with its copyright
// goes, wherever the page is laid out; the same words inside the text,
// or a long paragraph on licensing, stay.
func TestClosingNotice(t *testing.T) {
	prose := "<p>" + strings.Repeat("The commentary reads the passage slowly, verse by verse, and asks what each line meant to its first readers. ", 4) + "</p>"
	for _, tc := range []struct {
		name, tail string
		gone       bool
	}{
		{"copyright line", `<div>© 2005 Stand to Reason | 1438 East 33rd Street, Signal Hill, CA 90755</div>`, true},
		{"rights reserved", `<p>Content Copyright 2000 - 2008 WorldNow. All Rights Reserved.</p>`, true},
		{"a long paragraph", "<p>Signal Hill " + strings.Repeat("licence terms for reuse of this text are set out here in full, ", 12) + "copyright.</p>", false},
		// A page laid out in tables: the notice in the last row's cell,
		// whose end tag is left unclosed, so the parser puts the logo of
		// the next cell in it too; no wrapper's edge is the notice.
		{"in a layout table's last cell", `<table><tr><td><br><span>© 2005 Stand to Reason | 1438 East 33rd Street, Signal Hill, CA 90755<br>Voicemail (800) 2-REASON | <a href="mailto:q@example.org">q@example.org</a></span></td
<td><div><a href="/poweredby"><img src="logo.gif" alt=""></a></div></td></tr></table>`, true},
	} {
		page := `<html><head><title>Prophets</title></head><body><div>` + prose + tc.tail + `</div></body></html>`
		_, text := extract(t, page, Options{})
		if !strings.Contains(text, "verse by verse") {
			t.Fatalf("%s: lost the text:\n%s", tc.name, text)
		}
		if gone := !strings.Contains(text, "Signal Hill") && !strings.Contains(text, "WorldNow"); gone != tc.gone {
			t.Errorf("%s: notice gone %v, want %v:\n%s", tc.name, gone, tc.gone, text)
		}
	}
}

// TestFieldsOutsideTheirForm: a log-in box of a page laid out in tables,
// whose <form> opens in one cell and so holds none of its labels,
// is furniture as a form would be (fieldBoxes); a block of prose that
// holds a field, and the page around the box, are not.
func TestFieldsOutsideTheirForm(t *testing.T) {
	prose := "<p>" + strings.Repeat("The commentary reads the passage slowly, verse by verse, and asks what each line meant to its first readers. ", 4) + "</p>"
	doc, err := html.Parse(strings.NewReader(`<html><head><title>Prophets</title></head><body><table><tr><td><img src="logo.gif" alt="Stand to Reason"></td>
<td id="login"><table><tr><td>User Name</td><td>Password</td></tr>
<tr><td><form action="/login"><input name="u"></td><td><input type="password" name="p"></td></tr></table></td></tr>
<tr><td colspan="2">` + prose + `</td></tr></table>
<div id="answer"><p>Write the answer here: <input name="answer"> ` + strings.Repeat("and say why the prophet wrote it in verse, in a line or two. ", 4) + `</p></div></body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	byID := func(id string) *html.Node {
		return findFirst(doc, func(n *html.Node) bool { return attr(n, "id") == id })
	}
	if form := findFirst(doc, func(n *html.Node) bool { return n.DataAtom == atom.Form }); form == nil || strings.Contains(textOf(form), "Password") {
		t.Fatalf("the form holds its labels, so the test shows nothing")
	}
	boxes := fieldBoxes(doc)
	if len(boxes) != 1 {
		t.Fatalf("%d boxes of fields, want one: the log-in box (not the paragraph with a field in it)", len(boxes))
	}
	for b := range boxes {
		if !contains(b, byID("login")) || contains(b, byID("answer")) || strings.Contains(textOf(b), "verse by verse") {
			t.Errorf("the box of fields is not the log-in box: %q", textOf(b))
		}
	}
}

// TestNamedAnchorLeftOpen: <a name="top"/> is not closed by HTML, so the
// anchor holds the rest of the page (the parser opens it again in each
// block after it) and every letter read as a link's; an anchor with a
// name and no href is a place, not a link, and unwrapNamedAnchors leaves
// its text where it is, read as text.
func TestNamedAnchorLeftOpen(t *testing.T) {
	prose := "<p>" + strings.Repeat("The commentary reads the passage slowly, verse by verse, and asks what each line meant to its first readers. ", 4) + "</p>"
	page := `<html><head><title>Topics</title></head><body><div>Welcome to the organisation's site</div><a name="top"/><table><tr><td>` +
		`<div><a href="/a">Economy</a> | <a href="/b">Education</a> | <a href="/c">Employment</a></div></td></tr>
<tr><td><h1>Corporate governance</h1>` + prose + prose + `</td></tr></table></body></html>`
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	if links, all := linkText(doc); links < all*8/10 {
		t.Fatalf("the parser closed the anchor (%d of %d letters in links), so the test shows nothing", links, all)
	}
	unwrapNamedAnchors(doc)
	if links, all := linkText(doc); links*10 > all {
		t.Errorf("after unwrapNamedAnchors, %d of %d letters are still in links", links, all)
	}
	if _, text := extract(t, page, Options{}); !strings.Contains(text, "verse by verse") || strings.Contains(text, "Employment") {
		t.Errorf("the page under an anchor left open:\n%s", text)
	}
}

// TestTitleInTheBody: a <title> is the page's name, never its text, even
// where a page (or an archive's wrapper) sets one in the body.
func TestTitleInTheBody(t *testing.T) {
	prose := "<p>" + strings.Repeat("The commentary reads the passage slowly, verse by verse, and asks what each line meant to its first readers. ", 4) + "</p>"
	page := `<html><head></head><body><text id="http://example.com/"><title>Fundraising Events - Modern Creative Services - charities and more</title><div>` + prose + `</div><div>` + prose + `</div></text></body></html>`
	_, text := extract(t, page, Options{})
	if !strings.Contains(text, "verse by verse") || strings.Contains(text, "Fundraising") {
		t.Errorf("a <title> in the body:\n%s", text)
	}
}

// TestNamedColumnHoldsThePage: on a page that says nothing of being an
// article, a column named "sidebar" that holds all of its prose, beside an
// empty "content" box, is the page's content (Readability's second try,
// on any page).
func TestNamedColumnHoldsThePage(t *testing.T) {
	prose := "<p>" + strings.Repeat("The debate turned on the budget, and the speakers kept to the figures they had brought with them. ", 4) + "</p>"
	page := `<html><head><title>The debate</title></head><body><div id="container"><div class="content"></div><div id="sidebar">` + prose + prose + `</div></div></body></html>`
	if _, text := extract(t, page, Options{}); !strings.Contains(text, "kept to the figures") {
		t.Errorf("lost the column named sidebar:\n%s", text)
	}
}

// mdBook (Rust by Example, the Rust book) sets each heading's words in
// a link to the heading named "header"; the link is the heading's text,
// not a header bar, so the page keeps its headings.
func TestHeadingInALinkNamedHeader(t *testing.T) {
	page := `<html><head><title>Hello World - Rust By Example</title></head><body>
<nav class="sidebar"><ol class="chapter"><li><a href="index.html">Introduction</a></li><li><a href="hello.html">Hello World</a></li></ol></nav>
<div id="menu-bar"><h1 class="menu-title">Rust By Example</h1></div>
<main><h1 id="hello-world"><a class="header" href="#hello-world">Hello World</a></h1>
<p>This is the source code of the traditional Hello World program, which prints a greeting to the console.</p>
<pre><code class="language-rust">fn main() {
    println!("Hello World!");
}</code></pre>
<h3 id="activity"><a class="header" href="#activity">Activity</a></h3>
<p>Click Run above to see the expected output. Next, add a new line with a second println! macro.</p>
</main></body></html>`
	md, text := extract(t, page, Options{})
	for _, want := range []string{"# Hello World\n", "### Activity\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("lost the heading %q:\n%s", want, md)
		}
	}
	if !strings.HasPrefix(text, "Hello World\n") {
		t.Errorf("the text does not open with its heading:\n%s", text)
	}
}

// TestBareColumnBesideContent: a page laid out in tables with no
// article signal, its history in one column and a shop's offers in the
// next, short lines and links with no paragraph among them. The offers'
// column goes (isBareColumn); a column that holds a paragraph stays, and
// so does every cell of a table of data whose one cell holds
// paragraphs.
func TestBareColumnBesideContent(t *testing.T) {
	para := func(s string) string {
		return "<p>" + strings.Repeat(s+" ", 3) + "</p>"
	}
	history := `<h1>1879 - The Tay Bridge Disaster</h1>` +
		para("The single-track bridge was a box construction with numerous legs, up to 230ft apart, supporting the trains as they crossed the estuary.") +
		para("The central sections failed during the stormy night of 28 December 1879 while a train was crossing, and every life aboard was lost.")
	offers := `<b>Some great offers available now</b><br><a href="/kilts">Handmade Kilts.</a> Be prepared for Tartan Day<br>` +
		`<a href="/sporran">Sealskin Dress Sporran.</a> Only £99.95<br><a href="/ties">Tartan Ties.</a> Only £10.99<br><a href="/shop">visit the shop &gt;&gt;</a>`
	for _, tc := range []struct {
		name, beside string
		gone         bool
	}{
		{"a column of offers", offers, true},
		{"a column with a paragraph", offers + para("Sealskin from Greenland is hunted under quota by the Inuit, and each sporran is sewn by hand in the workshop at Perth."), false},
	} {
		page := `<html><head><title>The Tay Bridge Disaster</title></head><body><table><tr><td>` + history + `</td><td>` + tc.beside + `</td></tr></table></body></html>`
		_, text := extract(t, page, Options{})
		if !strings.Contains(text, "stormy night") {
			t.Fatalf("%s: lost the history:\n%s", tc.name, text)
		}
		if gone := !strings.Contains(text, "Tartan Ties"); gone != tc.gone {
			t.Errorf("%s: offers gone %v, want %v:\n%s", tc.name, gone, tc.gone, text)
		}
	}
	// A table of data, one of whose cells holds paragraphs: every cell stays.
	page := `<html><head><title>History</title></head><body><h1>Changes</h1><table><tr><th>Version</th><th>Changes</th></tr>` +
		`<tr><td>v10.0.0</td><td>` + para("The callback is now called with the error first, as every other callback of the module is, and a missing one throws at once.") +
		para("Passing a string where a buffer is expected is deprecated, and prints a warning the first time it happens in a process.") + `</td></tr></table></body></html>`
	_, text := extract(t, page, Options{Tables: true})
	if !strings.Contains(text, "v10.0.0") || !strings.Contains(text, "error first") {
		t.Errorf("a table of data lost a cell:\n%s", text)
	}
}

// TestBareBoxBesideContent: a charity's page with no article signal, its
// story in one box and, beside it, boxes of short lines (its values, a
// photo's credit, its address) with no paragraph, heading or list among
// them: they go (isBareBox). A box with a list, and one with a
// paragraph, stay.
func TestBareBoxBesideContent(t *testing.T) {
	story := "<p>" + strings.Repeat("Mercy Corps helps families rebuild their homes and their livelihoods after the earthquake, with cash for work and seeds for the spring. ", 2) + "</p>" +
		"<p>" + strings.Repeat("Teams in the valley have cleared the roads to six villages, and the first schools opened again last month with tents for classrooms. ", 2) + "</p>"
	for _, tc := range []struct {
		name, beside string
		gone         bool
	}{
		{"short lines", `<div><div><b>Efficiency</b></div><div>Over the last five years, most resources went directly to programmes.</div><div><b>Commitment</b></div><div>We stay long after the cameras have gone.</div>` +
			`<div><b>High value</b></div><div>Every pound you give brings eleven more in donated supplies.</div><div>17 Claremont Crescent, Edinburgh EH7 4HX</div></div>`, true},
		{"a list", `<div><b>Efficiency</b><ul><li>Our work in Asia, with 400 staff in nine countries</li><li>Our work in Africa, with 250 staff in six countries</li><li>Our work in the Americas, with 120 staff in four countries</li><li>Our work in Europe, with 80 staff in three countries</li></ul></div>`, false},
		{"a paragraph", `<div><b>Efficiency</b><p>` + strings.Repeat("Over the last five years, most of the resources we were given went directly to the programmes in the field. ", 2) + `</p></div>`, false},
	} {
		page := `<html><head><title>Rebuilding after the earthquake</title></head><body><div><div>` + story + `</div>` + tc.beside + `</div></body></html>`
		_, text := extract(t, page, Options{})
		if !strings.Contains(text, "cash for work") {
			t.Fatalf("%s: lost the story:\n%s", tc.name, text)
		}
		if gone := !strings.Contains(text, "Efficiency"); gone != tc.gone {
			t.Errorf("%s: box gone %v, want %v:\n%s", tc.name, gone, tc.gone, text)
		}
	}
}

// A "!" right before a link is text, not an image's mark: rustdoc's
// negative impl "impl !Send for Ident" rendered as "impl ![Send](…)",
// which markdown reads as an image, so the reader showed an image and
// a heading's text read "impl Send".
func TestBangBeforeALinkIsText(t *testing.T) {
	page := `<html><head><title>Ident in syn</title></head><body><main><h1>Struct Ident</h1>
<p>A word of Rust code, which may be a keyword or legal variable name, with its span for error messages.</p>
<h3>impl !<a href="https://doc.rust-lang.org/core/marker/trait.Send.html">Send</a> for <a href="struct.Ident.html">Ident</a></h3>
<p>Wow! <a href="https://example.org/x">A link</a> after a sentence, and an image: <img src="a.png" alt="a picture"></p>
</main></body></html>`
	md, text := extract(t, page, Options{})
	if !strings.Contains(md, `impl \![Send](https://doc.rust-lang.org/core/marker/trait.Send.html) for`) || !strings.Contains(text, "impl !Send for Ident") {
		t.Errorf("the negative impl:\n%s\n---\n%s", md, text)
	}
	if !strings.Contains(md, "Wow! [A link](https://example.org/x)") {
		t.Errorf("a spaced link took a backslash:\n%s", md)
	}
}

// TestBareBoxBesideAFewStories: a home page with no article signal,
// forty short stories under their headings and a longer one, none of which holds a fifth of
// its prose: nothing is cut to the best one, but a box of short lines
// beside it goes as it would beside an article (dropBareBeside), and
// the other stories stay.
func TestBareBoxBesideAFewStories(t *testing.T) {
	var others strings.Builder
	for i := range 40 {
		others.WriteString(fmt.Sprintf("<div><div><div><h3>Story %d</h3><p>The harbour board met again on Tuesday and heard from the island councils about the timetable.</p></div></div></div>", i))
	}
	page := `<html><head><title>Harbour News</title></head><body>` +
		`<div><div><p>` + strings.Repeat("The storm of Tuesday night closed the harbour for two days, and the fishing fleet stayed in port while the wall was checked. ", 3) + `</p></div>` +
		`<div><div><b>Efficiency</b></div><div>Most of what you give goes to the lifeboat.</div><div><b>Commitment</b></div><div>We answer every call.</div><div>17 Quay Street, Harbourtown</div></div></div>` +
		others.String() + `</body></html>`
	_, text := extract(t, page, Options{})
	if !strings.Contains(text, "fishing fleet") || !strings.Contains(text, "Story 39") {
		t.Fatalf("lost a story:\n%s", text)
	}
	if strings.Contains(text, "Efficiency") {
		t.Errorf("kept the box of short lines beside the first story:\n%s", text)
	}
}

// TestBareBoxUnderAHeading: a Doxygen page of a struct, no article
// signal, whose fields each have a heading and, under it, a box of
// short lines (the declaration in a one-column table, a line on it):
// the box is the heading's section, not a bare box beside the content,
// so every field and its heading stay.
func TestBareBoxUnderAHeading(t *testing.T) {
	var fields strings.Builder
	for _, f := range []string{"state", "frame", "senscr", "mdef", "tmat"} {
		fields.WriteString(`<h2 class="memtitle">` + f + `</h2><div class="memitem"><div class="memproto"><table class="memname"><tr><td class="memname">int acmod_s::` + f +
			`</td></tr></table></div><div class="memdoc"><p>The ` + f + ` of the acoustic model.</p></div></div>`)
	}
	page := `<html><head><title>acmod_s Struct Reference</title></head><body><div class="contents"><div class="textblock">` +
		`<p>Acoustic model structure. This object encapsulates all stages of acoustic processing, from raw audio input to acoustic score output.</p>` +
		`<p>The reason why we go to all this trouble is because in some cases we want to do live decoding while others want to work on whole files.</p></div>` +
		`<h2 class="groupheader">Field Documentation</h2>` + fields.String() + `</div></body></html>`
	md, _ := extract(t, page, Options{})
	for _, f := range []string{"state", "frame", "senscr", "mdef", "tmat"} {
		if !strings.Contains(md, "## "+f+"\n") || !strings.Contains(md, "int acmod_s::"+f) {
			t.Errorf("lost the field %s:\n%s", f, md)
		}
	}
}

// TestMasthead: a page laid out in tables, its logo a picture that links
// to the site's home page and, beside it, the site's tagline: the box
// around them goes (dropMasthead). Beside a picture that links to
// another site's home page, or beside a heading, it stays.
func TestMasthead(t *testing.T) {
	story := `<p>` + strings.Repeat("The single-track bridge was a box construction with numerous legs, up to 230ft apart, supporting the trains as they crossed the estuary. ", 3) + `</p>` +
		`<p>` + strings.Repeat("The central sections failed during the stormy night of 28 December 1879 while a train was crossing, and every life aboard was lost. ", 3) + `</p>`
	tagline := `A guide to the Clans and Tartans of Scotland: everything a true Scot should need and know.`
	// More of the page below the story, so that the story's cell is not
	// taken for the whole content.
	story += `</td></tr><tr><td><p>` + strings.Repeat("McGonagall's poem on the disaster is read to this day, and the bridge's stumps still stand in the water beside the new one. ", 3) + `</p>`
	for _, tc := range []struct {
		name, page string
		gone       bool
	}{
		{"the logo and the tagline beside it", `<table><tr><td><table><tr><td><a href="../index.html"><img src="logo.gif" alt="ScotClans"></a></td><td>` + tagline + `</td></tr></table></td></tr>` +
			`<tr><td>` + story + `</td></tr></table>`, true},
		{"a logo linking to another site's home page", `<table><tr><td><table><tr><td><a href="http://partner.example/"><img src="logo.gif"></a></td><td>` + tagline + `</td></tr></table></td></tr>` +
			`<tr><td>` + story + `</td></tr></table>`, false},
		{"a heading beside the logo", `<table><tr><td><table><tr><td><a href="/"><img src="logo.gif"></a></td><td><h2>` + tagline + `</h2></td></tr></table></td></tr>` +
			`<tr><td>` + story + `</td></tr></table>`, false},
	} {
		page := `<html><head><title>The Tay Bridge Disaster</title></head><body>` + tc.page + `</body></html>`
		_, text := extract(t, page, Options{Tables: true})
		if !strings.Contains(text, "stormy night") {
			t.Fatalf("%s: lost the story:\n%s", tc.name, text)
		}
		if gone := !strings.Contains(text, "true Scot"); gone != tc.gone {
			t.Errorf("%s: tagline gone %v, want %v:\n%s", tc.name, gone, tc.gone, text)
		}
	}
}

// TestBareColumnBesideAWeakArticle: an article page (og:type article)
// laid out in tables whose story holds under a fifth of the page's
// prose (forty other stories below it): nothing is cut to the story,
// but the bare column of short lines beside it (a charity's values,
// its address) goes. A column with a paragraph of prose stays.
func TestBareColumnBesideAWeakArticle(t *testing.T) {
	var others strings.Builder
	for i := range 40 {
		others.WriteString(fmt.Sprintf("<div><div><div><h3>Story %d</h3><p>The harbour board met again on Tuesday and heard from the island councils about the timetable.</p></div></div></div>", i))
	}
	story := `<h2>Storm closes the harbour</h2><p>` + strings.Repeat("The storm of Tuesday night closed the harbour, the quay, the slip and the pier, and the fishing fleet stayed in port. ", 2) + `</p>`
	lines := `<b>Efficiency</b><br>Most of what you give goes to the lifeboat.<br><b>Commitment</b><br>We answer every call.<br>17 Quay Street, Harbourtown`
	for _, tc := range []struct {
		name, beside string
		gone         bool
	}{
		{"a column of short lines", lines, true},
		{"a column with a paragraph", lines + `<p>` + strings.Repeat("Sealskin from Greenland is hunted under quota by the Inuit, and each sporran is sewn by hand. ", 2) + `</p>`, false},
	} {
		page := `<html><head><title>Harbour News</title><meta property="og:type" content="article"></head><body>` +
			`<table><tr><td>` + story + `</td><td>` + tc.beside + `</td></tr></table>` + others.String() + `</body></html>`
		_, text := extract(t, page, Options{Tables: true})
		if !strings.Contains(text, "fishing fleet") || !strings.Contains(text, "Story 39") {
			t.Fatalf("%s: lost a story:\n%s", tc.name, text)
		}
		if gone := !strings.Contains(text, "Commitment"); gone != tc.gone {
			t.Errorf("%s: short lines gone %v, want %v:\n%s", tc.name, gone, tc.gone, text)
		}
	}
}
