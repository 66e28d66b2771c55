// Command extract scores hark's extractor (gateway/extract) beside
// go-trafilatura (and, with -go-readability, go-readability), used
// directly, on the same pages: precision, recall and F1 of the text
// against each page's truth, and time per page. One table per dataset,
// each split by site into a tuning part and a held-out part (see
// heldOut), with the tuning part's figures by fold.
//
//	cd bench/extract && go run . [-readability DIR] [-trafilatura DIR] [-scrapinghub DIR] [-wcxb DIR] [-htmltotext DIR] [-n 3] [-cache DIR] [-v] [-gaps]
//	cd bench/extract && go run . -fit [the same sets]   # fit extract.Weights, cross-validated by site folds
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
//     precision and recall over all snippets;
//   - scrapinghub: the Scrapinghub article extraction benchmark
//     (DIR/ground-truth.json, DIR/html/<id>.html gunzipped), scored by its
//     own measure (score.Shingles4, score.Mean4);
//   - wcxb: WCXB, the Web Content eXtraction Benchmark (DIR/metadata.json,
//     DIR/{dev,test}/{html,ground-truth}, html gunzipped), the page types
//     of -wcxb-types, scored by its own measure (score.Words);
//   - htmltotext: leogao2/htmltotext-benchmark (DIR/<language>/html and
//     DIR/<language>/text), the unseen set: pages of any site another set
//     read in the same run holds are left out, the rest scored whole as
//     one part by Scrapinghub's measure, never fitted on.
//
// Each extractor is scored against what its truth holds: the committed
// truths open with the page's title, which hark's text does and the
// peers return apart (it is put first); the public sets' truths leave it
// out, and so does hark's body (Document.Body, the "hark, body" row).
// hark reads each page decoded to UTF-8, as gateway/web hands it over.
//
// -pages, -dump, -where and -leaks look at tuning pages only; -gaps
// prints the held-out parts' differences page by page, without names.
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
	"reflect"
	"sort"
	"strconv"
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
	docsDir         = flag.String("docs", "../../gateway/web/testdata/extract", "committed pages with .truth.txt beside them")
	articlesDir     = flag.String("articles", "../../gateway/extract/testdata/articles", "committed articles with .truth.txt beside them")
	readDir         = flag.String("readability", "", "Mozilla Readability's test-pages folder (skipped when empty)")
	trafDir         = flag.String("trafilatura", "", "trafilatura's tests folder, with evaldata.json, eval/ and cache/ (skipped when empty)")
	n               = flag.Int("n", 3, "extractions of each page for the time per page")
	verbose         = flag.Bool("v", false, "print each tuning page where hark's F1 is 0.05 or more below the best peer's")
	only            = flag.String("only", "", "run only this extractor (hark, go-trafilatura, go-readability)")
	dump            = flag.String("dump", "", "print hark's text of the tuning page of this name and stop")
	pageScores      = flag.Bool("pages", false, "print hark's F1 on each tuning page (to compare two versions of a rule)")
	leaks           = flag.Bool("leaks", false, "print where each boilerplate snippet hark keeps on a tuning page of trafilatura's set sits (head, mid or tail of the text) and the source element that holds it, and the element holding each body snippet it misses, and stop")
	leaksHeldOut    = flag.Bool("leaks-held-out", false, "with -leaks, look at the held-out part instead, and print totals only: where the kept boilerplate sits, how much is in captions, how many body snippets are missed")
	gaps            = flag.Bool("gaps", false, "print how hark's held-out results differ from go-trafilatura's page by page, sorted and without page names: whether a gap is one page or many, without looking at the pages")
	visible         = flag.String("visible", "", "print the visible text of this HTML file, one block per line (how truth files are begun), and stop")
	shDir           = flag.String("scrapinghub", "", "the Scrapinghub article extraction benchmark's folder, with ground-truth.json and html/<id>.html (skipped when empty)")
	wcxbDir         = flag.String("wcxb", "", "WCXB's folder, with metadata.json and dev/ and test/ (skipped when empty)")
	freshDir        = flag.String("htmltotext", "", "leogao2/htmltotext-benchmark's benchmarkdata folder: the unseen set, scored as one part, without the pages of any site the other sets read here hold (skipped when empty)")
	wcxbTypes       = flag.String("wcxb-types", "article", "WCXB page types to score, comma-separated (article, documentation, forum, …)")
	onlySet         = flag.String("set", "", "run only the datasets whose title holds this")
	withReadability = flag.Bool("go-readability", false, "score go-readability too")
	cacheDir        = flag.String("cache", "", "keep the peers' outputs in this folder and read them back on later runs (their times are then not measured)")
	where           = flag.String("where", "", "with -dump, print the chain of elements (tag.class#id, innermost first) that holds this text on the page, and stop")
	weightsFlag     = flag.String("weights", "", "run hark with these weights changed from the defaults: Name=value,Name=value (see extract.Weights)")
	fit             = flag.Bool("fit", false, "fit the extractor's weights on the tuning parts by coordinate search, cross-validated by site folds, print each fold's figures, and stop")
)

