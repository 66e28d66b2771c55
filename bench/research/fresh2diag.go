package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"hark/api"
	"hark/gateway/research"
	"hark/gateway/research/researchset"
	"hark/gateway/web"
)

// The second fresh round's misses, diagnosed (-fresh2 DIR -fresh2diag):
// for each question a report leaves unanswered or uncited, the stage
// where the gold fact was lost, read from what research did through
// its public surfaces only (the Index it is given, recorded, and the
// Observe hook's ranking), so that nothing in research changes:
//
//	retrieval  the gold page is in no search research sent (and where a
//	           deeper search, 50 results, ranks it);
//	reading    a search found it, but it is not among the pages read;
//	selection  read, and a candidate holding the fact was ranked below
//	           the quotes picked; or read, and no candidate holds the
//	           fact (a gate dropped every sentence that does: the page
//	           off topic, the sentence short of the question's terms);
//	source     the page's source copy (_sources/…rst.txt, git-doc's
//	           .txt) was found or read in its place.
//
// The round was scored once before this; its figures stand, and after
// this diagnosis its questions are no longer unseen (docs/log/2026-12-07-fresh2-misses.md).
//
//	cd bench/research && go run . -fresh2 /usr/share/doc -fresh2diag -models mini

// recIndex is the index research reads, recording every search it
// sends (query and result URLs) and every page it reads whole.
type recIndex struct {
	*web.Engine
	mu       sync.Mutex
	searches []recSearch
	kept     []string
}

type recSearch struct {
	query string
	urls  []string
}

func (r *recIndex) SearchIndex(ctx context.Context, in api.SearchInput) (*api.SearchOutput, error) {
	out, err := r.Engine.SearchIndex(ctx, in)
	if err == nil {
		s := recSearch{query: in.Query}
		for _, res := range out.Results {
			s.urls = append(s.urls, res.URL)
		}
		r.mu.Lock()
		r.searches = append(r.searches, s)
		r.mu.Unlock()
	}
	return out, err
}

func (r *recIndex) Kept(ctx context.Context, url string) (string, string, string, []byte, error) {
	r.mu.Lock()
	r.kept = append(r.kept, url)
	r.mu.Unlock()
	return r.Engine.Kept(ctx, url)
}

func (r *recIndex) reset() {
	r.mu.Lock()
	r.searches, r.kept = nil, nil
	r.mu.Unlock()
}

// isGold reports whether u is q's gold page (not its source copy).
func isGold(q researchset.Question, u string) bool {
	k, g := researchset.PageKey(u), researchset.PageKey(q.Page)
	return strings.HasSuffix(k, "/"+g) || k == g
}

// isGoldCopy reports whether u is the gold page's source copy.
func isGoldCopy(q researchset.Question, u string) bool {
	return sourceTwin(u) != u && isGold(q, sourceTwin(u))
}

// holdsFact reports whether t holds one of q's facts as the rater reads.
func holdsFact(q researchset.Question, t string) bool {
	norm := func(s string) string { return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "`", "") }
	t = norm(t)
	for _, f := range q.Fact {
		if f = norm(f); f != "" && strings.Contains(t, f) {
			return true
		}
	}
	return false
}

// diagnosis is one question's miss, stage by stage.
type diagnosis struct {
	stage string // retrieval, reading, selection, gate, or "" (answered and cited)
	lines []string
}

func (d *diagnosis) notef(format string, a ...any) {
	d.lines = append(d.lines, fmt.Sprintf(format, a...))
}

