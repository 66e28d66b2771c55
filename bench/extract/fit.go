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
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/html"

	"hark/gateway/extract"
	"hark/gateway/extract/score"
)

// The fit: extract.Weights chosen by coordinate search on the tuning
// parts of every set, judged by cross-validation with folds split by
// site. For each fold, the search runs on the other four and the fold
// is scored once with what it chose; then the search runs on all five,
// and that is the proposal for DefaultWeights. The held-out parts are
// never read here.

// candidates are the values the search tries for each weight, by field
// name.
var candidates = map[string][]float64{
	"ClassName":        {10, 25, 40},
	"ArticleShare":     {0.2, 0.3, 0.4},
	"SiblingShare":     {0.1, 0.2, 0.3},
	"BoilerplateLinks": {0.4, 0.5, 0.6},
	"ClutterLinks":     {0.4, 0.5, 0.6},
	"WeakClutterLinks": {0.15, 0.2, 0.3},
	"CaptionLetters":   {0, 40, 100, 1e6},
	"CaptionLevels":    {0, 1, 2, 3},
	"RepeatLetters":    {0, 20, 40},
	"RailCards":        {0, 3, 4, 6},
	"RailLinks":        {0.6, 0.8, 0.9},
	"GalleryCards":     {0, 3, 5},
	"CommentItems":     {0, 3, 5},
	"TailCards":        {0, 3, 5},
	"TailLinks":        {0.4, 0.6, 0.8, 1},
	"ProseParagraphs":  {0, 3, 5, 8},
	"DatedParagraphs":  {0, 1, 2, 3},
}

// objective is what the search raises: the mean over the sets of
// hark's F1 plus a quarter of its precision, precision being where hark
// trailed go-trafilatura on sites it had never seen.
func objective(p, f float64) float64 { return f + p/4 }

// foldSums are one evaluation: each set's sums on each fold.
type foldSums [][folds]sum

type fitter struct {
	name  string // "search" or "full"
	sets  []dataset
	tune  [][]page // each set's tuning pages
	docs  [][]*html.Node
	memo  map[extract.Weights]foldSums
	evals int
}

// searchPages is how many tuning pages of a set the search reads (the
// first by the hash of their names); each fold is then scored on all of
// its pages.
const searchPages = 240

func fitWeights(sets []dataset) {
	f := &fitter{name: "search", sets: sets, memo: map[extract.Weights]foldSums{}}
	full := &fitter{name: "full", sets: sets, memo: map[extract.Weights]foldSums{}}
	var tuned []dataset
	for _, ds := range sets {
		if !ds.unseen { // the unseen set is never fitted on
			tuned = append(tuned, ds)
		}
	}
	sets = tuned
	f.sets, full.sets = sets, sets
	for _, ds := range sets {
		var t []page
		for _, pg := range ds.pages {
			if !heldOut(pg) {
				t = append(t, pg)
			}
		}
		full.tune = append(full.tune, t)
		sample := append([]page{}, t...)
		sort.Slice(sample, func(i, j int) bool { return nameHash(sample[i].Name) < nameHash(sample[j].Name) })
		f.tune = append(f.tune, sample[:min(len(sample), searchPages)])
	}
	f.parse()
	full.parse()
	fmt.Println("Cross-validation by site folds: fitted on four folds, scored on the fifth (P / R / F1 of hark, body where the truth has no title).")
	fmt.Println()
	fmt.Print("| Set | fold | default | fitted on the other folds |\n|---|---|---|---|\n")
	var chosen []extract.Weights
	for k := range folds {
		train := func(i int) bool { return i != k }
		w := f.search(extract.DefaultWeights, train)
		chosen = append(chosen, w)
		fmt.Printf("<!-- fold %d chose %s -->\n", k, diff(w))
		def, fit := full.eval(extract.DefaultWeights), full.eval(w)
		for i, ds := range sets {
			if def[i][k].k == 0 {
				continue
			}
			dp, dr, df := def[i][k].total(ds.kind)
			fp, fr, ff := fit[i][k].total(ds.kind)
			fmt.Printf("| %s | %d | %.3f / %.3f / %.3f | %.3f / %.3f / %.3f |\n", ds.title, k, dp, dr, df, fp, fr, ff)
		}
	}
	fmt.Println()
	for k, w := range chosen {
		fmt.Printf("fold %d chose %s\n", k, diff(w))
	}
	all := f.search(extract.DefaultWeights, func(int) bool { return true })
	fmt.Printf("\nOn all five folds: %s\n%+v\n(%d evaluations)\n", diff(all), all, f.evals)
	if *writeWeights != "" {
		var folds []string
		for k, w := range chosen {
			folds = append(folds, fmt.Sprintf("fold %d chose %s", k, diff(w)))
		}
		note := fmt.Sprintf("bench/extract -fit -write, %s: coordinate search on every set's tuning part (up to %d pages of each); from the weights before, the search on all five folds chose %s; cross-validation: %s",
			time.Now().UTC().Format("2006-01-02"), searchPages, diff(all), strings.Join(folds, "; "))
		if err := writeWeightsFile(*writeWeights, note, all); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("wrote %s\n", *writeWeights)
	}
}

