package pages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/api/apitest"
	"hark/library"
	"hark/ui/common"
	"hark/ui/internal/uitest"
)

func drive(p *Pane) func(tea.Msg) tea.Cmd {
	return func(m tea.Msg) tea.Cmd { _, c := p.Update(m); return c }
}

func press(p *Pane, keys ...string) {
	for _, k := range keys {
		uitest.Settle(drive(p), func() tea.Cmd { _, c := p.Update(uitest.Press(k)); return c }())
	}
}

func crawlMsg() doneMsg {
	return doneMsg{slug: api.ToolCrawl, pages: []*Page{
		{URL: "https://docs.example.com/", Content: "# Home\n\nWelcome.", Source: api.ToolCrawl},
		{URL: "https://docs.example.com/guide/install", Content: "# Install\n\nRun `go install`.", Source: api.ToolCrawl},
		{URL: "https://docs.example.com/guide/config", Content: "# Config\n\nSettings.", Source: api.ToolCrawl},
		{URL: "https://blog.example.org/post-1", Content: "A post.", Source: api.ToolCrawl},
		{URL: "https://docs.example.com/broken", Err: "HTTP 404 Not Found", Source: api.ToolExtract},
	}}
}

func TestGoldenViews(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	for _, sz := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"120x30", 120, 30}} {
		p := New(c)
		p.SetSize(sz.w, sz.h)
		uitest.Golden(t, "empty_"+sz.name, p.View())
		arrive(p, crawlMsg())
		uitest.Golden(t, "tree_"+sz.name, p.View())
		p.Update(uitest.Press("j"))
		p.Update(uitest.Press("j"))
		p.Update(uitest.Press("p"))
		uitest.Golden(t, "preview_"+sz.name, p.View())
		p.Update(uitest.Press("p"))
		p.Update(renderedMsg{page: p.pages[0], width: 80, style: "dark", text: "# Home\n\nWelcome (rendered).", wrapped: "# Home\n\nWelcome."})
		p.read(p.pages[0])
		uitest.Golden(t, "reader_"+sz.name, p.View())
		p.Update(uitest.Press("esc"))
		p.Update(uitest.Press("/"))
		for _, k := range uitest.Type("guide") {
			p.Update(k)
		}
		uitest.Golden(t, "filtered_"+sz.name, p.View())
	}
}

func TestTreeGroupsWithCounts(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	arrive(p, crawlMsg())
	v := uitest.Plain(p.View())
	for _, want := range []string{"docs.example.com (4)", "/guide/ (2)", "blog.example.org (1)", "✗ HTTP 404 Not Found"} {
		if !strings.Contains(v, want) {
			t.Errorf("tree lacks %q:\n%s", want, v)
		}
	}
	// Folding the host hides its pages.
	p.cursor = 0
	p.Update(uitest.Press("enter"))
	if v := uitest.Plain(p.View()); strings.Contains(v, "/guide/install") {
		t.Errorf("folded host still shows its pages:\n%s", v)
	}
}