// page is one page of a dataset: a truth text, or snippets.
type page struct {
	score.Page
	with, without []string
	article       bool
	// titled: the truth opens with the page's title (the committed
	// truths). The peers return it in a field of its own, which is put
	// first; hark is scored with its headline ("hark") and without it
	// ("hark, body"), by Document.Body.
	titled bool
	// site is the registrable domain the page was published on (or, for
	// a manual, its package): the unit of every split, so that no part
	// is scored on a site another part was tuned on.
	site string
}

type extractor struct {
	name string
	run  func(pg score.Page) (markdown, text, title string)
}

var extractors = []extractor{
	{"hark", hark},
	{"hark, body", harkBody},
	{"go-trafilatura v1.12.2", trafila},
	{"go-readability", readab},
}

// measure kinds: how a dataset's truth is scored.
const (
	byShingles3 = iota // score.Text against a whole-body truth
	bySnippets         // trafilatura's with/without snippets
	byShingles4        // the Scrapinghub benchmark's measure
	byWords            // WCXB's bag of words
)

type dataset struct {
	title     string
	pages     []page
	kind      int
	structure bool
	// unseen: a set of sites no other set holds, never looked at while
	// the rules were chosen, scored whole as one part.
	unseen bool
}

func main() {
	flag.Parse()
	log.SetFlags(0)
	// The weights first: -sweep reads pages with them too (it ran with
	// the zero Weights before).
	benchWeights = extract.DefaultWeights
	for _, kv := range strings.Split(*weightsFlag, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !reflect.ValueOf(benchWeights).FieldByName(k).IsValid() {
				log.Fatalf("-weights: %q is not Name=number of a field of extract.Weights", kv)
			}
			benchWeights = with(benchWeights, k, f)
		}
	}
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
	sets := datasets()
	if *leaks {
		for _, ds := range sets {
			if ds.kind == bySnippets && strings.HasPrefix(ds.title, "trafilatura") {
				whereLeaks(ds.pages)
			}
		}
		return
	}
	if *extra {
		printExtra(sets)
		return
	}
	if *fit {
		fitWeights(sets)
		return
	}
	if *pdiff > 0 {
		printPrecisionDiff(sets, *pdiff)
		return
	}
	fmt.Printf("Time per page: the mean of %d extractions of each page on one core.\n", *n)
	fmt.Printf("Held out: pages of sites whose FNV-1a hash is 0 mod 3, never used for tuning; the tuning part's sites fall in %d folds by the same hash.\n\n", folds)
	for _, ds := range sets {
		run(ds)
	}
}

