package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"hark/gateway/research"
	"hark/gateway/research/researchset"
)

// Fitting the ranking's weights (gateway/research/features.go). Each
// question's first ranking is kept as research saw it: every candidate
// sentence's features and the text of the quote it would open. A
// candidate is right when that text holds the question's gold fact.
// The weights maximise the probability a softmax over each ranking's
// scores gives its right candidates (listwise learning to rank), less a
// ridge penalty that draws each weight back to the hand rules' weight:
// a feature the data says little about keeps the rule's weight.

// onGold labels right only the candidates on the gold page that hold
// the fact, when there are any: a fact a sentence elsewhere happens to
// hold ("ffi_call" in a page on closures) says little of that sentence.
var onGold = true

// onlyNew fits only the features no rule weighed (weight 0 by hand),
// the rules' weights held: whether the new features add to the rules.
// The rules' relevance weight then holds the scores' spread.
var onlyNew = false

// lambda is the ridge penalty's strength, per weight; chosen by
// cross-validation (docs/research.md).
var lambda = 0.05

// example is one question's ranking, labelled.
type example struct {
	Fold  int
	X     [][]float64
	Right []bool `json:"-"`
	// Fact marks the candidates that hold the fact, Gold those on the
	// question's gold page.
	Fact []bool
	// Gold marks the candidates on the question's gold page.
	Gold []bool
}

// label marks each candidate of r whose quote holds one of q's facts, as
// the rater reads a report (spaces collapsed, code marks dropped). It
// is nil when none or all are right: such a ranking teaches nothing.
func label(q researchset.Question, r research.Ranking) []bool {
	norm := func(s string) string { return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "`", "") }
	out := make([]bool, len(r.Texts))
	n := 0
	for i, t := range r.Texts {
		t = norm(t)
		for _, f := range q.Fact {
			if f = norm(f); f != "" && strings.Contains(t, f) {
				out[i] = true
				n++
				break
			}
		}
	}
	if n == 0 || n == len(out) {
		return nil
	}
	return out
}

// collect asks every question with the weights built in and keeps its
// ranking, labelled; it returns the questions' outcomes too.
func collect(ctx context.Context, corpora []*corpus, qs []pooled, model string) ([]outcome, []example, error) {
	rankings := make([]*research.Ranking, len(qs))
	observe := func(c *corpus, fold int) (*research.Engine, error) {
		// One engine per corpus, as ask's others: its pages' parse cached.
		return research.New(research.Config{DB: c.db, Index: c.web, Weights: hand, Observe: func(r research.Ranking) {
			rankings[asking] = &r
		}})
	}
	all := slices.Clone(qs)
	for i := range all {
		all[i].fold = 0
	}
	out, err := ask(ctx, corpora, all, model, observe)
	if err != nil {
		return nil, nil, err
	}
	var exs []example
	for i, r := range rankings {
		if r == nil {
			continue
		}
		right := label(qs[i].Question, *r)
		if right == nil {
			continue
		}
		gold := make([]bool, len(right))
		g := researchset.PageKey(qs[i].Page)
		for j, u := range r.URLs {
			k := researchset.PageKey(u)
			gold[j] = strings.HasSuffix(k, "/"+g) || k == g
		}
		exs = append(exs, example{Fold: qs[i].fold, X: r.Features, Fact: right, Gold: gold})
	}
	return out, exs, nil
}

// relabel sets each example's right candidates: those holding the
// fact, or with onGold, those of them on the gold page when there are
// any.
func relabel(exs []example) {
	for i := range exs {
		e := &exs[i]
		e.Right = slices.Clone(e.Fact)
		if !onGold {
			continue
		}
		both := make([]bool, len(e.Fact))
		n := 0
		for j := range both {
			both[j] = e.Fact[j] && e.Gold[j]
			if both[j] {
				n++
			}
		}
		if n > 0 {
			e.Right = both
		}
	}
}

// hand is the hand rules' weights.
var hand = research.HandWeights()