// Pages of an indexed folder (file://) are listed under "files", by the
// folder they are in, each by its name: never under "other" (issue 43).
func TestFilePagesGroupByFolder(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	var pages []*Page
	for _, u := range []string{"file:///usr/share/doc/valgrind/html/mc-manual.html", "file:///usr/share/doc/valgrind/html/faq.html",
		"file:///srv/notes/okapi.md", "https://docs.example.com/a"} {
		pages = append(pages, &Page{URL: u, Content: "text of " + u, Source: api.ToolSearch})
	}
	arrive(p, doneMsg{slug: api.ToolSearch, base: pages[0].URL, pages: pages})
	p.mode = listMode // one page read from the index opens in the reader
	v := uitest.Plain(p.View())
	for _, want := range []string{"files (3)", "/usr/share/doc/valgrind/html/ (2)", "mc-manual.html", "faq.html", "/srv/notes/okapi.md", "docs.example.com (1)"} {
		if !strings.Contains(v, want) {
			t.Errorf("tree lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "other") || strings.Contains(v, "/usr/share/doc/valgrind/html/faq.html") {
		t.Errorf("file pages under other, or named by their whole path under their folder:\n%s", v)
	}
}

func TestFilterAsYouType(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	arrive(p, crawlMsg())
	p.Update(uitest.Press("/"))
	if !p.Capturing() {
		t.Fatal("filter should capture keys")
	}
	for _, k := range uitest.Type("conf") {
		p.Update(k)
	}
	var pagesShown int
	for _, r := range p.rows {
		if r.page != nil {
			pagesShown++
			if !strings.Contains(r.page.URL, "conf") {
				t.Errorf("filter kept %s", r.page.URL)
			}
		}
	}
	if pagesShown != 1 {
		t.Errorf("filter shows %d pages, want 1", pagesShown)
	}
	p.Update(uitest.Press("esc"))
	if p.Capturing() || p.filter.Value() != "" {
		t.Error("esc should clear and leave the filter")
	}
}

func TestOpenExtractsAndReads(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(80, 24)
	// Several pages arrive in the list, not in the first one's reader.
	uitest.Settle(drive(p), func() tea.Cmd {
		_, c := p.Update(common.OpenPagesMsg{URLs: []string{"https://example.com/a", "https://example.com/fail"}})
		return c
	}())
	if p.Reading() != nil {
		t.Fatalf("two pages opened the reader on %s", p.Reading().URL)
	}
	uitest.Settle(drive(p), func() tea.Cmd {
		_, c := p.Update(common.OpenPagesMsg{URLs: []string{"https://example.com/a"}})
		return c
	}())
	if p.Reading() == nil || p.Reading().URL != "https://example.com/a" {
		t.Fatalf("reader shows %+v", p.Reading())
	}
	v := uitest.Plain(p.View())
	if !strings.Contains(v, "Page https://example.com/a") {
		t.Errorf("reader lacks the page:\n%s", v)
	}
	if p.Reading().rendered == "" {
		t.Error("markdown was not rendered")
	}
	press(p, "esc")
	v = uitest.Plain(p.View())
	if !strings.Contains(v, "✗ fetch failed") {
		t.Errorf("failed result not shown with its reason:\n%s", v)
	}
}

func TestCrawlFromSelectedAndExtractSelected(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(100, 30)
	uitest.Settle(drive(p), func() tea.Cmd {
		_, c := p.Update(common.RunToolMsg{Tool: *c.Tool(api.ToolMap), Inputs: map[string]any{"url": "https://site.test"}})
		return c
	}())
	if len(p.Pages()) != 3 {
		t.Fatalf("map gave %d pages", len(p.Pages()))
	}
	// Select two mapped links and extract them.
	p.cursor = 1
	press(p, "m", "m", "e")
	var body struct {
		Inputs map[string]any `json:"inputs"`
	}
	last := srv.Last(apitest.InvokePath(api.ToolExtract))
	if err := jsonUnmarshal(last.Body, &body); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(body.Inputs["urls"]) != "[https://site.test https://site.test/a]" {
		t.Errorf("extract sent %v", body.Inputs["urls"])
	}
	if p.byURL["https://site.test/a"].Content == "" {
		t.Error("extracted content not merged into the mapped page")
	}
	// Crawl from the page under the cursor.
	p.cursor = 1
	press(p, "c")
	if srv.Count(apitest.InvokePath(api.ToolCrawl)) != 1 {
		t.Fatal("crawl not called")
	}
	if !strings.Contains(string(srv.Last(apitest.InvokePath(api.ToolCrawl)).Body), `"url":"https://site.test"`) {
		t.Errorf("crawl body %s", srv.Last(apitest.InvokePath(api.ToolCrawl)).Body)
	}
}

func TestExportWritesMarkdown(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	arrive(p, crawlMsg())
	var notice string
	uitest.Settle(func(m tea.Msg) tea.Cmd {
		if n, ok := m.(common.NoticeMsg); ok {
			notice = n.Text
		}
		_, c := p.Update(m)
		return c
	}, func() tea.Cmd { _, c := p.Update(uitest.Press("w")); return c }())
	dir := filepath.Join(c.OutputDir, "pages-20261122-093000")
	if !strings.Contains(notice, "exported 4 pages") {
		t.Fatalf("notice %q", notice)
	}
	b, err := os.ReadFile(filepath.Join(dir, "docs.example.com_guide_install.md"))
	if err != nil || !strings.Contains(string(b), "Run `go install`.") || !strings.Contains(string(b), "source: https://docs.example.com/guide/install") {
		t.Errorf("exported file: %q %v", b, err)
	}
	idx, _ := os.ReadFile(filepath.Join(dir, "index.md"))
	if !strings.Contains(string(idx), "failed: HTTP 404 Not Found") {
		t.Errorf("index lacks the failure: %s", idx)
	}
	// A second export in the same second gets a folder of its own.
	p.pages[0].Marked = true
	uitest.Settle(func(m tea.Msg) tea.Cmd {
		if n, ok := m.(common.NoticeMsg); ok {
			notice = n.Text
		}
		_, c := p.Update(m)
		return c
	}, func() tea.Cmd { _, c := p.Update(uitest.Press("w")); return c }())
	if !strings.Contains(notice, "exported 1 page to") {
		t.Errorf("notice for one page %q", notice)
	}
	files, _ := os.ReadDir(dir + "-2")
	if len(files) != 2 { // the marked page and index.md
		t.Errorf("second export in %s-2 holds %d files, want 2", dir, len(files))
	}
	if files, _ := os.ReadDir(dir); len(files) != 5 {
		t.Errorf("the first export now holds %d files, want its 5", len(files))
	}
}

func TestFileNameIsSafe(t *testing.T) {
	for in, want := range map[string]string{
		"https://a.com/x/../../etc/passwd": "a.com_x_.._.._etc_passwd.md",
		"https://a.com/":                   "a.com.md",
		"https://a.com/q?x=1&y=2":          "a.com_q_x_1_y_2.md",
	} {
		if got := library.FileName(in); got != want {
			t.Errorf("library.FileName(%q) = %q, want %q", in, got, want)
		}
		if strings.Contains(library.FileName(in), "/") {
			t.Errorf("library.FileName(%q) has a slash", in)
		}
	}
}

func TestCallsRunSideBySide(t *testing.T) {
	srv := apitest.New(t)
	srv.Script(apitest.InvokePath(api.ToolCrawl), apitest.Slow(300*time.Millisecond, apitest.OK(map[string]any{"service": "vendor_search", "tool": api.ToolCrawl,
		"output": api.CrawlOutput{BaseURL: "https://c.test", Results: []api.PageContent{{URL: "https://c.test/", RawContent: "crawled"}}}})))
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(80, 24)
	_, crawl := p.Update(common.RunToolMsg{Tool: *c.Tool(api.ToolCrawl), Inputs: map[string]any{"url": "https://c.test"}})
	_, extract := p.Update(common.OpenPagesMsg{URLs: []string{"https://e.test/x"}})
	if v := uitest.Plain(p.View()); !strings.Contains(v, "(+1 more)") {
		t.Errorf("two calls not shown:\n%s", v)
	}
	uitest.Settle(drive(p), tea.Batch(crawl, extract))
	if p.byURL["https://c.test/"] == nil || p.byURL["https://e.test/x"] == nil {
		t.Errorf("an extract stopped the crawl: %v", p.byURL)
	}
	if p.progress.Active {
		t.Error("progress still shown")
	}
}

// arrive delivers a constructed result as if a call had been made for it.
func arrive(p *Pane, m doneMsg) {
	p.runs[m.seq] = func() {}
	p.Update(m)
}

// A filter kept with enter is cleared by esc from the list, as the footer
// and docs promise.
func TestEscClearsKeptFilter(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	arrive(p, crawlMsg())
	p.Update(uitest.Press("/"))
	for _, k := range uitest.Type("guide") {
		p.Update(k)
	}
	p.Update(uitest.Press("enter"))
	if p.Capturing() || p.filter.Value() != "guide" {
		t.Fatalf("enter should keep the filter and leave it (value %q)", p.filter.Value())
	}
	if v := uitest.Plain(p.View()); !strings.Contains(v, "2 of 5 pages match the filter") {
		t.Errorf("the count does not say the filter hides pages:\n%s", v)
	}
	p.Update(uitest.Press("esc"))
	if p.filter.Value() != "" || len(p.visible()) != len(p.pages) {
		t.Errorf("esc left the filter %q, %d of %d pages shown", p.filter.Value(), len(p.visible()), len(p.pages))
	}
}

// c, M and y on a host or path group act on the group's own URL, not on
// nothing.
func TestGroupRowActsOnGroupURL(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(80, 24)
	arrive(p, crawlMsg())
	want := map[byte]string{'h': "https://docs.example.com/", 'd': "https://docs.example.com/guide/"}
	for i, r := range p.rows {
		if w, ok := want[r.kind]; ok && r.label != "blog.example.org" {
			if got := p.rowURL(i); got != w {
				t.Errorf("row %q: URL %q, want %q", r.label, got, w)
			}
		}
	}
	for i, r := range p.rows {
		if r.kind == 'd' {
			p.cursor = i
		}
	}
	press(p, "M")
	if body := string(srv.Last(apitest.InvokePath(api.ToolMap)).Body); !strings.Contains(body, `"url":"https://docs.example.com/guide/"`) {
		t.Errorf("M on the /guide/ group sent %s", body)
	}
}

// A page that failed shows its whole reason, wrapped, and what to do.
func TestFailedPageReasonWrappedWithHint(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	c.Gateway = "embedded · workspace local"
	p := New(c)
	p.SetSize(80, 24)
	reason := "127.0.0.1: address is private, loopback or link-local; refused"
	arrive(p, doneMsg{slug: api.ToolExtract, pages: []*Page{{URL: "http://127.0.0.1:8080/zebra.html", Err: reason, Source: api.ToolExtract}}})
	p.read(p.pages[0])
	v := uitest.Plain(p.View())
	if !strings.Contains(strings.Join(strings.Fields(v), " "), reason) {
		t.Errorf("reason cut:\n%s", v)
	}
	if !strings.Contains(v, "HARK_ALLOW_PRIVATE=1") {
		t.Errorf("no hint on what to do:\n%s", v)
	}
	// The keys line names what works on a page with no text, not find,
	// contents, links or reading aloud.
	if !strings.Contains(v, "e extract again") || strings.Contains(v, "T contents") || strings.Contains(v, "R read aloud") {
		t.Errorf("a failed page's keys line:\n%s", v)
	}
}

// e on a failed page extracts it again (there is nothing to edit), and
// the reader shows it when it is read this time.
func TestFailedPageExtractAgain(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(80, 24)
	arrive(p, doneMsg{slug: api.ToolExtract, pages: []*Page{{URL: "https://example.com/a", Err: "timeout", Source: api.ToolExtract}}})
	p.read(p.pages[0])
	press(p, "e")
	if p.Reading() == nil || p.Reading().Err != "" || !strings.Contains(uitest.Plain(p.View()), "Page https://example.com/a") {
		t.Errorf("e did not extract the failed page again:\n%s", uitest.Plain(p.View()))
	}
}

// TestOpenPagesAlreadyRead: a page whose text came with the message (from
// the search index) is shown without calling extract.
func TestOpenPagesAlreadyRead(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(80, 24)
	const u = "file:///srv/docs/zebra.html"
	// raw_content is plain text: what looks like markup is the page's.
	_, cmd := p.Update(common.OpenPagesMsg{Read: []api.PageContent{{URL: u, RawContent: "Zebras cross at the **striped** crossing.\nchar *path = NULL; void *user_data;"}}})
	uitest.Settle(drive(p), cmd)
	for _, r := range srv.Requests() {
		if r.Path != api.PathTools {
			t.Errorf("called the gateway: %s %s", r.Method, r.Path)
		}
	}
	if v := uitest.Plain(p.View()); !strings.Contains(v, "Zebras cross at the **striped** crossing.") || !strings.Contains(v, "char *path = NULL; void *user_data;") || !strings.Contains(v, u) {
		t.Errorf("the page is not shown:\n%s", v)
	}
}

// A page opened from a search opens at the rarest of the query's words
// on it, found and highlighted, so n and N go on from there.
func TestOpenedFromSearchOpensAtTheMatch(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(80, 12)
	var body strings.Builder
	body.WriteString("This API is so fetching.\n\n")
	for i := range 40 {
		fmt.Fprintf(&body, "Line %d: a fetch request carries headers.\n\n", i)
	}
	body.WriteString("Fetch will one day abort running requests.\n\nThe end of the page.\n")
	_, cmd := p.Update(common.OpenPagesMsg{Read: []api.PageContent{{URL: "file:///srv/fetch.txt", RawContent: body.String()}}, Find: "abort a fetch request"})
	uitest.Settle(drive(p), cmd)
	v := uitest.Plain(p.View())
	if !strings.Contains(v, "“abort” 1 of 1 (n/N)") || !strings.Contains(v, "Fetch will one day abort running requests.") || strings.Contains(v, "This API is so fetching.") {
		t.Errorf("not opened at the rare word:\n%s", v)
	}
	if w := common.RarestWord("how does the fetch API abort", "fetch abort fetch"); w != "abort" {
		t.Errorf("RarestWord = %q", w)
	}
	if w := common.RarestWord("how do I use the question mark operator there?", "There the ? operator unwraps; the question mark operator returns early; the question mark works in main, and so does the question mark."); w != "operator" {
		t.Errorf("RarestWord = %q; want operator, not a stop word", w)
	}
	if w := common.RarestWord("okapi zebra", "nothing here"); w != "" {
		t.Errorf("RarestWord of absent words = %q", w)
	}
}

// The reader follows a page's links: l lists them, enter extracts the
// chosen one into Pages and reads it, esc comes back to the page it was
// followed from, and esc again goes to the list.
func TestReaderFollowsLinks(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(80, 24)
	const start = "file:///srv/docs/index.html"
	uitest.Settle(drive(p), p.add(doneMsg{slug: api.ToolExtract, base: start, pages: []*Page{{URL: start, Source: api.ToolExtract,
		Content: "# Index\n\nSee [the authors](https://example.com/a) and [`the news`](https://example.com/news).\n"}}}))
	if p.Reading() == nil || p.Reading().URL != start {
		t.Fatalf("reader shows %+v", p.Reading())
	}
	p.Update(uitest.Press("l"))
	if !p.Capturing() {
		t.Fatal("the link list does not hold the keys")
	}
	uitest.Golden(t, "reader_links_80x24", p.View())
	v := uitest.Plain(p.View())
	for _, want := range []string{"Links on this page (2)", "1 the authors", "https://example.com/a", "2 the news"} {
		if !strings.Contains(v, want) {
			t.Errorf("link list lacks %q:\n%s", want, v)
		}
	}
	_, cmd := p.Update(uitest.Press("enter"))
	uitest.Settle(drive(p), cmd)
	if p.Reading() == nil || p.Reading().URL != "https://example.com/a" {
		t.Fatalf("following the first link reads %+v", p.Reading())
	}
	if v := uitest.Plain(p.View()); !strings.Contains(v, "Page https://example.com/a") {
		t.Errorf("the followed page is not shown:\n%s", v)
	}
	_, cmd = p.Update(uitest.Press("esc"))
	uitest.Settle(drive(p), cmd)
	if p.Reading() == nil || p.Reading().URL != start || p.mode != readMode {
		t.Fatalf("esc after following goes to %+v, want back to %s", p.Reading(), start)
	}
	p.Update(uitest.Press("esc"))
	if p.mode != listMode {
		t.Error("esc on the first page read does not go back to the list")
	}
	// The list's cursor is on the page read last, not the link's.
	if r := p.rows[p.cursor]; r.page == nil || r.page.URL != start {
		t.Errorf("back in the list the cursor is on %+v, want %s", r.page, start)
	}
	if len(p.Pages()) != 2 {
		t.Errorf("Pages holds %d pages, want the start page and the followed one", len(p.Pages()))
	}
}

// While a page renders the reader says so and gives no position: "100%"
// beside "rendering…" read as a finished empty page.
func TestNoPositionWhileRendering(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	pg := &Page{URL: "https://example.com/long", Content: "# Long\n\n" + strings.Repeat("A paragraph of text.\n\n", 200), Source: api.ToolExtract}
	p.byURL[pg.URL], p.pages = pg, append(p.pages, pg)
	cmd := p.read(pg) // the render command is not run yet
	v := uitest.Plain(p.View())
	if !strings.Contains(v, "rendering…") || strings.Contains(v, "%") {
		t.Errorf("while rendering:\n%s", v)
	}
	uitest.Settle(drive(p), cmd)
	if v := uitest.Plain(p.View()); !strings.Contains(v, " 0%") || strings.Contains(v, "rendering…") {
		t.Errorf("once rendered:\n%s", v)
	}
}

// A crawl the gateway refuses reopens the form with what was typed, at
// the field it named.
func TestRefusedCrawlFormKeepsValues(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(100, 30)
	srv.Script(apitest.InvokePath(api.ToolCrawl), apitest.HTTPError(400, "select_paths: \"([a-z\" is not a valid regular expression"))
	press(p, "f")
	if p.form == nil {
		t.Fatal("f did not open the crawl form")
	}
	p.form.Set("url", "https://site.test/docs")
	p.form.Set("select_paths", "([a-z")
	p.form.Focus(0)
	_, cmd := p.Update(uitest.Press("enter"))
	uitest.Settle(drive(p), cmd)
	if p.form == nil {
		t.Fatalf("the refused form did not reopen:\n%s", uitest.Plain(p.View()))
	}
	if got := p.form.Control("select_paths").Value(); got != "([a-z" {
		t.Errorf("select_paths is %q after the refusal", got)
	}
	if f := p.form.Controls[p.form.Focused()]; f.Field.Name != "select_paths" || !strings.Contains(f.Err, "not a valid regular expression") {
		t.Errorf("focus on %s with error %q", f.Field.Name, f.Err)
	}
	press(p, "esc")
	press(p, "f")
	if p.form == nil || p.form.Control("url").Value() != "https://site.test/docs" {
		t.Error("f after the refusal lost the typed URL")
	}
}

// A URL the gateway refuses comes back on the URL line, with the error.
func TestRefusedURLComesBack(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(100, 30)
	srv.Script(apitest.InvokePath(api.ToolExtract), apitest.HTTPError(400, "urls: \"ftp://example.com/x\" must be an http or https URL"))
	press(p, "o")
	for _, k := range uitest.Type("ftp://example.com/x") {
		p.Update(k)
	}
	_, cmd := p.Update(uitest.Press("enter"))
	uitest.Settle(drive(p), cmd)
	v := uitest.Plain(p.View())
	if !p.askURL || p.urlInput.Value() != "ftp://example.com/x" || !strings.Contains(v, "must be an http or https URL") {
		t.Errorf("after the refusal: asking %v, line %q:\n%s", p.askURL, p.urlInput.Value(), v)
	}
	// The tool is named once ("vendor_extract: invoke vendor_extract:"
	// said it twice).
	if strings.Count(v, api.ToolExtract) != 1 {
		t.Errorf("the tool named %d times:\n%s", strings.Count(v, api.ToolExtract), v)
	}
}

// A big page shows its top at once while the whole page renders.
func TestBigPageShowsItsTopFirst(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	var b strings.Builder
	b.WriteString("# The top of a long manual\n\nThe first paragraph says what the manual is for.\n\n")
	for b.Len() < 48<<10 {
		b.WriteString("```\ncode line one\n\ncode line after a blank\n```\n\nA paragraph of the manual, long enough to make the page large.\n\n")
	}
	pg := &Page{URL: "https://example.com/manual", Content: b.String(), Source: api.ToolExtract}
	p.byURL[pg.URL], p.pages = pg, append(p.pages, pg)
	cmd := p.read(pg)
	batch, ok := cmd().(tea.BatchMsg)
	if !ok || len(batch) != 3 {
		t.Fatalf("a 48 KB page renders in one piece (%T)", cmd())
	}
	p.Update(batch[0]()) // the top
	v := uitest.Plain(p.View())
	if !strings.Contains(v, "The top of a long manual") || !strings.Contains(v, "The first paragraph") {
		t.Errorf("the top is not shown first:\n%s", v)
	}
	if !pg.headShown || pg.renderedWidth != 0 {
		t.Error("the top is taken for the whole page")
	}
	// Its text view is there at once, the whole page's.
	p.Update(batch[1]())
	press(p, "t", "G")
	if v := uitest.Plain(p.View()); !strings.Contains(v, "A paragraph of the manual") || !strings.Contains(v, "100% · plain text") {
		t.Errorf("the text view while the page renders:\n%s", v)
	}
	press(p, "t")
	p.Update(batch[2]()) // the whole page
	if pg.headShown || pg.renderedWidth == 0 || strings.Contains(pg.rendered, "rendering the rest") {
		t.Error("the whole rendering did not replace the top")
	}
	// A late top does not undo the whole page.
	p.Update(batch[0]())
	if pg.headShown {
		t.Error("a late top replaced the whole page")
	}
	if head := markdownHead(pg.Content, headBytes); strings.Count(head, "```")%2 != 0 || len(head) > headBytes {
		t.Errorf("the top is cut inside a code block or is too long (%d bytes)", len(head))
	}
}

// The reader's find, contents and browser: /, n, T and o.
func TestReaderFindContentsBrowse(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 16)
	const u = "https://docs.example/manual"
	var md strings.Builder
	md.WriteString("# Manual\n\n")
	for _, part := range []string{"Install", "Run", "Leaks", "Threads"} {
		fmt.Fprintf(&md, "## %s\n\n%s\n\n", part, strings.Repeat("A line about the "+strings.ToLower(part)+" part.\n\n", 8))
	}
	uitest.Settle(drive(p), p.add(doneMsg{slug: api.ToolExtract, base: u, pages: []*Page{{URL: u, Source: api.ToolExtract, Content: md.String()}}}))
	p.Update(uitest.Press("/"))
	if !p.Capturing() {
		t.Fatal("the find line does not hold the keys")
	}
	for _, k := range uitest.Type("threads part") {
		p.Update(k)
	}
	uitest.Golden(t, "reader_finding_80x16", p.View())
	p.Update(uitest.Press("enter"))
	v := uitest.Plain(p.View())
	if !strings.Contains(v, "“threads part” 1 of 8 (n/N)") || !strings.Contains(v, "A line about the threads part.") {
		t.Errorf("find:\n%s", v)
	}
	p.Update(uitest.Press("n"))
	if v := uitest.Plain(p.View()); !strings.Contains(v, "“threads part” 2 of 8") {
		t.Errorf("n:\n%s", v)
	}
	uitest.Golden(t, "reader_found_80x16", p.View())
	p.Update(uitest.Press("g"))
	p.Update(uitest.Press("T"))
	uitest.Golden(t, "reader_contents_80x16", p.View())
	p.Update(uitest.Press("down"))
	p.Update(uitest.Press("down"))
	p.Update(uitest.Press("down"))
	p.Update(uitest.Press("enter"))
	if v := uitest.Plain(p.View()); !strings.Contains(strings.Split(v, "\n")[1], "## Leaks") || !strings.Contains(v, "esc back to before the jump") {
		t.Errorf("T, down×3, enter should show Leaks at the top, and esc go back:\n%s", v)
	}
	// esc goes back to where the contents jumped from (the top), not to
	// the list (issue 43); a second esc then leaves the reader.
	p.Update(uitest.Press("esc"))
	if v := uitest.Plain(p.View()); p.mode != readMode || strings.TrimSpace(strings.Split(v, "\n")[1]) != "Manual" || !strings.Contains(v, "esc list") {
		t.Errorf("esc after a jump from the contents:\n%s", v)
	}
	p.Update(uitest.Press("esc"))
	if p.mode != listMode {
		t.Errorf("a second esc did not go back to the list")
	}
	p.Update(uitest.Press("enter"))
	// o opens the page in $BROWSER.
	got := filepath.Join(t.TempDir(), "browsed")
	script := filepath.Join(t.TempDir(), "browser")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"$1\" > "+got+"\n"), 0o755)
	t.Setenv("BROWSER", script)
	_, cmd := p.Update(uitest.Press("o"))
	msgs := uitest.Exec(cmd)
	if n, ok := msgs[0].(common.NoticeMsg); !ok || !strings.Contains(n.Text, "opened "+u) {
		t.Fatalf("o gave %#v", msgs)
	}
	for range 50 {
		if b, _ := os.ReadFile(got); strings.TrimSpace(string(b)) == u {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("$BROWSER was not given %s", u)
}

// A page opened from a search result's text (no extract call brings it)
// is kept in the library too, under the result's title.
func TestReadPagesAreKept(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	lib, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	c.Library = func() (*library.Store, error) { return lib, nil }
	p := New(c)
	p.SetSize(80, 24)
	_, cmd := p.Update(common.OpenPagesMsg{Read: []api.PageContent{{URL: "file:///srv/okapi.txt", RawContent: "The okapi is shy.", Title: "Okapi notes"}}})
	uitest.Settle(drive(p), cmd)
	items, _ := lib.List(context.Background(), library.KindPage, 0)
	if len(items) != 1 || items[0].Title != "Okapi notes" || items[0].URL != "file:///srv/okapi.txt" {
		t.Errorf("kept %+v", items)
	}
	// With keeping off, nothing is kept.
	lib.DeleteAll(context.Background())
	c.LibraryOff = true
	_, cmd = p.Update(common.OpenPagesMsg{Read: []api.PageContent{{URL: "file:///srv/b.txt", RawContent: "B."}}})
	uitest.Settle(drive(p), cmd)
	if n, _ := lib.Count(context.Background()); n != 0 {
		t.Errorf("library = false kept %d items", n)
	}
}

// Find in the reader, by keys: letters whose lower case differs in
// length do not crash it, and it counts and steps through every match,
// several on a line.
func TestReaderFindCountsMatches(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 16)
	const u = "http://127.0.0.1/leak.html"
	md := strings.Repeat("Ⱥ", 20) + " leak\n\nA leak, a Leak and a LEAK on one line.\n"
	uitest.Settle(drive(p), p.add(doneMsg{slug: api.ToolExtract, base: u, pages: []*Page{{URL: u, Source: api.ToolExtract, Content: md}}}))
	press(p, "/")
	for _, k := range uitest.Type("leak") {
		p.Update(k)
	}
	press(p, "enter")
	if v := uitest.Plain(p.View()); !strings.Contains(v, "“leak” 1 of 4 (n/N)") || !strings.Contains(v, strings.Repeat("Ⱥ", 20)+" leak") {
		t.Fatalf("find:\n%s", v)
	}
	press(p, "n", "n")
	v := p.View()
	if !strings.Contains(uitest.Plain(v), "“leak” 3 of 4") || !strings.Contains(v, "a \x1b[1;7mLeak\x1b[m") || strings.Count(v, "\x1b[7m") != 3 {
		t.Errorf("n n should make the second match of the line current, the other three reversed:\n%q", v)
	}
}

