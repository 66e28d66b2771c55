package web

import (
	"context"
	"sort"
	"strings"
	"time"
)

// Hybrid search: with an embedding model whose vectors the index holds
// (vectors.go), a search's candidates are the full-text rank's and the
// pages nearest the query's embedding, and their order is reciprocal rank
// fusion (Cormack, Clarke and Büttcher, SIGIR 2009) of the two lists:
// each page scores Σ 1/(k + its rank in a list). Without a model, or
// without vectors for the configured one, or when the model does not
// answer, nothing changes: the search is the full-text one.

// rrfK is reciprocal rank fusion's k, the paper's 60: it keeps one list's
// first place from outweighing agreement further down both.
const rrfK = 60

// queryEmbedTimeout bounds embedding the query: a model that is slow or
// away leaves the search lexical rather than late.
const queryEmbedTimeout = 3 * time.Second

// embedPause is how long searches stay lexical after the model failed to
// embed a query, so that a model that is away (or answering 500s, which
// the client retries) does not slow every search.
const embedPause = 30 * time.Second

// hybrid is one search's nearest pages.
type hybrid struct {
	near    map[int64]int // 1-based rank among the nearest pages
	order   []neighbour
	lexical map[int64]bool
}

// hybridFor is the pool pages nearest query, nil when search stays
// lexical.
func (e *Engine) hybridFor(ctx context.Context, query string, pool int) *hybrid {
	if e.vectors == nil || strings.TrimSpace(query) == "" {
		return nil
	}
	vi := e.vectors
	if vi.paused() {
		return nil
	}
	c, err := vi.loaded(ctx)
	if err != nil || c == nil {
		return nil
	}
	qctx, cancel := context.WithTimeout(ctx, queryEmbedTimeout)
	defer cancel()
	vs, err := vi.emb.Embed(qctx, []string{query})
	if err != nil || len(vs) != 1 {
		if ctx.Err() == nil {
			vi.pause()
		}
		return nil
	}
	q := append([]float32(nil), vs[0]...)
	normalize(q)
	order := c.nearest(q, pool)
	if len(order) == 0 {
		return nil
	}
	h := &hybrid{near: make(map[int64]int, len(order)), order: order}
	for i, n := range order {
		h.near[n.id] = i + 1
	}
	return h
}

// join adds the nearest pages the full-text rank lacks to cands.
func (h *hybrid) join(cands []*candidate) []*candidate {
	if h == nil {
		return cands
	}
	h.lexical = make(map[int64]bool, len(cands))
	for _, c := range cands {
		h.lexical[c.id] = true
	}
	for _, n := range h.order {
		if !h.lexical[n.id] {
			cands = append(cands, &candidate{id: n.id})
		}
	}
	return cands
}

// admit drops, once their columns are read, the nearest pages that the
// search's filters refuse (the full-text rank applied them in SQL) and
// those removed since their vectors were read.
func (h *hybrid) admit(cands []*candidate, f *filters) []*candidate {
	if h == nil {
		return cands
	}
	kept := cands[:0]
	for _, c := range cands {
		if c.url == "" || !h.lexical[c.id] && !f.admits(c) {
			continue
		}
		kept = append(kept, c)
	}
	return kept
}

// fuse orders cands, sorted by their full-text rank, by reciprocal rank
// fusion of that rank and the nearest pages', and makes the fused score
// their rankKey.
func (h *hybrid) fuse(cands []*candidate) {
	if h == nil {
		return
	}
	lex := 0
	for _, c := range cands {
		s := 0.0
		if h.lexical[c.id] {
			lex++
			s += 1 / float64(rrfK+lex)
		}
		if r, ok := h.near[c.id]; ok {
			s += 1 / float64(rrfK+r)
		}
		c.rankKey = s
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].rankKey > cands[j].rankKey })
}

// admits is f applied to a page in Go, as where applies it in SQL.
func (f *filters) admits(c *candidate) bool {
	date := c.published
	if date <= 0 {
		date = c.fetched
	}
	if f.lo > 0 && date < f.lo || f.hi > 0 && date >= f.hi {
		return false
	}
	onHost := func(d string) bool {
		return c.host == d || c.host == "www."+d || strings.HasSuffix(c.host, "."+d)
	}
	if len(f.include) > 0 {
		ok := false
		for _, d := range f.include {
			ok = ok || onHost(d)
		}
		if !ok {
			return false
		}
	}
	for _, d := range f.exclude {
		if onHost(d) {
			return false
		}
	}
	return true
}

// paused reports whether searches stay lexical after a failed embedding.
func (vi *vectorIndex) paused() bool {
	vi.mu.Lock()
	defer vi.mu.Unlock()
	return time.Now().Before(vi.pausedUntil)
}

func (vi *vectorIndex) pause() {
	vi.mu.Lock()
	defer vi.mu.Unlock()
	vi.pausedUntil = time.Now().Add(embedPause)
}