// fit fits the weights on exs, from the hand rules' weights.
func fit(exs []example) research.Weights {
	names := research.FeatureNames()
	h := make([]float64, len(names))
	for i, n := range names {
		h[i] = hand[n]
	}
	w := slices.Clone(h)
	// Adam on the mean loss.
	m, v := make([]float64, len(w)), make([]float64, len(w))
	const (
		steps = 400
		rate  = 0.03
		b1    = 0.9
		b2    = 0.999
	)
	grad := make([]float64, len(w))
	for t := 1; t <= steps; t++ {
		clear(grad)
		for _, e := range exs {
			if topK > 0 {
				addTopKGradient(grad, w, e, 1/float64(len(exs)))
			} else {
				addGradient(grad, w, e, 1/float64(len(exs)))
			}
		}
		for j := range w {
			if onlyNew && h[j] != 0 {
				continue // a rule's weight stays as the rule set it
			}
			grad[j] += 2 * lambda * (w[j] - h[j])
			m[j] = b1*m[j] + (1-b1)*grad[j]
			v[j] = b2*v[j] + (1-b2)*grad[j]*grad[j]
			mh := m[j] / (1 - math.Pow(b1, float64(t)))
			vh := v[j] / (1 - math.Pow(b2, float64(t)))
			w[j] -= rate * mh / (math.Sqrt(vh) + 1e-8)
		}
	}
	// The fit sets the order of candidates, not how far apart their
	// scores are; pick drops what scores under a share of the best, so
	// the weights are scaled to spread the training rankings' scores as
	// the hand rules' do.
	if sw := spread(exs, w); sw > 0 && !onlyNew {
		k := spread(exs, h) / sw
		for j := range w {
			w[j] *= k
		}
	}
	out := research.Weights{}
	for i, n := range names {
		out[n] = math.Round(w[i]*1e4) / 1e4
	}
	return out
}

// vec is w in feature order.
func vec(w research.Weights) []float64 {
	names := research.FeatureNames()
	out := make([]float64, len(names))
	for i, n := range names {
		out[i] = w[n]
	}
	return out
}

// fitAny is the pairwise fit with -pairwise, else the listwise one.
func fitAny(exs []example) research.Weights {
	if pairwise {
		return fitPairwise(exs)
	}
	return fit(exs)
}

// spread is the mean, over exs, of the standard deviation of the
// candidates' scores under w.
func spread(exs []example, w []float64) float64 {
	total := 0.0
	for _, e := range exs {
		mean, sq := 0.0, 0.0
		for _, x := range e.X {
			s := dot(w, x)
			mean += s
			sq += s * s
		}
		n := float64(len(e.X))
		mean /= n
		total += math.Sqrt(math.Max(0, sq/n-mean*mean))
	}
	return total / float64(max(1, len(exs)))
}

// addGradient adds scale times the gradient of e's loss at w to grad:
// the loss is -ln(Σ_right e^s / Σ_all e^s), s = w·x.
func addGradient(grad, w []float64, e example, scale float64) {
	s := make([]float64, len(e.X))
	top := math.Inf(-1)
	for i, x := range e.X {
		s[i] = dot(w, x)
		top = math.Max(top, s[i])
	}
	all, right := 0.0, 0.0
	p := make([]float64, len(s))
	for i := range s {
		p[i] = math.Exp(s[i] - top)
		all += p[i]
		if e.Right[i] {
			right += p[i]
		}
	}
	for i, x := range e.X {
		// d/dw of ln Σ_all − ln Σ_right.
		c := p[i] / all
		if e.Right[i] {
			c -= p[i] / right
		}
		for j, xj := range x {
			grad[j] += scale * c * xj
		}
	}
}

func dot(w, x []float64) float64 {
	s := 0.0
	for i := range x {
		s += w[i] * x[i]
	}
	return s
}

// topK, when above 0, fits the weights for a right candidate among the
// best topK (a report quotes about eight) rather than first: each
// ranking's loss is ln(1 + e^(s_k − s_r)), s_r the best right
// candidate's score and s_k the topK-th best wrong one's.
var topK = 0

