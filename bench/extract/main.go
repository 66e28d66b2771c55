// Command extract scores hark's extractor (gateway/extract) beside
// go-trafilatura, used directly, on the same pages: word-shingle F1 of the
// text against the hand-checked truth, the structure scores of
// gateway/extract/score, and time per page.
//
//	cd bench/extract && go run . [-dir ../../gateway/web/testdata/extract] [-n 50]
//
// Pages named blog_* or news_* are articles, the rest documentation; the
// mean F1 of each kind is printed after the table.
//
// go-trafilatura is a measuring peer only: it is required by this module,
// never by hark. Its markdown is its content tree through html-to-markdown
// v2, as hark made it before it had its own extractor.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	mdbase "github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"

	"hark/gateway/extract"
	"hark/gateway/extract/score"
)

var (
	dir = flag.String("dir", "../../gateway/web/testdata/extract", "pages with .truth.txt beside them")
	n   = flag.Int("n", 50, "extractions of each page for the time per page")
)

type extractor struct {
	name string
	run  func(pg score.Page) (markdown, text string)
}

func main() {
	flag.Parse()
	log.SetFlags(0)
	files, _ := filepath.Glob(filepath.Join(*dir, "*.html"))
	sort.Strings(files)
	var pages []score.Page
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			log.Fatal(err)
		}
		truth, err := os.ReadFile(strings.TrimSuffix(f, ".html") + ".truth.txt")
		if err != nil {
			log.Fatal(err)
		}
		pages = append(pages, score.Page{Name: filepath.Base(f), URL: "http://docs.example/manual/html/" + filepath.Base(f), HTML: body, Truth: truth})
	}
	if len(pages) == 0 {
		log.Fatalf("no pages in %s", *dir)
	}
	fmt.Printf("%d pages from %s, advanced mode (tables kept), %d extractions each for the time\n\n", len(pages), *dir, *n)
	fmt.Println("| Extractor | Page | P | R | F1 | spacing | headings | code | lists | links | ms/page |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	kinds := map[string]*[2]float64{} // F1 sums and counts by extractor and kind
	for _, ex := range []extractor{{"hark", hark}, {"go-trafilatura v1.12.2", trafila}} {
		var sumF, sumP, sumR, sumMS float64
		var total score.Structures
		for _, pg := range pages {
			md, text := ex.run(pg)
			p, r, f := score.Text(text, string(pg.Truth))
			s := score.Structure(pg, md, text, nil)
			start := time.Now()
			for i := 0; i < *n; i++ {
				ex.run(pg)
			}
			ms := float64(time.Since(start).Microseconds()) / 1000 / float64(*n)
			fmt.Printf("| %s | %s | %.3f | %.3f | %.3f | %s | %s | %s | %s | %s | %.2f |\n", ex.name, pg.Name, p, r, f,
				frac(s.Spacing), frac(s.Headings), frac(s.Code), frac(s.Lists), frac(s.Links), ms)
			sumP, sumR, sumF, sumMS = sumP+p, sumR+r, sumF+f, sumMS+ms
			k := ex.name + "\x00" + kindOf(pg.Name)
			if kinds[k] == nil {
				kinds[k] = new([2]float64)
			}
			kinds[k][0], kinds[k][1] = kinds[k][0]+f, kinds[k][1]+1
			total.Add(s)
		}
		k := float64(len(pages))
		fmt.Printf("| **%s** | **mean** | %.3f | %.3f | **%.3f** | %.3f | %.3f | %.3f | %.3f | %.3f | **%.2f** |\n", ex.name,
			sumP/k, sumR/k, sumF/k, total.Spacing.Value(), total.Headings.Value(), total.Code.Value(), total.Lists.Value(), total.Links.Value(), sumMS/k)
	}
	fmt.Println("\n| Extractor | Kind | Pages | mean F1 |\n|---|---|---|---|")
	var keys []string
	for k := range kinds {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ex, kind, _ := strings.Cut(k, "\x00")
		fmt.Printf("| %s | %s | %.0f | %.3f |\n", ex, kind, kinds[k][1], kinds[k][0]/kinds[k][1])
	}
}

// kindOf tells articles (blog_*, news_*) from documentation pages.
func kindOf(name string) string {
	if strings.HasPrefix(name, "blog_") || strings.HasPrefix(name, "news_") {
		return "articles"
	}
	return "documentation"
}

func frac(c score.Count) string {
	if c.All == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", c.Value())
}

func hark(pg score.Page) (string, string) {
	doc, err := html.Parse(bytes.NewReader(pg.HTML))
	if err != nil {
		return "", ""
	}
	base, _ := url.Parse(pg.URL)
	title := extract.Title(doc)
	d := extract.Render(extract.Main(doc), title, extract.Options{Base: base, Tables: true})
	return d.Markdown(), d.Text()
}

func trafila(pg score.Page) (string, string) {
	base, _ := url.Parse(pg.URL)
	res, err := trafilatura.Extract(bytes.NewReader(pg.HTML), trafilatura.Options{
		OriginalURL:     base,
		EnableFallback:  true,
		ExcludeComments: true,
		HtmlDateMode:    trafilatura.Disabled,
		Focus:           trafilatura.FavorRecall,
		IncludeLinks:    true,
	})
	if err != nil || res == nil {
		return "", ""
	}
	conv := htmltomarkdown.NewConverter(htmltomarkdown.WithPlugins(mdbase.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin()))
	md, err := conv.ConvertNode(res.ContentNode, htmltomarkdown.WithDomain(base.Scheme+"://"+base.Host))
	if err != nil {
		return res.ContentText, res.ContentText
	}
	return string(md), res.ContentText
}
