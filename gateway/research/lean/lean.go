// Package lean reads whether a sentence stands on its own: whether it
// leans on the sentence before it ("This means …", "However, …", "You
// can't easily fix these"), points at text a quote of it would not
// hold ("… as follows.", "the example below"), or says a list follows.
// Research quotes a sentence with what it leans on, or not at all.
package lean

import (
	_ "embed"
	"regexp"
	"strings"
	"sync"

	"hark/gateway/text"
)

// IntroducesList reports whether s says a list follows.
func IntroducesList(s string) bool {
	return listIntro().MatchString(s)
}

var listIntro = text.LazyRegexp(`(?i)\b(?:the following|as follows|are:|these are)\b`)

// pointsElsewhere matches sentences that point at a figure or at text
// the quote does not hold: "This covers cases 1 and 2 above.", "… is as
// follows.", "the example below". "Above" and "below" as places in
// other things ("a layer must exist above libffi", "below 1 MB") point
// nowhere.
var pointsElsewhere = pattern("points_elsewhere")

// asidePointer is a pointer to other text set off from the sentence's
// claim by a comma or parentheses.
var asidePointer = text.LazyRegexp(`(?i)(?:,\s*(?:which is |as |and )?(?:described|explained|discussed|covered|shown) (?:in|below|above|later)\b[^,;()]*|\(\s*(?:see|cf\.|as described|described|explained)\b[^()]*\))`)

// PointsFar reports whether sentence plain points at a figure or at
// text the quote does not hold ("… as follows."). A pointer set aside
// (", described in the next section", "(see Section 2.5)") leaves the
// sentence's own claim whole: "This file is … intended to be
// interpreted by the accompanying program cg_annotate, described in the
// next section."
func PointsFar(plain string) bool {
	if !mayPointElsewhere(strings.ToLower(plain)) {
		return false
	}
	plain = asidePointer().ReplaceAllString(plain, "")
	return pointsElsewhere().MatchString(rangeBound().ReplaceAllString(plain, ""))
}

// rangeBound is "and above" or "or below" closing a range of values
// ("at -O2 and above, and sometimes -O1", "version 3 or below"), not a
// place in the page.
var rangeBound = text.LazyRegexp(`(?i)\b(?:and|or)\s+(?:above|below)\b`)

// mayPointElsewhere is a cheap first look for pointsElsewhere's words:
// the regular expression runs on few sentences.
func mayPointElsewhere(lower string) bool {
	for _, w := range []string{"above", "below", "section", "figure", "follow", "describ", "see ", "refer"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// pointsForward matches a sentence that opens on "this" to name what
// follows it: "This is an example for defining a custom complex type
// descriptor …:" leads into its example and leans on nothing before.
var pointsForward = text.LazyRegexp(`(?i)^(?:this|here) (?:is|shows|gives) (?:an?|the|one) (?:\w+ )?(?:example|sample|demo|demonstration|illustration|program|snippet)\b.*:$`)

// LeansBack reports whether a sentence (lower-cased) leans on the one
// before: it opens by pointing back ("This means …", "However, …"), or
// its "these" or "them" is there ("You can't easily fix these, but …",
// "The best you can do is try to suppress them."), or a "this" that
// stands on its own for what was said ("We have looked in detail into
// fixing this, and …", "For most Linux distributions this means that
// …").
func LeansBack(lower string) bool {
	if pointsForward().MatchString(lower) || dummyIt().MatchString(lower) {
		return false
	}
	words := strings.Fields(lower)
	if len(words) == 0 {
		return false
	}
	// "That's where …", "It's …": the word before the apostrophe.
	first, _, _ := strings.Cut(strings.Trim(words[0], ",.;:"), "'")
	first, _, _ = strings.Cut(first, "’")
	if leanStart()[first] && leansOnContext().MatchString(lower) {
		return true
	}
	if len(words) > 1 && clauseStart[words[0]] && pointers[strings.Trim(words[1], ",.;:")] {
		return true // "When this happens, …", "If that fails, …"
	}
	for i, w := range words {
		if i == 8 {
			break
		}
		if w = strings.Trim(w, ",.;:!?()"); w == "these" || w == "those" {
			return true
		}
		if i > 0 && (words[i] == "this," || words[i] == "this." || words[i] == "this;") {
			return true
		}
		if i > 0 && i+1 < len(words) && (w == "this" || w == "that") && (words[i+1] == "means" || words[i+1] == "is" && i+2 < len(words) && words[i+2] == "why") {
			return true
		}
	}
	switch words[len(words)-1] {
	case "them.", "these.", "those.", "them!", "these!", "those!":
		return true
	}
	return false
}

var (
	clauseStart = map[string]bool{"when": true, "if": true, "because": true, "since": true, "after": true, "before": true,
		"once": true, "unless": true, "while": true, "with": true, "without": true, "despite": true, "for": true, "by": true}
	pointers = map[string]bool{"this": true, "that": true, "these": true, "those": true, "it": true, "they": true, "them": true}
)

// leanStart holds the first words leansOnContext can match
// (lean_start.txt).
var leanStart = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, line := range strings.Split(leanStartFile, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		for _, w := range strings.Fields(line) {
			m[w] = true
		}
	}
	return m
})

// leanStartFile is the first words a sentence that leans back may open
// on, separated by spaces and new lines.
//
//go:embed lean_start.txt
var leanStartFile string

// dummyIt opens a sentence whose "it" points at nothing before it but
// at what follows: "It is possible to build eSpeak NG with the gcc or
// clang sanitizer by …", "It is recommended that …".
var dummyIt = text.LazyRegexp(`^it(?:'s|’s| is| was)(?: not| also| often| usually)? (?:possible|impossible|recommended|advisable|necessary|unnecessary|important|essential|useful|easy|hard|difficult|common|best|better|safe|unsafe|worth|a good idea)\b`)

// leansOnContext matches sentences that open by pointing at text the
// report does not quote ("As mentioned earlier, …", "This means …",
// "However, …"): read alone they leave the reader asking what "this" is.
var leansOnContext = pattern("leans_on_context")

// patternsFile is the regular expressions too long to be read well as
// Go: each a line "name:" and the expression on the line after it.
//
//go:embed patterns.txt
var patternsFile string

// pattern is patterns.txt's expression called name, compiled at first
// use; a name the file lacks panics then, as the file is embedded.
func pattern(name string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp {
		lines := strings.Split(patternsFile, "\n")
		for i, l := range lines {
			if strings.TrimSpace(l) == name+":" && i+1 < len(lines) {
				return regexp.MustCompile(strings.TrimSpace(lines[i+1]))
			}
		}
		panic("research/lean: patterns.txt has no pattern " + name)
	})
}
