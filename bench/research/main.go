// Command research scores hark's research on its question set
// (gateway/research/testdata/questions.json over the pages in corpus/): for the tuning and the
// held-out part, and each model, how many reports hold their gold fact
// (answered), cite their gold page (cited) and are clean (no dangling
// first sentence, fragment heading or source listed twice), what share of
// their quotes cite the gold page's documentation set (on topic), and the time
// each question took on the embedded engine. With -manuals, the same for
// the manuals set (manuals/questions.json) over the Debian manuals
// installed on the machine, indexed whole. With -fresh, the fresh set
// (fresh/questions.json): questions written over the same pages after
// the ranking was tuned, scored first untouched, so that its figures
// say how research does on questions no one tuned it for.
//
//	cd bench/research && go run . [-models mini,pro] [-halves] [-recall] [-show ID] [-v [-vpart tuning|held-out|all]]
//	cd bench/research && go run . -fresh [-models …] [-halves] [-show ID] [-v]
//	cd bench/research && go run . -manuals /usr/share/doc [-models …] [-halves] [-recall]
//	cd bench/research && go run . -cv [-manuals /usr/share/doc] [-models …] [-builtin | -offline [-rankings FILE]] [-lambda L]
//	cd bench/research && go run . -fit [-rankings FILE] [-lambda L]
//	cd bench/research && go run . -round fresh3 [-docs DIR] [-models …] [-check | -diag]
//	cd bench/research && go run . -fresh2 /usr/share/doc [-models …] [-fresh2check | -fresh2diag]
//
// With -cv, every labelled question (the question set, the fresh set,
// the manuals set and the spent fresh rounds fresh2, fresh3 and fresh4,
// each spent as a test once scored) is pooled and cross-validated (cv.go): five folds split by
// documentation set, answered, cited and clean pooled over the
// held-out folds with bootstrap 95% intervals, for the hand rules'
// weights and for weights fitted on the other four folds (fit.go). -fit
// fits on all five and writes gateway/research/weights.json.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	_ "modernc.org/sqlite"

	"hark/api"
	"hark/gateway/research"
	"hark/gateway/research/researchset"
	"hark/gateway/web"
)

func main() {
	data := flag.String("data", "../../gateway/research/testdata", "the folder holding questions.json and corpus/")
	models := flag.String("models", "mini,pro", "models to score, comma-separated")
	verbose := flag.Bool("v", false, "print each question that is not answered, cited or clean")
	part := flag.String("vpart", researchset.Tuning, "the part -v prints (tuning, held-out, or all): tuning never shows a held-out report")
	recall := flag.Bool("recall", false, "before scoring, where the index ranks each question's gold page when searched for the question as typed (the first search research sends): recall at 1, 3, 8, 20 and 50 per part, and the tuning part's ranks over 8")
	show := flag.Int("show", 0, "print the report for this tuning question's id (and score no others); a held-out id is refused")
	halves := flag.Bool("halves", false, "also score the tuning part's two halves (id mod 4 == 1 and == 3), so that a change is kept only when it lowers neither")
	manuals := flag.String("manuals", "", "score the manuals set (manuals/questions.json) over the Debian manuals installed under this folder (/usr/share/doc) instead of the question set")
	fresh := flag.Bool("fresh", false, "score the fresh set (fresh/questions.json) over the question set's pages instead of the question set")
	cv := flag.Bool("cv", false, "cross-validate on the pooled set (the question set, the fresh set, the manuals set and the spent rounds fresh2, fresh3 and fresh4; the manuals and fresh2's sets read from -manuals or /usr/share/doc, fresh3's and fresh4's from their sets.json's root): 5 folds split by documentation set; the hand rules' weights against weights fitted on the other folds, answered, cited and clean with bootstrap 95% intervals")
	builtin := flag.Bool("builtin", false, "with -cv, score weights.json's weights instead (in-sample once they are fitted on the pooled set)")
	offline := flag.Bool("offline", false, "with -cv, print only each fold's offline hit rates (right candidate ranked first, in best 3), asking no held-out question")
	fitW := flag.Bool("fit", false, "fit the ranking's weights on every question of the pooled set and write gateway/research/weights.json")
	rankings := flag.String("rankings", "", "with -cv or -fit, read the pooled set's rankings (and mini's outcomes with the hand rules) from this file when it is there, and write them to it when not")
	flag.BoolVar(&onGold, "ongold", onGold, "label right only the candidates on the gold page that hold the fact, when there are any")
	flag.BoolVar(&onlyNew, "onlynew", onlyNew, "fit only the features no hand rule weighed, the rules' weights held")
	flag.IntVar(&topK, "topk", topK, "fit for a right candidate among the best N rather than first (0: the listwise softmax)")
	flag.Float64Var(&lambda, "lambda", lambda, "the fit's ridge penalty towards the hand rules' weights")
	flag.StringVar(&zero, "zero", "", "with -cv -builtin, weights.json's weights with these features (comma-separated) set to 0, or f=v to v: an ablation")
	flag.BoolVar(&pairwise, "pairwise", pairwise, "fit pairwise: right candidates against the hand rules' best wrong ones, features standardised, the ridge strength chosen inside the training folds")
	flag.StringVar(&outcomesFile, "outcomes", "", "with -cv, also write each question's outcome (model, round, id, fold, answered, cited, clean) to this file, one a line, to compare two runs question by question")
	feats := flag.Bool("features", false, "print the ranking's features with their hand and fitted weights, as docs/research.md's table")
	flag.Parse()
	if *feats {
		if err := printFeatures(*data); err != nil {
			fmt.Fprintln(os.Stderr, "research bench:", err)
			os.Exit(1)
		}
		return
	}
	if *roundDir != "" || *fresh2Root != "" {
		if err := runRound(strings.Split(*models, ",")); err != nil {
			fmt.Fprintln(os.Stderr, "research bench:", err)
			os.Exit(1)
		}
		return
	}
	if *cv || *fitW {
		dir := *manuals
		if dir == "" {
			dir = "/usr/share/doc"
		}
		ms := strings.Split(*models, ",")
		var err error
		if *cv && *builtin {
			err = runCV(*data, dir, ms)
		} else {
			err = runFit(*data, dir, ms, *fitW, *offline, *rankings)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "research bench:", err)
			os.Exit(1)
		}
		return
	}
	if *part != researchset.Tuning && *part != researchset.HeldOut && *part != "all" {
		fmt.Fprintf(os.Stderr, "research bench: -vpart is %q; it must be %s, %s or all\n", *part, researchset.Tuning, researchset.HeldOut)
		os.Exit(2)
	}
	set, err := questionSet(*data, *manuals)
	if *fresh && err == nil {
		set.questions = "fresh/questions.json"
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "research bench:", err)
		os.Exit(2)
	}
	if err := run(set, strings.Split(*models, ","), *verbose, *part, *halves, *recall, *show); err != nil {
		fmt.Fprintln(os.Stderr, "research bench:", err)
		os.Exit(1)
	}
}