// datasets reads every set named on the command line.
func datasets() []dataset {
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
	sets := []dataset{
		{title: "committed articles with bodies", pages: arts, kind: byShingles3},
		{title: "committed articles with snippets", pages: snips, kind: bySnippets},
		{title: "committed documentation", pages: docs, kind: byShingles3, structure: true},
	}
	if *readDir != "" {
		sets = append(sets, dataset{title: "Mozilla Readability test pages", pages: readReadability(*readDir), kind: byShingles3})
	}
	if *trafDir != "" {
		sets = append(sets, dataset{title: "trafilatura evaluation set (snippets)", pages: readTrafilatura(*trafDir), kind: bySnippets})
	}
	if *shDir != "" {
		sets = append(sets, dataset{title: "Scrapinghub article extraction benchmark", pages: readScrapinghub(*shDir), kind: byShingles4})
	}
	if *wcxbDir != "" {
		for _, kind := range strings.Split(*wcxbTypes, ",") {
			sets = append(sets, dataset{title: "WCXB " + kind + " pages", pages: readWCXB(*wcxbDir, kind), kind: byWords})
		}
	}
	if *mergedDir != "" {
		for _, m := range []struct{ set, title string }{
			{"cleaneval-final", "CleanEval final set"},
			{"page-signal-master", "L3S-GN1 (Google News)"},
			{"dragnet_data", "Dragnet"},
		} {
			sets = append(sets, dataset{title: m.title, pages: readMerged(*mergedDir, m.set), kind: byShingles3})
		}
	}
	if *freshDir != "" {
		used := map[string]bool{}
		for _, ds := range sets {
			for _, pg := range ds.pages {
				used[pg.site] = true
				if pg.URL != "" && !strings.HasPrefix(pg.URL, "http://docs.example/") {
					used[score.SiteOf(pg.URL)] = true
				}
			}
		}
		pages, dropped := readHTMLToText(*freshDir, used)
		log.Printf("htmltotext: %d pages of sites no other set holds; %d left out, their sites in other sets: %v", len(pages), len(dropped), dropped)
		sets = append(sets, dataset{title: "htmltotext-benchmark, sites of no other set", pages: pages, kind: byShingles4, unseen: true})
	}
	var out []dataset
	for _, ds := range sets {
		if *onlySet == "" || strings.Contains(strings.ToLower(ds.title), strings.ToLower(*onlySet)) {
			out = append(out, ds)
		}
	}
	return out
}

// benchWeights are the weights hark runs with (-weights).
var benchWeights extract.Weights

// heldOut and fold split every dataset by site (score.HeldOut,
// score.Fold), decided before any result was seen.
func heldOut(pg page) bool { return score.HeldOut(pg.site) }

func fold(pg page) int { return score.Fold(pg.site) }

const folds = score.Folds

func nameHash(name string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32()
}

type result struct {
	p, r, f    float64
	tp, fn, fp int
	sh         [3]float64 // Shingles4's tp, fp, fn
	ms         float64
	md, text   string
	structures score.Structures
	pages      int
}

// sum adds up a part's results; total reads them as the dataset's
// measure has them.
type sum struct {
	result
	k   int
	sh4 [][3]float64
}

func (s *sum) add(res result) {
	s.p, s.r, s.f, s.ms = s.p+res.p, s.r+res.r, s.f+res.f, s.ms+res.ms
	s.tp, s.fn, s.fp = s.tp+res.tp, s.fn+res.fn, s.fp+res.fp
	s.structures.Add(res.structures)
	s.sh4 = append(s.sh4, res.sh)
	s.k++
}

func (s *sum) total(kind int) (p, r, f float64) {
	k := float64(max(1, s.k))
	switch kind {
	case bySnippets: // trafilatura's way: over all snippets
		p = float64(s.tp) / float64(max(1, s.tp+s.fp))
		r = float64(s.tp) / float64(max(1, s.tp+s.fn))
		f = 2 * p * r / max(1e-9, p+r)
		return
	case byShingles4:
		return score.Mean4(s.sh4)
	}
	return s.p / k, s.r / k, s.f / k
}

