package research

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	gmtext "github.com/yuin/goldmark/text"

	"hark/api"
	"hark/gateway/text"
)

// researchCase is a question a researcher asks of the corpus, with what
// a report that answers it must say and must not.
type researchCase struct {
	q        string
	want     []string // in the report
	summary  string   // what the summary opens with, if set
	not      []string // never in the report
	sources  []string // cited (by file name)
	notCited []string
	check    func(t *testing.T, report string)
}

var researchCases = []researchCase{
	{
		q: "how does memcheck detect memory leaks and what do the leak kinds mean?",
		// How: it tracks heap blocks and scans the root set at exit.
		summary: "Memcheck keeps track of all heap blocks issued in response to calls to `malloc`/`new` et al.",
		want:    []string{"Memcheck determines if the block is reachable from pointers within the root-set", "## What do the leak kinds mean?"},
		// The old NEWS, and the list item that is no sentence.
		not:      []string{"Addrcheck", "Leak, meaning a memory leak", "`Leak`, meaning a memory leak"},
		sources:  []string{"mc-manual.html"},
		notCited: []string{"dist.news.html"},
		check: func(t *testing.T, c string) {
			// The four kinds, each with what it means, under the
			// sentence that introduces them.
			sec := reportSection(c, "What do the leak kinds mean?")
			for _, kind := range []string{`"Still reachable". A start-pointer or chain of start-pointers to the block is found.`,
				`"Definitely lost". This means that no pointer to the block can be found.`,
				`"Indirectly lost". This means that the block is lost`,
				`"Possibly lost". This means that a chain of one or more pointers to the block has been found, but at least one of the pointers is an interior-pointer.`} {
				if !strings.Contains(sec, "  - "+kind) {
					t.Errorf("the leak kind %q is not defined in its section:\n%s", kind, sec)
				}
			}
			if !strings.Contains(sec, "resulting in the following four leak kinds.") {
				t.Errorf("the kinds are quoted without the sentence that introduces them:\n%s", sec)
			}
		},
	},
	{
		q: "compare helgrind and drd",
		// What compares them, from the manual's introduction.
		summary:  "DRD is also a thread error detector. It is similar to Helgrind but uses different analysis techniques",
		sources:  []string{"hg-manual.html", "drd-manual.html"},
		notCited: []string{"dist.news.html"},
		not:      []string{"DRD has two new command-line options", "work reasonably well on z9"},
		check: func(t *testing.T, c string) {
			// Each section opens with what the tool is.
			for sec, opening := range map[string]string{
				"Helgrind": "- Helgrind is a Valgrind tool for detecting synchronisation errors in C, C++ and Fortran programs",
				"DRD":      "- DRD is a Valgrind tool for detecting errors in multithreaded C and C++ programs.",
			} {
				if s := reportSection(c, sec); !strings.HasPrefix(s, opening) {
					t.Errorf("## %s should open with %q:\n%s", sec, opening, s)
				}
			}
		},
	},
	{
		q:       "how do I suppress errors in valgrind?",
		summary: "The error-checking tools detect numerous problems in the system libraries, such as the C library, which come pre-installed with your OS. You can't easily fix these",
		want: []string{"So Valgrind reads a list of errors to suppress at startup.",
			// Option descriptions come with the option they describe.
			"`--suppressions=<filename> [default: $PREFIX/lib/valgrind/default.supp]`: Specifies an extra file from which to read descriptions of errors to suppress.",
			"`--gen-suppressions=<yes|no|all> [default: no]`: "},
		// The MPI wrappers' "them", and a cross-reference.
		not:      []string{"The best you can do is try to suppress them", "is described in"},
		notCited: []string{"dist.news.html"},
	},
	{
		q:       "what is a closure in libffi?",
		summary: "`libffi` also provides a way to write a generic function – a function that can accept and decode any combination of arguments.",
		want:    []string{"This facility is called the closure API."},
		sources: []string{"The-Closure-API.html"},
		check: func(t *testing.T, c string) {
			// A parameter's or function's description is quoted with
			// what it describes.
			for _, l := range strings.Split(c, "\n") {
				for _, d := range []string{"Free memory allocated using", "The address of a `ffi_closure` object", "Allocate a chunk of memory"} {
					if i := strings.Index(l, d); i >= 0 && !strings.Contains(l[:i], "ffi_closure") && !strings.Contains(l[:i], "`closure`:") {
						t.Errorf("%q is quoted without what it describes: %q", d, l)
					}
				}
			}
		},
	},
	{
		q:       "what does cachegrind measure and how do I read its output?",
		summary: "Cachegrind simulates how your program interacts with a machine's cache hierarchy and (optionally) branch predictor.",
		want:    []string{"Cachegrind gathers the following statistics", "  - I cache reads (`Ir`, which equals the number of instructions executed)", "## How do I read its output?"},
		// Off the topic: other tools, other options.
		not:      []string{"--gen-suppressions", "Massif", "randomisation"},
		sources:  []string{"cg-manual.html"},
		notCited: []string{"dist.news.html", "manual-core.html"},
	},
	{
		q:       "what is a data race?",
		summary: "A data race happens, or could happen, when two threads access a shared memory location without using suitable locks or other synchronisation",
		// "… is as follows." points at an example the report does not quote.
		not:      []string{"is as follows."},
		notCited: []string{"dist.news.html"},
	},
	{
		q:       "what does --track-origins do?",
		summary: "`--track-origins=<yes|no> [default: no]`: Controls whether Memcheck tracks the origin of uninitialised values.",
		sources: []string{"mc-manual.html"},
	},
	{
		q:       "how do I define a structure type in libffi?",
		summary: "`libffi` is perfectly happy passing structures back and forth. You must first describe the structure to `libffi` by creating a new `ffi_type` object for it.",
		sources: []string{"Structures.html"},
		not:     []string{"MPI"},
	},
	{
		// A question about changes is answered from the release notes,
		// of the release it names only.
		q:       "what changed in valgrind 3.19?",
		want:    []string{"Fix Rust v0 name demangling."},
		sources: []string{"dist.news.html"},
		not:     []string{"3.8.1 is a bug fix release", "3.5.0 is a feature release", "3.17.0 fixes"},
	},
	{
		q:       "what is the difference between cachegrind and callgrind?",
		want:    []string{"It has some overlap with Cachegrind, but also gathers some information that Cachegrind does not.", "- Callgrind is a profiling tool that records the call history among functions"},
		sources: []string{"cl-manual.html", "cg-manual.html"},
		check: func(t *testing.T, c string) {
			if s := reportSection(c, "Cachegrind"); !strings.HasPrefix(s, "- Cachegrind is a cache and branch-prediction profiler.") && !strings.HasPrefix(s, "- Cachegrind simulates") {
				t.Errorf("## Cachegrind should open with what it is:\n%s", s)
			}
		},
	},
	{
		q:        "how do I use massif to profile heap memory?",
		want:     []string{"Massif is a heap profiler. It measures how much heap memory your program uses."},
		sources:  []string{"ms-manual.html"},
		notCited: []string{"dist.news.html"},
	},
	{
		// Issue 23's compare question: the things end at the colon, each
		// gets its section, and the summary sets what each is side by
		// side rather than open on "Nor does it measure …", which no
		// quote opens on (it may go on from what it leans on).
		q:   "compare memcheck and massif: what does each measure and when should I use which?",
		not: []string{"## Massif:", "- Nor does it measure", "\nNor does it measure", "] Nor does it measure", ": Nor does it measure"},
		check: func(t *testing.T, c string) {
			for _, h := range []string{"Memcheck", "Massif"} {
				if reportSection(c, h) == "" {
					t.Errorf("no section headed %s:\n%s", h, c)
				}
			}
			sum := reportSection(c, "Summary")
			if !strings.Contains(sum, "Memcheck is a memory error detector.") || !strings.Contains(sum, "Massif is a heap profiler.") {
				t.Errorf("the summary does not contrast them:\n%s", sum)
			}
		},
	},
	{
		q:       "how do I attach gdb to a program running under valgrind?",
		want:    []string{"Valgrind gdbserver"},
		sources: []string{"manual-core-adv.html"},
	},
}

