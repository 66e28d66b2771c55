package extract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"hark/gateway/extract/score"
)

// qualityPage is one committed page with its labels: a truth text, or
// trafilatura's snippets.
type qualityPage struct {
	score.Page
	with, without []string
	article       bool
	site          string // the unit of the split (score.HeldOut)
}

// readQualitySet reads the pages of dir (see testdata/articles/SOURCES.md
// and ../web/testdata/extract/SOURCES.md).
func readQualitySet(t *testing.T, dir string, articles bool) []qualityPage {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.html"))
	sort.Strings(files)
	var pages []qualityPage
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		stem := strings.TrimSuffix(f, ".html")
		site := score.CommittedSite(name)
		// A page may have both labels: it is scored both ways.
		raw, err := os.ReadFile(stem + ".snippets.json")
		if err == nil {
			var sn struct {
				URL           string
				With, Without []string
			}
			if err := json.Unmarshal(raw, &sn); err != nil || len(sn.With) == 0 {
				t.Fatalf("%s.snippets.json: %v (or no with snippets)", stem, err)
			}
			site = score.SiteOf(sn.URL)
			pages = append(pages, qualityPage{Page: score.Page{Name: name, URL: sn.URL, HTML: body}, with: sn.With, without: sn.Without, article: true, site: site})
		}
		truth, terr := os.ReadFile(stem + ".truth.txt")
		if terr != nil && err == nil {
			continue
		}
		if terr != nil {
			t.Fatal(terr)
		}
		pages = append(pages, qualityPage{
			Page:    score.Page{Name: name, URL: "http://docs.example/manual/html/" + name, HTML: body, Truth: truth},
			article: articles || strings.HasPrefix(name, "blog_") || strings.HasPrefix(name, "news_"),
			site:    site,
		})
	}
	return pages
}

func extractPage(t *testing.T, pg score.Page) (md, text string) {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(pg.HTML))
	if err != nil {
		t.Fatal(err)
	}
	base, err := url.Parse(pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	title := Title(doc)
	d := Render(Main(doc), title, Options{Base: base, Tables: true})
	return d.Markdown(), d.Text()
}

