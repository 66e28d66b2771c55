package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"hark/api"
	"hark/gateway/research"
	"hark/gateway/research/researchset"
	"hark/gateway/web"
)

// The pooled set is every labelled question hark has: the question set
// (both parts), the fresh set, the manuals set and the spent fresh
// rounds (fresh2, fresh3, fresh4: each spent as a test once scored, its
// README.md), each with its
// gold facts and page, the round it came from and its group, the
// documentation set its gold page is in ("nodejs", "valgrind",
// "git-doc", "postgresql", …).
// Cross-validation splits it into folds by group, so that no fold's
// test pages are in its training: a weight fitted on Node.js's pages is
// judged on Valgrind's.

// folds is how many folds cross-validation splits the pooled set into.
const folds = 5

// spentRounds are the fresh rounds pooled: each scored once and spent
// as a test (its README.md), now development data.
var spentRounds = []string{"fresh2", "fresh3", "fresh4"}

// pooled is one question of the pooled set.
type pooled struct {
	researchset.Question
	round  string // "questions/tuning", "questions/held-out", "fresh", "manuals", "fresh2/user", "fresh2/manual"
	corpus int    // the index it is asked over: 0 the question set's pages, 1 the manuals, 2 on a spent round's sets (spentRounds)
	group  string // its gold page's documentation set
	fold   int
}

// corpus is the pages one index holds.
type corpus struct {
	name    string
	folders []string
	db      *sql.DB
	web     *web.Engine
}

// pool loads the pooled set and the corpora it asks over (indexed when
// open is called: the question set's pages, the manuals, and each spent
// round's sets), and splits it into folds by group. manuals is the
// folder the Debian documentation sets are installed under
// (/usr/share/doc): the manuals set's and fresh2's; fresh3's and
// fresh4's are under their sets.json's root (/usr/share).
func pool(data, manuals string) ([]pooled, []*corpus, error) {
	qset, err := questionSet(data, "")
	if err != nil {
		return nil, nil, err
	}
	mset, err := questionSet(data, manuals)
	if err != nil {
		return nil, nil, err
	}
	// Each spent fresh round's four sets, one index as the round was
	// scored: fresh2's under manuals (its sets.json's /usr/share/doc),
	// a later round's under its sets.json's docs root.
	var rounds []*round
	for _, name := range spentRounds {
		rd, err := loadRound(name)
		if err != nil {
			return nil, nil, err
		}
		if name == "fresh2" {
			rd.docs = manuals
		}
		rounds = append(rounds, rd)
	}
	corpora := []*corpus{{name: "question set's pages", folders: qset.folders}, {name: "manuals", folders: mset.folders}}
	for _, rd := range rounds {
		c := &corpus{name: rd.name + "'s sets"}
		for _, s := range rd.sets {
			dir := filepath.Join(rd.docs, s.Folder)
			if _, err := os.Stat(dir); err != nil {
				return nil, nil, fmt.Errorf("%s: %s is not there: install the package %s (%s)", rd.name, dir, s.Package, rd.packages())
			}
			c.folders = append(c.folders, dir)
		}
		corpora = append(corpora, c)
	}
	var out []pooled
	for _, f := range []struct {
		file   string
		round  func(researchset.Question) string
		corpus int
	}{
		{qset.questions, func(q researchset.Question) string { return "questions/" + q.Part }, 0},
		{"fresh/questions.json", func(researchset.Question) string { return "fresh" }, 0},
		{mset.questions, func(researchset.Question) string { return "manuals" }, 1},
	} {
		qs, err := researchset.Load(f.file)
		if err != nil {
			return nil, nil, err
		}
		for _, q := range qs {
			out = append(out, pooled{Question: q, round: f.round(q), corpus: f.corpus, group: researchset.Group(q)})
		}
	}
	// A round's question's group is its gold page's set (the set's
	// name: "python3.11", "postgresql", "r"), as a round's pages sit
	// under one root ("doc/…", "R/…") and their first folder names none.
	for k, rd := range rounds {
		for i, q := range rd.qs {
			out = append(out, pooled{Question: q.Question, round: rd.name + "/" + q.Wording, corpus: 2 + k, group: rd.sets[rd.set[i]].Name})
		}
	}
	assignFolds(out)
	return out, corpora, nil
}

