package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"hark/api"
	"hark/gateway/research"
	"hark/gateway/research/researchset"
)

// The second fresh round (fresh2/questions.json): questions over four
// Debian documentation sets no earlier set used, written after the
// ranking model was frozen and scored once (fresh2/README.md). The
// four sets are indexed whole into one index, as `hark index` indexes
// each folder, and each question asked of it; the figures are the
// manuals set's (answered, cited, clean), with bootstrap intervals,
// overall, per documentation set and per wording (a user's words or
// the manual's).
//
//	cd bench/research && go run . -fresh2 /usr/share/doc [-models mini,pro]
//	cd bench/research && go run . -fresh2 /usr/share/doc -fresh2check   # each gold fact on its gold page; asks nothing

var (
	fresh2Root  = flag.String("fresh2", "", "score the second fresh round (fresh2/questions.json) over the Debian documentation sets installed under this folder (/usr/share/doc), indexed whole into one index")
	fresh2Check = flag.Bool("fresh2check", false, "with -fresh2, index the sets and check that each question's gold page is indexed and holds one of its facts, asking research nothing")
	fresh2Diag  = flag.Bool("fresh2diag", false, "with -fresh2, diagnose each question a report leaves unanswered or uncited (the stage the gold fact was lost at: retrieval, reading, selection or a gate) and list each unclean report's problems; the round stays scored as it was (fresh2diag.go)")
)

// fresh2Folders are the documentation sets the round asks about, under
// /usr/share/doc, with the Debian package that installs each.
var fresh2Folders = [][2]string{
	{"python3.11/html", "python3.11-doc"},
	{"git-doc", "git-doc"},
	{"sphinx-doc/html", "sphinx-doc"},
	{"rust-doc/html/book", "rust-doc"},
}

// fresh2Question is a question of the round: a researchset.Question and
// how it is worded.
type fresh2Question struct {
	researchset.Question
	Wording string `json:"wording"` // "user" (a user's words) or "manual" (the manual's terms)
}

// loadFresh2 reads the round and checks each entry as researchset.Load
// does, and its wording.
func loadFresh2(file string) ([]fresh2Question, error) {
	if _, err := researchset.Load(file); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var qs []fresh2Question
	if err := json.Unmarshal(b, &qs); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	ids := map[int]bool{}
	for _, q := range qs {
		if q.Wording != "user" && q.Wording != "manual" {
			return nil, fmt.Errorf("%s: question %d: wording is %q; it must be user or manual", file, q.ID, q.Wording)
		}
		if ids[q.ID] {
			return nil, fmt.Errorf("%s: question %d: id given twice", file, q.ID)
		}
		ids[q.ID] = true
	}
	return qs, nil
}

// sourceTwin is the page a documentation set's source file is the
// source of: Sphinx ships each page's reStructuredText beside it
// (_sources/library/os.rst.txt for library/os.html) and git-doc each
// page's AsciiDoc (git-reset.txt for git-reset.html). hark indexes
// both, and a report citing the source cites another page by the
// rater's rule; the "cited, source counted" column counts it.
func sourceTwin(u string) string {
	if i := strings.Index(u, "/_sources/"); i >= 0 {
		rest := strings.TrimSuffix(strings.TrimSuffix(u[i+len("/_sources/"):], ".txt"), ".rst")
		return u[:i] + "/" + rest + ".html"
	}
	if strings.Contains(u, "/git-doc/") && strings.HasSuffix(u, ".txt") {
		return strings.TrimSuffix(u, ".txt") + ".html"
	}
	return u
}

// fresh2Outcome is how one question's report fares.
type fresh2Outcome struct {
	outcome
	citedTwin bool // the gold page or its source file is cited
	took      time.Duration
}