// addTopKGradient adds scale times the gradient of e's top-k loss at w.
func addTopKGradient(grad, w []float64, e example, scale float64) {
	s := make([]float64, len(e.X))
	r := -1
	var wrong []int
	for i, x := range e.X {
		s[i] = dot(w, x)
		if e.Right[i] {
			if r < 0 || s[i] > s[r] {
				r = i
			}
		} else {
			wrong = append(wrong, i)
		}
	}
	if r < 0 || len(wrong) < topK {
		return // a right one is among the best topK whatever the weights
	}
	slices.SortFunc(wrong, func(a, b int) int {
		switch {
		case s[a] > s[b]:
			return -1
		case s[a] < s[b]:
			return 1
		}
		return 0
	})
	k := wrong[topK-1]
	// d/dw ln(1 + e^(s_k − s_r)) = σ(s_k − s_r)·(x_k − x_r).
	g := 1 / (1 + math.Exp(s[r]-s[k]))
	for j := range grad {
		grad[j] += scale * g * (e.X[k][j] - e.X[r][j])
	}
}

// hitAt is the share of exs whose best k candidates under w hold a right
// one: a quick, offline reading of a fit (the reports' figures are the
// one that counts).
func hitAt(exs []example, w research.Weights, k int) float64 {
	names := research.FeatureNames()
	wv := make([]float64, len(names))
	for i, n := range names {
		wv[i] = w[n]
	}
	hit := 0
	for _, e := range exs {
		idx := make([]int, len(e.X))
		for i := range idx {
			idx[i] = i
		}
		s := make([]float64, len(e.X))
		for i, x := range e.X {
			s[i] = dot(wv, x)
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			switch {
			case s[a] > s[b]:
				return -1
			case s[a] < s[b]:
				return 1
			}
			return 0
		})
		for _, i := range idx[:min(k, len(idx))] {
			if e.Right[i] {
				hit++
				break
			}
		}
	}
	if len(exs) == 0 {
		return 0
	}
	return float64(hit) / float64(len(exs))
}

// fitFolds fits one set of weights per fold, on the other folds'
// examples, and prints each fold's offline hit rate for the hand
// weights and the fitted ones.
func fitFolds(exs []example) [folds]research.Weights {
	var out [folds]research.Weights
	sumHand, sumFit, total := map[int]float64{}, map[int]float64{}, 0
	fmt.Println("| Fold | Rankings (train / test) | Hand: right in best 1 / 3 / 8 / quoted | Fitted: right in best 1 / 3 / 8 / quoted |")
	fmt.Println("|---|---|---|---|")
	for k := range folds {
		var train, test []example
		for _, e := range exs {
			if e.Fold == k {
				test = append(test, e)
			} else {
				train = append(train, e)
			}
		}
		out[k] = fitAny(train)
		fmt.Printf("| %d | %d / %d | %.2f / %.2f / %.2f / %.2f | %.2f / %.2f / %.2f / %.2f |\n", k+1, len(train), len(test),
			hitAt(test, hand, 1), hitAt(test, hand, 3), hitAt(test, hand, 8), quoted(test, vec(hand)),
			hitAt(test, out[k], 1), hitAt(test, out[k], 3), hitAt(test, out[k], 8), quoted(test, vec(out[k])))
		sumHand[0] += float64(len(test)) * quoted(test, vec(hand))
		sumFit[0] += float64(len(test)) * quoted(test, vec(out[k]))
		for _, n := range []int{1, 3, 8} {
			sumHand[n] += float64(len(test)) * hitAt(test, hand, n)
			sumFit[n] += float64(len(test)) * hitAt(test, out[k], n)
		}
		total += len(test)
	}
	t := float64(total)
	if pairwise {
		fmt.Println("ridge chosen per fold:", chosenLambda)
	}
	fmt.Printf("| all | %d | %.3f / %.3f / %.3f / %.3f | %.3f / %.3f / %.3f / %.3f |\n\n", total, sumHand[1]/t, sumHand[3]/t, sumHand[8]/t, sumHand[0]/t, sumFit[1]/t, sumFit[3]/t, sumFit[8]/t, sumFit[0]/t)
	return out
}

