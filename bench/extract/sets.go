package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"log"
	"net/url"
	"os"
	"path/filepath"
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
			article: true, site: siteOf(t.URL),
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
			article: kind == "article", site: siteOf("http://" + m.Domain + "/"),
		})
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].Name < pages[j].Name })
	return pages
}

// siteOf is the registrable domain of an address: its last two labels,
// or three under a country's second level (bbc.co.uk). A page kept by
// the Wayback Machine is the site it kept. Blogs of one host
// (*.wordpress.com) are one site: they share its templates.
func siteOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	host := strings.ToLower(u.Hostname())
	if host == "web.archive.org" {
		// /web/20160218174457/http://bewegliche-lettern.de/…
		parts := strings.SplitN(strings.TrimPrefix(u.Path, "/web/"), "/", 2)
		if len(parts) == 2 {
			inner := parts[1]
			if !strings.Contains(inner, "://") {
				inner = "http://" + inner
			}
			return siteOf(inner)
		}
	}
	labels := strings.Split(host, ".")
	n := 2
	if len(labels) >= 3 && len(labels[len(labels)-1]) == 2 {
		switch labels[len(labels)-2] {
		case "co", "com", "org", "net", "gov", "ac", "edu", "or", "ne", "go":
			n = 3
		}
	}
	if len(labels) <= n {
		return host
	}
	return strings.Join(labels[len(labels)-n:], ".")
}

// committedSite is the site of a committed page that has no address: a
// manual's package (valgrind_…), a Readability page's site
// (rdb_wikipedia-2), a blog or news page's own name.
func committedSite(name string) string {
	name = strings.TrimSuffix(name, ".html")
	switch {
	case strings.HasPrefix(name, "rdb_"):
		return strings.TrimRight(strings.TrimRight(strings.TrimPrefix(name, "rdb_"), "0123456789"), "-")
	case strings.HasPrefix(name, "blog_"), strings.HasPrefix(name, "news_"), strings.HasPrefix(name, "traf_"):
		return name
	}
	pkg, _, _ := strings.Cut(name, "_")
	return pkg
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