var writeWeights = flag.String("write", "", "with -fit, write the weights chosen on all five folds, and a note of what each fold chose, to this file (gateway/extract/weights.json, which the extractor embeds)")

// writeWeightsFile writes w as a weights file extract.ParseWeights reads.
func writeWeightsFile(file, note string, w extract.Weights) error {
	b, err := json.MarshalIndent(extract.WeightsFile{Note: note, Weights: w}, "", " ")
	if err != nil {
		return err
	}
	if _, err := extract.ParseWeights(b); err != nil {
		return fmt.Errorf("-write: %w", err)
	}
	return os.WriteFile(file, append(b, '\n'), 0o644)
}

var fitMemo = flag.String("fit-memo", "", "with -fit, keep each evaluation in this folder and read it back on later runs")

func fnvOf(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// diff names the weights that differ from the defaults.
func diff(w extract.Weights) string {
	var out []string
	v, d := reflect.ValueOf(w), reflect.ValueOf(extract.DefaultWeights)
	for i := range v.NumField() {
		if !v.Field(i).Equal(d.Field(i)) {
			out = append(out, fmt.Sprintf("%s %v", v.Type().Field(i).Name, v.Field(i)))
		}
	}
	if out == nil {
		return "the defaults"
	}
	return strings.Join(out, ", ")
}

// search is coordinate ascent from start over candidates, on the folds
// train accepts, until a sweep changes nothing (three at most).
func (f *fitter) search(start extract.Weights, train func(int) bool) extract.Weights {
	best, bestScore := start, f.score(start, train)
	for sweep := 0; sweep < 2; sweep++ {
		changed := false
		for _, name := range sortedNames() {
			for _, val := range candidates[name] {
				w := with(best, name, val)
				if w == best {
					continue
				}
				if s := f.score(w, train); s > bestScore+1e-4 {
					best, bestScore, changed = w, s, true
				}
			}
		}
		if !changed {
			break
		}
	}
	return best
}

func sortedNames() []string {
	t := reflect.TypeOf(extract.Weights{})
	var names []string
	for i := range t.NumField() {
		if _, ok := candidates[t.Field(i).Name]; ok {
			names = append(names, t.Field(i).Name)
		}
	}
	return names
}

func with(w extract.Weights, name string, val float64) extract.Weights {
	v := reflect.ValueOf(&w).Elem().FieldByName(name)
	switch v.Kind() {
	case reflect.Int:
		v.SetInt(int64(val))
	default:
		v.SetFloat(val)
	}
	return w
}

// score is the objective's mean over the sets on the folds train takes.
func (f *fitter) score(w extract.Weights, train func(int) bool) float64 {
	sums := f.eval(w)
	total, k := 0.0, 0
	for i, ds := range f.sets {
		var s sum
		for fo := range folds {
			if train(fo) {
				s.merge(sums[i][fo])
			}
		}
		if s.k == 0 {
			continue
		}
		p, _, fl := s.total(ds.kind)
		total += objective(p, fl)
		k++
	}
	return total / float64(max(k, 1))
}

func (s *sum) merge(o sum) {
	s.p, s.r, s.f, s.ms = s.p+o.p, s.r+o.r, s.f+o.f, s.ms+o.ms
	s.tp, s.fn, s.fp = s.tp+o.tp, s.fn+o.fn, s.fp+o.fp
	s.sh4 = append(s.sh4, o.sh4...)
	s.k += o.k
}

// eval runs hark with w on every tuning page, once per w (and once per
// -fit-memo file: a search cut short goes on where it stopped).
func (f *fitter) eval(w extract.Weights) foldSums {
	if s, ok := f.memo[w]; ok {
		return s
	}
	key := fmt.Sprintf("%s-%d-%+v", f.name, searchPages, w)
	if *fitMemo != "" {
		if raw, err := os.ReadFile(filepath.Join(*fitMemo, fmt.Sprintf("%x.json", fnvOf(key)))); err == nil {
			var out foldSums
			if json.Unmarshal(raw, &out) == nil && len(out) == len(f.sets) {
				f.memo[w] = out
				return out
			}
		}
	}
	defer func() {
		if *fitMemo != "" {
			if raw, err := json.Marshal(f.memo[w]); err == nil {
				os.MkdirAll(*fitMemo, 0o755)
				os.WriteFile(filepath.Join(*fitMemo, fmt.Sprintf("%x.json", fnvOf(key))), raw, 0o644)
			}
		}
	}()
	f.evals++
	if f.evals%10 == 0 {
		log.Printf("fit: %d evaluations", f.evals)
	}
	out := make(foldSums, len(f.sets))
	var mu sync.Mutex
	work := make(chan [2]int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range work {
				ds, pg := f.sets[job[0]], f.tune[job[0]][job[1]]
				res := scoreText(pg, ds.kind, harkWeighted(pg, clone(f.docs[job[0]][job[1]]), w))
				mu.Lock()
				out[job[0]][fold(pg)].add(res)
				mu.Unlock()
			}
		}()
	}
	for i := range f.sets {
		for j := range f.tune[i] {
			work <- [2]int{i, j}
		}
	}
	close(work)
	wg.Wait()
	f.memo[w] = out
	return out
}