// The tuning part's halves, by id: a change that lifts one half and
// lowers the other fits questions rather than generalising.
const (
	tuning1 = "tuning id%4=1"
	tuning3 = "tuning id%4=3"
)

// set is a question set and the folders of pages it asks about.
type set struct {
	questions string
	folders   []string
}

// manualFolders are the manuals the manuals set asks about, under
// /usr/share/doc, with the Debian package that installs each.
var manualFolders = [][2]string{{"valgrind/html", "valgrind"}, {"nodejs/api", "nodejs"}, {"espeak-ng", "espeak-ng"}, {"flite", "flite"}}

// questionSet is the question set over its committed corpus, or with
// manuals set, the manuals set over the manuals installed there.
func questionSet(data, manuals string) (set, error) {
	if manuals != "" {
		s := set{questions: "manuals/questions.json"}
		for _, f := range manualFolders {
			dir := filepath.Join(manuals, f[0])
			if _, err := os.Stat(dir); err != nil {
				return set{}, fmt.Errorf("-manuals: %s is not there: install the package %s (apt-get install valgrind nodejs espeak-ng flite)", dir, f[1])
			}
			s.folders = append(s.folders, dir)
		}
		return s, nil
	}
	s := set{questions: filepath.Join(data, "questions.json")}
	folders, err := os.ReadDir(filepath.Join(data, "corpus"))
	if err != nil {
		return set{}, err
	}
	for _, f := range folders {
		if f.IsDir() {
			s.folders = append(s.folders, filepath.Join(data, "corpus", f.Name()))
		}
	}
	return s, nil
}