// t shows the page as plain text, for that page only, and the header
// says which view is shown: no markup, no escapes, headings on lines of
// their own, code indented.
func TestReaderPlainTextView(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 16)
	const u = "https://docs.example/pointer"
	md := "# Pointer page\n\nDeclare char \\*path with *care*, as [the readme](http://127.0.0.1/readme.html) says.\n\n```c\nchar *path = NULL;\n```\n\n- one\n- two\n"
	uitest.Settle(drive(p), p.add(doneMsg{slug: api.ToolExtract, base: u, pages: []*Page{{URL: u, Source: api.ToolExtract, Content: md}}}))
	if v := uitest.Plain(p.View()); !strings.Contains(strings.Split(v, "\n")[0], "· rendered") {
		t.Errorf("the header does not say the page is rendered:\n%s", v)
	}
	press(p, "t")
	uitest.Golden(t, "reader_text_80x16", p.View())
	v := uitest.Plain(p.View())
	for _, bad := range []string{`\*`, "](", "# Pointer", "```", "*care*"} {
		if strings.Contains(v, bad) {
			t.Errorf("the text view shows markup %q:\n%s", bad, v)
		}
	}
	for _, want := range []string{"plain text", "\nPointer page\n", "Declare char *path with care, as the readme says.", "\n    char *path = NULL;\n", "• one"} {
		if !strings.Contains(v, want) {
			t.Errorf("the text view lacks %q:\n%s", want, v)
		}
	}
	// Another page opens rendered; back on the first, its text view stays.
	const u2 = "https://docs.example/other"
	uitest.Settle(drive(p), p.add(doneMsg{slug: api.ToolExtract, base: u2, pages: []*Page{{URL: u2, Source: api.ToolExtract, Content: "# Other\n\nText."}}}))
	if v := uitest.Plain(p.View()); !strings.Contains(v, "· rendered") || strings.Contains(v, "plain text") {
		t.Errorf("the next page did not open rendered:\n%s", v)
	}
	uitest.Settle(drive(p), p.read(p.byURL[u]))
	if v := uitest.Plain(p.View()); !strings.Contains(v, "· plain text") {
		t.Errorf("the first page lost its text view:\n%s", v)
	}
}

