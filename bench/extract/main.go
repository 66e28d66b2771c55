// Command extract scores hark's extractor (gateway/extract) beside
// go-trafilatura and go-readability, used directly, on the same pages:
// precision, recall and F1 of the text against each page's truth, and time
// per page. One table per dataset, each split into a tuning part and a
// held-out part (see heldOut).
//
//	cd bench/extract && go run . [-readability DIR] [-trafilatura DIR] [-n 5] [-v] [-gaps] [-halves]
//
// Datasets:
//
//   - committed: the pages committed with hark (gateway/web/testdata/extract
//     and gateway/extract/testdata/articles), each with a hand-checked
//     .truth.txt; scored by word 3-shingles (score.Text), articles
//     (blog_*, news_*, and every page of the articles folder) apart from
//     documentation, with the structure scores of gateway/extract/score for
//     hark and go-trafilatura;
//   - readability: Mozilla Readability's test pages (DIR/<page>/source.html,
//     truth the visible text of expected.html), by word 3-shingles;
//   - trafilatura: trafilatura's evaluation set (DIR/evaldata.json, pages
//     in DIR/eval and DIR/cache), scored as trafilatura scores it: snippets
//     that must be in the text and snippets that must not (score.Snippets),
//     precision and recall over all snippets.
//
// Each extractor is scored against what its truth holds: the committed
// truths open with the page's title, which hark's text does and the
// peers return apart (it is put first); the public sets' truths leave it
// out, and so hark's title line is left out there (see page.titled).
// hark reads each page decoded to UTF-8, as gateway/web hands it over.
//
// -pages, -dump and -leaks look at tuning pages only; -gaps prints the
// held-out parts' differences page by page, without names.
//
// The public sets are read from disk and never committed with hark.
// go-trafilatura and go-readability are measuring peers only: this module
// requires them, hark never does.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	mdbase "github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	readability "github.com/go-shiori/go-readability"
	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"hark/gateway/extract"
	"hark/gateway/extract/score"
)

var (
	docsDir      = flag.String("docs", "../../gateway/web/testdata/extract", "committed pages with .truth.txt beside them")
	articlesDir  = flag.String("articles", "../../gateway/extract/testdata/articles", "committed articles with .truth.txt beside them")
	readDir      = flag.String("readability", "", "Mozilla Readability's test-pages folder (skipped when empty)")
	trafDir      = flag.String("trafilatura", "", "trafilatura's tests folder, with evaldata.json, eval/ and cache/ (skipped when empty)")
	n            = flag.Int("n", 3, "extractions of each page for the time per page")
	verbose      = flag.Bool("v", false, "print each tuning page where hark's F1 is 0.05 or more below the best peer's")
	only         = flag.String("only", "", "run only this extractor (hark, go-trafilatura, go-readability)")
	dump         = flag.String("dump", "", "print hark's text of the tuning page of this name and stop")
	pageScores   = flag.Bool("pages", false, "print hark's F1 on each tuning page (to compare two versions of a rule)")
	leaks        = flag.Bool("leaks", false, "print where each boilerplate snippet hark keeps on a tuning page of trafilatura's set sits (head, mid or tail of the text) and the source element that holds it, and the element holding each body snippet it misses, and stop")
	leaksHeldOut = flag.Bool("leaks-held-out", false, "with -leaks, look at the held-out part instead, and print totals only: where the kept boilerplate sits, how much is in captions, how many body snippets are missed")
	gaps         = flag.Bool("gaps", false, "print how hark's held-out results differ from go-trafilatura's page by page, sorted and without page names: whether a gap is one page or many, without looking at the pages")
	visible      = flag.String("visible", "", "print the visible text of this HTML file, one block per line (how truth files are begun), and stop")
	halves       = flag.Bool("halves", false, "score the tuning part's two halves apart (by another bit of the name's hash) and skip the held-out part: a rule is kept only if neither half drops")
)

// page is one page of a dataset: a truth text, or snippets.
type page struct {
	score.Page
	with, without []string
	article       bool
	// titled: the truth opens with the page's title (the committed
	// truths). hark's text opens with it too; the peers return it in a
	// field of its own, which is put first. Where the truth leaves the
	// title out (Readability's output, trafilatura's snippets, which
	// count the headline as not the body), hark's title line is left out.
	titled bool
}

