package main

import (
	"math"
	"slices"

	"hark/gateway/research"
)

// The pairwise fit: each ranking's right candidates against its wrong
// ones that the hand rules rank highest (those a report could quote
// instead), by logistic loss on the difference of their scores, with
// every feature standardised over the training candidates so that one
// ridge penalty treats each alike, drawn towards the hand rules'
// weights. The penalty's strength is chosen inside the training folds:
// each candidate strength is fitted on all but one training fold and
// judged on that one by how often a right candidate is among what a
// report would quote, and the best is fitted on them all.

// pairwise selects the pairwise fit for -cv and -fit.
var pairwise = false

// pairDepth is how many of a ranking's wrong candidates, best by the
// hand rules first, its right ones are paired with.
const pairDepth = 30

// lambdas are the ridge strengths the pairwise fit chooses among.
var lambdas = []float64{0.01, 0.03, 0.1, 0.3, 1, 3}

// pairs is one ranking's pairs: indices of right and of wrong candidates.
type pairs struct {
	x            [][]float64
	right, wrong []int
}

// toPairs keeps, for each example, its right candidates and the best
// pairDepth wrong ones under hv.
func toPairs(exs []example, hv []float64) []pairs {
	var out []pairs
	for _, e := range exs {
		p := pairs{x: e.X}
		for i := range e.X {
			if e.Right[i] {
				p.right = append(p.right, i)
			} else {
				p.wrong = append(p.wrong, i)
			}
		}
		if len(p.right) == 0 || len(p.wrong) == 0 {
			continue
		}
		slices.SortStableFunc(p.wrong, func(a, b int) int {
			sa, sb := dot(hv, e.X[a]), dot(hv, e.X[b])
			switch {
			case sa > sb:
				return -1
			case sa < sb:
				return 1
			}
			return 0
		})
		p.wrong = p.wrong[:min(len(p.wrong), pairDepth)]
		out = append(out, p)
	}
	return out
}

// fitPairwiseAt fits at ridge strength lam: weights in raw feature
// units.
func fitPairwiseAt(ps []pairs, h []float64, lam float64) []float64 {
	n := len(h)
	// Each feature's spread over the training candidates.
	sd := make([]float64, n)
	mean := make([]float64, n)
	cnt := 0.0
	for _, p := range ps {
		for _, x := range p.x {
			for j, v := range x {
				mean[j] += v
			}
			cnt++
		}
	}
	for j := range mean {
		mean[j] /= max(cnt, 1)
	}
	for _, p := range ps {
		for _, x := range p.x {
			for j, v := range x {
				sd[j] += (v - mean[j]) * (v - mean[j])
			}
		}
	}
	for j := range sd {
		sd[j] = math.Sqrt(sd[j] / max(cnt, 1))
		if sd[j] < 1e-6 {
			sd[j] = 1e-6
		}
	}
	// In standard units, weight u_j = w_j·sd_j.
	u, hu := make([]float64, n), make([]float64, n)
	for j := range u {
		hu[j] = h[j] * sd[j]
		u[j] = hu[j]
	}
	m, v, grad := make([]float64, n), make([]float64, n), make([]float64, n)
	const (
		steps = 250
		rate  = 0.03
		b1    = 0.9
		b2    = 0.999
	)
	w := make([]float64, n)
	for t := 1; t <= steps; t++ {
		clear(grad)
		for j := range w {
			w[j] = u[j] / sd[j]
		}
		for _, p := range ps {
			scale := 1 / float64(len(ps)*len(p.right)*len(p.wrong))
			for _, r := range p.right {
				sr := dot(w, p.x[r])
				for _, k := range p.wrong {
					// d/du ln(1 + e^(s_k − s_r)), in standard units.
					g := scale / (1 + math.Exp(sr-dot(w, p.x[k])))
					for j := range grad {
						grad[j] += g * (p.x[k][j] - p.x[r][j]) / sd[j]
					}
				}
			}
		}
		for j := range u {
			grad[j] += 2 * lam * (u[j] - hu[j])
			m[j] = b1*m[j] + (1-b1)*grad[j]
			v[j] = b2*v[j] + (1-b2)*grad[j]*grad[j]
			mh := m[j] / (1 - math.Pow(b1, float64(t)))
			vh := v[j] / (1 - math.Pow(b2, float64(t)))
			u[j] -= rate * mh / (math.Sqrt(vh) + 1e-8)
		}
	}
	for j := range w {
		w[j] = u[j] / sd[j]
	}
	return w
}

// quoted is the share of exs with a right candidate among what a report
// would quote under w: the best reportDepth that score at least a
// quarter of the best (pick's cut).
func quoted(exs []example, w []float64) float64 {
	const reportDepth = 7
	hit := 0
	for _, e := range exs {
		s := make([]float64, len(e.X))
		idx := make([]int, len(e.X))
		for i, x := range e.X {
			s[i], idx[i] = dot(w, x), i
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
		for n, i := range idx {
			if n == reportDepth || s[i] < s[idx[0]]+math.Log(0.25) {
				break
			}
			if e.Right[i] {
				hit++
				break
			}
		}
	}
	return float64(hit) / float64(max(1, len(exs)))
}

// fitPairwise chooses the ridge strength inside exs's folds, fits at it
// on all of exs, and scales the weights' spread to the hand rules'.
func fitPairwise(exs []example) research.Weights {
	names := research.FeatureNames()
	h := make([]float64, len(names))
	for i, n := range names {
		h[i] = hand[n]
	}
	var inFolds []int
	for _, e := range exs {
		if !slices.Contains(inFolds, e.Fold) {
			inFolds = append(inFolds, e.Fold)
		}
	}
	best, bestLam := -1.0, lambdas[0]
	if len(inFolds) > 1 {
		for _, lam := range lambdas {
			sum := 0.0
			for _, k := range inFolds {
				var train, test []example
				for _, e := range exs {
					if e.Fold == k {
						test = append(test, e)
					} else {
						train = append(train, e)
					}
				}
				w := scaled(train, fitPairwiseAt(toPairs(train, h), h, lam), h)
				sum += quoted(test, w) * float64(len(test))
			}
			if sum > best {
				best, bestLam = sum, lam
			}
		}
	}
	chosenLambda = append(chosenLambda, bestLam)
	w := scaled(exs, fitPairwiseAt(toPairs(exs, h), h, bestLam), h)
	out := research.Weights{}
	for i, n := range names {
		out[n] = math.Round(w[i]*1e4) / 1e4
	}
	return out
}

// chosenLambda is the ridge strength each pairwise fit chose.
var chosenLambda []float64

// scaled is w scaled so that exs's scores spread as under h.
func scaled(exs []example, w, h []float64) []float64 {
	if sw := spread(exs, w); sw > 0 {
		k := spread(exs, h) / sw
		w = slices.Clone(w)
		for j := range w {
			w[j] *= k
		}
	}
	return w
}
