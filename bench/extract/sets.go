package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"log"
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