type extractor struct {
	name string
	run  func(pg score.Page) (markdown, text, title string)
}

var extractors = []extractor{
	{"hark", hark},
	{"go-trafilatura v1.12.2", trafila},
	{"go-readability", readab},
}

func main() {
	flag.Parse()
	log.SetFlags(0)
	if *visible != "" {
		body, err := os.ReadFile(*visible)
		if err != nil {
			log.Fatal(err)
		}
		doc, err := html.Parse(bytes.NewReader(body))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(score.NodeText(doc))
		return
	}
	if *sweepDir != "" {
		if err := sweep(*sweepDir); err != nil {
			log.Fatal(err)
		}
		return
	}
	fmt.Printf("Time per page: the mean of %d extractions of each page on one core.\n", *n)
	fmt.Printf("Held out: pages whose FNV-1a hash of the name is 0 mod 3, never used for tuning.\n\n")
	committed := append(readTruthDir(*docsDir, false), readTruthDir(*articlesDir, true)...)
	var arts, snips, docs []page
	for _, pg := range committed {
		switch {
		case pg.with != nil:
			snips = append(snips, pg)
		case pg.article:
			arts = append(arts, pg)
		default:
			docs = append(docs, pg)
		}
	}
	run("committed articles with bodies", arts, false)
	run("committed articles with snippets", snips, false)
	run("committed documentation", docs, true)
	if *readDir != "" {
		run("Mozilla Readability test pages", readReadability(*readDir), false)
	}
	if *trafDir != "" {
		if *leaks {
			whereLeaks(readTrafilatura(*trafDir))
			return
		}
		run("trafilatura evaluation set (snippets)", readTrafilatura(*trafDir), false)
	}
}

// heldOut splits every dataset by page name, decided before any result
// was seen: a third of the pages are never looked at while tuning.
func heldOut(name string) bool {
	return nameHash(name)%3 == 0
}

// tuningHalf is the half of the tuning part a page is in (0 or 1), by a
// bit of the hash that heldOut does not decide: a rule that helps one
// half only is fitted to its pages.
func tuningHalf(name string) int {
	return int(nameHash(name)/3) % 2
}

func nameHash(name string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32()
}

type result struct {
	p, r, f    float64
	tp, fn, fp int
	ms         float64
	md, text   string
	structures score.Structures
	pages      int
}