func run(ds dataset) {
	pages := ds.pages
	if len(pages) == 0 {
		return
	}
	structureMarkdown = ds.structure
	sites := map[string]bool{}
	for _, pg := range pages {
		sites[pg.site] = true
	}
	parts := []string{"tuning", "held-out"}
	if ds.unseen {
		parts = []string{"unseen"}
	}
	for _, part := range parts {
		var sel []page
		for _, pg := range pages {
			if ds.unseen || heldOut(pg) == (part == "held-out") {
				sel = append(sel, pg)
			}
		}
		if len(sel) == 0 {
			continue
		}
		if *dump != "" {
			dumpPage(sel, part)
			continue
		}
		partSites := map[string]bool{}
		for _, pg := range sel {
			partSites[pg.site] = true
		}
		fmt.Printf("### %s: %s (%d pages, %d sites)\n\n", ds.title, part, len(sel), len(partSites))
		if ds.structure {
			fmt.Println("| Extractor | P | R | F1 | spacing | headings | code | lists | links | ms/page |\n|---|---|---|---|---|---|---|---|---|---|")
		} else {
			fmt.Println("| Extractor | P | R | F1 | ms/page |\n|---|---|---|---|---|")
		}
		perPage := map[string]map[string]float64{} // page, extractor: F1
		errs := map[string][][2]int{}              // snippets: false positives and negatives by extractor
		perFold := map[string]*[folds]sum{}
		for _, ex := range extractors {
			if *only != "" && !strings.HasPrefix(ex.name, *only) || ex.name == "go-readability" && !*withReadability {
				continue
			}
			var all sum
			byFold := &[folds]sum{}
			perFold[ex.name] = byFold
			for _, pg := range sel {
				res := measure(ex, pg, ds.kind)
				all.add(res)
				byFold[fold(pg)].add(res)
				if perPage[pg.Name] == nil {
					perPage[pg.Name] = map[string]float64{}
				}
				perPage[pg.Name][ex.name] = res.f
				if *pageScores && part == "tuning" && ex.name == "hark, body" {
					fmt.Printf("  page: %s %.3f fp %d fn %d\n", pg.Name, res.f, res.fp, res.fn)
				}
				if ds.kind == bySnippets && ex.name != "hark" {
					errs[pg.Name] = append(errs[pg.Name], [2]int{res.fp, res.fn})
				}
				if *verbose && part == "tuning" && ex.name == "hark, body" && ds.kind == bySnippets {
					text := harkText(pg)
					for _, w := range pg.without {
						if _, _, k := score.Snippets(text, nil, []string{w}); k > 0 {
							fmt.Printf("  in: %s: %q\n", pg.Name, w)
						}
					}
					for _, w := range pg.with {
						if k, _, _ := score.Snippets(text, []string{w}, nil); k == 0 {
							fmt.Printf("  missing: %s: %q\n", pg.Name, w)
						}
					}
				}
			}
			p, r, f := all.total(ds.kind)
			k := float64(len(sel))
			if ds.structure {
				s := all.structures
				fmt.Printf("| %s | %.3f | %.3f | **%.3f** | %s | %s | %s | %s | %s | %.2f |\n", ex.name, p, r, f,
					frac(s.Spacing), frac(s.Headings), frac(s.Code), frac(s.Lists), frac(s.Links), all.ms/k)
			} else {
				fmt.Printf("| %s | %.3f | %.3f | **%.3f** | %.2f |\n", ex.name, p, r, f, all.ms/k)
			}
		}
		fmt.Println()
		if part == "tuning" && len(perFold) > 0 {
			printFolds(ds.kind, perFold)
		}
		if *gaps && part != "tuning" {
			printGaps(sel, perPage, errs)
		}
		if *verbose && part == "tuning" && ds.kind != bySnippets {
			urls := map[string]string{}
			for _, pg := range sel {
				urls[pg.Name] = pg.URL
			}
			names := make([]string, 0, len(perPage))
			for name, fs := range perPage {
				if fs[scored(sel[0])] < fs["go-trafilatura v1.12.2"]-0.05 {
					names = append(names, name)
				}
			}
			sort.Strings(names)
			for _, name := range names {
				fs := perPage[name]
				fmt.Printf("  behind: %-50s %.3f %.3f %s\n", name, fs[scored(sel[0])], fs["go-trafilatura v1.12.2"], urls[name])
			}
			fmt.Println()
		}
	}
}

// printFolds prints each extractor's figures on each fold of a tuning
// part: P / R / F1 by fold, a fold being a fifth of its sites.
func printFolds(kind int, perFold map[string]*[folds]sum) {
	fmt.Print("Per fold of the tuning part (P / R / F1, pages):\n\n| Extractor |")
	for i := range folds {
		fmt.Printf(" fold %d |", i)
	}
	fmt.Print("\n|---|")
	for range folds {
		fmt.Print("---|")
	}
	fmt.Println()
	for _, ex := range extractors {
		fs, ok := perFold[ex.name]
		if !ok {
			continue
		}
		fmt.Printf("| %s |", ex.name)
		for i := range folds {
			p, r, f := fs[i].total(kind)
			fmt.Printf(" %.3f / %.3f / %.3f (%d) |", p, r, f, fs[i].k)
		}
		fmt.Println()
	}
	fmt.Println()
}

