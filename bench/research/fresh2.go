package main

import (
	"bytes"
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

// A fresh round (fresh2/, fresh3/, …): questions over Debian
// documentation sets no earlier set used, written after the ranking
// model was frozen and scored once (the round's README.md). The round's
// folder holds questions.json (researchset's questions, each with its
// wording) and sets.json (the documentation sets, each a folder under
// the round's docs root and the Debian package that installs it). The
// sets are indexed whole into one index, as `hark index` indexes each
// folder, and each question asked of it; the figures are the manuals
// set's (answered, cited, clean), with bootstrap intervals, overall,
// per documentation set and per wording (a user's words or the
// manual's).
//
//	cd bench/research && go run . -round fresh3 [-docs /usr/share] [-models mini,pro]
//	cd bench/research && go run . -round fresh3 -check   # each gold fact on its gold page; asks nothing
//	cd bench/research && go run . -fresh2 /usr/share/doc [-fresh2check | -fresh2diag]   # -round fresh2 -docs /usr/share/doc

var (
	roundDir   = flag.String("round", "", "score a fresh round: the folder (fresh2, fresh3, …) holding its questions.json and sets.json, over its documentation sets indexed whole into one index")
	roundDocs  = flag.String("docs", "", "with -round, the folder the round's sets and gold pages are under (default: the docs of its sets.json)")
	roundCheck = flag.Bool("check", false, "with -round, index the sets and check that each question's gold page is indexed and holds each of its facts, asking research nothing")
	roundDiag  = flag.Bool("diag", false, "with -round, diagnose each question a report leaves unanswered or uncited (the stage the gold fact was lost at: retrieval, reading, selection or a gate) and list each unclean report's problems; only for a round already scored (fresh2diag.go)")

	fresh2Root  = flag.String("fresh2", "", "the second fresh round over the sets installed under this folder: the same as -round fresh2 -docs DIR")
	fresh2Check = flag.Bool("fresh2check", false, "the same as -check")
	fresh2Diag  = flag.Bool("fresh2diag", false, "the same as -diag")
)

// roundSet is one documentation set of a round.
type roundSet struct {
	Name    string `json:"name"`    // the name its figures are printed under
	Folder  string `json:"folder"`  // the folder indexed, under the round's docs root
	Package string `json:"package"` // the Debian package that installs it
}

// round is a fresh round: its questions and the sets they ask about.
type round struct {
	name string
	docs string // the folder Folder and each gold page are under
	sets []roundSet
	qs   []fresh2Question
	set  []int // set[i] is the index in sets of qs[i]'s gold page's set
}

// loadRound reads the round in dir: sets.json ({"docs": "/usr/share/doc",
// "sets": [{"name", "folder", "package"}, …]}) and questions.json, each
// question's gold page in exactly one set's folder.
func loadRound(dir string) (*round, error) {
	file := filepath.Join(dir, "sets.json")
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var sj struct {
		Docs string     `json:"docs"`
		Sets []roundSet `json:"sets"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sj); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(sj.Sets) == 0 {
		return nil, fmt.Errorf("%s: sets is empty; a round asks about at least one documentation set", file)
	}
	names := map[string]bool{}
	for i, s := range sj.Sets {
		if s.Name == "" || s.Folder == "" || s.Package == "" {
			return nil, fmt.Errorf("%s: set %d: name, folder and package are required", file, i+1)
		}
		if filepath.IsAbs(s.Folder) || !filepath.IsLocal(s.Folder) || filepath.Clean(s.Folder) != s.Folder {
			return nil, fmt.Errorf("%s: set %s: folder %q must be a clean relative path under the docs root", file, s.Name, s.Folder)
		}
		if names[s.Name] {
			return nil, fmt.Errorf("%s: set %s: name given twice", file, s.Name)
		}
		names[s.Name] = true
	}
	qs, err := loadFresh2(filepath.Join(dir, "questions.json"))
	if err != nil {
		return nil, err
	}
	r := &round{name: filepath.Base(dir), docs: sj.Docs, sets: sj.Sets, qs: qs}
	for _, q := range qs {
		in := -1
		for i, s := range sj.Sets {
			if strings.HasPrefix(q.Page, s.Folder+"/") {
				if in >= 0 {
					return nil, fmt.Errorf("%s: question %d: gold page %s is in two sets, %s and %s", dir, q.ID, q.Page, sj.Sets[in].Name, s.Name)
				}
				in = i
			}
		}
		if in < 0 {
			return nil, fmt.Errorf("%s: question %d: gold page %s is in none of the sets of sets.json", dir, q.ID, q.Page)
		}
		r.set = append(r.set, in)
	}
	return r, nil
}

// packages is the apt-get line that installs the round's sets.
func (r *round) packages() string {
	var ps []string
	for _, s := range r.sets {
		if !slices.Contains(ps, s.Package) {
			ps = append(ps, s.Package)
		}
	}
	return "apt-get install " + strings.Join(ps, " ")
}

// fresh2Question is a question of a round: a researchset.Question and
// how it is worded.
type fresh2Question struct {
	researchset.Question
	Wording string `json:"wording"` // "user" (a user's words) or "manual" (the manual's terms)
}

// loadFresh2 reads a round's questions and checks each entry as
// researchset.Load does, and its wording.
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

// runRound scores the round the flags name (-round, or -fresh2's
// alias), or with -check checks it, or with -diag diagnoses it.
func runRound(models []string) error {
	dir, docs := *roundDir, *roundDocs
	if *fresh2Root != "" {
		if dir != "" && dir != "fresh2" {
			return fmt.Errorf("-fresh2 is -round fresh2; it cannot be given with -round %s", dir)
		}
		dir, docs = "fresh2", *fresh2Root
	}
	rd, err := loadRound(dir)
	if err != nil {
		return fmt.Errorf("-round %s: %w", dir, err)
	}
	if docs != "" {
		rd.docs = docs
	}
	if rd.docs == "" {
		return fmt.Errorf("-round %s: no docs root: give -docs or set docs in its sets.json", dir)
	}
	return rd.run(models, *roundCheck || *fresh2Check, *roundDiag || *fresh2Diag)
}

func (rd *round) run(models []string, check, diag bool) error {
	root, qs := rd.docs, rd.qs
	c := &corpus{name: rd.name}
	for _, s := range rd.sets {
		dir := filepath.Join(root, s.Folder)
		if _, err := os.Stat(dir); err != nil {
			return fmt.Errorf("-round %s: %s is not there: install the package %s (%s)", rd.name, dir, s.Package, rd.packages())
		}
		c.folders = append(c.folders, dir)
	}
	dir, err := os.MkdirTemp("", "hark-research-"+rd.name+"-")
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
	if diag {
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
	rd.print(models, all)
	return nil
}

// print prints the round's figures: overall, per documentation
// set and per wording, for each model, and the ids each model left
// unanswered, uncited or unclean (the reports themselves are not
// printed: the round is scored once, and nothing is tuned on it; the
// scored run, before the unclean ids were listed, printed the other two).
func (rd *round) print(models []string, all map[string][]fresh2Outcome) {
	qs := rd.qs
	type row struct {
		name string
		in   func(i int) bool
	}
	rows := []row{{"all", func(int) bool { return true }}}
	for k, s := range rd.sets {
		rows = append(rows, row{s.Name, func(i int) bool { return rd.set[i] == k }})
	}
	for _, w := range []string{"user", "manual"} {
		rows = append(rows, row{"worded by the " + w, func(i int) bool { return qs[i].Wording == w }})
	}
	fmt.Println("| Model | Questions | Which | Answered (95% interval) | Cited (95% interval) | Cited, source counted | Clean | Median time | Slowest |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, model := range models {
		for _, rw := range rows {
			var os []outcome
			var twin int
			var times []time.Duration
			for i := range qs {
				if rw.in(i) {
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