// assignFolds gives each group a fold, largest group first to the fold
// with fewest questions so far: the folds are as even as whole groups
// allow. A round whose documentation sets are its own (fresh2: Python,
// Git, Sphinx, Rust; its groups' questions all from one round) is
// spread first: a group goes to a fold holding fewest of its round's
// groups, then fewest questions, so that each fold's training holds
// most of that round's sets (fresh2's user-worded questions are what
// a feature for a user's words is fitted on).
//
// The pooled set's folds (docs/research.md): 1 Node.js (130
// questions); 2 Valgrind, Sphinx, SQLite and R (116); 3 espeak-ng, Git,
// CMake and Graphviz (78); 4 libffi, Python, the Debian Reference and
// Apache (71); 5 flite, the articles, the Rust book, PostgreSQL and
// FFmpeg (87).
func assignFolds(qs []pooled) {
	size := map[string]int{}
	family := map[string]string{} // a group's round when all its questions are of one, else ""
	for _, q := range qs {
		size[q.group]++
		r, _, _ := strings.Cut(q.round, "/")
		if f, ok := family[q.group]; !ok {
			family[q.group] = r
		} else if f != r {
			family[q.group] = ""
		}
	}
	groups := make([]string, 0, len(size))
	for g := range size {
		groups = append(groups, g)
	}
	sort.Slice(groups, func(i, j int) bool {
		if size[groups[i]] != size[groups[j]] {
			return size[groups[i]] > size[groups[j]]
		}
		return groups[i] < groups[j]
	})
	var load [folds]int
	held := map[string]*[folds]int{} // a round's groups in each fold
	fold := map[string]int{}
	for _, g := range groups {
		f := family[g]
		if held[f] == nil {
			held[f] = &[folds]int{}
		}
		h := held[f]
		k := 0
		for i := range load {
			if f != "" && h[i] != h[k] {
				if h[i] < h[k] {
					k = i
				}
				continue
			}
			if load[i] < load[k] {
				k = i
			}
		}
		fold[g] = k
		load[k] += size[g]
		h[k]++
	}
	for i := range qs {
		qs[i].fold = fold[qs[i].group]
	}
}

// open indexes the corpus into a fresh database under dir.
func (c *corpus) open(ctx context.Context, dir string) (int, error) {
	db, err := sql.Open("sqlite", filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return 0, err
	}
	c.db = db
	e, err := web.New(web.Config{DB: db, MaxPageBytes: 1 << 20})
	if err != nil {
		return 0, err
	}
	c.web = e
	pages := 0
	for _, f := range c.folders {
		n, err := e.Index(ctx, f)
		if err != nil {
			return 0, err
		}
		pages += n
	}
	return pages, nil
}

func (c *corpus) close() {
	if c.web != nil {
		c.web.Close()
	}
	if c.db != nil {
		c.db.Close()
	}
}

// outcome is how one question's report fares.
type outcome struct{ Answered, Cited, Clean bool }

// engineFor makes the research engine a fold's questions over a corpus
// are asked with: the weights fitted for the fold, or those built in.
type engineFor func(c *corpus, fold int) (*research.Engine, error)

// zero is the features -zero sets to 0 in weights.json's weights.
var zero string

// builtIn asks every fold with the weights built in, less those -zero
// names.
func builtIn(c *corpus, fold int) (*research.Engine, error) {
	if zero == "" {
		return research.New(research.Config{DB: c.db, Index: c.web})
	}
	w := research.BuiltInWeights()
	for _, f := range strings.Split(zero, ",") {
		n, v, set := strings.Cut(f, "=")
		if _, ok := w[n]; !ok {
			return nil, fmt.Errorf("-zero: %q is no feature", n)
		}
		w[n] = 0
		if set {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("-zero: %s's weight %q: %w", n, v, err)
			}
			w[n] = x
		}
	}
	return research.New(research.Config{DB: c.db, Index: c.web, Weights: w})
}

// asking is the index in qs of the question ask is asking, for an
// engine's Observe to file its ranking under.
var asking int

// ask asks each question with its fold's engine and rates each report.
func ask(ctx context.Context, corpora []*corpus, qs []pooled, model string, newEngine engineFor) ([]outcome, error) {
	engines := map[[2]int]*research.Engine{}
	defer func() {
		for _, e := range engines {
			e.Close()
		}
	}()
	out := make([]outcome, len(qs))
	for i, q := range qs {
		asking = i
		key := [2]int{q.corpus, q.fold}
		r := engines[key]
		if r == nil {
			var err error
			if r, err = newEngine(corpora[q.corpus], q.fold); err != nil {
				return nil, err
			}
			engines[key] = r
		}
		res, err := r.Research(ctx, api.ResearchInput{Input: q.Question.Question, Model: model})
		if err != nil {
			return nil, fmt.Errorf("%q: %w", q.Question.Question, err)
		}
		var urls []string
		for _, s := range res.Sources {
			urls = append(urls, s.URL)
		}
		s := researchset.Rate(q.Question, res.Content, urls)
		out[i] = outcome{s.Answered, s.Cited, s.Clean()}
	}
	return out, nil
}

// interval is a share and its bootstrap 95% interval.
type interval struct{ share, lo, hi float64 }

func (v interval) String() string { return fmt.Sprintf("%.3f [%.3f, %.3f]", v.share, v.lo, v.hi) }