// TestExtractionQualityOnCommittedPages scores hark's extractor on every
// committed page with labels: articles with a whole body (word-shingle
// F1), articles labelled with trafilatura's snippets (its precision and
// recall over all snippets), and documentation (F1 and the structure
// scores: inline spacing, headings, code lines, list items, links). It
// fails when a kind falls under the floor set from the figures measured
// when these rules were chosen (docs/web.md, Benchmarks), so a rule that
// lets boilerplate back in, or cuts an article, shows here. Run with -v
// for each page, and each part split by site as bench/extract splits
// it (the tuning part's folds, the tuning part, the held-out part), so
// the two report the same figures.
func TestExtractionQualityOnCommittedPages(t *testing.T) {
	pages := append(readQualitySet(t, "../web/testdata/extract", false), readQualitySet(t, "testdata/articles", true)...)
	type sums struct {
		f          float64
		n          int
		tp, fn, fp int
	}
	parts := map[string]*sums{} // kind, then "all", "tuning" or "held-out"
	// The parts are bench/extract's, split by site: a page is held out
	// when its site is (score.HeldOut), and a tuning page falls in its
	// site's fold, so no part shares a site with another.
	add := func(kind, site string, f float64, tp, fn, fp int) {
		into := []string{"all", "held-out"}
		if !score.HeldOut(site) {
			into = []string{"all", "tuning", fmt.Sprintf("fold %d", score.Fold(site))}
		}
		for _, part := range into {
			k := kind + " " + part
			if parts[k] == nil {
				parts[k] = &sums{}
			}
			s := parts[k]
			s.f, s.n, s.tp, s.fn, s.fp = s.f+f, s.n+1, s.tp+tp, s.fn+fn, s.fp+fp
		}
	}
	var structure score.Structures
	counts := map[string]int{}
	for _, pg := range pages {
		md, text := extractPage(t, pg.Page)
		switch {
		case pg.with != nil:
			tp, fn, fp := score.Snippets(text, pg.with, pg.without)
			t.Logf("%-60s snippets: %d of %d found, %d of %d boilerplate kept", pg.Name, tp, tp+fn, fp, len(pg.without))
			add("snippets", pg.site, 0, tp, fn, fp)
			counts["snippets"]++
		case pg.article:
			p, r, f := score.Text(text, string(pg.Truth))
			t.Logf("%-60s article P %.3f R %.3f F1 %.3f", pg.Name, p, r, f)
			add("articles", pg.site, f, 0, 0, 0)
			counts["articles"]++
		default:
			p, r, f := score.Text(text, string(pg.Truth))
			t.Logf("%-60s documentation P %.3f R %.3f F1 %.3f", pg.Name, p, r, f)
			add("documentation", pg.site, f, 0, 0, 0)
			structure.Add(score.Structure(pg.Page, md, text, nil))
			counts["documentation"]++
		}
	}
	if counts["articles"] < 50 || counts["snippets"] < 50 || counts["documentation"] < 15 {
		t.Fatalf("the committed set has %d articles with bodies, %d with snippets and %d documentation pages", counts["articles"], counts["snippets"], counts["documentation"])
	}
	snippetF1 := func(s *sums) (p, r, f float64) {
		p = float64(s.tp) / float64(max(1, s.tp+s.fp))
		r = float64(s.tp) / float64(max(1, s.tp+s.fn))
		return p, r, 2 * p * r / max(1e-9, p+r)
	}
	for _, kind := range []string{"articles", "snippets", "documentation"} {
		for _, part := range []string{"fold 0", "fold 1", "fold 2", "fold 3", "fold 4", "tuning", "held-out", "all"} {
			s := parts[kind+" "+part]
			if s == nil {
				continue
			}
			if kind == "snippets" {
				p, r, f := snippetF1(s)
				t.Logf("%s, %s (%d pages): P %.3f R %.3f F1 %.3f", kind, part, s.n, p, r, f)
			} else {
				t.Logf("%s, %s (%d pages): mean F1 %.3f", kind, part, s.n, s.f/float64(s.n))
			}
		}
	}
	// Floors: a little under the figures measured on 2026-11-26 (articles
	// 0.979 and snippets 0.974 after the standfirst and data-table rules
	// of 07:40 UTC, documentation 0.993), so that a real loss
	// fails while a page or two moving by a point does not.
	if s := parts["articles all"]; s.f/float64(s.n) < 0.972 {
		t.Errorf("articles' mean F1 %.3f below 0.972", s.f/float64(s.n))
	}
	if _, _, f := snippetF1(parts["snippets all"]); f < 0.965 {
		t.Errorf("snippet F1 %.3f below 0.965", f)
	}
	if s := parts["documentation all"]; s.f/float64(s.n) < 0.98 {
		t.Errorf("documentation's mean F1 %.3f below 0.98", s.f/float64(s.n))
	}
	for name, c := range map[string]score.Count{"spacing": structure.Spacing, "headings": structure.Headings,
		"code lines": structure.Code, "list items": structure.Lists, "links": structure.Links} {
		if c.Value() < 0.95 {
			t.Errorf("documentation keeps %.3f of its %s (%d of %d), under 0.95", c.Value(), name, c.Kept, c.All)
		}
	}
}

// BenchmarkExtractCommittedPages times the whole extraction (parse,
// furniture, article selection and cleaning, markdown and text) over
// every committed page. ms/page is the mean time per page; the time
// grows with the page's size and a few large news and Wikipedia pages
// (up to 1 MB) weigh on the mean, so the median page's time (p50-ms)
// and the time per 100 KB of HTML (ms/100KB) are reported too.
func BenchmarkExtractCommittedPages(b *testing.B) {
	var pages [][]byte
	size := 0
	for _, dir := range []string{"../web/testdata/extract", "testdata/articles"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.html"))
		for _, f := range files {
			body, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			pages = append(pages, body)
			size += len(body)
		}
	}
	base, _ := url.Parse("http://docs.example/page.html")
	each := make([]time.Duration, len(pages))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k, body := range pages {
			start := time.Now()
			doc, err := html.Parse(bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			title := Title(doc)
			d := Render(Main(doc), title, Options{Base: base})
			_, _ = d.Markdown(), d.Text()
			each[k] += time.Since(start)
		}
	}
	elapsed := float64(b.Elapsed().Microseconds()) / 1000 / float64(b.N)
	slices.Sort(each)
	b.ReportMetric(elapsed/float64(len(pages)), "ms/page")
	b.ReportMetric(float64(each[len(each)/2].Microseconds())/1000/float64(b.N), "p50-ms")
	b.ReportMetric(elapsed/(float64(size)/100e3), "ms/100KB")
}
