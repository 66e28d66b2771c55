// Package researchset is hark's research question set and how a report
// is scored against it: answered (the gold fact is in the report's body),
// cited (the gold page is among its sources) and clean (no dangling first
// sentence, no fragment heading, no source listed twice). The set
// (questions.json) and the pages it asks about (corpus/) live in
// gateway/research/testdata; the CI test in gateway/research and the
// bench/research program both score with this.
//
// It reads a report as text and does no I/O but Load.
package researchset

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"
)

// Question is one question with its hand-checked gold fact and page.
type Question struct {
	ID       int      `json:"id"`
	Part     string   `json:"part"` // "tuning" or "held-out"
	Question string   `json:"question"`
	Fact     []string `json:"fact"` // any one of these, as the page writes it
	Page     string   `json:"page"` // path under the corpus folder
}

// Parts of the set: tuning is what ranking was tuned on, held-out never.
const (
	Tuning  = "tuning"
	HeldOut = "held-out"
)

// Load reads the question set and checks each entry.
func Load(file string) ([]Question, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var qs []Question
	if err := json.Unmarshal(b, &qs); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for _, q := range qs {
		if q.Question == "" || len(q.Fact) == 0 || q.Page == "" || (q.Part != Tuning && q.Part != HeldOut) {
			return nil, fmt.Errorf("%s: question %d: question, fact and page are required and part is %q or %q", file, q.ID, Tuning, HeldOut)
		}
	}
	return qs, nil
}

// Group is the documentation set q's gold page is in, its first folder
// ("nodejs" of "nodejs/readline.md", "valgrind" of
// "valgrind/html/mc-manual.html"): cross-validation splits the pooled
// set by it, so that no fold is judged on pages it was fitted on.
func Group(q Question) string {
	g, _, _ := strings.Cut(q.Page, "/")
	return g
}

// Score is how one report fares.
type Score struct {
	Answered bool
	Cited    bool
	// Quotes is how many quotes the body cites, and OnTopic how many of
	// them cite a page of the gold page's documentation set (its first
	// folder: "nodejs" of "nodejs/readline.md"): a Node.js question's
	// report that quotes Valgrind's manual has strayed, whatever words
	// the quote shares with the question.
	Quotes, OnTopic int
	// Problems are what makes the report unclean, one line each.
	Problems []string
}

// Clean reports whether the report has no cleanliness problem.
func (s Score) Clean() bool { return len(s.Problems) == 0 }

// Rate scores a report (its markdown content and its sources' URLs).
func Rate(q Question, content string, sourceURLs []string) Score {
	var s Score
	body := Body(content)
	flat := unescape(strings.Join(strings.Fields(body), " "))
	// As the reader reads it: "zero value of the `voicing` attribute"
	// renders as "zero value of the voicing attribute".
	read := strings.ReplaceAll(flat, "`", "")
	for _, f := range q.Fact {
		f = strings.Join(strings.Fields(f), " ")
		if strings.Contains(flat, f) || strings.Contains(read, f) {
			s.Answered = true
		}
	}
	gold := PageKey(q.Page)
	seen := map[string]bool{}
	for _, u := range sourceURLs {
		k := PageKey(u)
		if strings.HasSuffix(k, "/"+gold) || k == gold {
			s.Cited = true
		}
		if seen[k] {
			s.Problems = append(s.Problems, "source listed twice: "+u)
		}
		seen[k] = true
	}
	set, _, _ := strings.Cut(q.Page, "/")
	for _, n := range Citations(content) {
		if n < 1 || n > len(sourceURLs) {
			continue
		}
		s.Quotes++
		if strings.Contains(sourceURLs[n-1], "/"+set+"/") {
			s.OnTopic++
		}
	}
	s.Problems = append(s.Problems, problems(content)...)
	return s
}

// Citations is the source number each quote of a report's body cites,
// in order: "[2]" closing a finding, or a summary's quote.
func Citations(content string) []int {
	var out []int
	for _, m := range citation.FindAllStringSubmatch(unfenced(Body(content)), -1) {
		var n int
		fmt.Sscan(m[1], &n)
		out = append(out, n)
	}
	return out
}

// citation is a quote's citation: " [n]" closing a line or followed by
// the next quote of a summary.
var citation = regexp.MustCompile(`(?m) \[(\d+)\](?: |$)`)