func runFresh2(root string, models []string, check bool) error {
	qs, err := loadFresh2("fresh2/questions.json")
	if err != nil {
		return err
	}
	c := &corpus{name: "fresh2"}
	for _, f := range fresh2Folders {
		dir := filepath.Join(root, f[0])
		if _, err := os.Stat(dir); err != nil {
			return fmt.Errorf("-fresh2: %s is not there: install the package %s (apt-get install python3.11-doc git-doc sphinx-doc rust-doc)", dir, f[1])
		}
		c.folders = append(c.folders, dir)
	}
	dir, err := os.MkdirTemp("", "hark-research-fresh2-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	pages, err := c.open(ctx, dir)
	defer c.close()
	if err != nil {
		return err
	}
	fmt.Printf("%d questions over %d pages (%s)\n\n", len(qs), pages, strings.Join(c.folders, ", "))
	if check {
		return checkFresh2(ctx, c, root, qs)
	}
	if *fresh2Diag {
		return runFresh2Diag(ctx, c, root, qs, models)
	}
	r, err := research.New(research.Config{DB: c.db, Index: c.web})
	if err != nil {
		return err
	}
	defer r.Close()
	all := map[string][]fresh2Outcome{}
	for _, model := range models {
		for _, q := range qs {
			start := time.Now()
			out, err := r.Research(ctx, api.ResearchInput{Input: q.Question.Question, Model: model})
			took := time.Since(start)
			if err != nil {
				return fmt.Errorf("%q: %w", q.Question.Question, err)
			}
			var urls, twins []string
			for _, s := range out.Sources {
				urls = append(urls, s.URL)
				twins = append(twins, sourceTwin(s.URL))
			}
			s := researchset.Rate(q.Question, out.Content, urls)
			t := researchset.Rate(q.Question, out.Content, twins)
			all[model] = append(all[model], fresh2Outcome{outcome{s.Answered, s.Cited, s.Clean()}, t.Cited, took})
		}
	}
	printFresh2(qs, models, all)
	return nil
}

// printFresh2 prints the round's figures: overall, per documentation
// set and per wording, for each model, and the ids each model left
// unanswered, uncited or unclean (the reports themselves are not
// printed: the round is scored once, and nothing is tuned on it; the
// scored run, before the unclean ids were listed, printed the other two).
func printFresh2(qs []fresh2Question, models []string, all map[string][]fresh2Outcome) {
	type row struct {
		name string
		in   func(fresh2Question) bool
	}
	rows := []row{{"all", func(fresh2Question) bool { return true }}}
	for _, f := range fresh2Folders {
		g, _, _ := strings.Cut(f[0], "/")
		rows = append(rows, row{g, func(q fresh2Question) bool { return researchset.Group(q.Question) == g }})
	}
	for _, w := range []string{"user", "manual"} {
		rows = append(rows, row{"worded by the " + w, func(q fresh2Question) bool { return q.Wording == w }})
	}
	fmt.Println("| Model | Questions | Which | Answered (95% interval) | Cited (95% interval) | Cited, source counted | Clean | Median time | Slowest |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, model := range models {
		for _, rw := range rows {
			var os []outcome
			var twin int
			var times []time.Duration
			for i, q := range qs {
				if rw.in(q) {
					o := all[model][i]
					os = append(os, o.outcome)
					times = append(times, o.took)
					if o.citedTwin {
						twin++
					}
				}
			}
			if len(os) == 0 {
				continue
			}
			slices.Sort(times)
			fmt.Printf("| %s | %d | %s | %s | %s | %.2f | %.2f | %s | %s |\n", model, len(os), rw.name,
				bootstrap(os, answered), bootstrap(os, cited), ratio(twin, len(os)), bootstrap(os, clean).share,
				times[len(times)/2].Round(time.Millisecond), times[len(times)-1].Round(time.Millisecond))
		}
	}
	fmt.Println()
	for _, model := range models {
		var missed, uncited, unclean []string
		for i, q := range qs {
			o := all[model][i]
			if !o.Answered {
				missed = append(missed, fmt.Sprint(q.ID))
			}
			if !o.Cited {
				uncited = append(uncited, fmt.Sprint(q.ID))
			}
			if !o.Clean {
				unclean = append(unclean, fmt.Sprint(q.ID))
			}
		}
		fmt.Printf("%s: not answered %s; not cited %s; unclean %s\n", model, strings.Join(missed, " "), strings.Join(uncited, " "), strings.Join(unclean, " "))
	}
}

// checkFresh2 checks, asking research nothing, that each question's
// gold page is in the index and that its text holds each of the
// question's facts, read as the rater reads a report (spaces folded,
// code marks dropped): a fact no page holds is one no report can quote.
func checkFresh2(ctx context.Context, c *corpus, root string, qs []fresh2Question) error {
	fold := func(s string) string {
		return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "`", "")
	}
	bad := 0
	for _, q := range qs {
		u := "file://" + filepath.Join(root, q.Page)
		text, err := c.web.IndexedText(ctx, u)
		if err != nil {
			fmt.Printf("#%d %s: gold page: %v\n", q.ID, q.Page, err)
			bad++
			continue
		}
		_, md, _, _ := c.web.IndexedPage(ctx, u)
		text, md = fold(text), fold(md)
		var missing []string
		for _, f := range q.Fact {
			f = fold(f)
			if !strings.Contains(text, f) && !strings.Contains(md, f) {
				missing = append(missing, fmt.Sprintf("%q", f))
			}
		}
		if len(missing) > 0 {
			fmt.Printf("#%d %s: not on the page: %s\n", q.ID, q.Page, strings.Join(missing, ", "))
			bad++
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d questions have a gold page or fact the index does not hold", bad, len(qs))
	}
	fmt.Printf("every gold page indexed and every fact of the %d questions on its page\n", len(qs))
	return nil
}