func run(title string, pages []page, structure bool) {
	if len(pages) == 0 {
		return
	}
	structureMarkdown = structure
	parts := []string{"tuning", "held-out"}
	if *halves {
		parts = []string{"tuning", "tuning half A", "tuning half B"}
	}
	for _, part := range parts {
		var sel []page
		for _, pg := range pages {
			switch {
			case heldOut(pg.Name) != (part == "held-out"):
			case part == "tuning half A" && tuningHalf(pg.Name) != 0, part == "tuning half B" && tuningHalf(pg.Name) != 1:
			default:
				sel = append(sel, pg)
			}
		}
		if len(sel) == 0 {
			continue
		}
		if *dump != "" {
			for _, pg := range sel {
				if pg.Name == *dump && part == "tuning" {
					text := harkText(pg)
					if pg.Truth == nil {
						fmt.Println(text)
						os.Exit(0)
					}
					// Lines of one side that share little with the other.
					for _, side := range []struct {
						mark       string
						from, into string
					}{{"+", text, string(pg.Truth)}, {"-", string(pg.Truth), text}} {
						for _, l := range strings.Split(side.from, "\n") {
							if strings.TrimSpace(l) == "" {
								continue
							}
							if p, _, _ := score.Text(l, side.into); p < 0.5 {
								fmt.Println(side.mark, l)
							}
						}
					}
					os.Exit(0)
				}
			}
			continue
		}
		fmt.Printf("### %s: %s (%d pages)\n\n", title, part, len(sel))
		if structure {
			fmt.Println("| Extractor | P | R | F1 | spacing | headings | code | lists | links | ms/page |\n|---|---|---|---|---|---|---|---|---|---|")
		} else {
			fmt.Println("| Extractor | P | R | F1 | ms/page |\n|---|---|---|---|---|")
		}
		perPage := map[string][]float64{}
		errs := map[string][][2]int{} // snippets: false positives and negatives by extractor
		for _, ex := range extractors {
			if *only != "" && !strings.HasPrefix(ex.name, *only) {
				continue
			}
			var sum result
			for _, pg := range sel {
				res := measure(ex, pg)
				sum.p, sum.r, sum.f, sum.ms = sum.p+res.p, sum.r+res.r, sum.f+res.f, sum.ms+res.ms
				sum.tp, sum.fn, sum.fp = sum.tp+res.tp, sum.fn+res.fn, sum.fp+res.fp
				sum.structures.Add(res.structures)
				perPage[pg.Name] = append(perPage[pg.Name], res.f)
				if *pageScores && part == "tuning" && ex.name == "hark" {
					fmt.Printf("  page: %s %.3f fp %d fn %d\n", pg.Name, res.f, res.fp, res.fn)
				}
				if pg.with != nil {
					errs[pg.Name] = append(errs[pg.Name], [2]int{res.fp, res.fn})
				}
				if *verbose && part == "tuning" && ex.name == "hark" && res.fp > 0 {
					text := harkText(pg)
					_, _, fp := score.Snippets(text, nil, pg.without)
					for _, w := range pg.without {
						if _, _, k := score.Snippets(text, nil, []string{w}); k > 0 {
							fmt.Printf("  in: %s: %q\n", pg.Name, w)
						}
					}
					_ = fp
				}
				if *verbose && part == "tuning" && ex.name == "hark" && res.fn > 0 {
					text := harkText(pg)
					for _, w := range pg.with {
						if k, _, _ := score.Snippets(text, []string{w}, nil); k == 0 {
							fmt.Printf("  missing: %s: %q\n", pg.Name, w)
						}
					}
				}
			}
			k := float64(len(sel))
			p, r, f := sum.p/k, sum.r/k, sum.f/k
			if sel[0].with != nil { // trafilatura's way: over all snippets
				p = float64(sum.tp) / float64(max(1, sum.tp+sum.fp))
				r = float64(sum.tp) / float64(max(1, sum.tp+sum.fn))
				f = 2 * p * r / max(1e-9, p+r)
			}
			if structure {
				s := sum.structures
				fmt.Printf("| %s | %.3f | %.3f | **%.3f** | %s | %s | %s | %s | %s | %.2f |\n", ex.name, p, r, f,
					frac(s.Spacing), frac(s.Headings), frac(s.Code), frac(s.Lists), frac(s.Links), sum.ms/k)
			} else {
				fmt.Printf("| %s | %.3f | %.3f | **%.3f** | %.2f |\n", ex.name, p, r, f, sum.ms/k)
			}
		}
		fmt.Println()
		if *gaps && part == "held-out" {
			printGaps(sel, perPage, errs)
		}
		if *verbose && part == "tuning" && sel[0].with != nil {
			for _, pg := range sel {
				e := errs[pg.Name]
				if len(e) == 3 && e[0][0]+e[0][1] > e[1][0]+e[1][1] {
					fmt.Printf("  worse: %-60s hark fp %d fn %d, trafilatura fp %d fn %d\n", pg.Name, e[0][0], e[0][1], e[1][0], e[1][1])
				}
			}
		}
		if *verbose && part == "tuning" && sel[0].with == nil {
			names := make([]string, 0, len(perPage))
			for name, fs := range perPage {
				if len(fs) == 3 && fs[0] < max(fs[1], fs[2])-0.05 || len(fs) == 1 && fs[0] < 0.97 {
					names = append(names, name)
				}
			}
			sort.Strings(names)
			for _, name := range names {
				fs := perPage[name]
				fmt.Printf("  behind: %-50s %.3f\n", name, fs)
			}
			fmt.Println()
		}
	}
}

// measure runs one extractor on one page, scores it, and times it.
func measure(ex extractor, pg page) result {
	md, text, title := safeRun(ex, pg.Page)
	switch {
	case ex.name == "hark" && !pg.titled:
		text = withoutTitle(pg.Page, text)
	case ex.name != "hark" && pg.titled && title != "":
		text = title + "\n\n" + text
	}
	var res result
	if pg.with != nil {
		res.tp, res.fn, res.fp = score.Snippets(text, pg.with, pg.without)
	} else {
		res.p, res.r, res.f = score.Text(text, string(pg.Truth))
		if pg.Truth != nil && !pg.article {
			res.structures = score.Structure(pg.Page, md, text, nil)
		}
	}
	start := time.Now()
	for i := 0; i < *n; i++ {
		safeRun(ex, pg.Page)
	}
	res.ms = float64(time.Since(start).Microseconds()) / 1000 / float64(max(1, *n))
	return res
}