// diagnose reads where q's gold fact was lost, from the searches and
// reads rec recorded, the ranking Observe gave (nil when it gave none)
// and the report's score.
func diagnose(ctx context.Context, idx *recIndex, root string, q researchset.Question, s researchset.Score, sources []string, rk *research.Ranking, w []float64) diagnosis {
	var d diagnosis
	// Search: the best rank of the gold page, and of its copy, in any
	// search research sent.
	goldRank, goldQuery, copyRank, copyQuery := 0, "", 0, ""
	var queries []string
	for _, sr := range idx.searches {
		queries = append(queries, fmt.Sprintf("%q", sr.query))
		for i, u := range sr.urls {
			if isGold(q, u) && (goldRank == 0 || i+1 < goldRank) {
				goldRank, goldQuery = i+1, sr.query
			}
			if isGoldCopy(q, u) && (copyRank == 0 || i+1 < copyRank) {
				copyRank, copyQuery = i+1, sr.query
			}
		}
	}
	d.notef("searches: %s", strings.Join(queries, ", "))
	read, copyRead := false, false
	for _, u := range idx.kept {
		read = read || isGold(q, u)
		copyRead = copyRead || isGoldCopy(q, u)
	}
	var short []string
	for _, u := range sources {
		short = append(short, strings.TrimPrefix(u, "file://"+root+"/"))
	}
	d.notef("sources cited: %s", strings.Join(short, " "))
	copies := 0
	for _, u := range idx.kept {
		if sourceTwin(u) != u {
			copies++
		}
	}
	d.notef("pages read: %d, of them source copies (.rst.txt, git-doc .txt): %d", len(idx.kept), copies)
	if copyRank > 0 {
		d.notef("source copy found: rank %d for %q (read %v)", copyRank, copyQuery, copyRead)
	}
	switch {
	case goldRank == 0:
		d.stage = "retrieval"
		// How deep a search must go to find it: 50 results for each
		// query research sent.
		deep := 0
		deepQuery := ""
		deepPlain := 0
		for _, sr := range idx.searches {
			out, err := idx.Engine.SearchIndex(ctx, api.SearchInput{Query: sr.query, MaxResults: 50, SearchDepth: "advanced", Topic: "general"})
			if err != nil {
				continue
			}
			plain := 0 // ranks counting no source copy
			for i, r := range out.Results {
				if sourceTwin(r.URL) == r.URL {
					plain++
				}
				if isGold(q, r.URL) && (deep == 0 || i+1 < deep) {
					deep, deepQuery, deepPlain = i+1, sr.query, plain
				}
			}
		}
		if len(idx.searches) > 0 {
			var top []string
			for _, u := range idx.searches[0].urls {
				top = append(top, strings.TrimPrefix(u, "file://"+root+"/"))
			}
			d.notef("first search's results: %s", strings.Join(top, " "))
			for _, n := range []int{8, 20} {
				out, err := idx.Engine.SearchIndex(ctx, api.SearchInput{Query: idx.searches[0].query, MaxResults: n, SearchDepth: "advanced", Topic: "general"})
				if err != nil {
					continue
				}
				for i, r := range out.Results {
					if isGold(q, r.URL) {
						d.notef("first search asked for %d results: gold page at rank %d", n, i+1)
					}
				}
			}
		}
		if deep > 0 {
			d.notef("gold page not in research's searches; at 50 results, rank %d for %q (%d counting no source copy)", deep, deepQuery, deepPlain)
		} else {
			d.notef("gold page not in research's searches, nor in 50 results of any of them")
		}
	case !read:
		d.stage = "reading"
		d.notef("gold page found (rank %d for %q) but not among the %d pages read", goldRank, goldQuery, len(idx.kept))
	default:
		d.notef("gold page found (rank %d for %q) and read", goldRank, goldQuery)
		if rk == nil {
			d.stage = "selection"
			d.notef("no ranking observed (a comparison, or no terms)")
			break
		}
		type cand struct {
			score      float64
			gold, fact bool
			text       string
		}
		var cs []cand
		goldCands := 0
		for i, x := range rk.Features {
			c := cand{score: dotw(w, x), gold: isGold(q, rk.URLs[i]), fact: holdsFact(q, rk.Texts[i]), text: rk.Texts[i]}
			if c.gold {
				goldCands++
			}
			cs = append(cs, c)
		}
		slices.SortStableFunc(cs, func(a, b cand) int {
			switch {
			case a.score > b.score:
				return -1
			case a.score < b.score:
				return 1
			}
			return 0
		})
		best := -1
		for i, c := range cs {
			if c.fact && (c.gold || best < 0) {
				if best < 0 || c.gold && !cs[best].gold {
					best = i
				}
			}
		}
		d.notef("%d candidates, %d on the gold page", len(cs), goldCands)
		if len(cs) > 0 {
			d.notef("top candidate %.3f: %s", cs[0].score, clip(cs[0].text, 140))
		}
		switch {
		case best >= 0:
			d.stage = "selection"
			d.notef("best candidate holding the fact: rank %d of %d, score %.3f (top %.3f), gold page %v: %s", best+1, len(cs), cs[best].score, cs[0].score, cs[best].gold, clip(cs[best].text, 160))
		case goldCands == 0:
			d.stage = "gate"
			d.notef("no candidate on the gold page: every sentence of it gated (page off topic, or none holds enough of the question's terms)")
		default:
			d.stage = "gate"
			d.notef("no candidate holds the fact: the sentences that do were gated (short of the question's terms, leaning on what the page lacks, or pointing elsewhere)")
		}
	}
	// Where the fact stands on the gold page, for the vocabulary gap.
	if text, err := idx.Engine.IndexedText(ctx, "file://"+root+"/"+q.Page); err == nil {
		flat := strings.Join(strings.Fields(text), " ")
		for _, f := range q.Fact {
			f = strings.Join(strings.Fields(f), " ")
			if i := strings.Index(flat, f); i >= 0 {
				a, b := max(0, i-120), min(len(flat), i+len(f)+80)
				d.notef("fact on the page: …%s…", flat[a:b])
				break
			}
		}
	}
	return d
}