// G pressed while only the top of a big page is rendered: no position is
// given meanwhile, and the whole page opens at its real end.
func TestEndWhileRendering(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	var b strings.Builder
	b.WriteString("# The top of a long manual\n\n")
	for i := 0; b.Len() < 48<<10; i++ {
		fmt.Fprintf(&b, "Paragraph %d of the manual, long enough to make the page large.\n\n", i)
	}
	b.WriteString("The very last words.\n")
	pg := &Page{URL: "https://example.com/manual", Content: b.String(), Source: api.ToolExtract}
	p.byURL[pg.URL], p.pages = pg, append(p.pages, pg)
	batch := p.read(pg)().(tea.BatchMsg)
	p.Update(batch[0]()) // the top
	press(p, "G")
	v := uitest.Plain(p.View())
	if !strings.Contains(v, "rendering the rest of the page…") || strings.Contains(v, "%") {
		t.Errorf("at the end of the top, while the rest renders:\n%s", v)
	}
	p.Update(batch[2]()) // the whole page
	v = uitest.Plain(p.View())
	if !strings.Contains(v, "100%") || !strings.Contains(v, "The very last words.") {
		t.Errorf("the whole page did not open at its end:\n%s", v)
	}
}

// A link to #fragment opens its page at that section: extracted (the
// fragment left out of the call) or already in Pages, or in the page
// itself.
func TestFollowedFragmentOpensAtSection(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(80, 12)
	const manual = "http://127.0.0.1:31723/valgrind/html/hg-manual.html"
	var md strings.Builder
	md.WriteString("# 7. Helgrind: a thread error detector\n\n")
	for _, h := range []string{"7.1. Overview", "7.2. Detected errors: Misuses of the POSIX pthreads API", "7.3. Detected errors: Inconsistent Lock Orderings", "7.4. Detected errors: Data Races"} {
		fmt.Fprintf(&md, "## %s\n\n%s\n\n", h, strings.Repeat("Words of the section.\n\n", 10))
	}
	md.WriteString("See [lock orders](" + manual + "#hg-manual.lock-orders).\n")
	out, _ := json.Marshal(api.ExtractOutput{Results: []api.PageContent{{URL: manual, RawContent: md.String()}}})
	srv.Script(apitest.InvokePath(api.ToolExtract), apitest.OK(api.InvokeResult{Tool: api.ToolExtract, Output: out}))
	const index = "http://127.0.0.1:31723/valgrind/html/index.html"
	uitest.Settle(drive(p), p.add(doneMsg{slug: api.ToolExtract, base: index, pages: []*Page{{URL: index, Source: api.ToolExtract,
		Content: "# Index\n\n1. [Misuses of the POSIX pthreads API.](" + manual + "#hg-manual.api-checks)\n2. [Data races](" + manual + "#hg-manual.data-races)\n"}}}))
	press(p, "l")
	_, cmd := p.Update(uitest.Press("enter"))
	uitest.Settle(drive(p), cmd)
	if body := string(srv.Last(apitest.InvokePath(api.ToolExtract)).Body); !strings.Contains(body, manual+`"`) {
		t.Errorf("extract was sent %s", body)
	}
	if v := uitest.Plain(p.View()); !strings.Contains(strings.Split(v, "\n")[1], "7.2. Detected errors: Misuses") {
		t.Errorf("the manual did not open at 7.2:\n%s", v)
	}
	// Back, then the second link: the page is in Pages already.
	uitest.Settle(drive(p), func() tea.Cmd { _, c := p.Update(uitest.Press("esc")); return c }())
	press(p, "l", "down")
	_, cmd = p.Update(uitest.Press("enter"))
	uitest.Settle(drive(p), cmd)
	if v := uitest.Plain(p.View()); !strings.Contains(strings.Split(v, "\n")[1], "7.4. Detected errors: Data Races") {
		t.Errorf("the manual did not open at 7.4:\n%s", v)
	}
	// A link inside the page goes to its section.
	press(p, "l")
	_, cmd = p.Update(uitest.Press("enter"))
	uitest.Settle(drive(p), cmd)
	if v := uitest.Plain(p.View()); !strings.Contains(strings.Split(v, "\n")[1], "7.3. Detected errors: Inconsistent Lock Orderings") {
		t.Errorf("the in-page link did not go to 7.3:\n%s", v)
	}
}