func safeRun(ex extractor, pg score.Page) (md, text, title string) {
	defer func() {
		if r := recover(); r != nil {
			log.Printf("%s panicked on %s: %v", ex.name, pg.Name, r)
			md, text, title = "", "", ""
		}
	}()
	return ex.run(pg)
}

// withoutTitle drops the first line of hark's text when it is the
// title heading that Render put first.
func withoutTitle(pg score.Page, text string) string {
	doc, err := html.Parse(bytes.NewReader(pg.HTML))
	if err != nil {
		return text
	}
	first, rest, _ := strings.Cut(text, "\n")
	first = strings.Join(strings.Fields(first), " ")
	if t := extract.Title(doc); t != nil && first == strings.Join(strings.Fields(score.NodeText(t)), " ") {
		return rest
	}
	// A headline that Title does not take for the title (an <h2>, a
	// styled <div>) but that the page's <title> names is the title line
	// all the same.
	if t := findTitleElement(doc); t != nil && utf8.RuneCountInString(first) >= 15 &&
		strings.Contains(strings.ToLower(strings.Join(strings.Fields(score.NodeText(t)), " ")), strings.ToLower(first)) {
		return rest
	}
	return text
}

func findTitleElement(n *html.Node) *html.Node {
	if n.Type == html.ElementNode && n.Data == "title" {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := findTitleElement(c); t != nil {
			return t
		}
	}
	return nil
}

func readTruthDir(dir string, articles bool) []page {
	files, _ := filepath.Glob(filepath.Join(dir, "*.html"))
	sort.Strings(files)
	var pages []page
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			log.Fatal(err)
		}
		name := filepath.Base(f)
		// A page may have both labels: it is scored both ways.
		raw, err := os.ReadFile(strings.TrimSuffix(f, ".html") + ".snippets.json")
		if err == nil {
			var sn struct {
				URL           string
				With, Without []string
			}
			if err := json.Unmarshal(raw, &sn); err != nil {
				log.Fatalf("%s: %v", f, err)
			}
			pages = append(pages, page{Page: score.Page{Name: name, URL: sn.URL, HTML: body}, with: sn.With, without: sn.Without, article: true})
		}
		truth, terr := os.ReadFile(strings.TrimSuffix(f, ".html") + ".truth.txt")
		if terr != nil && err == nil {
			continue
		}
		if terr != nil {
			log.Fatal(terr)
		}
		pages = append(pages, page{
			Page:    score.Page{Name: name, URL: "http://docs.example/manual/html/" + name, HTML: body, Truth: truth},
			titled:  true,
			article: articles || strings.HasPrefix(name, "blog_") || strings.HasPrefix(name, "news_"),
		})
	}
	return pages
}

func readReadability(dir string) []page {
	dirs, _ := filepath.Glob(filepath.Join(dir, "*", "source.html"))
	sort.Strings(dirs)
	var pages []page
	for _, f := range dirs {
		body, err := os.ReadFile(f)
		if err != nil {
			log.Fatal(err)
		}
		exp, err := os.ReadFile(filepath.Join(filepath.Dir(f), "expected.html"))
		if err != nil {
			continue
		}
		doc, err := html.Parse(bytes.NewReader(exp))
		if err != nil {
			continue
		}
		name := filepath.Base(filepath.Dir(f))
		pages = append(pages, page{
			Page:    score.Page{Name: name, URL: "http://fakehost/test/page.html", HTML: body, Truth: []byte(score.NodeText(doc))},
			article: true,
		})
	}
	return pages
}

func readTrafilatura(dir string) []page {
	raw, err := os.ReadFile(filepath.Join(dir, "evaldata.json"))
	if err != nil {
		log.Fatal(err)
	}
	var eval map[string]struct {
		File    string   `json:"file"`
		With    []string `json:"with"`
		Without []string `json:"without"`
	}
	if err := json.Unmarshal(raw, &eval); err != nil {
		log.Fatal(err)
	}
	var pages []page
	for u, e := range eval {
		var body []byte
		for _, sub := range []string{"eval", "cache"} {
			if b, err := os.ReadFile(filepath.Join(dir, sub, e.File)); err == nil {
				body = b
				break
			}
		}
		if body == nil || len(e.With) == 0 {
			continue
		}
		pages = append(pages, page{
			Page: score.Page{Name: e.File, URL: u, HTML: body},
			with: e.With, without: append([]string{}, e.Without...), article: true,
		})
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].Name < pages[j].Name })
	return pages
}