// unfenced is text less its code blocks and code spans, where "argv[0]"
// cites nothing.
func unfenced(c string) string {
	var b strings.Builder
	fence := false
	for _, l := range strings.Split(c, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			continue
		}
		if !fence {
			b.WriteString(inlineCode.ReplaceAllString(l, "``") + "\n")
		}
	}
	return b.String()
}

var inlineCode = regexp.MustCompile("`[^`]*`")

// Body is a report less its Method and Sources sections.
func Body(content string) string {
	for _, h := range []string{"\n## Method", "\n## Sources"} {
		if i := strings.Index(content, h); i >= 0 {
			content = content[:i]
		}
	}
	return content
}

// PageKey is a page's path less the extension a site may serve it under
// (fs.html and fs.md are one page).
func PageKey(u string) string {
	u = strings.TrimPrefix(u, "file://")
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	switch path.Ext(u) {
	case ".html", ".htm", ".md", ".markdown", ".xhtml":
		u = strings.TrimSuffix(u, path.Ext(u))
	}
	return u
}

var escaped = regexp.MustCompile(`\\([\\` + "`" + `*_{}\[\]()#+\-.!<>|~])`)

func unescape(s string) string { return escaped.ReplaceAllString(s, "$1") }

// leaning are the first words of a sentence that points back at one
// before it ("This means …", "Nor does it …").
var leaning = regexp.MustCompile(`^(?:This|These|That|Those|It|They|Such|Nor|However|But|Thus|Therefore|Hence|Otherwise|Similarly|Likewise|Moreover|Furthermore)\b`)

// forward matches a first sentence that opens on "This" to name the
// example after it ("This is an example for defining a custom complex
// type descriptor …:" and its code): it points forward, not back.
var forward = regexp.MustCompile(`^(?:This|Here) (?:is|shows|gives) (?:an?|the|one) (?:\w+ )?(?:example|sample|demo|demonstration|illustration|program|snippet)\b.*:(?: \[\d+\])?$`)

// dummyIt matches a first sentence whose "It" points at what follows,
// not at a sentence before: "It is possible to build eSpeak NG with the
// gcc or clang sanitizer by passing …". The rater reads this for itself
// rather than asking research's reader, which it judges.
var dummyIt = regexp.MustCompile(`^It(?:'s|’s| is| was)(?: not| also| often| usually)? (?:possible|impossible|recommended|advisable|necessary|unnecessary|important|essential|useful|easy|hard|difficult|common|best|better|safe|unsafe|worth|a good idea)\b`)

// reportHeadings are the headings every report may hold.
var reportHeadings = map[string]bool{"Summary": true, "Findings": true, "Method": true, "Sources": true,
	"No sources available": true, "No matching sources": true}

// problems finds dangling first sentences and fragment headings.
func problems(content string) []string {
	var out []string
	lines := strings.Split(Body(content), "\n")
	first := true // the next quote opens a section
	fence := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			fence = !fence
			continue
		}
		if fence || t == "" {
			continue
		}
		if h, ok := strings.CutPrefix(t, "## "); ok {
			first = true
			if !reportHeadings[h] && fragment(h) {
				out = append(out, "fragment heading: "+h)
			}
			continue
		}
		if strings.HasPrefix(t, "#") {
			continue
		}
		if first {
			q := strings.TrimPrefix(t, "- ")
			if leaning.MatchString(q) && !forward.MatchString(q) && !dummyIt.MatchString(q) {
				out = append(out, "dangling first sentence: "+q)
			}
			first = false
		}
	}
	return out
}

// fragment reports whether a section heading is a piece cut out of the
// question rather than a heading: it opens in lower case, or holds a
// colon before a question ("Massif: what does each measure"), or is a
// clause that is neither a question nor a short name.
func fragment(h string) bool {
	if h == "" {
		return true
	}
	if r := []rune(h)[0]; r >= 'a' && r <= 'z' {
		return true
	}
	if i := strings.Index(h, ": "); i >= 0 && regexp.MustCompile(`(?i)^(?:what|how|why|when|where|which|who)\b`).MatchString(h[i+2:]) {
		return true
	}
	return !strings.HasSuffix(h, "?") && len(strings.Fields(h)) > 5
}