func dumpPage(sel []page, part string) {
	for _, pg := range sel {
		if pg.Name != *dump || part != "tuning" {
			continue
		}
		if *where != "" {
			doc, _ := html.Parse(bytes.NewReader(toUTF8(pg.HTML)))
			fmt.Println(chain(doc, strings.Join(strings.Fields(*where), " ")))
			os.Exit(0)
		}
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

// measure runs one extractor on one page, scores it, and times it.
func measure(ex extractor, pg page, kind int) result {
	md, text, title := cachedRun(ex, pg)
	if ex.name != "hark" && ex.name != "hark, body" && pg.titled && title != "" {
		text = title + "\n\n" + text
	}
	var res result
	switch kind {
	case bySnippets:
		res.tp, res.fn, res.fp = score.Snippets(text, pg.with, pg.without)
	case byShingles4:
		res.sh[0], res.sh[1], res.sh[2] = score.Shingles4(text, string(pg.Truth))
		res.p, res.r, res.f = score.Mean4([][3]float64{res.sh}) // the page's own, for -v and -gaps
	case byWords:
		res.p, res.r, res.f = score.Words(text, string(pg.Truth))
	default:
		res.p, res.r, res.f = score.Text(text, string(pg.Truth))
		if !pg.article {
			res.structures = score.Structure(pg.Page, md, text, nil)
		}
	}
	if *n > 0 {
		start := time.Now()
		for i := 0; i < *n; i++ {
			safeRun(ex, pg.Page)
		}
		res.ms = float64(time.Since(start).Microseconds()) / 1000 / float64(*n)
	}
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
		site := score.CommittedSite(name)
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
			pages = append(pages, page{Page: score.Page{Name: name, URL: sn.URL, HTML: body}, with: sn.With, without: sn.Without, article: true, site: score.SiteOf(sn.URL)})
			site = score.SiteOf(sn.URL)
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
			site:    site,
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
			site:    strings.TrimRight(strings.TrimRight(name, "0123456789"), "-"),
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
			with: e.With, without: append([]string{}, e.Without...), article: true, site: score.SiteOf(u),
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
	d := harkDoc(pg)
	return d.Markdown(), d.Text(), ""
}

// harkBody is hark's text without its headline (Document.Body), as the
// public sets' truths hold an article.
func harkBody(pg score.Page) (md, text, title string) {
	d := harkDoc(pg).Body()
	return d.Markdown(), d.Text(), ""
}

func harkDoc(pg score.Page) *extract.Document {
	doc, err := html.Parse(bytes.NewReader(toUTF8(pg.HTML)))
	if err != nil {
		return &extract.Document{}
	}
	base, _ := url.Parse(pg.URL)
	t := extract.Title(doc)
	return extract.Render(extract.MainWith(doc, benchWeights), t, extract.Options{Base: base, Tables: true})
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

// harkText is hark's text of pg as it is scored: with its headline where
// the truth opens with the title, without it elsewhere.
func harkText(pg page) string {
	if pg.titled {
		_, text, _ := hark(pg.Page)
		return text
	}
	_, text, _ := harkBody(pg.Page)
	return text
}

// scored is the name of hark's row that is held to the peers on pg: with
// its headline where the truth opens with the title, else its body.
func scored(pg page) string {
	if pg.titled {
		return "hark"
	}
	return "hark, body"
}

// printGaps prints, for a held-out part, hark's F1 minus go-trafilatura's
// on each page (bodies), or how many more boilerplate snippets hark keeps
// and how many fewer body snippets it finds (snippets), sorted and
// without the pages' names.
func printGaps(sel []page, perPage map[string]map[string]float64, errs map[string][][2]int) {
	var d []float64
	for _, pg := range sel {
		if e := errs[pg.Name]; len(e) >= 2 {
			d = append(d, float64(e[0][0]-e[1][0]), float64(e[0][1]-e[1][1]))
			continue
		}
		if fs := perPage[pg.Name]; len(fs) >= 2 {
			d = append(d, fs[scored(pg)]-fs["go-trafilatura v1.12.2"])
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