func frac(c score.Count) string {
	if c.All == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", c.Value())
}

func hark(pg score.Page) (md, text, title string) {
	doc, err := html.Parse(bytes.NewReader(toUTF8(pg.HTML)))
	if err != nil {
		return "", "", ""
	}
	base, _ := url.Parse(pg.URL)
	t := extract.Title(doc)
	d := extract.Render(extract.Main(doc), t, extract.Options{Base: base, Tables: true})
	return d.Markdown(), d.Text(), ""
}

func trafila(pg score.Page) (md, text, title string) {
	base, _ := url.Parse(pg.URL)
	res, err := trafilatura.Extract(bytes.NewReader(pg.HTML), trafilatura.Options{
		OriginalURL:     base,
		EnableFallback:  true,
		ExcludeComments: true,
		HtmlDateMode:    trafilatura.Disabled,
		IncludeLinks:    true,
	})
	if err != nil || res == nil {
		return "", "", ""
	}
	if !structureMarkdown {
		return "", res.ContentText, res.Metadata.Title
	}
	conv := htmltomarkdown.NewConverter(htmltomarkdown.WithPlugins(mdbase.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin()))
	out, err := conv.ConvertNode(res.ContentNode, htmltomarkdown.WithDomain(base.Scheme+"://"+base.Host))
	if err != nil {
		return res.ContentText, res.ContentText, res.Metadata.Title
	}
	return string(out), res.ContentText, res.Metadata.Title
}

// structureMarkdown turns go-trafilatura's tree into markdown, as hark
// did before it had its own extractor, for the structure scores of the
// documentation set (its time there includes the conversion).
var structureMarkdown bool

func readab(pg score.Page) (md, text, title string) {
	base, _ := url.Parse(pg.URL)
	art, err := readability.FromReader(bytes.NewReader(pg.HTML), base)
	if err != nil || art.Node == nil {
		return "", "", ""
	}
	return "", score.NodeText(art.Node), art.Title
}

// harkText is hark's text of pg as it is scored (see page.titled).
func harkText(pg page) string {
	_, text, _ := hark(pg.Page)
	if !pg.titled {
		text = withoutTitle(pg.Page, text)
	}
	return text
}

// printGaps prints, for a held-out part, hark's F1 minus go-trafilatura's
// on each page (bodies), or how many more boilerplate snippets hark keeps
// and how many fewer body snippets it finds (snippets), sorted and
// without the pages' names.
func printGaps(sel []page, perPage map[string][]float64, errs map[string][][2]int) {
	var d []float64
	for _, pg := range sel {
		if e := errs[pg.Name]; len(e) >= 2 {
			d = append(d, float64(e[0][0]-e[1][0]), float64(e[0][1]-e[1][1]))
			continue
		}
		if fs := perPage[pg.Name]; len(fs) >= 2 {
			d = append(d, fs[0]-fs[1])
		}
	}
	if sel[0].with != nil {
		fp, fn := map[int]int{}, map[int]int{}
		for i := 0; i+1 < len(d); i += 2 {
			fp[int(d[i])]++
			fn[int(d[i+1])]++
		}
		fmt.Printf("Gaps, pages by boilerplate snippets hark keeps beyond go-trafilatura: %v; by body snippets it misses beyond it: %v\n\n", fp, fn)
		return
	}
	sort.Float64s(d)
	fmt.Printf("Gaps, hark's F1 minus go-trafilatura's by page: %.3f\n\n", d)
}

// toUTF8 decodes a page in another charset (a BOM or a <meta charset>)
// as gateway/web does before hark extracts it; go-trafilatura decodes
// its input itself. The pages are files without a Content-Type, and a
// page whose first kilobyte names no charset would be guessed as
// windows-1252: a page that is valid UTF-8 is read as UTF-8.
func toUTF8(body []byte) []byte {
	if utf8.Valid(body) {
		return body
	}
	enc, name, _ := charset.DetermineEncoding(body, "")
	if name == "utf-8" || enc == nil {
		return body
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return body
	}
	return out
}
