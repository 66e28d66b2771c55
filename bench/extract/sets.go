package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"hark/gateway/extract/score"
)

// readScrapinghub reads the Scrapinghub article extraction benchmark
// (github.com/scrapinghub/article-extraction-benchmark, MIT): 181 news
// and blog pages from as many sites, each with its articleBody, which
// leaves the headline out.
func readScrapinghub(dir string) []page {
	raw, err := os.ReadFile(filepath.Join(dir, "ground-truth.json"))
	if err != nil {
		log.Fatal(err)
	}
	var truth map[string]struct {
		ArticleBody string `json:"articleBody"`
		URL         string `json:"url"`
	}
	if err := json.Unmarshal(raw, &truth); err != nil {
		log.Fatal(err)
	}
	var pages []page
	for id, t := range truth {
		body, err := os.ReadFile(filepath.Join(dir, "html", id+".html"))
		if err != nil {
			log.Fatalf("scrapinghub %s: %v (gunzip html/*.gz first)", id, err)
		}
		pages = append(pages, page{
			Page:    score.Page{Name: id, URL: t.URL, HTML: body, Truth: []byte(t.ArticleBody)},
			article: true, site: score.SiteOf(t.URL),
		})
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].Name < pages[j].Name })
	return pages
}

// readWCXB reads the pages of one type of WCXB, the Web Content
// eXtraction Benchmark (github.com/Murrough-Foley/web-content-extraction-benchmark,
// CC BY 4.0): 2,008 pages of 1,613 sites with a hand-reviewed main text
// that leaves the title out. Its own dev/test split is by page; hark's is
// by site, as for every set.
func readWCXB(dir, kind string) []page {
	raw, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err != nil {
		log.Fatal(err)
	}
	var meta struct {
		Files map[string]struct {
			Split    string `json:"split"`
			PageType string `json:"page_type"`
			Domain   string `json:"domain"`
		} `json:"files"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		log.Fatal(err)
	}
	var pages []page
	for id, m := range meta.Files {
		if m.PageType != kind {
			continue
		}
		body, err := os.ReadFile(filepath.Join(dir, m.Split, "html", id+".html"))
		if err != nil {
			log.Fatalf("wcxb %s: %v (gunzip */html/*.gz first)", id, err)
		}
		gt, err := os.ReadFile(filepath.Join(dir, m.Split, "ground-truth", id+".json"))
		if err != nil {
			log.Fatal(err)
		}
		var g struct {
			URL         string `json:"url"`
			GroundTruth struct {
				MainContent string `json:"main_content"`
			} `json:"ground_truth"`
		}
		if err := json.Unmarshal(gt, &g); err != nil {
			log.Fatalf("wcxb %s: %v", id, err)
		}
		pages = append(pages, page{
			Page:    score.Page{Name: id, URL: g.URL, HTML: body, Truth: []byte(g.GroundTruth.MainContent)},
			article: kind == "article", site: score.SiteOf("http://" + m.Domain + "/"),
		})
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].Name < pages[j].Name })
	return pages
}

// cachedRun runs an extractor on a page; a peer's output is kept in
// -cache and read back on later runs, since it does not change while
// hark's rules do.
func cachedRun(ex extractor, pg page) (md, text, title string) {
	if *cacheDir == "" || strings.HasPrefix(ex.name, "hark") {
		return safeRun(ex, pg.Page)
	}
	h := fnv.New64a()
	h.Write(pg.HTML)
	file := filepath.Join(*cacheDir, strings.Fields(ex.name)[0], fmt.Sprintf("%x-%v.json", h.Sum64(), structureMarkdown))
	var out struct{ Markdown, Text, Title string }
	if raw, err := os.ReadFile(file); err == nil && json.Unmarshal(raw, &out) == nil {
		return out.Markdown, out.Text, out.Title
	}
	out.Markdown, out.Text, out.Title = safeRun(ex, pg.Page)
	if raw, err := json.Marshal(out); err == nil {
		os.MkdirAll(filepath.Dir(file), 0o755)
		os.WriteFile(file, raw, 0o644)
	}
	return out.Markdown, out.Text, out.Title
}

// readHTMLToText reads leogao2/htmltotext-benchmark (no licence stated:
// scored where it lies, never committed): pages transcribed by hand,
// DIR/<language>/html/<name>.html with DIR/<language>/text/<name>.txt,
// news, blogs and forum threads in English, German, Croatian and
// Chinese. It is the unseen set: a page whose site any other set read
// here holds (by the address its canonical link or og:url gives, else
// by the publisher its name gives, news-cnbc-… for cnbc) is left out,
// and so are pages with no text.
func readHTMLToText(dir string, used map[string]bool) (pages []page, dropped []string) {
	usedLabel := map[string]bool{}
	for site := range used {
		label, _, _ := strings.Cut(site, ".")
		usedLabel[label] = true
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "html", "*.html"))
	sort.Strings(files)
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			log.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".html")
		truth, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(f)), "text", name+".txt"))
		if err != nil || len(strings.TrimSpace(string(truth))) == 0 {
			continue
		}
		u := canonicalURL(body)
		site := score.SiteOf(u)
		_, rest, _ := strings.Cut(name, "-")
		publisher, _, _ := strings.Cut(rest, "-")
		if u == "" {
			site = publisher
			u = "http://" + publisher + ".example/" + name
		}
		label, _, _ := strings.Cut(site, ".")
		if used[site] || usedLabel[label] || usedLabel[publisher] {
			dropped = append(dropped, site)
			continue
		}
		pages = append(pages, page{
			Page:    score.Page{Name: name, URL: u, HTML: body, Truth: truth},
			article: !strings.HasPrefix(name, "forum-"), site: site,
		})
	}
	return pages, dropped
}

var canonicalRE = regexp.MustCompile(`(?i)<link[^>]*rel=["']?canonical["']?[^>]*>|<meta[^>]*property=["']og:url["'][^>]*>`)
var hrefRE = regexp.MustCompile(`https?://[^"' >]+`)

// canonicalURL is the address a page gives itself, or "".
func canonicalURL(body []byte) string {
	tag := canonicalRE.Find(body)
	return string(hrefRE.Find(tag))
}