// The link list sizes its columns to their content: at 120 columns a
// 72-character URL is shown whole beside a long text.
func TestLinkListColumnsFitContent(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(120, 12)
	const u = "http://127.0.0.1:31723/valgrind/html/hg-manual.html#hg-manual.data-races"
	const index = "http://127.0.0.1:31723/valgrind/html/index.html"
	uitest.Settle(drive(p), p.add(doneMsg{slug: api.ToolExtract, base: index, pages: []*Page{{URL: index, Source: api.ToolExtract,
		Content: "# Index\n\n- [Data races -- accessing memory without adequate locking or synchronisation](" + u + ")\n- [Short](http://127.0.0.1:31723/a.html)\n"}}}))
	press(p, "l")
	uitest.Golden(t, "reader_links_120x12", p.View())
	if v := uitest.Plain(p.View()); !strings.Contains(v, u) {
		t.Errorf("the URL was cut:\n%s", v)
	}
}

// A page opened from a search index's text has no links to list, and
// the reader says why.
func TestSearchTextPageSaysWhyNoLinks(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 12)
	_, cmd := p.Update(common.OpenPagesMsg{Read: []api.PageContent{{URL: "file:///srv/docs/a.html", RawContent: "Text from the index, links gone."}}})
	uitest.Settle(drive(p), cmd)
	_, cmd = p.Update(uitest.Press("l"))
	msgs := uitest.Exec(cmd)
	if len(msgs) != 1 || !strings.Contains(fmt.Sprint(msgs[0]), "search index as plain text, which keeps no links") {
		t.Errorf("l on a page from the index said %v", msgs)
	}
}