// parse reads every page once; each evaluation extracts from a copy.
func (f *fitter) parse() {
	for _, t := range f.tune {
		docs := make([]*html.Node, len(t))
		for j, pg := range t {
			doc, err := html.Parse(bytes.NewReader(toUTF8(pg.HTML)))
			if err != nil {
				doc = &html.Node{Type: html.DocumentNode}
			}
			docs[j] = doc
		}
		f.docs = append(f.docs, docs)
	}
}

// clone copies a tree; attributes are shared, as extraction only moves
// and removes nodes.
func clone(n *html.Node) *html.Node {
	c := &html.Node{Type: n.Type, DataAtom: n.DataAtom, Data: n.Data, Namespace: n.Namespace, Attr: n.Attr}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		c.AppendChild(clone(ch))
	}
	return c
}

// harkWeighted is hark's text of pg, parsed as doc, with weights w, as
// it is scored.
func harkWeighted(pg page, doc *html.Node, w extract.Weights) string {
	base, _ := url.Parse(pg.URL)
	t := extract.Title(doc)
	d := extract.Render(extract.MainWith(doc, w), t, extract.Options{Base: base, Tables: true})
	if !pg.titled {
		d = d.Body()
	}
	return d.Text()
}

// scoreText scores a text against pg's truth by the set's measure.
func scoreText(pg page, kind int, text string) result {
	var res result
	switch kind {
	case bySnippets:
		res.tp, res.fn, res.fp = score.Snippets(text, pg.with, pg.without)
	case byShingles4:
		res.sh[0], res.sh[1], res.sh[2] = score.Shingles4(text, string(pg.Truth))
	case byWords:
		res.p, res.r, res.f = score.Words(text, string(pg.Truth))
	default:
		res.p, res.r, res.f = score.Text(text, string(pg.Truth))
	}
	return res
}

// sumJSON is a sum as -fit-memo keeps it.
type sumJSON struct {
	P, R, F    float64
	TP, FN, FP int
	K          int
	SH4        [][3]float64
}

func (s sum) MarshalJSON() ([]byte, error) {
	return json.Marshal(sumJSON{s.p, s.r, s.f, s.tp, s.fn, s.fp, s.k, s.sh4})
}

func (s *sum) UnmarshalJSON(raw []byte) error {
	var j sumJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return err
	}
	s.p, s.r, s.f, s.tp, s.fn, s.fp, s.k, s.sh4 = j.P, j.R, j.F, j.TP, j.FN, j.FP, j.K, j.SH4
	return nil
}
