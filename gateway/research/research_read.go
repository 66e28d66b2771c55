package research

import (
	"context"
	"sort"
	"strings"
	"time"

	"hark/gateway/research/doc"
	"hark/gateway/text"
)

// Finding and reading the sources: the URLs the input names, the
// search rounds' follow-up queries, and each source's text.

type researchSource struct {
	url, title string
	score      float64
	snippet    string
	text       string
	markdown   string // the extractor's markdown, when known: it marks headings, lists and terms
	parsed     []byte // the page as doc.Parse read it when it was indexed, when the index holds that
}

// rdoc is a source as one report reads it: its parse, shared with every
// report that reads the page (doc.Cache), and what this report found of
// it.
type rdoc struct {
	*doc.Page
	url       string
	kept      string  // the page's kept text, where its passages are found
	changelog bool    // changelogPage
	offTopic  bool    // it lacks a word every other source shares with the question: no quote comes from it
	prior     float64 // how the search ranked the page among the sources, 0 to 1 (the best)
}

// read keeps what the index or the web gave of the page; the title the
// search gave stays.
func (s *researchSource) read(title, body, markdown string, parsed []byte) {
	s.text, s.markdown, s.parsed = body, markdown, parsed
	if s.title == "" {
		s.title = title
	}
}

// readNamedURLs reads up to 5 URLs the research input names. A source
// named by the user ranks above anything search finds.
func (e *Engine) readNamedURLs(ctx context.Context, input string) []*researchSource {
	var out []*researchSource
	for _, u := range inputURL().FindAllString(input, 5) {
		u = strings.TrimRight(u, ".,;:!?")
		fctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		pu, title, body, md, parsed, err := e.cfg.Index.Read(fctx, u)
		cancel()
		if err != nil {
			continue
		}
		out = append(out, &researchSource{url: pu, title: title, score: 100, snippet: text.TruncateRunes(body, 300), text: body, markdown: md, parsed: parsed})
	}
	return out
}

// readSources fills each source's text: a fresh fetch when the source is
// on the web (which also refreshes the index), else what the index holds,
// else the search snippet.
func (e *Engine) readSources(ctx context.Context, sources []*researchSource, localIndex bool) {
	done := make(chan struct{}, len(sources))
	for _, s := range sources {
		go func() {
			defer func() { done <- struct{}{} }()
			if s.text != "" {
				return // read already (a URL the input named)
			}
			if localIndex {
				if title, body, md, parsed, err := e.cfg.Index.Kept(ctx, s.url); err == nil && body != "" {
					s.read(title, body, md, parsed)
					return
				}
			}
			if strings.HasPrefix(s.url, "http://") || strings.HasPrefix(s.url, "https://") {
				fctx, cancel := context.WithTimeout(ctx, 20*time.Second)
				_, title, body, md, parsed, err := e.cfg.Index.Read(fctx, s.url)
				cancel()
				if err == nil {
					s.read(title, body, md, parsed)
					return
				}
			}
			s.text = s.snippet
		}()
	}
	for range sources {
		<-done
	}
	for _, s := range sources {
		if s.title == "" {
			s.title = s.url
		}
	}
}

// followUpQueries are a later round's searches: the input's terms plus the
// two terms most frequent in the sources found so far that the input does
// not have (pseudo-relevance feedback).
func followUpQueries(input string, found map[string]*researchSource, order []string, searched map[string]bool) []string {
	have := map[string]bool{}
	for _, t := range text.Terms(input) {
		have[t] = true
	}
	freq := map[string]int{}
	for i, u := range order {
		if i == 5 {
			break
		}
		for _, t := range text.Terms(found[u].snippet + " " + found[u].title) {
			if !have[t] && len(t) > 3 {
				freq[t]++
			}
		}
	}
	type tf struct {
		t string
		n int
	}
	var list []tf
	for t, n := range freq {
		if n >= 2 {
			list = append(list, tf{t, n})
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].n != list[j].n {
			return list[i].n > list[j].n
		}
		return list[i].t < list[j].t
	})
	var out []string
	base := strings.Join(text.Terms(input), " ")
	for i := 0; i+1 < len(list) && len(out) < 2; i += 2 {
		q := base + " " + list[i].t + " " + list[i+1].t
		if !searched[q] {
			out = append(out, q)
		}
	}
	return out
}