// reportSection is the body of the report's section headed title.
func reportSection(report, title string) string {
	_, s, ok := strings.Cut(report, "\n## "+title+"\n\n")
	if !ok {
		return ""
	}
	s, _, _ = strings.Cut(s, "\n## ")
	return s
}

// TestResearchOnRealPages asks the corpus questions a researcher asks and
// reads the reports: what each must say (definitions, the options a task
// needs with their names, what each thing compared is), and what none
// may hold (release notes for questions that are not about changes,
// fragments, sentences whose subject is elsewhere, page text read as
// markup).
func TestResearchOnRealPages(t *testing.T) {
	t.Parallel()
	e := corpusEngine(t)
	for _, tc := range researchCases {
		t.Run(tc.q, func(t *testing.T) {
			t.Parallel()
			out, err := e.Research(context.Background(), api.ResearchInput{Input: tc.q, Model: "auto"})
			if err != nil || out.Status != api.ResearchCompleted {
				t.Fatalf("%v %+v", err, out)
			}
			c := out.Content
			if os.Getenv("RESEARCH_PRINT") != "" {
				t.Logf("\n%s", c)
			}
			if tc.summary != "" && !strings.HasPrefix(reportSection(c, "Summary"), tc.summary) {
				t.Errorf("the summary should open with %q:\n%s", tc.summary, c)
			}
			for _, w := range tc.want {
				if !strings.Contains(c, w) {
					t.Errorf("report lacks %q:\n%s", w, c)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(c, w) {
					t.Errorf("report holds %q:\n%s", w, c)
				}
			}
			cited := ""
			for _, s := range out.Sources {
				cited += s.URL + " "
			}
			for _, s := range tc.sources {
				if !strings.Contains(cited, "/"+s+" ") {
					t.Errorf("%s is not cited: %s\n%s", s, cited, c)
				}
			}
			for _, s := range tc.notCited {
				if strings.Contains(cited, "/"+s+" ") {
					t.Errorf("%s is cited:\n%s", s, c)
				}
			}
			if tc.check != nil {
				tc.check(t, c)
			}
			checkQuotes(t, c)
			checkNoMarkup(t, c)
		})
	}
}

// quoteLine is a quote in a report: a summary's or a section's line,
// ending in its citation.
var quoteLine = regexp.MustCompile(`^(?:- )?(.*?) \[\d+\]$`)

// checkQuotes fails on a quote that is no whole sentence: it must open
// as a sentence (a capital, a digit, a quote mark or code) and end as
// one. Items under a list's lead-in are exempt from the opening rule
// ("normal, which means …" continues the lead-in).
func checkQuotes(t *testing.T, report string) {
	t.Helper()
	body, _, _ := strings.Cut(report, "\n## Method")
	fence := false
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			continue
		}
		if fence || strings.HasPrefix(l, "#") || strings.HasPrefix(l, " ") || l == "" || strings.HasPrefix(l, "```") || strings.HasPrefix(l, "No source found") || strings.HasPrefix(l, "The sources found") {
			continue
		}
		for _, q := range strings.Split(l, "] ") { // a summary runs its quotes together
			q = strings.TrimSpace(q)
			if q == "" {
				continue
			}
			if !strings.HasSuffix(q, "]") {
				q += "]"
			}
			m := quoteLine.FindStringSubmatch(q)
			if m == nil {
				t.Errorf("not a cited quote: %q", q)
				continue
			}
			s := m[1]
			first := []rune(s)[0]
			if !(first >= 'A' && first <= 'Z' || first >= '0' && first <= '9' || strings.ContainsRune("`\"'(", first) || text.StartsSentence(s)) {
				t.Errorf("quote opens as a fragment: %q", s)
			}
			if last := s[len(s)-1]; !strings.ContainsRune(".!?:)\"", rune(last)) {
				t.Errorf("quote ends as a fragment: %q", s)
			}
		}
	}
}

