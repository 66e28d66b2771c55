package main

import (
	"flag"
	"fmt"
	"sort"
	"strings"

	"hark/gateway/extract/score"
)

var pdiff = flag.Int("pdiff", 0, "print the N tuning pages (whole-truth and snippet sets) where hark's precision is furthest under go-trafilatura's, each with the lines hark keeps that neither the truth nor go-trafilatura holds, and stop")

// printPrecisionDiff prints, largest loss first, the tuning pages where
// hark keeps what go-trafilatura leaves out: what hark's precision
// loses, page by page, without looking at a held-out page.
func printPrecisionDiff(sets []dataset, top int) {
	type loss struct {
		set, name, url string
		fold           int
		d              float64
		lines          []string
	}
	var all []loss
	traf := extractors[2]
	for _, ds := range sets {
		if ds.unseen {
			continue
		}
		for _, pg := range ds.pages {
			if heldOut(pg) {
				continue
			}
			ex := extractors[1]
			if pg.titled {
				ex = extractors[0]
			}
			h, t := measure(ex, pg, ds.kind), measure(traf, pg, ds.kind)
			hp, tp := h.p, t.p
			if ds.kind == bySnippets {
				hp, tp = -float64(h.fp), -float64(t.fp)
			}
			if hp >= tp {
				continue
			}
			_, ttext, _ := cachedRun(traf, pg)
			var lines []string
			if ds.kind == bySnippets {
				text := harkText(pg)
				for _, w := range pg.without {
					if strings.Contains(norm(text), norm(w)) && !strings.Contains(norm(ttext), norm(w)) {
						lines = append(lines, w)
					}
				}
			} else {
				for _, l := range strings.Split(harkText(pg), "\n") {
					if strings.TrimSpace(l) == "" {
						continue
					}
					if p, _, _ := score.Text(l, string(pg.Truth)); p < 0.5 {
						if q, _, _ := score.Text(l, ttext); q < 0.5 {
							lines = append(lines, l)
						} else {
							lines = append(lines, "(both) "+l)
						}
					}
				}
			}
			all = append(all, loss{ds.title[:8], pg.Name, pg.URL, fold(pg), hp - tp, lines})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].d < all[j].d })
	for i, l := range all {
		if i == top {
			break
		}
		fmt.Printf("== %s %s fold %d %.3f %s\n", l.set, l.name, l.fold, l.d, l.url)
		for _, line := range l.lines {
			if len(line) > 200 {
				line = line[:200]
			}
			fmt.Println("   +", line)
		}
	}
}

func norm(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// outside is each line of text of which under a third of the words
// are in other.
func outside(text, other string) []string {
	in := map[string]bool{}
	for _, w := range wordsRE.FindAllString(strings.ToLower(other), -1) {
		in[w] = true
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		ws := wordsRE.FindAllString(strings.ToLower(line), -1)
		if len(ws) == 0 {
			continue
		}
		k := 0
		for _, w := range ws {
			if in[w] {
				k++
			}
		}
		if 3*k < len(ws) {
			out = append(out, line)
		}
	}
	return out
}