// bootstrap is the share of outcomes for which pick holds, with the
// 2.5th and 97.5th percentiles of that share over 2,000 resamples of the
// questions (a fixed seed: one run's interval is the next's).
func bootstrap(os []outcome, pick func(outcome) bool) interval {
	n := len(os)
	if n == 0 {
		return interval{}
	}
	hit := 0
	for _, o := range os {
		if pick(o) {
			hit++
		}
	}
	rng := rand.New(rand.NewPCG(38, 1))
	const reps = 2000
	shares := make([]float64, reps)
	for r := range shares {
		h := 0
		for range n {
			if pick(os[rng.IntN(n)]) {
				h++
			}
		}
		shares[r] = float64(h) / float64(n)
	}
	slices.Sort(shares)
	return interval{float64(hit) / float64(n), shares[reps*25/1000], shares[reps*975/1000-1]}
}

func answered(o outcome) bool { return o.Answered }
func cited(o outcome) bool    { return o.Cited }
func clean(o outcome) bool    { return o.Clean }

// printCV prints each fold's figures, the pooled held-out figures with
// their bootstrap intervals, and each round's figures, for each model's
// outcomes (in qs's order).
func printCV(qs []pooled, models []string, all map[string][]outcome) {
	if outcomesFile != "" {
		writeOutcomes(qs, models, all)
	}
	fmt.Println("| Model | Fold | Groups | Questions | Answered | Cited | Clean |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, model := range models {
		os := all[model]
		for k := range folds {
			var in []outcome
			var groups []string
			for i, q := range qs {
				if q.fold == k {
					in = append(in, os[i])
					if !slices.Contains(groups, q.group) {
						groups = append(groups, q.group)
					}
				}
			}
			slices.Sort(groups)
			a, c, cl := bootstrap(in, answered), bootstrap(in, cited), bootstrap(in, clean)
			fmt.Printf("| %s | %d | %s | %d | %.2f | %.2f | %.2f |\n", model, k+1, strings.Join(groups, ", "), len(in), a.share, c.share, cl.share)
		}
	}
	fmt.Println()
	fmt.Println("| Model | Questions | Answered (95% interval) | Cited | Clean |")
	fmt.Println("|---|---|---|---|---|")
	for _, model := range models {
		os := all[model]
		fmt.Printf("| %s | %d | %s | %s | %s |\n", model, len(os), bootstrap(os, answered), bootstrap(os, cited), bootstrap(os, clean))
	}
	fmt.Println()
	fmt.Println("| Model | Round | Questions | Answered | Cited | Clean |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, model := range models {
		os := all[model]
		var rounds []string
		for _, q := range qs {
			if !slices.Contains(rounds, q.round) {
				rounds = append(rounds, q.round)
			}
		}
		for _, r := range rounds {
			var in []outcome
			for i, q := range qs {
				if q.round == r {
					in = append(in, os[i])
				}
			}
			fmt.Printf("| %s | %s | %d | %.2f | %.2f | %.2f |\n", model, r, len(in),
				bootstrap(in, answered).share, bootstrap(in, cited).share, bootstrap(in, clean).share)
		}
	}
}

// openCorpora indexes the pooled set's corpora under a temporary folder,
// which cleanup removes.
func openCorpora(ctx context.Context, corpora []*corpus) (cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "hark-research-cv-")
	if err != nil {
		return nil, err
	}
	cleanup = func() {
		for _, c := range corpora {
			c.close()
		}
		os.RemoveAll(dir)
	}
	for _, c := range corpora {
		n, err := c.open(ctx, dir)
		if err != nil {
			cleanup()
			return nil, err
		}
		fmt.Printf("%s: %d pages\n", c.name, n)
	}
	return cleanup, nil
}

// runCV scores the weights built in (weights.json) on the pooled set,
// fold by fold: with the hand rules' weights in that file, the rules'
// cross-validated figures, which no fold fitted.
func runCV(data, manuals string, models []string) error {
	qs, corpora, err := pool(data, manuals)
	if err != nil {
		return err
	}
	ctx := context.Background()
	cleanup, err := openCorpora(ctx, corpora)
	if err != nil {
		return err
	}
	defer cleanup()
	fmt.Printf("%d questions pooled\n\n", len(qs))
	all := map[string][]outcome{}
	for _, m := range models {
		if all[m], err = ask(ctx, corpora, qs, m, builtIn); err != nil {
			return err
		}
	}
	printCV(qs, models, all)
	return nil
}

// outcomesFile is -outcomes: where printCV writes each question's
// outcome, one line each, so that two runs can be compared question by
// question (which moved, in which fold).
var outcomesFile string

// writeOutcomes writes each model's outcome per question to
// outcomesFile: model, round, id, fold and A (answered), C (cited), K
// (clean) or "-".
func writeOutcomes(qs []pooled, models []string, all map[string][]outcome) {
	var b strings.Builder
	flag := func(ok bool, c string) string {
		if ok {
			return c
		}
		return "-"
	}
	for _, m := range models {
		for i, q := range qs {
			o := all[m][i]
			fmt.Fprintf(&b, "%s %s %d %d %s%s%s\n", m, q.round, q.ID, q.fold+1, flag(o.Answered, "A"), flag(o.Cited, "C"), flag(o.Clean, "K"))
		}
	}
	if err := os.WriteFile(outcomesFile, []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "outcomes:", err)
	}
}
