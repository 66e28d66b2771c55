package main

import (
	"flag"
	"fmt"
	"regexp"
	"strings"
)

var extra = flag.Bool("extra", false, "print each line of hark's text on a tuning page of a whole-truth public set that the truth does not hold (fewer than a third of its words in it): the kinds of boilerplate that get in, and stop")

var wordsRE = regexp.MustCompile(`[\p{L}\p{N}_]+`)

// printExtra prints the lines hark keeps that a page's truth does not
// hold, tuning pages only, with the page's name.
func printExtra(sets []dataset) {
	for _, ds := range sets {
		if ds.kind == bySnippets || ds.unseen || strings.HasPrefix(ds.title, "committed") {
			continue
		}
		for _, pg := range ds.pages {
			if heldOut(pg) {
				continue
			}
			truth := map[string]bool{}
			for _, w := range wordsRE.FindAllString(strings.ToLower(string(pg.Truth)), -1) {
				truth[w] = true
			}
			for _, line := range strings.Split(harkText(pg), "\n") {
				ws := wordsRE.FindAllString(strings.ToLower(line), -1)
				if len(ws) == 0 {
					continue
				}
				in := 0
				for _, w := range ws {
					if truth[w] {
						in++
					}
				}
				if 3*in < len(ws) {
					if len(line) > 160 {
						line = line[:160]
					}
					fmt.Printf("%s\t%s\t%d\t%s\n", ds.title[:4], pg.Name[:min(12, len(pg.Name))], len(ws), line)
				}
			}
		}
	}
}