// A file:// page the local index kept as markdown opens rendered, and its
// links are listed to follow, as for a page extracted from the web.
func TestIndexedMarkdownPageKeepsItsLinks(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	c.Index = docsIndex{}
	p := New(c)
	p.SetSize(100, 12)
	_, cmd := p.Update(common.OpenPagesMsg{ReadMarkdown: true, Read: []api.PageContent{{URL: "file:///srv/docs/a.html",
		RawContent: "# Alpha\n\nSee [the next page](file:///srv/docs/b.html) and *more*.\n"}}})
	uitest.Settle(drive(p), cmd)
	if v := uitest.Plain(p.View()); strings.Contains(v, "*more*") || strings.Contains(v, "](") {
		t.Errorf("markdown shown as its source:\n%s", v)
	}
	press(p, "l")
	if v := uitest.Plain(p.View()); !strings.Contains(v, "the next page") || !strings.Contains(v, "file:///srv/docs/b.html") {
		t.Errorf("the page's link is not listed:\n%s", v)
	}
	// Followed, the link is read from the index (no gateway fetches a
	// file:// page), and esc comes back.
	_, cmd = p.Update(uitest.Press("enter"))
	uitest.Settle(drive(p), cmd)
	if v := uitest.Plain(p.View()); !strings.Contains(v, "Beta") || !strings.Contains(v, "The second page.") {
		t.Errorf("the followed page:\n%s", v)
	}
	press(p, "esc")
	if v := uitest.Plain(p.View()); !strings.Contains(v, "Alpha") {
		t.Errorf("esc did not come back:\n%s", v)
	}
}

