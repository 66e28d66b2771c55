package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/text"
	"hark/gateway/web/webtest"
)

// seed puts pages straight into the index, as extract would.
func seed(t testing.TB, e *Engine, pages ...*page) {
	t.Helper()
	for _, p := range pages {
		if p.Fetched.IsZero() {
			p.Fetched = time.Now().UTC()
		}
		if err := e.store.put(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
}

func searchURLs(out *api.SearchOutput) []string {
	var u []string
	for _, r := range out.Results {
		u = append(u, r.URL)
	}
	return u
}

func mustSearch(t *testing.T, e *Engine, in api.SearchInput) *api.SearchOutput {
	t.Helper()
	out, err := e.Search(context.Background(), in)
	if err != nil {
		t.Fatalf("search %+v: %v", in, err)
	}
	for i, r := range out.Results {
		if i > 0 && r.Score > out.Results[i-1].Score {
			t.Errorf("scores out of order: %v after %v", r.Score, out.Results[i-1].Score)
		}
		if r.Score < 0 || r.Score > 1 {
			t.Errorf("score %v out of 0..1 for %s", r.Score, r.URL)
		}
		if r.Title == "" || r.URL == "" {
			t.Errorf("result without title or url: %+v", r)
		}
	}
	return out
}

func TestSearchFedByExtractAndCrawl(t *testing.T) {
	site := newTestSite(t)
	e := testEngine(t, nil)
	if _, err := e.Crawl(context.Background(), api.CrawlInput{URL: site.URL, MaxDepth: 1, MaxBreadth: 50, Limit: 50}); err != nil {
		t.Fatal(err)
	}
	out := mustSearch(t, e, api.SearchInput{Query: "crawler politeness", MaxResults: 3})
	if len(out.Results) == 0 || out.Results[0].URL != site.URL+"/a" {
		t.Fatalf("top result should be /a: %v", searchURLs(out))
	}
	if out.Results[0].PublishedDate != "2024-03-05T10:00:00Z" {
		t.Errorf("published_date = %q", out.Results[0].PublishedDate)
	}
	if len(out.Results) > 3 {
		t.Errorf("max_results 3 gave %d", len(out.Results))
	}
	// Image descriptions come from the alt text and the figure's caption.
	out = mustSearch(t, e, api.SearchInput{Query: "crawler politeness", MaxResults: 1, IncludeImages: true, IncludeImageDescriptions: true})
	if len(out.Images) != 1 || out.Images[0].URL != site.URL+"/img/spider.png" || out.Images[0].Description != "A friendly spider: Spiders crawl the web" {
		t.Errorf("images = %+v; results %+v", out.Images, out.Results)
	}
	// noindex pages never enter the index.
	out = mustSearch(t, e, api.SearchInput{Query: "asks not to be indexed", MaxResults: 20})
	for _, u := range searchURLs(out) {
		if strings.HasSuffix(u, "/noindex") {
			t.Error("noindex page is searchable")
		}
	}
	// Every depth answers, with the content each promises.
	for _, depth := range []string{"basic", "advanced", "fast", "ultra-fast"} {
		out := mustSearch(t, e, api.SearchInput{Query: "sitemap indexes", SearchDepth: depth, MaxResults: 5})
		if len(out.Results) == 0 || out.Results[0].URL != site.URL+"/b" {
			t.Errorf("%s: top should be /b: %v", depth, searchURLs(out))
			continue
		}
		if out.Results[0].Content == "" {
			t.Errorf("%s: empty content", depth)
		}
		if depth == "advanced" && !strings.Contains(out.Results[0].Content, "sitemap indexes group") {
			t.Errorf("advanced content = %q", out.Results[0].Content)
		}
	}
}

func TestSearchOptions(t *testing.T) {
	e := testEngine(t, nil)
	now := time.Now().UTC()
	seed(t, e,
		&page{URL: "https://news.example.com/2026/rates", Title: "Central bank holds interest rates", Text: "The central bank held interest rates steady on Tuesday. Markets rose after the decision on rates.", Published: now.Add(-48 * time.Hour), ArticleType: true,
			Images: []image{{URL: "https://news.example.com/chart.png", Description: "Chart of interest rates since 2020"}, {URL: "https://news.example.com/logo.png", Description: "Logo"}}, Favicon: "https://news.example.com/favicon.ico"},
		&page{URL: "https://old.example.org/rates-history", Title: "A history of interest rates", Text: "Interest rates have a long history. Babylonian lenders charged interest rates on grain.", Published: time.Date(2015, 6, 1, 0, 0, 0, 0, time.UTC)},
		&page{URL: "https://www.example.de/zinsen", Title: "Interest rates in Germany", Text: "German savers watch interest rates closely."},
		&page{URL: "https://blog.example.net/cooking", Title: "Cooking rice", Text: "Rice absorbs water at a steady rate while cooking."},
		&page{URL: "https://example.com/phrase", Title: "Phrase page", Text: "The quick brown fox jumps over the lazy dog."},
		&page{URL: "https://example.com/scrambled", Title: "Scrambled page", Text: "The brown quick fox; the dog was lazy and jumps over nothing."},
	)
	out := mustSearch(t, e, api.SearchInput{Query: "interest rates", MaxResults: 10})
	// "rates" also matches the cooking page's "rate", ranked last.
	if got := searchURLs(out); len(got) != 4 || got[3] != "https://blog.example.net/cooking" || out.Results[3].Score >= out.Results[2].Score {
		t.Errorf("want the 3 interest-rate pages, then cooking: %v", got)
	}
	if out.Results[0].Score <= 0.5 {
		t.Errorf("top score %v should be high", out.Results[0].Score)
	}
	// time_range falls back to the fetch date for undated pages.
	out = mustSearch(t, e, api.SearchInput{Query: "interest rates", TimeRange: "week", MaxResults: 10})
	for _, u := range searchURLs(out) {
		if strings.Contains(u, "old.example.org") {
			t.Error("time_range kept a 2015 page")
		}
	}
	if len(out.Results) != 3 {
		t.Errorf("week: %v", searchURLs(out))
	}
	out = mustSearch(t, e, api.SearchInput{Query: "interest rates", StartDate: "2015-01-01", EndDate: "2015-12-31"})
	if got := searchURLs(out); len(got) != 1 || !strings.Contains(got[0], "old.example.org") {
		t.Errorf("start/end date: %v", got)
	}
	// Domains.
	out = mustSearch(t, e, api.SearchInput{Query: "interest rates", IncludeDomains: "example.de, example.org"})
	if len(out.Results) != 2 {
		t.Errorf("include_domains: %v", searchURLs(out))
	}
	out = mustSearch(t, e, api.SearchInput{Query: "interest rates", ExcludeDomains: "example.com,example.net"})
	if len(out.Results) != 2 {
		t.Errorf("exclude_domains: %v", searchURLs(out))
	}
	// Country boosts its ccTLD to the top.
	out = mustSearch(t, e, api.SearchInput{Query: "interest rates", Country: "Germany"})
	if out.Results[0].URL != "https://www.example.de/zinsen" {
		t.Errorf("country Germany: %v", searchURLs(out))
	}
	// Topic news prefers news pages.
	if out := mustSearch(t, e, api.SearchInput{Query: "interest rates"}); out.Results[0].URL == "https://news.example.com/2026/rates" {
		t.Fatal("news page already first without topic; the topic check below would prove nothing")
	}
	out = mustSearch(t, e, api.SearchInput{Query: "interest rates", Topic: "news"})
	if out.Results[0].URL != "https://news.example.com/2026/rates" || out.Results[0].Score <= out.Results[1].Score {
		t.Errorf("topic news: %+v", out.Results)
	}
	// Topic finance prefers pages about markets.
	seed(t, e,
		&page{URL: "https://markets.example.com/q3", Title: "Quarterly report", Text: "Shares rose as quarterly earnings beat forecasts; the stock market, bond yields and dividend investors cheered the revenue. Quarterly growth."},
		&page{URL: "https://garden.example.com/q3", Title: "Growth in the garden", Text: "Growth of tomatoes. Pruning for growth, and more growth."},
	)
	if out := mustSearch(t, e, api.SearchInput{Query: "growth"}); out.Results[0].URL != "https://garden.example.com/q3" {
		t.Fatalf("garden page should lead without topic: %v", searchURLs(out))
	}
	if out := mustSearch(t, e, api.SearchInput{Query: "growth", Topic: "finance"}); out.Results[0].URL != "https://markets.example.com/q3" {
		t.Errorf("topic finance: %+v", out.Results)
	}
	// exact_match keeps only the phrase.
	out = mustSearch(t, e, api.SearchInput{Query: "quick brown fox", ExactMatch: true})
	if got := searchURLs(out); len(got) != 1 || got[0] != "https://example.com/phrase" {
		t.Errorf("exact_match: %v", got)
	}
	out = mustSearch(t, e, api.SearchInput{Query: "quick brown fox"})
	if len(out.Results) != 2 {
		t.Errorf("without exact_match both fox pages match: %v", searchURLs(out))
	}
	// Answer, images, raw content, favicon.
	out = mustSearch(t, e, api.SearchInput{Query: "did the central bank hold interest rates", IncludeAnswer: true, IncludeImages: true,
		IncludeImageDescriptions: true, IncludeRawContent: true, IncludeFavicon: true, MaxResults: 1})
	if len(out.Results) != 1 {
		t.Errorf("max_results 1 gave %d results", len(out.Results))
	}
	if !strings.Contains(out.Answer, "central bank held interest rates") {
		t.Errorf("answer = %q", out.Answer)
	}
	if len(out.Images) == 0 || out.Images[0].URL != "https://news.example.com/chart.png" || out.Images[0].Description == "" {
		t.Errorf("images = %+v", out.Images)
	}
	r := out.Results[0]
	if !strings.Contains(r.RawContent, "Markets rose") || r.Favicon != "https://news.example.com/favicon.ico" {
		t.Errorf("raw/favicon: %+v", r)
	}
	out = mustSearch(t, e, api.SearchInput{Query: "interest rates", IncludeImages: true})
	for _, im := range out.Images {
		if im.Description != "" {
			t.Error("descriptions without include_image_descriptions")
		}
	}
	if out.Answer != "" || out.Results[0].RawContent != "" || out.Results[0].Favicon != "" {
		t.Error("unrequested fields filled")
	}
	// The same page under two URLs is one result.
	seed(t, e, &page{URL: "https://dup.example/", Title: "Duplicate zebrafish", Text: "Zebrafish regrow fins."},
		&page{URL: "https://dup.example/index.html", Title: "Duplicate zebrafish", Text: "Zebrafish regrow fins."})
	for _, depth := range []string{"basic", "ultra-fast"} {
		if out := mustSearch(t, e, api.SearchInput{Query: "zebrafish fins", SearchDepth: depth}); len(out.Results) != 1 {
			t.Errorf("%s: duplicate pages: %v", depth, searchURLs(out))
		}
	}
	// Nothing matches, or nothing searchable.
	if out := mustSearch(t, e, api.SearchInput{Query: "xylophonist"}); len(out.Results) != 0 {
		t.Errorf("unexpected %v", searchURLs(out))
	}
	if out := mustSearch(t, e, api.SearchInput{Query: "!!! ???"}); len(out.Results) != 0 || out.Query != "!!! ???" {
		t.Errorf("punctuation query: %+v", out)
	}
	if _, err := e.Search(context.Background(), api.SearchInput{Query: "x", StartDate: "2020-02-02", EndDate: "2020-02-01"}); err == nil || !strings.Contains(err.Error(), "end_date") {
		t.Errorf("end before start: %v", err)
	}
	if out := mustSearch(t, e, api.SearchInput{Query: "interest rates", StartDate: "2015-06-01", EndDate: "2015-06-01"}); len(out.Results) != 1 {
		t.Errorf("one-day window: %v", searchURLs(out))
	}
	if _, err := e.Search(context.Background(), api.SearchInput{Query: "x", StartDate: "yesterday"}); err == nil || !strings.Contains(err.Error(), "start_date") {
		t.Errorf("bad start_date: %v", err)
	}
}

func TestIndexDirAndSitemap(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "guide.md"), []byte("# Tuning guide\n\nIncrease the fizzbuzz buffer for speed.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "page.html"), []byte("<html><head><title>Local page</title></head><body><p>Grommets are fastened with a grommet press.</p></body></html>"), 0o644)
	os.WriteFile(filepath.Join(dir, "image.png"), []byte("\x89PNG"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "notes.txt"), []byte("Plain notes about widgets."), 0o644)
	e := testEngine(t, nil)
	n, err := e.Index(context.Background(), dir)
	if err != nil || n != 3 {
		t.Fatalf("index dir: %d %v", n, err)
	}
	out := mustSearch(t, e, api.SearchInput{Query: "grommet press"})
	if len(out.Results) != 1 || !strings.HasPrefix(out.Results[0].URL, "file:///") || out.Results[0].Title != "Local page" {
		t.Errorf("local html: %+v", out.Results)
	}
	if out := mustSearch(t, e, api.SearchInput{Query: "fizzbuzz"}); len(out.Results) != 1 || out.Results[0].Title != "Tuning guide" {
		t.Errorf("markdown: %+v", out.Results)
	}

	site := newTestSite(t)
	n, err = e.Index(context.Background(), site.URL+"/sitemap_index.xml")
	if err != nil || n != 3 {
		t.Errorf("index sitemap: %d %v", n, err)
	}
	if out := mustSearch(t, e, api.SearchInput{Query: "only the sitemap lists it"}); len(out.Results) == 0 {
		t.Error("sitemap page not indexed")
	}
	n, err = e.Index(context.Background(), site.URL+"/")
	if err != nil || n < 8 {
		t.Errorf("index site: %d %v", n, err)
	}
	if _, err := e.Index(context.Background(), "/no/such/dir"); err == nil {
		t.Error("missing dir accepted")
	}
}

func TestSearchDepthsDiffer(t *testing.T) {
	e := testEngine(t, nil)
	filler := strings.Repeat("Filler words about nothing in particular fill this long page. ", 40)
	seed(t, e, &page{URL: "https://long.example.com/manual", Title: "Maintenance manual", Description: "Short summary of the manual.",
		Text: "A widget needs oil every month.\n\n" + filler + "\n\nThe gearbox needs grease every year."})
	res := map[string]api.SearchResult{}
	for _, depth := range []string{"basic", "advanced", "fast", "ultra-fast"} {
		out := mustSearch(t, e, api.SearchInput{Query: "widget gearbox", SearchDepth: depth})
		if len(out.Results) != 1 {
			t.Fatalf("%s: %+v", depth, out.Results)
		}
		res[depth] = out.Results[0]
	}
	// basic: the page's most relevant sentence and what follows it.
	if b := res["basic"].Content; len(b) > 400 || !strings.Contains(b, "widget") && !strings.Contains(b, "gearbox") {
		t.Errorf("basic content = %q", b)
	}
	// advanced: the best passages, both terms' among them.
	if a := res["advanced"].Content; !strings.Contains(a, "widget needs oil") || !strings.Contains(a, "gearbox needs grease") || !strings.Contains(a, " … ") {
		t.Errorf("advanced content = %q", a)
	}
	// ultra-fast: the page's description.
	if u := res["ultra-fast"].Content; u != "Short summary of the manual." {
		t.Errorf("ultra-fast content = %q", u)
	}
	// fast ranks on the title, URL and snippet only, which hold one of the
	// two terms; basic sees the whole page, which holds both.
	if res["fast"].Score >= res["basic"].Score {
		t.Errorf("fast score %v should be below basic's %v", res["fast"].Score, res["basic"].Score)
	}
}

// The basic snippet shows where the page says the word it uses once, not
// its opening, which only shares the word the page uses everywhere.
func TestBasicSnippetFindsTheRareWord(t *testing.T) {
	e := testEngine(t, nil)
	seed(t, e, &page{URL: "https://hacks.example/fetch", Title: "This API is so Fetching!",
		Text: "This API is so Fetching!\n\nFor more than a decade the Web has used XMLHttpRequest to fetch resources. Fetch requests are simpler.\n\n" +
			strings.Repeat("A fetch request carries headers and a body. ", 20) + "\n\n" +
			"Future improvements\n\nFetch will eventually have the ability to abort running fetches and report their progress. These are provided by XHR.\n\n" +
			"    fetch(url).then(function(res) { return res.json(); });\n"})
	out := mustSearch(t, e, api.SearchInput{Query: "abort a fetch request"})
	if len(out.Results) != 1 {
		t.Fatalf("results: %+v", out.Results)
	}
	c := out.Results[0].Content
	if !strings.HasPrefix(c, "…Fetch will eventually have the ability to abort running fetches") || len(c) > 460 || strings.Contains(c, "function(res)") {
		t.Errorf("basic content = %q", c)
	}
	// A query the page answers only in its title falls back to FTS5's
	// snippet of the body.
	out = mustSearch(t, e, api.SearchInput{Query: "fetching"})
	if len(out.Results) != 1 || out.Results[0].Content == "" {
		t.Errorf("title-only match: %+v", out.Results)
	}
}

// A snippet is sentences: the heading above the best one helps find it
// but is not glued to it, and the snippet stops where the next section
// begins.
func TestSnippetKeepsHeadingsOut(t *testing.T) {
	c := snippetOfOnePage(t, &page{URL: "https://pip.example/local", Title: "Local project installs",
		Text: "Local project installs\n\nIt is common to have a project in a folder that you wish to install.\n\n" +
			"Editable installs\n\nYou can install local projects in editable mode. Nothing is copied.\n\n" +
			"Build artifacts\n\nThe project is no longer copied to a temporary directory before the build."}, "editable install")
	if c != "…You can install local projects in editable mode. Nothing is copied. …" {
		t.Errorf("content = %q", c)
	}
}

// A snippet ends at a code block: the sentence that introduces it is not
// run into the one after it ("FLITEDIR is set After you build").
func TestSnippetEndsAtCode(t *testing.T) {
	c := snippetOfOnePage(t, &page{URL: "https://flite.example/convert", Title: "Converting voices",
		Text: "The process of building from a clustergen voice is also supported. It is assumed the variable FLITEDIR is set\n\n" +
			"```\nexport FLITEDIR=/home/awb/projects/flite/\n```\n\nAfter you build the clustergen voice you can convert it."}, "building process supported")
	if c != "The process of building from a clustergen voice is also supported. It is assumed the variable FLITEDIR is set …" {
		t.Errorf("content = %q", c)
	}
}

// snippetOfOnePage indexes p alone, searches it for query and returns the
// one result's content.
func snippetOfOnePage(t *testing.T, p *page, query string) string {
	t.Helper()
	e := testEngine(t, nil)
	seed(t, e, p)
	out := mustSearch(t, e, api.SearchInput{Query: query})
	if len(out.Results) != 1 {
		t.Fatalf("results: %+v", out.Results)
	}
	return out.Results[0].Content
}

func TestNewsRecencyBoostsOnlyNews(t *testing.T) {
	e := testEngine(t, nil)
	seed(t, e, &page{URL: "https://a.example.com/", Title: "Otters", Text: "Otters hold hands while they sleep."},
		&page{URL: "https://b.example.com/", Title: "River animals", Text: "Otters and beavers live by rivers. Beavers build dams across rivers."})
	plain := mustSearch(t, e, api.SearchInput{Query: "otters"})
	news := mustSearch(t, e, api.SearchInput{Query: "otters", Topic: "news"})
	if len(plain.Results) != 2 || len(news.Results) != 2 {
		t.Fatalf("%+v %+v", plain.Results, news.Results)
	}
	for i := range plain.Results {
		if p, n := plain.Results[i], news.Results[i]; p.URL != n.URL || p.Score != n.Score {
			t.Errorf("topic news changed a non-news page: %+v vs %+v", plain.Results[i], news.Results[i])
		}
	}
}

func TestAnswerSkipsHeadings(t *testing.T) {
	e := testEngine(t, nil)
	seed(t, e, &page{URL: "https://n.example.com/rivets", Title: "Rivet prices rise this week",
		Text: "Rivet prices rise this week\n\nSteel rivet prices rose sharply after a shortage of wire.\n\nHot rivet prices chart\n\nAnalysts expect rivet prices to fall next spring."})
	out := mustSearch(t, e, api.SearchInput{Query: "rivet prices", IncludeAnswer: true})
	if strings.Contains(out.Answer, "this week") || strings.Contains(out.Answer, "chart") || !strings.Contains(out.Answer, "rivet prices") {
		t.Errorf("answer = %q", out.Answer)
	}
}

// Scores follow the order, and the best result holding every query
// word reads 1.
func TestScoresFollowTheOrder(t *testing.T) {
	e := testEngine(t, nil)
	var pages []*page
	for i := 1; i <= 6; i++ {
		pages = append(pages, &page{URL: fmt.Sprintf("https://docs.example.com/gearbox-%d", i), Title: fmt.Sprintf("Manual part %d", i),
			Text: strings.Repeat("The gearbox needs grease and the widget needs oil. ", i) + strings.Repeat("Unrelated filler words about other machines and tools. ", 12-i)})
	}
	seed(t, e, pages...)
	out := mustSearch(t, e, api.SearchInput{Query: "gearbox grease", MaxResults: 6})
	if len(out.Results) < 4 || out.Results[0].Score != 1 || out.Results[0].URL != "https://docs.example.com/gearbox-6" {
		t.Fatalf("want gearbox-6 first at 1: %v %v", searchURLs(out), scoresOf(out))
	}
	for i := 1; i < len(out.Results); i++ {
		if out.Results[i].Score > out.Results[i-1].Score {
			t.Errorf("scores %v do not follow the order", scoresOf(out))
		}
	}
	// A lone result holding half the query's words reads about half.
	out = mustSearch(t, e, api.SearchInput{Query: "gearbox zeppelin", MaxResults: 6})
	if len(out.Results) == 0 || out.Results[0].Score > 0.5 {
		t.Errorf("half the words: scores %v", scoresOf(out))
	}
}

// Scores tell results apart on real pages: good matches once all read
// 0.97 to 1.00 ("memcheck leak" gave 1, .98, .97, .96, .91), so every
// score bar was full. The page about the query (its title and a heading
// name it) reads 1, pages that mention it read visibly less.
func TestScoresTellResultsApart(t *testing.T) {
	e := corpusEngine(t)
	for _, tc := range []struct{ query, best string }{
		{"memcheck leak", "mc-manual.html"},
		{"suppression file", "mc-manual.html"},
		{"helgrind", "hg-manual.html"},
	} {
		out := mustSearch(t, e, api.SearchInput{Query: tc.query, MaxResults: 5})
		sc := scoresOf(out)
		if len(sc) < 5 || !strings.HasSuffix(out.Results[0].URL, tc.best) || sc[0] != 1 {
			t.Errorf("%q: want %s first at 1: %v %v", tc.query, tc.best, searchURLs(out), sc)
			continue
		}
		bars := map[int]bool{}
		for i, s := range sc {
			bars[int(s*10+0.5)] = true // the TUI's 10-cell bar
			if i > 0 && s > sc[i-1] {
				t.Errorf("%q: scores %v do not follow the order", tc.query, sc)
			}
		}
		if sc[1] > 0.9 || sc[0]-sc[4] < 0.3 || len(bars) < 3 {
			t.Errorf("%q: scores %v: want the second at most 0.9, a spread of 0.3 and three bar lengths", tc.query, sc)
		}
	}
}

func scoresOf(out *api.SearchOutput) []float64 {
	var s []float64
	for _, r := range out.Results {
		s = append(s, r.Score)
	}
	return s
}

// corpusEngine is an engine whose index holds the research corpus: real
// documentation pages, Valgrind's manual and libffi's (the question set's
// corpus, ../research/testdata/corpus, see SOURCES.md there), indexed from the folder as `hark index` does.
func corpusEngine(t testing.TB) *Engine {
	t.Helper()
	e, err := New(Config{DB: testDB(t), MaxPageBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	webtest.IndexCorpus(t, "../research/testdata/corpus", func(dir string) (int, error) { return e.Index(context.Background(), dir) })
	return e
}

// One page under the URLs a site serves it at is one page.
func TestSamePage(t *testing.T) {
	for _, group := range [][]string{
		{"file:///usr/share/doc/nodejs/api/fs.html", "file:///usr/share/doc/nodejs/api/fs.md"},
		{"https://ex.org/docs/", "https://ex.org/docs", "https://EX.org/docs/index.html", "https://ex.org/docs/index.md#top"},
		{"https://ex.org/", "https://ex.org", "https://ex.org/index.htm"},
	} {
		for _, u := range group[1:] {
			if samePage(u) != samePage(group[0]) {
				t.Errorf("%s (%s) and %s (%s) should be one page", u, samePage(u), group[0], samePage(group[0]))
			}
		}
	}
	for _, pair := range [][2]string{
		{"https://ex.org/fs.html", "https://ex.org/path.html"},
		{"https://ex.org/a?id=1", "https://ex.org/a?id=2"},
		{"https://ex.org/docs/", "https://ex.org/docs/api/"},
	} {
		if samePage(pair[0]) == samePage(pair[1]) {
			t.Errorf("%s and %s are two pages", pair[0], pair[1])
		}
	}
}

// A snippet comes from the page's body: never its generator's footer,
// and a contents line only when no sentence holds the words.
func TestSnippetsComeFromTheBody(t *testing.T) {
	footer := "\n\nThis document was generated on October 23, 2022 using texi2any."
	got := snippetOfOnePage(t, &page{URL: "https://a.example/porting.html", Title: "Porting",
		Text: "9 Porting to new platforms\n\nbyte order, unions, compiler restrictions" + footer}, "porting platforms")
	if strings.Contains(got, "generated") {
		t.Errorf("the footer is in the snippet: %q", got)
	}
	got = snippetOfOnePage(t, &page{URL: "https://a.example/voices.html", Title: "Voices",
		Text: "Voices\n\nPrimitive Voices Structures Voice Lists Voice Examples\n\nA voice is generated from a recorded speaker and compiled into the binary." + footer},
		"voice generated")
	if !strings.HasPrefix(strings.TrimPrefix(got, "…"), "A voice is generated from a recorded speaker") {
		t.Errorf("the snippet is not the body's sentence: %q", got)
	}
}

// Node.js ships fs.html and fs.md: search and research count the page
// once, though its two copies differ in title and text.
func TestOnePageUnderTwoURLsCountsOnce(t *testing.T) {
	e := testEngine(t, nil)
	seed(t, e,
		&page{URL: "file:///doc/api/fs.html", Title: "File system | Node.js v20 Documentation", Text: "File system\n\nThe node:fs module enables interacting with the file system. Use fs.readFile to read a whole file."},
		&page{URL: "file:///doc/api/fs.md", Title: "File system", Text: "# File system\n\nThe `node:fs` module enables interacting with the file system. Use `fs.readFile` to read a whole file."},
		&page{URL: "file:///doc/api/path.html", Title: "Path", Text: "Path\n\nThe node:path module provides utilities for working with file and directory paths."})
	out := mustSearch(t, e, api.SearchInput{Query: "read file system"})
	n := 0
	for _, r := range out.Results {
		if strings.Contains(r.URL, "/fs.") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("fs appears %d times: %v", n, searchURLs(out))
	}
	res, err := researchOn(t, e).Research(context.Background(), api.ResearchInput{Input: "how do I read a whole file with the fs module?", Model: "mini"})
	if err != nil {
		t.Fatal(err)
	}
	n = 0
	for _, s := range res.Sources {
		if strings.Contains(s.URL, "/fs.") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("research cites fs %d times: %+v\n%s", n, res.Sources, res.Content)
	}
}

// An index made before research read pages' structure gains the columns
// it lacks, and its pages are still read (as plain text).
func TestStoreMigratesOldIndex(t *testing.T) {
	db := testDB(t)
	old := strings.Replace(sqliteTables, ",\n\tmarkdown    TEXT NOT NULL DEFAULT '',\n\theadings    TEXT NOT NULL DEFAULT ''", "", 1)
	if old == sqliteTables {
		t.Fatal("the old schema is the new one: update this test")
	}
	for _, stmt := range splitSQL(old) {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO web_pages(url, host, title, body, fetched) VALUES ('https://vg.example/core', 'vg.example', 'Valgrind core',
		'2.5. Suppressing errors

The error-checking tools detect numerous problems in the system libraries. So Valgrind reads a list of errors to suppress at startup.', 1)`); err != nil {
		t.Fatal(err)
	}
	e := testEngine(t, db)
	out, err := researchOn(t, e).Research(context.Background(), api.ResearchInput{Input: "how do I suppress errors?", Model: "mini"})
	if err != nil || !strings.Contains(out.Content, "So Valgrind reads a list of errors to suppress at startup.") {
		t.Fatalf("old page not read: %v\n%+v", err, out)
	}
	seed(t, e, &page{URL: "https://vg.example/new", Title: "New", Text: "New\n\nText.", Markdown: "## New\n\nText."})
	var md, heads string
	if err := db.QueryRow(`SELECT markdown, headings FROM web_pages WHERE url = 'https://vg.example/new'`).Scan(&md, &heads); err != nil || md != "## New\n\nText." || heads != "New" {
		t.Errorf("new page: %q %q %v", md, heads, err)
	}
	// Opening it again changes nothing.
	if _, err := openStore(context.Background(), db); err != nil {
		t.Fatal(err)
	}
}

// Another engine may change gateway.db's schema while a search runs:
// the job workers migrate their tables at the first job call, the
// research store makes its own at the first research. A statement on the
// FTS5 table that SQLite prepares again then can fail to reopen it
// ("database schema has changed: vtable constructor failed: web_fts");
// searching and indexing ride such bursts out.
func TestSearchRidesOutSchemaChanges(t *testing.T) {
	db := testDB(t)
	e := testEngine(t, db)
	for i := 0; i < 50; i++ {
		seed(t, e, &page{URL: fmt.Sprintf("https://z.example/%d", i), Title: "Okapi", Text: "The okapi is a mammal of the forest, a relative of the giraffe."})
	}
	migrated := make(chan error, 1)
	var searched atomic.Int64
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		// Five migrations of 40 statements each. Each waits for a
		// search to finish after the one before it, so searches run
		// between and during the migrations however slow the machine.
		for b := 0; b < 5; b++ {
			for seen := searched.Load(); searched.Load() == seen; {
				select {
				case <-done:
					return
				case <-time.After(time.Millisecond):
				}
			}
			for i := 0; i < 40; i++ {
				if _, err := db.Exec(fmt.Sprintf("CREATE TABLE IF NOT EXISTS other_%d_%d (a INTEGER)", b, i)); err != nil {
					migrated <- err
					return
				}
			}
			time.Sleep(40 * time.Millisecond)
		}
		migrated <- nil
	}()
	for n := 0; ; n++ {
		select {
		case err := <-migrated:
			if err != nil {
				t.Fatal(err)
			}
			return
		default:
		}
		if _, err := e.Search(context.Background(), api.SearchInput{Query: "okapi forest"}); err != nil {
			t.Fatalf("search %d during a schema change: %v", n, err)
		}
		searched.Add(1)
		seed(t, e, &page{URL: fmt.Sprintf("https://z.example/new/%d", n), Title: "Okapi", Text: "Another okapi page."})
	}
}

// A manual's front page that is a title page and its contents (the
// valgrind FAQ's: DocBook's release, copyright and contact lines) is
// quoted from what follows the title page, not its colophon; a page with
// no title page is quoted as before, and a title page with nothing after
// it is not cut to nothing.
func TestSnippetPassesOverTheTitlePage(t *testing.T) {
	html, err := os.ReadFile("testdata/snippet/valgrind_FAQ.html")
	if err != nil {
		t.Fatal(err)
	}
	p, err := parseHTML("http://docs.example/valgrind/FAQ.html", html, "", time.Now(), extractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Text, "Release 3.19.0") {
		t.Fatalf("the fixture's text has no title page:\n%s", p.Text)
	}
	got := snippetOfOnePage(t, p, "valgrind FAQ")
	for _, not := range []string{"Release", "Copyright", "©", "valgrind@valgrind.org"} {
		if strings.Contains(got, not) {
			t.Errorf("the snippet quotes the title page's %q: %q", not, got)
		}
	}
	if !strings.Contains(got, "Valgrind Frequently Asked Questions") {
		t.Errorf("the snippet is not the contents: %q", got)
	}

	for _, body := range []string{
		// Prose after the title: no title page, FTS5's snippet as before.
		"Okapi FAQ\n\nThe okapi FAQ answers what keepers ask.",
		// A section numbered like a version is not a colophon.
		"Okapi FAQ\n\n4.1. Overview\n\nokapi faq entries",
		// Only a title page: kept whole.
		"Okapi FAQ\n\nRelease 2.1 1 May 2024",
	} {
		if rest, ok := withoutTitlePage("Okapi FAQ", body); ok {
			t.Errorf("%q: cut to %q", body, rest)
		}
	}
	if rest, ok := withoutTitlePage("Okapi FAQ", "Okapi FAQ\n\nVersion 2.1, March 2024\n\nCopyright 2024 the keepers\n\nContact: keepers@okapi.example\n\nContents\n\n1. Feeding"); !ok || rest != "Contents\n\n1. Feeding" {
		t.Errorf("a texinfo-shaped title page: %q %v", rest, ok)
	}
}

// The answer does not say one thing twice: two manuals' near-identical
// sentences give one, and the next distinct sentence takes the second
// place.
func TestExtractiveAnswerDropsNearDuplicates(t *testing.T) {
	cands := []*candidate{
		{body: "Multiple suppression files are allowed. Suppression files are read at startup."},
		{body: "Multiple suppressions files are allowed. Memcheck reads each suppression file it is given."},
	}
	got := extractiveAnswer("are multiple suppression files allowed", cands)
	if strings.Count(got, "allowed") != 1 {
		t.Errorf("answer %q says the same sentence twice", got)
	}
	if n := len(text.Sentences(got)); n != 2 {
		t.Errorf("answer %q has %d sentences, want 2", got, n)
	}
}

// An answer quotes what a page says, never its headings: an FAQ's
// question heading ends in "?" and reads as a sentence, and it matched
// the query best, so the answer opened with the heading.
func TestExtractiveAnswerSkipsHeadings(t *testing.T) {
	cands := []*candidate{{
		title:    "Docutils FAQ",
		headings: "Docutils FAQ\n1.3 Is there a GUI authoring environment for Docutils?\nUnpacking options with ?",
		body: "Docutils FAQ\n\n1.3 Is there a GUI authoring environment for Docutils?\n\n" +
			"Not yet: authoring in any text editor works, as reStructuredText is plain text.\n\n" +
			"Unpacking options with ?\n\nYou can unpack options with a match or with the question mark operator.",
	}}
	got := extractiveAnswer("is there a gui authoring environment for docutils", cands)
	if strings.Contains(got, "1.3") || !strings.HasPrefix(got, "Not yet: authoring") {
		t.Errorf("answer %q; want the page's sentence, not its heading", got)
	}
	got = extractiveAnswer("unpacking options question mark", cands)
	if strings.HasPrefix(got, "Unpacking options with ?") || !strings.Contains(got, "unpack options with a match") {
		t.Errorf("answer %q; want the page's sentence, not its heading", got)
	}
}

// An ordered list's item is quoted without its number: an answer that
// opened "16. Limit the new UNION ALL optimization …" read as a piece.
func TestExtractiveAnswerDropsListNumbers(t *testing.T) {
	cands := []*candidate{{body: "Changes\n\n16. Limit the new UNION ALL optimization so that it does not make too many subqueries.\n\n" +
		"17. Fix the UNION ALL optimization when a subquery has a LIMIT.\n\n3.14 UNION ALL is documented in the SELECT page."}}
	got := extractiveAnswer("union all optimization", cands)
	if !strings.HasPrefix(got, "Limit the new UNION ALL") && !strings.HasPrefix(got, "Fix the UNION ALL") || strings.Contains(got, "16.") || strings.Contains(got, "17.") {
		t.Errorf("answer %q; want the items' sentences without their numbers", got)
	}
	if listNumber().FindString("3.14 UNION ALL is documented.") != "" {
		t.Errorf("a section number read as a list item's")
	}
}

// A page's stored headings are its headings' words: a link in a heading
// reads as its text, not its URL (rustdoc's "Struct syn::Ident", whose
// "syn" links to the crate's index).
func TestMarkdownHeadingsReadLinksAsText(t *testing.T) {
	md := "# Struct [syn](http://127.0.0.1:18082/syn/index.html)::Ident\n\nA word of Rust code.\n\n## impl [Ident](http://127.0.0.1:18082/syn/struct.Ident.html)\n\n### `a[i](x)` in code\n\n```\n# not a heading\n```\n"
	if got, want := markdownHeadings(md), "Struct syn::Ident\nimpl Ident\na[i](x) in code"; got != want {
		t.Errorf("headings %q, want %q", got, want)
	}
}

// An aside in parentheses that opens a sentence and ends in a full stop
// belongs to the sentence before: the answer quotes what follows it.
func TestExtractiveAnswerDropsALeadingAside(t *testing.T) {
	cands := []*candidate{{body: "Connections\n\nThe server listens on one port for connections. (See also Section 21.6.) The default port can be changed in postgresql.conf with the port setting.\n\n" +
		"(Port numbers under 1024 need root.) is how the old manual put it."}}
	got := extractiveAnswer("change the default port setting", cands)
	if !strings.HasPrefix(got, "The default port can be changed") || strings.Contains(got, "See also") {
		t.Errorf("answer %q; want the sentence without the aside before it", got)
	}
	for in, want := range map[string]string{
		"(See also Section 21.6.) The default value is postgres.": "The default value is postgres.",
		"(a) the first case holds.":                               "(a) the first case holds.",
		"(Port numbers under 1024 need root.) is how it reads.":   "(Port numbers under 1024 need root.) is how it reads.",
		"(The whole sentence is an aside.)":                       "(The whole sentence is an aside.)",
	} {
		if got := withoutLeadingAside(in); got != want {
			t.Errorf("withoutLeadingAside(%q) = %q, want %q", in, got, want)
		}
	}
}