func run(set set, models []string, verbose bool, vpart string, halves, recall bool, show int) error {
	qs, err := researchset.Load(set.questions)
	if err != nil {
		return err
	}
	if show != 0 {
		i := slices.IndexFunc(qs, func(q researchset.Question) bool { return q.ID == show })
		if i < 0 || qs[i].Part != researchset.Tuning {
			return fmt.Errorf("-show %d: no tuning question has that id (held-out reports are never shown)", show)
		}
		qs = qs[i : i+1]
	}
	dir, err := os.MkdirTemp("", "hark-research-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", filepath.Join(dir, "bench.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return err
	}
	defer db.Close()
	e, err := web.New(web.Config{DB: db, MaxPageBytes: 1 << 20})
	if err != nil {
		return err
	}
	defer e.Close()
	r, err := research.New(research.Config{DB: db, Index: e})
	if err != nil {
		return err
	}
	defer r.Close()
	ctx := context.Background()
	pages := 0
	for _, f := range set.folders {
		n, err := e.Index(ctx, f)
		if err != nil {
			return err
		}
		pages += n
	}
	fmt.Printf("%d questions over %d pages\n\n", len(qs), pages)
	if recall {
		if err := searchRecall(ctx, e, qs); err != nil {
			return err
		}
	}
	fmt.Println("| Model | Part | Questions | Answered | Cited | Clean | On topic | Median time | Slowest |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, model := range models {
		type tally struct {
			n, answered, cited, clean int
			onTopic                   float64 // the sum of each report's share of quotes on topic
			times                     []time.Duration
		}
		parts := map[string]*tally{researchset.Tuning: {}, researchset.HeldOut: {}, tuning1: {}, tuning3: {}}
		for _, q := range qs {
			start := time.Now()
			out, err := r.Research(ctx, api.ResearchInput{Input: q.Question, Model: model})
			took := time.Since(start)
			if err != nil {
				return fmt.Errorf("%q: %w", q.Question, err)
			}
			var urls []string
			for _, s := range out.Sources {
				urls = append(urls, s.URL)
			}
			s := researchset.Rate(q, out.Content, urls)
			if show != 0 {
				fmt.Printf("%s\n%s\n", model, out.Content)
			}
			in := []string{q.Part}
			if q.Part == researchset.Tuning {
				if half, ok := map[int]string{1: tuning1, 3: tuning3}[q.ID%4]; ok {
					in = append(in, half)
				}
			}
			for _, p := range in {
				t := parts[p]
				t.n++
				t.times = append(t.times, took)
				if s.Answered {
					t.answered++
				}
				if s.Cited {
					t.cited++
				}
				if s.Clean() {
					t.clean++
				}
				if s.Quotes > 0 {
					t.onTopic += float64(s.OnTopic) / float64(s.Quotes)
				}
			}
			if verbose && (vpart == "all" || vpart == q.Part) && (!s.Answered || !s.Cited || !s.Clean()) {
				fmt.Fprintf(os.Stderr, "%s #%d %s: answered %v, cited %v %v\n", model, q.ID, q.Question, s.Answered, s.Cited, s.Problems)
			}
		}
		shown := []string{researchset.Tuning, researchset.HeldOut}
		if halves {
			shown = []string{tuning1, tuning3, researchset.Tuning, researchset.HeldOut}
		}
		for _, p := range shown {
			t := parts[p]
			if t.n == 0 {
				continue
			}
			slices.Sort(t.times)
			fmt.Printf("| %s | %s | %d | %.2f | %.2f | %.2f | %.2f | %s | %s |\n", model, p, t.n,
				ratio(t.answered, t.n), ratio(t.cited, t.n), ratio(t.clean, t.n), t.onTopic/float64(t.n),
				t.times[len(t.times)/2].Round(time.Millisecond), t.times[len(t.times)-1].Round(time.Millisecond))
		}
	}
	return nil
}

func ratio(a, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(a) / float64(n)
}

// searchRecall prints, per part, how often the index ranks the gold page
// first, within 3, 8 (what one search gives research), 20 and 50 results for the
// question as typed, and the tuning part's questions whose gold page
// ranks below 8: whether a page research does not cite was never found,
// or found and not chosen.
func searchRecall(ctx context.Context, e *web.Engine, qs []researchset.Question) error {
	cuts := []int{1, 3, 8, 20, 50}
	type tally struct{ n, within [5]int }
	parts := map[string]*tally{researchset.Tuning: {}, researchset.HeldOut: {}}
	for _, q := range qs {
		out, err := e.SearchIndex(ctx, api.SearchInput{Query: q.Question, MaxResults: 50, SearchDepth: "advanced", Topic: "general"})
		if err != nil {
			return fmt.Errorf("%q: %w", q.Question, err)
		}
		rank := 0
		for i, r := range out.Results {
			k := researchset.PageKey(r.URL)
			if g := researchset.PageKey(q.Page); strings.HasSuffix(k, "/"+g) || k == g {
				rank = i + 1
				break
			}
		}
		t := parts[q.Part]
		for i, c := range cuts {
			t.n[i]++
			if rank > 0 && rank <= c {
				t.within[i]++
			}
		}
		if q.Part == researchset.Tuning && (rank == 0 || rank > 8) {
			fmt.Printf("tuning #%d %s: gold page ranked %d (0: not in 50)\n", q.ID, q.Question, rank)
		}
	}
	fmt.Println("\n| Part | Gold page first | in 3 | in 8 | in 20 | in 50 |\n|---|---|---|---|---|---|")
	for _, p := range []string{researchset.Tuning, researchset.HeldOut} {
		t := parts[p]
		fmt.Printf("| %s |", p)
		for i := range cuts {
			fmt.Printf(" %.2f |", ratio(t.within[i], t.n[i]))
		}
		fmt.Println()
	}
	fmt.Println()
	return nil
}