// docsIndex is a local index holding one more page, as markdown.
type docsIndex struct{}

func (docsIndex) Index(context.Context, string, func(int, string)) (int, error) { return 0, nil }
func (docsIndex) Sources(context.Context) ([]common.IndexSource, error)         { return nil, nil }
func (docsIndex) Remove(context.Context, string) (int, error)                   { return 0, nil }
func (docsIndex) Pages(context.Context) (int, error)                            { return 2, nil }
func (docsIndex) IndexedPage(_ context.Context, u string) (string, string, bool, error) {
	if u != "file:///srv/docs/b.html" {
		return "", "", false, fmt.Errorf("%s is not in the search index", u)
	}
	return "Beta", "# Beta\n\nThe second page.\n", true, nil
}

// A filter typed with the cursor far down a long tree shows the rows
// that match from the top of the pane, not the last of them alone with
// the pane blank below it.
func TestFilterAfterScrollFillsThePane(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	var pages []*Page
	for i := range 60 {
		pages = append(pages, &Page{URL: fmt.Sprintf("https://docs.example.com/ch%02d.html", i), Source: api.ToolMap})
	}
	pages = append(pages, &Page{URL: "https://docs.example.com/fn/closures.html", Source: api.ToolMap},
		&Page{URL: "https://docs.example.com/fn/closures/capture.html", Source: api.ToolMap})
	arrive(p, doneMsg{slug: api.ToolMap, pages: pages})
	press(p, "G")
	_ = p.View()
	press(p, "/")
	for _, k := range uitest.Type("closure") {
		p.Update(k)
	}
	v := uitest.Plain(p.View())
	for _, want := range []string{"docs.example.com (2)", "closures.html", "capture.html"} {
		if !strings.Contains(v, want) {
			t.Errorf("filtered tree lacks %q:\n%s", want, v)
		}
	}
}