// checkNoMarkup fails when the report, read as markdown, holds markup
// that no quote put there: emphasis, links or raw HTML outside the
// Sources list. Page text is plain text; quoted code is code.
func checkNoMarkup(t *testing.T, report string) {
	t.Helper()
	body, _, _ := strings.Cut(report, "\n## Sources")
	src := []byte(body)
	doc := text.Markdown().Parser().Parse(gmtext.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		// A bare URL in page text is linked by GFM renderers and reads
		// the same; nothing else may be markup.
		switch n.(type) {
		case *ast.Emphasis, *ast.Link, *ast.Image, *ast.RawHTML, *ast.HTMLBlock:
			t.Errorf("page text read as markup (%s: %q)", n.Kind(), nodeText(n, src))
		}
		return ast.WalkContinue, nil
	})
}

// A sentence far under the best answer does not fill a section: for
// "how do I prompt the user for a line of input in Node.js?" the
// Readline page answers, and the Crypto page's "FIPS mode can then be
// enabled in Node.js either by:", which shares the question's "Node.js"
// and nothing else of it, once filled the section when the Readline
// page had given its share of quotes (weakAnswer).
func TestWeakSentencesDoNotFillASection(t *testing.T) {
	t.Parallel()
	out, err := corpusEngine(t).Research(context.Background(), api.ResearchInput{Input: "How do I prompt the user for a line of input in Node.js?", Model: "mini"})
	if err != nil || out.Status != api.ResearchCompleted {
		t.Fatalf("%v %+v", err, out)
	}
	if !strings.Contains(out.Content, "`rl.prompt()` method writes") || strings.Contains(out.Content, "FIPS mode") {
		t.Errorf("the report:\n%s", out.Content)
	}
}

// nodeText is the text an inline node holds, for a failure's message.
func nodeText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			b.Write(t.Segment.Value(src))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