// writeWeights writes w to gateway/research/weights.json.
func writeWeights(file string, w research.Weights, note string) error {
	b, err := json.MarshalIndent(research.WeightsFile{Note: note, Weights: w}, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(b, '\n'), 0o644)
}

// runFit cross-validates the fitted ranking against the hand rules on
// the pooled set (offline: only the rankings' hit rates) or, with write
// set, fits on every fold and writes the weights to weights.json. With
// cache set, the rankings are read from that file when it is there, and
// written to it when not.
func runFit(data, manuals string, models []string, write, offline bool, cache string) error {
	qs, corpora, err := pool(data, manuals)
	if err != nil {
		return err
	}
	ctx := context.Background()
	fmt.Printf("%d questions pooled\n\n", len(qs))
	var exs []example
	var handMini []outcome
	type cached struct {
		Examples []example
		Hand     []outcome // mini's outcomes with the hand rules' weights
	}
	if b, err := os.ReadFile(cache); cache != "" && err == nil {
		var c cached
		if err := json.Unmarshal(b, &c); err != nil {
			return fmt.Errorf("%s: %w", cache, err)
		}
		exs, handMini = c.Examples, c.Hand
		if !offline && !write {
			cleanup, err := openCorpora(ctx, corpora)
			if err != nil {
				return err
			}
			defer cleanup()
		}
	} else {
		cleanup, err := openCorpora(ctx, corpora)
		if err != nil {
			return err
		}
		defer cleanup()
		if handMini, exs, err = collect(ctx, corpora, qs, "mini"); err != nil {
			return err
		}
		if cache != "" {
			b, _ := json.Marshal(cached{exs, handMini})
			if err := os.WriteFile(cache, b, 0o644); err != nil {
				return err
			}
		}
	}
	relabel(exs)
	fmt.Printf("%d rankings with right and wrong candidates\n\n", len(exs))
	if write {
		file := filepath.Join(data, "..", "weights.json")
		note := fmt.Sprintf("fitted by bench/research -fit on %d rankings of the pooled set (ridge %.3g towards the hand rules' weights); docs/research.md", len(exs), lambda)
		if err := writeWeights(file, fitAny(exs), note); err != nil {
			return err
		}
		fmt.Println("wrote", file)
		return nil
	}
	ws := fitFolds(exs)
	if offline {
		return nil
	}
	fmt.Println("Hand rules:")
	hand := map[string][]outcome{}
	for _, m := range models {
		if m == "mini" && handMini != nil {
			hand[m] = handMini
			continue
		}
		if hand[m], err = ask(ctx, corpora, qs, m, handEngine); err != nil {
			return err
		}
	}
	printCV(qs, models, hand)
	fmt.Println("\nFitted on the other folds:")
	fitted := map[string][]outcome{}
	for _, m := range models {
		if fitted[m], err = ask(ctx, corpora, qs, m, func(c *corpus, fold int) (*research.Engine, error) {
			return research.New(research.Config{DB: c.db, Index: c.web, Weights: ws[fold]})
		}); err != nil {
			return err
		}
	}
	printCV(qs, models, fitted)
	return nil
}

// handEngine asks with the hand rules' weights.
func handEngine(c *corpus, fold int) (*research.Engine, error) {
	return research.New(research.Config{DB: c.db, Index: c.web, Weights: hand})
}

// printFeatures prints the ranking's features as a markdown table: each
// one's hand rule weight, its weight in weights.json and what it
// measures (docs/research.md holds this table).
func printFeatures(data string) error {
	b, err := os.ReadFile(filepath.Join(data, "..", "weights.json"))
	if err != nil {
		return err
	}
	var f research.WeightsFile
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	docs := research.FeatureDocs()
	fmt.Println("| Feature | Hand rule | Fitted | What it is |")
	fmt.Println("|---|---|---|---|")
	for _, n := range research.FeatureNames() {
		fmt.Printf("| `%s` | %.2f | %.2f | %s |\n", n, hand[n], f.Weights[n], strings.ReplaceAll(docs[n], "|", "\\|"))
	}
	return nil
}