// At 80 columns the reader's header keeps the end of a long URL, the
// page's own name ("file:///usr/share/d…" named no page).
func TestReaderHeaderKeepsThePageName(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	u := "file:///usr/share/doc/python3.11-doc/html/library/asyncio-task-groups-and-cancellation.html"
	arrive(p, doneMsg{slug: api.ToolExtract, pages: []*Page{{URL: u, Content: "# Coroutines and Tasks\n\nText.", Source: api.ToolExtract}}})
	p.read(p.pages[0])
	head := strings.Split(uitest.Plain(p.View()), "\n")[0]
	if !strings.Contains(head, "cancellation.html") || !strings.HasPrefix(strings.TrimSpace(head), "‹ file:") {
		t.Errorf("reader header at 80 columns: %q", head)
	}
}

// A failed call's error stays at the top until the reader moves on:
// reading a page of the tree, or a call that succeeds, is not what the
// error was about, and the line said it over every page read after.
func TestErrorLeavesWhenAPageIsRead(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(100, 30)
	arrive(p, crawlMsg())
	arrive(p, doneMsg{seq: 7, slug: api.ToolExtract, err: errors.New(`invalid urls: "ut rust" is not an absolute http or https URL`)})
	if !strings.Contains(uitest.Plain(p.View()), "not an absolute") {
		t.Fatalf("the error is not shown:\n%s", uitest.Plain(p.View()))
	}
	p.read(p.pages[0])
	if v := uitest.Plain(p.View()); strings.Contains(v, "not an absolute") {
		t.Errorf("the error is still shown over the page read after it:\n%s", v)
	}
	arrive(p, doneMsg{seq: 8, slug: api.ToolExtract, err: errors.New("HTTP status 500")})
	p.mode = listMode
	arrive(p, doneMsg{seq: 9, slug: api.ToolExtract, pages: []*Page{{URL: "https://docs.example.com/faq", Content: "# FAQ\n\nAsk.", Source: api.ToolExtract}}})
	if v := uitest.Plain(p.View()); strings.Contains(v, "HTTP status 500") {
		t.Errorf("the error is still shown after a call that succeeded:\n%s", v)
	}
}

// W reads the page again at the extract tool's advanced depth, which
// keeps the tables basic extraction leaves out, and shows it so.
func TestReaderReadsThePageAgainWhole(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(100, 30)
	const u = "https://docs.example.com/datatype-numeric.html"
	arrive(p, doneMsg{slug: api.ToolExtract, base: u, pages: []*Page{{URL: u, Content: "# Numeric Types\n\n**Table 8.2. Numeric Types**\n\nThe types are listed above.", Source: api.ToolExtract}}})
	uitest.Settle(drive(p), p.read(p.pages[0]))
	press(p, "W")
	var body struct {
		Inputs map[string]any `json:"inputs"`
	}
	last := srv.Last(apitest.InvokePath(api.ToolExtract))
	if err := jsonUnmarshal(last.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Inputs["extract_depth"] != "advanced" || fmt.Sprint(body.Inputs["urls"]) != "["+u+"]" {
		t.Errorf("W sent %v", body.Inputs)
	}
	if p.mode != readMode || p.reading == nil || p.reading.URL != u {
		t.Errorf("the page read again is not shown (mode %v)", p.mode)
	}
}