func dotw(w, x []float64) float64 {
	s := 0.0
	for i := range w {
		if i < len(x) {
			s += w[i] * x[i]
		}
	}
	return s
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// runFresh2Diag asks each question again with the built-in weights,
// recording what research searched, read and ranked, and prints a
// diagnosis of each miss and each unclean report's problems.
func runFresh2Diag(ctx context.Context, c *corpus, root string, qs []fresh2Question, models []string) error {
	idx := &recIndex{Engine: c.web}
	var rk *research.Ranking
	r, err := research.New(research.Config{DB: c.db, Index: idx, Observe: func(x research.Ranking) { rk = &x }})
	if err != nil {
		return err
	}
	defer r.Close()
	bw := research.BuiltInWeights()
	var w []float64
	for _, n := range research.FeatureNames() {
		w = append(w, bw[n])
	}
	for _, model := range models {
		stages := map[string][]string{}
		var unclean []string
		for _, q := range qs {
			idx.reset()
			rk = nil
			out, err := r.Research(ctx, api.ResearchInput{Input: q.Question.Question, Model: model})
			if err != nil {
				return fmt.Errorf("%q: %w", q.Question.Question, err)
			}
			var urls []string
			for _, s := range out.Sources {
				urls = append(urls, s.URL)
			}
			s := researchset.Rate(q.Question, out.Content, urls)
			if !s.Clean() {
				unclean = append(unclean, fmt.Sprint(q.ID))
				fmt.Printf("%s #%d unclean (%s): %s\n", model, q.ID, q.Wording, strings.Join(s.Problems, "; "))
			}
			if s.Answered && s.Cited {
				continue
			}
			d := diagnose(ctx, idx, root, q.Question, s, urls, rk, w)
			stage := d.stage
			if s.Answered {
				stage += ", answered elsewhere"
			}
			stages[d.stage] = append(stages[d.stage], fmt.Sprint(q.ID))
			fmt.Printf("\n%s #%d [%s, %s] %s\n  answered %v, cited %v; stage: %s\n", model, q.ID, researchset.Group(q.Question), q.Wording, q.Question.Question, s.Answered, s.Cited, stage)
			fmt.Printf("  facts %q on %s\n", q.Fact, q.Page)
			for _, l := range d.lines {
				fmt.Printf("  %s\n", l)
			}
		}
		fmt.Printf("\n%s stages:", model)
		for _, st := range []string{"retrieval", "reading", "selection", "gate"} {
			fmt.Printf(" %s %d (%s);", st, len(stages[st]), strings.Join(stages[st], " "))
		}
		fmt.Printf(" unclean %s\n\n", strings.Join(unclean, " "))
	}
	return nil
}
