package research

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/extract/score"
	"hark/gateway/research/doc"
	"hark/gateway/research/tasks"
	"hark/gateway/text"
	"hark/gateway/web"
)

func TestResearchEmptyIndexSaysSo(t *testing.T) {
	e := testEngine(t, nil)
	out, err := e.Research(context.Background(), api.ResearchInput{Input: "What is a sitemap?", Model: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != api.ResearchCompleted || out.RequestID == "" {
		t.Fatalf("%+v", out)
	}
	if !strings.Contains(out.Content, "local search index is empty") || !strings.Contains(out.Content, "hark index") {
		t.Errorf("report should say the index is empty and how to fill it: %q", out.Content)
	}
	if out.Sources == nil || len(out.Sources) != 0 {
		t.Errorf("sources = %#v", out.Sources)
	}
}

func TestResearchReport(t *testing.T) {
	site := newTestSite(t)
	e := testEngine(t, nil)
	if _, err := e.Crawl(context.Background(), api.CrawlInput{URL: site.URL, MaxDepth: 2, MaxBreadth: 50, Limit: 50}); err != nil {
		t.Fatal(err)
	}
	out, err := e.Research(context.Background(), api.ResearchInput{Input: "How does a polite crawler treat robots.txt, and what do sitemap indexes do?", Model: "pro"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != api.ResearchCompleted {
		t.Fatalf("status %s", out.Status)
	}
	c := out.Content
	for _, want := range []string{"# How does a polite crawler", "## Summary", "## How does a polite crawler treat robots.txt?\n", "## What do sitemap indexes do?\n", "## Sources", "[1]", "1. [", "robots.txt", "sitemap indexes group"} {
		if !strings.Contains(c, want) {
			t.Errorf("report lacks %q:\n%s", want, c)
		}
	}
	if strings.Count(c, "\n## ") != 5 { // summary, two questions, method, sources
		t.Errorf("want a section per sub-question:\n%s", c)
	}
	// Every page of the site repeats one sentence on robots.txt: it is
	// cited once, so one source may carry the whole report.
	if len(out.Sources) < 1 || strings.Count(c, "robots.txt first") > 2 {
		t.Fatalf("sources: %+v\n%s", out.Sources, c)
	}
	for _, s := range out.Sources {
		if !strings.HasPrefix(s.URL, site.URL) && !strings.HasPrefix(s.URL, site.External) || s.Title == "" {
			t.Errorf("source %+v", s)
		}
	}
	// Every citation number names a listed source, and every listed
	// source is cited: the list s shows matches the report.
	for i := 1; i <= 9; i++ {
		cited := strings.Contains(c, "["+string(rune('0'+i))+"]")
		if cited && i > len(out.Sources) {
			t.Errorf("citation [%d] beyond %d sources", i, len(out.Sources))
		}
		if !cited && i <= len(out.Sources) {
			t.Errorf("source %d of %d is never cited:\n%s", i, len(out.Sources), c)
		}
	}
	// The task is persisted.
	again, err := e.ResearchTask(context.Background(), out.RequestID)
	if err != nil || again.Status != api.ResearchCompleted || again.Content != c {
		t.Errorf("persisted task: %v %+v", err, again)
	}

	// auto says what it chose, so the body and a saved header agree.
	auto, err := e.Research(context.Background(), api.ResearchInput{Input: "crawler politeness", Model: "auto"})
	if err != nil || !strings.Contains(auto.Content, "Model `auto`, which chose `mini`") {
		t.Errorf("auto: %v %+v", err, auto)
	}

	mini, err := e.Research(context.Background(), api.ResearchInput{Input: "crawler politeness", Model: "mini"})
	if err != nil || mini.Status != api.ResearchCompleted || len(mini.Sources) > 4 || !strings.Contains(mini.Content, "Model `mini`") {
		t.Errorf("mini: %v %+v", err, mini)
	}
	// The same question: pro reads more sources, in more rounds, than mini.
	q := "How do crawlers follow links, read robots.txt and sitemaps?"
	m2, err1 := e.Research(context.Background(), api.ResearchInput{Input: q, Model: "mini"})
	p2, err2 := e.Research(context.Background(), api.ResearchInput{Input: q, Model: "pro"})
	read := func(o *api.ResearchOutput) int {
		var n int
		if m := regexp.MustCompile(`(\d+) sources read`).FindStringSubmatch(o.Content); m != nil {
			n, _ = strconv.Atoi(m[1])
		}
		return n
	}
	// This small site has about as many pages as mini reads, so pro can
	// read no more here; its plan reads more where there are more.
	if err1 != nil || err2 != nil || read(p2) < read(m2) || !strings.Contains(p2.Content, "Model `pro`: 3 search rounds, ") || !strings.Contains(m2.Content, "Model `mini`: 1 search round, ") {
		t.Errorf("pro should read at least the sources mini reads, in more rounds: %v %v, %d vs %d", err1, err2, read(p2), read(m2))
	}
	if pro, mini := planFor("pro", q), planFor("mini", q); pro.Sources <= mini.Sources || pro.Queries <= mini.Queries {
		t.Errorf("pro's plan should read more than mini's: %+v vs %+v", pro, mini)
	}
	none, err := e.Research(context.Background(), api.ResearchInput{Input: "volcanic xylophonists", Model: "mini"})
	if err != nil || none.Status != api.ResearchCompleted || !strings.Contains(none.Content, "No page found") {
		t.Errorf("no match: %v %+v", err, none)
	}
	if planFor("auto", "sitemaps").Model != "mini" || planFor("auto", "compare robots.txt handling in crawlers, and explain how sitemap indexes are read by search engines").Model != "pro" {
		t.Error("auto model choice")
	}
}

// blockingSearcher stands in for a slow backend.
type blockingSearcher struct{ release chan struct{} }

func (b blockingSearcher) Search(ctx context.Context, in api.SearchInput) (*api.SearchOutput, error) {
	select {
	case <-b.release:
		return &api.SearchOutput{Query: in.Query, Results: []api.SearchResult{}}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func TestResearchWaitEndsWithCtxAndTaskLivesOn(t *testing.T) {
	db := testDB(t)
	e := testEngine(t, db)
	bs := blockingSearcher{release: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	out, err := e.runResearch(ctx, api.ResearchInput{Input: "anything at all", Model: "mini"}, bs, false)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if out == nil || out.Status != api.ResearchInProgress || out.Content != "" {
		t.Fatalf("while running: %+v", out)
	}
	close(bs.release)
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := e.ResearchTask(context.Background(), out.RequestID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == api.ResearchCompleted {
			if !strings.Contains(got.Content, "No matching sources") {
				t.Errorf("content %q", got.Content)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task stuck in %s", got.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// A task left running by a stopped gateway (its heartbeat stopped
	// long ago) is failed on the next start.
	if err := e.store.Create(context.Background(), "left-over", "q", "mini"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE web_research SET updated = 1 WHERE id = 'left-over'`); err != nil {
		t.Fatal(err)
	}
	e2 := testEngine(t, db)
	got, err := e2.ResearchTask(context.Background(), "left-over")
	if err != nil || got.Status != api.ResearchFailed || got.Content != "" {
		t.Errorf("left-over task: %v %+v", err, got)
	}
	if _, err := e2.ResearchTask(context.Background(), "nope"); err == nil {
		t.Error("unknown id accepted")
	}
}

func TestSubQuestions(t *testing.T) {
	got := subQuestions("How do crawlers read robots.txt? What do sitemap indexes contain; why use canonical URLs", 6)
	if len(got) != 4 || got[1] != "How do crawlers read robots.txt" {
		t.Errorf("%q", got)
	}
	if got := subQuestions("salt and pepper", 6); len(got) != 1 {
		t.Errorf("%q", got)
	}
	// A statement before a question is searched with it, in the input,
	// never alone; the question alone is searched when it can be.
	in := "I reset my zorb branch and lost some commits; how do I find out where the branch pointed before?"
	if got := subQuestions(in, 6); !slices.Equal(got, []string{in, "how do I find out where the branch pointed before"}) {
		t.Errorf("%q", got)
	}
	in = "I typed the wrong message on my last zorb commit; how do I fix it?"
	if got := subQuestions(in, 6); !slices.Equal(got, []string{in}) {
		t.Errorf("%q", got)
	}
	// Too short to search alone, a question is searched with its statement.
	in = "I use zorb 3; how do I tune it? What does the zorb daemon log?"
	if got := subQuestions(in, 6); !slices.Equal(got, []string{in, "I use zorb 3 how do I tune it", "What does the zorb daemon log"}) {
		t.Errorf("%q", got)
	}
}

func TestResearchReadsURLsInTheInput(t *testing.T) {
	site := newTestSite(t)
	e := testEngine(t, nil) // empty index
	out, err := e.Research(context.Background(), api.ResearchInput{Input: "What does " + site.URL + "/b say about sitemap indexes?", Model: "mini"})
	if err != nil || out.Status != api.ResearchCompleted {
		t.Fatalf("%v %+v", err, out)
	}
	if len(out.Sources) == 0 || out.Sources[0].URL != site.URL+"/b" || !strings.Contains(out.Content, "sitemap indexes group many sitemaps") {
		t.Errorf("named URL not used: %+v\n%s", out.Sources, out.Content)
	}
	if strings.Contains(out.Content, "index is empty") {
		t.Error("reported an empty index after reading the named URL")
	}
}

// A result that cannot be saved is an error, not a task stuck in progress.
func TestResearchSaveFailureIsAnError(t *testing.T) {
	db := testDB(t)
	e := testEngine(t, db)
	bs := blockingSearcher{release: make(chan struct{})}
	errc := make(chan error, 1)
	go func() {
		_, err := e.runResearch(context.Background(), api.ResearchInput{Input: "anything", Model: "mini"}, bs, false)
		errc <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var status string
		if err := db.QueryRow(`SELECT status FROM web_research`).Scan(&status); err == nil && status == api.ResearchInProgress {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("task never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := db.Exec(`DROP TABLE web_research`); err != nil {
		t.Fatal(err)
	}
	close(bs.release)
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "save the result") {
		t.Errorf("err = %v", err)
	}
}

// Research sentences come from prose only: never from a code block, and
// never a heading run into the sentence after it.
func TestResearchSentencesSkipCodeAndHeadings(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join(webTestdata, "extract/*.html"))
	more, _ := filepath.Glob(filepath.Join(corpusDir, "*/*.html"))
	files = append(files, more...)
	checked := 0
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var p page
		p.Title, p.Text, p.Markdown, err = web.ReadHTML("http://docs.example/"+filepath.Base(f), body)
		if err != nil {
			t.Fatal(err)
		}
		// What a sentence cut across a block boundary would hold: two
		// lines of a code block run together, or a heading run into the
		// words after it.
		var glued []string
		blocks := strings.Split(p.Markdown, "\n\n")
		for i, blk := range blocks {
			switch {
			case strings.HasPrefix(blk, "```"):
				lines := strings.Split(strings.Trim(blk, "`\n"), "\n")
				for j := 1; j+1 < len(lines); j++ {
					a, b := strings.TrimSpace(lines[j]), strings.TrimSpace(lines[j+1])
					if a != "" && b != "" {
						glued = append(glued, a+" "+b)
					}
				}
			case strings.HasPrefix(blk, "#") && i+1 < len(blocks):
				words := strings.Fields(score.Unmark(blocks[i+1]))
				if len(words) > 3 {
					glued = append(glued, strings.TrimSpace(strings.TrimLeft(score.Unmark(blk), "#"))+" "+strings.Join(words[:3], " "))
				}
			}
		}
		// Sentences as search's snippets read them (the text), and as
		// research reads them (the markdown's blocks).
		var all []string
		for _, s := range text.Sentences(p.Text) {
			if text.IsAnswerSentence(s, 5, 90) {
				all = append(all, s)
			}
		}
		for _, s := range readMarkdownDoc(p.Markdown, p.Title).Sents {
			if s.OK {
				all = append(all, text.Unmark(s.Text))
			}
		}
		for _, s := range all {
			checked++
			for _, g := range glued {
				if strings.Contains(s, g) {
					t.Errorf("%s: sentence %q runs across blocks (%q)", filepath.Base(f), s, g)
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d sentences checked", checked)
	}
}

func TestReportSections(t *testing.T) {
	for _, tc := range []struct {
		in       string
		titles   []string
		compared int
	}{
		{"Compare memcheck and helgrind", []string{"Memcheck", "Helgrind"}, 2},
		{"memcheck vs. helgrind", []string{"Memcheck", "Helgrind"}, 2},
		{"What is the difference between cachegrind and callgrind?", []string{"Cachegrind", "Callgrind"}, 2},
		{"compare memcheck, helgrind and drd", []string{"Memcheck", "Helgrind", "Drd"}, 3},
		{"How does a polite crawler treat robots.txt, and what do sitemap indexes do?",
			[]string{"How does a polite crawler treat robots.txt?", "What do sitemap indexes do?"}, 0},
		{"How do crawlers read robots.txt? Sitemap index files; canonical URLs",
			[]string{"How do crawlers read robots.txt?", "Sitemap index files", "Canonical URLs"}, 0},
		// Fragments of one question are not sections of their own.
		{"memory leaks, data races and deadlocks in threaded programs", []string{"Findings"}, 0},
		{"salt and pepper", []string{"Findings"}, 0},
		// Where both things are is no part of the second one's name.
		{"what is the difference between a struct and a union in libffi", []string{"Struct", "Union"}, 2},
		// "The difference between" joins its things with "and" alone; a
		// clause that says when is no part of the last thing's name.
		{"What is the difference between setting stdio to 'pipe' and setting it to 'inherit' when I spawn a zorb process?",
			[]string{"Setting stdio to 'pipe'", "Setting it to 'inherit'"}, 2},
		{"compare memcheck with helgrind", []string{"Memcheck", "Helgrind"}, 2},
		// A thing described at length is no heading: the question is
		// answered whole.
		{"What is the difference between calling zorb_prep_var with every argument marked as fixed and just calling zorb_prep?", []string{"Findings"}, 0},
		// A statement before the questions says what they are about, and
		// is no heading of its own.
		{"I'm encrypting data with AES in Zorb.js. Where do I get the zorb tag after encrypting, and how do I hand it back when decrypting?",
			[]string{"Where do I get the zorb tag after encrypting?", "How do I hand it back when decrypting?"}, 0},
		// So is one before a semicolon: "statement; question".
		{"I reset my zorb branch and lost some commits; how do I find out where the branch pointed before?", []string{"Findings"}, 0},
		{"My docstrings are written in Zorb style; how do I get Sphinx to understand them?", []string{"Findings"}, 0},
		{"I use zorb 3; how do I tune its cache? What does the zorb daemon log?",
			[]string{"How do I tune its cache?", "What does the zorb daemon log?"}, 0},
		// Topics asked nothing of stay topics.
		{"Sitemap index files; canonical URLs", []string{"Sitemap index files", "Canonical URLs"}, 0},
	} {
		secs, compared := reportSections(tc.in)
		var titles []string
		for _, s := range secs {
			titles = append(titles, s.title)
		}
		if !slices.Equal(titles, tc.titles) || len(compared) != tc.compared {
			t.Errorf("%q: sections %q, compared %q; want %q, %d compared", tc.in, titles, compared, tc.titles, tc.compared)
		}
	}
	// What the statement says is what each section's question asks about.
	secs, _ := reportSections("I'm encrypting data with AES in Zorb.js. Where do I get the zorb tag after encrypting, and how do I hand it back when decrypting?")
	for _, sec := range secs {
		if !strings.Contains(sec.query, "AES in Zorb.js") {
			t.Errorf("section %q asks %q, without the statement's words", sec.title, sec.query)
		}
	}
	// The statement before a semicolon is the next question's context.
	secs, _ = reportSections("I use zorb 3; how do I tune its cache? What does the zorb daemon log?")
	if len(secs) != 2 || !strings.Contains(secs[0].query, "zorb 3") || strings.Contains(secs[1].query, "zorb 3") {
		t.Errorf("sections %+v: the statement belongs to the first question's query alone", secs)
	}
	if ctx, rest := statedContext("How do I tune zorb? It is slow."); ctx != "" || rest != "How do I tune zorb? It is slow." {
		t.Errorf("a question first: context %q, rest %q", ctx, rest)
	}
}

// A section no sentence answers is left out rather than filled with
// sentences that merely share a word with it.
func TestResearchLeavesOutUnansweredSections(t *testing.T) {
	site := newTestSite(t)
	e := testEngine(t, nil)
	if _, err := e.Crawl(context.Background(), api.CrawlInput{URL: site.URL, MaxDepth: 2, MaxBreadth: 50, Limit: 50}); err != nil {
		t.Fatal(err)
	}
	out, err := e.Research(context.Background(), api.ResearchInput{Input: "How does a polite crawler treat robots.txt? Why do penguins of the polite crawler kind migrate in winter?", Model: "pro"})
	if err != nil {
		t.Fatal(err)
	}
	c := out.Content
	if !strings.Contains(c, "## How does a polite crawler treat robots.txt?") {
		t.Errorf("the answered question has no section:\n%s", c)
	}
	if strings.Contains(c, "## Why do penguins") {
		t.Errorf("a section with nothing that answers it:\n%s", c)
	}
}

func TestSpelledAsSources(t *testing.T) {
	texts := []string{"DRD is a thread error detector.", "Use drd with --tool=drd.", "DRD and Helgrind differ.", "The DRD manual."}
	if got := spelledAsSources("drd", texts); got != "DRD" {
		t.Errorf("drd → %q, want DRD", got)
	}
	if got := spelledAsSources("okapi", texts); got != "Okapi" {
		t.Errorf("a name no source has → %q", got)
	}
	if got := sectionNumber().ReplaceAllString("4. Helgrind is a thread error detector.", ""); got != "Helgrind is a thread error detector." {
		t.Errorf("section number left: %q", got)
	}
}

// A report quotes sentences that stand alone: not the page's title (its
// text opens with it), and a sentence that points back at text the report
// does not quote ("As mentioned earlier, …") only after one that does not.
func TestResearchSentencesStandAlone(t *testing.T) {
	e := testEngine(t, nil)
	seed(t, e, &page{URL: "https://v8.example/blog/standalone-wasm", Title: "Standalone WebAssembly binaries run outside the web · V8",
		Text: "Standalone WebAssembly binaries run outside the web!\n\n" +
			"As mentioned earlier, standalone WebAssembly binaries run outside the web.\n\n" +
			"In WASI runtimes such as wasmtime, standalone WebAssembly binaries can run outside the web and with no JavaScript at all.\n\n" +
			"The weather was mild that week, and the team went walking by the river after work."})
	out, err := e.Research(context.Background(), api.ResearchInput{Input: "How do standalone WebAssembly binaries run outside the web?", Model: "mini"})
	if err != nil {
		t.Fatal(err)
	}
	c := out.Content
	if strings.Contains(c, "Standalone WebAssembly binaries run outside the web! [") {
		t.Errorf("the page's title is quoted as a finding:\n%s", c)
	}
	standalone := strings.Index(c, "such as wasmtime")
	leaning := strings.Index(c, "As mentioned earlier")
	if standalone < 0 || leaning >= 0 && leaning < standalone {
		t.Errorf("the sentence that stands alone should come first:\n%s", c)
	}
}

// Research reads sentences in their place on the page: the heading above
// a sentence says what it is about, a section's opening sentence under a
// heading naming the question's subject defines it, a sentence that
// introduces a command is quoted with it, and a question the page asks is
// never an answer.
func TestResearchReadsSentencesInTheirPlace(t *testing.T) {
	e := testEngine(t, nil)
	seed(t, e,
		&page{URL: "https://ffi.example/closure-api", Title: "The Closure API (libffi manual)",
			Text: "2.5 The Closure API\n\nlibffi also provides a way to write a generic function – a function that can accept and decode any combination of arguments. " +
				"This can be useful when writing an interpreter, or to provide wrappers for arbitrary functions.\n\n" +
				"Closures are not supported on all platforms; you can check the FFI_CLOSURES define to determine whether they are supported."},
		&page{URL: "https://ffi.example/memory", Title: "Memory Usage (libffi manual)",
			Text: "Memory Usage\n\nTo accommodate security settings, libffi may acquire memory by mapping temporary files into multiple places in the address space (once to write out the closure, a second to execute it)."},
		&page{URL: "https://vg.example/core", Title: "Using and understanding the Valgrind core",
			Text: "2.5. Suppressing errors\n\nThe error-checking tools detect numerous problems in the system libraries. " +
				"So Valgrind reads a list of errors to suppress at startup. You can write your own suppression files for the rest.\n\n" +
				"Or maybe just eagerly report any copies of uninitialised values and errors?\n\n" +
				"2.6. Selecting the tool\n\nSelect the tool that you would like Valgrind to run on your program before anything else\n\n" +
				"The default tool is Memcheck, which you can name explicitly on the command line\n\n" +
				"    valgrind --tool=memcheck ls -l\n\nOther tools are named the same way."},
		&page{URL: "https://vg.example/memcheck", Title: "Memcheck: a memory error detector",
			Text: "Memcheck: a memory error detector\n\nMemcheck is a memory error detector for C and C++ programs. Memcheck issues a range of error messages about memory."},
		&page{URL: "https://vg.example/drd", Title: "DRD: a thread error detector",
			Text: "Data races\n\nDRD prints a message every time it detects a data race in a program. " +
				"A data race happens, or could happen, when two threads access a shared memory location without using suitable locks. " +
				"There are always at least two memory accesses involved in a data race."},
		&page{URL: "https://vg.example/helgrind", Title: "Helgrind: a thread error detector",
			Text: "Helgrind\n\nA data race happens, or could happen, when two threads access a shared memory location without using suitable locks. " +
				"Helgrind detects data races in programs that use the POSIX pthreads threading primitives."},
	)
	research := func(q string) string {
		t.Helper()
		out, err := e.Research(context.Background(), api.ResearchInput{Input: q, Model: "mini"})
		if err != nil {
			t.Fatal(err)
		}
		return out.Content
	}
	summary := func(c string) string {
		_, s, _ := strings.Cut(c, "## Summary\n\n")
		s, _, _ = strings.Cut(s, "\n## ")
		return s
	}

	c := research("what is a closure in libffi")
	if !strings.HasPrefix(summary(c), "libffi also provides a way to write a generic function") {
		t.Errorf("the opening of the section on closures should open the summary:\n%s", c)
	}

	// The section headed by the question opens the summary, quoted from
	// its opening in page order.
	c = research("how do I suppress errors in valgrind memcheck")
	if !strings.HasPrefix(summary(c), "The error-checking tools detect numerous problems in the system libraries. So Valgrind reads a list of errors to suppress at startup.") {
		t.Errorf("the section 'Suppressing errors' should open the summary, not what Memcheck is:\n%s", c)
	}
	if strings.Contains(c, "eagerly report") {
		t.Errorf("a question the page asks is quoted as an answer:\n%s", c)
	}

	c = research("how do I select the tool in valgrind")
	if !strings.Contains(c, "which you can name explicitly on the command line: [") || !strings.Contains(c, "```\nvalgrind --tool=memcheck ls -l\n```") &&
		!strings.Contains(c, "  ```\n  valgrind --tool=memcheck ls -l\n  ```") {
		t.Errorf("the sentence that introduces the command should come with it:\n%s", c)
	}
	if strings.Contains(c, "Select the tool that you would like") {
		t.Errorf("a line with no full stop and no code after it is quoted:\n%s", c)
	}

	c = research("what is a data race")
	if !strings.HasPrefix(summary(c), "A data race happens, or could happen") {
		t.Errorf("the definition should open the summary:\n%s", c)
	}
	if n := strings.Count(c, "A data race happens"); n != 1 {
		t.Errorf("the definition, on two pages, is quoted %d times:\n%s", n, c)
	}
}

// Page text is quoted as the page wrote it: text the index holds as
// plain text (or escaped in its markdown) is never read as markdown in
// the report, while inline code stays code and a command stays fenced.
func TestResearchQuotesTextNotMarkup(t *testing.T) {
	e := testEngine(t, nil)
	// A page read through the extractor (markdown kept) and one indexed
	// before the index kept markdown (text only).
	p := &page{URL: "https://burrow.example/guide", Title: "Burrow guide",
		Text: "Burrow tunnels\n\nThe burrow entry point is __burrow_main__ and the map marks [depth](tunnel) for every burrow tunnel. " +
			"Each burrow tunnel keeps *one* rabbit and <b>two</b> doors.\n\nStart a burrow tunnel with the command:\n\n    burrow dig --depth=3"}
	p.Markdown = "# Burrow tunnels\n\nThe burrow entry point is `__burrow_main__` and the map marks \\[depth\\](tunnel) for every burrow tunnel. " +
		"Each burrow tunnel keeps \\*one\\* rabbit and \\<b>two\\</b> doors.\n\nStart a burrow tunnel with the command:\n\n```\nburrow dig --depth=3\n```"
	seed(t, e, p, &page{URL: "https://burrow.example/old", Title: "Old burrow notes",
		Text: "Old burrow notes\n\nAn old burrow tunnel uses __old_main__ and [exit](hole) markers, with char *p and *q pointers in every burrow tunnel."})
	out, err := e.Research(context.Background(), api.ResearchInput{Input: "how do I dig a burrow tunnel?", Model: "mini"})
	if err != nil {
		t.Fatal(err)
	}
	c := out.Content
	checkNoMarkup(t, c)
	if !strings.Contains(c, "1. [Burrow guide](https://burrow.example/guide)") {
		t.Errorf("source titles are link text as written:\n%s", c)
	}
	for _, want := range []string{"`__burrow_main__`", `\[depth\](tunnel)`, `\*one\*`, `\<b>two\</b>`, "with the command: [1]\n\n```\nburrow dig --depth=3\n```", `\_\_old_main\_\_`, `\[exit\](hole)`, `char \*p and \*q`} {
		if !strings.Contains(c, want) {
			t.Errorf("report lacks %q:\n%s", want, c)
		}
	}
	// And read back as markdown, it says what the pages say.
	var html strings.Builder
	if err := text.Markdown().Convert([]byte(c), &html); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<code>__burrow_main__</code>", "[depth](tunnel)", "*one*", "&lt;b&gt;two&lt;/b&gt;", "__old_main__", "[exit](hole)", "char *p and *q", "<pre><code>burrow dig --depth=3\n</code></pre>"} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("rendered report lacks %q:\n%s", want, html.String())
		}
	}
}

// Research reads a page's markdown as a researcher does: a term heads
// the description after it, a list continues the sentence that
// introduces it, "This means …" leans on the sentence before, a table
// of contents is no prose, and a command belongs to the sentence that
// introduces it.
func TestReadMarkdownDoc(t *testing.T) {
	d := readMarkdownDoc("# Tool manual\n\n[1. Options](#o)\n\n## Suppressions\n\n"+
		"The Memcheck suppression types are as follows:\n\n- `Leak`, meaning a memory leak.\n- `Free`, meaning an invalid free.\n\n"+
		"Every block is reached by a pointer. This means the block can be freed.\n\nRun the tool like this:\n\n```\ntool --check prog\n```\n\n"+
		"## Options\n\n**`--suppressions=<filename>`**\n\nSpecifies an extra file to read. You may use up to 100 files.\n", "Tool manual")
	byText := map[string]doc.Sentence{}
	for _, s := range d.Sents {
		byText[text.Unmark(s.Text)] = s
	}
	toc := byText["1. Options"]
	if toc.OK {
		t.Error("a table of contents entry reads as a sentence")
	}
	desc := byText["Specifies an extra file to read."]
	if blk := d.Blocks[desc.Block]; blk.Term != "\x01--suppressions=<filename>\x02" || !d.Passages[desc.Passage].Term {
		t.Errorf("the description does not know its term: %+v", blk)
	}
	leak := byText["Leak, meaning a memory leak."]
	if blk := d.Blocks[leak.Block]; blk.LeadIn < 0 || !blk.NeedsLd || text.Unmark(d.Sents[blk.LeadIn].Text) != "The Memcheck suppression types are as follows:" {
		t.Errorf("the item does not know the sentence it continues: %+v", blk)
	}
	if s := byText["This means the block can be freed."]; s.Dep < 0 || text.Unmark(d.Sents[s.Dep].Text) != "Every block is reached by a pointer." {
		t.Errorf("'This means' leans on nothing: %+v", s)
	}
	if s := byText["Run the tool like this:"]; s.Code != "tool --check prog" || !s.OK {
		t.Errorf("the command is not the sentence's: %+v", s)
	}
	// An article's lead set in bold is prose, not a term that the
	// paragraphs after it describe.
	lead := readMarkdownDoc("**So you test your code? Good. Coverage helps.**\n\nBlanket.js is a coverage library.\n", "Coverage")
	for _, s := range lead.Sents {
		if blk := lead.Blocks[s.Block]; blk.Term != "" || lead.Passages[s.Passage].Term {
			t.Errorf("%q reads as described by a term %q", s.Text, blk.Term)
		}
	}
	// Quoted, the description comes with its term and the items with
	// their lead-in.
	c := newCorpus([]*rdoc{d})
	q, ok := c.quoteAt(0, slices.IndexFunc(d.Sents, func(s doc.Sentence) bool { return text.Unmark(s.Text) == "Leak, meaning a memory leak." }), ask{}, newUsedSet())
	if !ok || c.text(q) != "The Memcheck suppression types are as follows:" || len(q.items) != 2 || c.text(q.items[0]) != "`Leak`, meaning a memory leak." {
		t.Errorf("list quote: %v %q %+v", ok, c.text(q), q)
	}
	q, ok = c.quoteAt(0, slices.IndexFunc(d.Sents, func(s doc.Sentence) bool { return text.Unmark(s.Text) == "You may use up to 100 files." }), ask{}, newUsedSet())
	if !ok || c.text(q) != "`--suppressions=<filename>`: Specifies an extra file to read. You may use up to 100 files." {
		t.Errorf("description quote: %v %q", ok, c.text(q))
	}
}

// Several processes share the database (the TUI, hark index, a second
// hark): an engine opening beside a live task leaves it running, and only
// a task whose process stopped beating is failed, when an engine opens or
// when the task is read.
func TestInterruptedResearchIsOnlyTheStaleTask(t *testing.T) {
	db := testDB(t)
	first := testEngine(t, db)
	now := time.Now().Unix()
	for id, updated := range map[string]int64{"live": now, "stale": now - int64(tasks.Stale/time.Second) - 5, "read-later": now} {
		if _, err := db.Exec(`INSERT INTO web_research(id, input, model, status, created, updated) VALUES (?, 'q', 'mini', ?, ?, ?)`,
			id, api.ResearchInProgress, updated, updated); err != nil {
			t.Fatal(err)
		}
	}
	testEngine(t, db) // a second process opens the same database
	status := func(id string) string {
		t.Helper()
		out, err := first.ResearchTask(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return out.Status
	}
	if s := status("live"); s != api.ResearchInProgress {
		t.Errorf("a task that is still beating was marked %s by another engine opening", s)
	}
	if s := status("stale"); s != api.ResearchFailed {
		t.Errorf("a task whose process stopped is %s, want failed", s)
	}
	// The process running "read-later" stops; once its row is stale a
	// read reports it failed, with no engine opening in between.
	if _, err := db.Exec(`UPDATE web_research SET updated = ? WHERE id = 'read-later'`, now-int64(tasks.Stale/time.Second)-1); err != nil {
		t.Fatal(err)
	}
	out, err := first.ResearchTask(context.Background(), "read-later")
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != api.ResearchFailed || !strings.Contains(string(out.Extra["error"]), "interrupted") {
		t.Errorf("a stale task read: %+v", out)
	}
}

// Issue 23's word forms: "how do I tune zorblax?" quotes the page that
// says "The zorblax engine is tuned by …", as search finds it; and a
// page that names the topic but holds no answering sentence is still
// listed, with the words research looked for.
func TestResearchMeetsWordFormsAndListsWhatItFound(t *testing.T) {
	e := testEngine(t, nil)
	seed(t, e, &page{URL: "https://z.example/tuning", Title: "Zorblax tuning",
		Text: "Zorblax tuning\n\nThe zorblax engine is tuned by setting the flux ratio in its control file."})
	out, err := e.Research(context.Background(), api.ResearchInput{Input: "how do I tune zorblax?", Model: "mini"})
	if err != nil || !strings.Contains(out.Content, "The zorblax engine is tuned by setting the flux ratio") {
		t.Fatalf("word forms: %v\n%s", err, out.Content)
	}

	e = testEngine(t, nil)
	seed(t, e, &page{URL: "https://z.example/index", Title: "Zorblax tuning",
		Text: "Zorblax tuning\n\n- zorblax\n- tuning knobs\n- flux"})
	out, err = e.Research(context.Background(), api.ResearchInput{Input: "how do I tune zorblax?", Model: "mini"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Content, "research looked for sentences that hold the words “tune” and “zorblax”") ||
		!strings.Contains(out.Content, "The sources below mention the topic.") ||
		len(out.Sources) != 1 || out.Sources[0].URL != "https://z.example/index" {
		t.Errorf("no answer: %+v\n%s", out.Sources, out.Content)
	}

	// A page that shares one word of four is found, and is not the
	// topic: the report says it lists nothing rather than point at an
	// empty list.
	out, err = e.Research(context.Background(), api.ResearchInput{Input: "how do I calibrate the quantum flux capacitor?", Model: "mini"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Sources) != 0 || strings.Contains(out.Content, "sources below") ||
		!strings.Contains(out.Content, "None of the pages read (1) holds enough of those words to be listed.") ||
		!strings.Contains(out.Content, "## Sources\n\nNone.") {
		t.Errorf("nothing to list: %+v\n%s", out.Sources, out.Content)
	}
}

// Rules found on the tuning questions, on pages of their own. A compare
// of two API entries worded alike quotes each under a heading spelled as
// the code is ("Returns the total amount …" is no near-copy of "Returns
// the amount of free …": they describe different calls), past an
// entry's "Added in:" line; "how many" takes the sentence with the
// number even when it points at a table.
func TestResearchAPIEntriesAndCounts(t *testing.T) {
	e := testEngine(t, nil)
	md := "# ZB\n\n## `zb.freeflux()`\n\nAdded in: v1.0\n\nReturns the amount of free flux in the engine as an integer.\n\n" +
		"## `zb.totalflux()`\n\nAdded in: v1.0\n\nReturns the total amount of flux in the engine as an integer.\n\n" +
		"## `zb.ratio()`\n\nAdded in: v1.2\n\nReturns the flux ratio the engine was tuned to, as a number.\n"
	seed(t, e, &page{URL: "https://z.example/zb", Title: "ZB", Markdown: md, Text: score.Unmark(md)})
	out, err := e.Research(context.Background(), api.ResearchInput{Input: "What is the difference between zb.freeflux() and zb.totalflux()?", Model: "mini"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## `zb.freeflux()`", "## `zb.totalflux()`",
		"Returns the amount of free flux in the engine as an integer.", "Returns the total amount of flux in the engine as an integer."} {
		if !strings.Contains(out.Content, want) {
			t.Errorf("the compare lacks %q:\n%s", want, out.Content)
		}
	}

	e = testEngine(t, nil)
	seed(t, e, &page{URL: "https://z.example/knobs", Title: "Zorblax knobs",
		Text: "Zorblax knobs\n\nEach knob of the zorblax engine sets one flux ratio of the engine. The zorblax engine has 12 knobs, which are listed in the table below."})
	out, err = e.Research(context.Background(), api.ResearchInput{Input: "How many knobs does the zorblax engine have?", Model: "mini"})
	if err != nil || !strings.Contains(out.Content, "The zorblax engine has 12 knobs") {
		t.Errorf("how many: %v\n%s", err, out.Content)
	}

	// "From a C program": the summary shows the library's call, not the
	// command line (which its heading matches better).
	e = testEngine(t, nil)
	md = "# Zorblax\n\n## Tuning the zorblax engine\n\nTo tune the zorblax engine for a program, run the tuner on its control file:\n\n```\nzb-tune -f engine.conf\n```\n\n" +
		"## Library\n\nA program tunes the zorblax engine by calling zb_tune_engine() on it:\n\n```\nzb_tune_engine(engine, 0.5);\n```\n"
	seed(t, e, &page{URL: "https://z.example/zorblax", Title: "Zorblax", Markdown: md, Text: score.Unmark(md)})
	out, err = e.Research(context.Background(), api.ResearchInput{Input: "How do I tune the zorblax engine from a C program?", Model: "mini"})
	if err != nil {
		t.Fatal(err)
	}
	sum, _, _ := strings.Cut(out.Content, "\n## Findings")
	if !strings.Contains(sum, "zb_tune_engine(engine, 0.5);") {
		t.Errorf("from C: the summary does not show the call:\n%s", out.Content)
	}
	// A summary that ends with its code is followed by one blank line,
	// as one that ends with a sentence is.
	if !strings.Contains(out.Content, "```\n\n## ") || strings.Contains(out.Content, "\n\n\n## ") {
		t.Errorf("the sections are not one blank line apart:\n%q", out.Content)
	}
}

// What a question is about is the term of it that the fewest sources
// read hold: "complex" of "how do I pass complex numbers to a function
// with libffi", when every source holds "function" and "libffi". A
// sentence with the common words only ranks below one with the focus.
func TestFocusIsWhatFewSourcesHold(t *testing.T) {
	docs := []*rdoc{
		readMarkdownDoc("# Passing a number of arguments to a function\n\nYou must know the number and types of arguments to pass to the function you call with libffi.\n", "The Basics"),
		readMarkdownDoc("# Types\n\nTo pass a complex value, libffi takes the type descriptor ffi_type_complex_double.\n", "Types"),
		readMarkdownDoc("# Closures\n\nA closure lets libffi pass a function pointer and a number of arguments to your code.\n", "Closures"),
	}
	c := newCorpus(docs)
	a := newAsk("How do I pass complex numbers to a function with libffi?", nil, false)
	if got := c.focus(a.terms, a.action); !slices.Equal(got, []string{"complex"}) {
		t.Fatalf("focus %v, want [complex]", got)
	}
	sc := c.scores(a)
	if sc[c.sBase[1]] <= sc[c.sBase[0]] || sc[c.sBase[1]] <= sc[c.sBase[2]] {
		t.Errorf("the sentence on complex numbers scores %.3f, the others %.3f and %.3f", sc[c.sBase[1]], sc[c.sBase[0]], sc[c.sBase[2]])
	}
	if got := c.focus(newAsk("libffi function", nil, false).terms, ""); got != nil {
		t.Errorf("a question of two terms has focus %v; its terms are all needed already", got)
	}
}

// An API entry is read as its name says and from where it says what it
// does: "zb.appendFile()" is about appending to a file (the index reads
// "appendFile" as one word), and its paragraph, after the list of its
// parameters, is where it opens. Entries that share the question's
// plainer words rank below it.
func TestResearchAPIEntryByItsName(t *testing.T) {
	md := "# ZB files\n\n## `zb.appendFile(path, data)`\n\n" +
		"- `path` <string> The file to write to, a path as text.\n- `data` <string> The text to write at the end of the file.\n\n" +
		"Asynchronously append data to a file, creating the file if it does not yet exist.\n\n" +
		"## `zb.readText(path)`\n\n- `path` <string> The file to read.\n\nReads the text of a file as UTF-8 text and returns it as a string of text.\n\n" +
		"## `zb.textFiles(dir)`\n\nLists the text files of a folder: each file whose text is UTF-8 text is a text file.\n"
	d := readMarkdownDoc(md, "ZB files")
	for pi, p := range d.Passages {
		if p.Heading == "zb.appendFile(path, data)" {
			if l := d.lead(pi); l < 0 || !strings.HasPrefix(d.Sents[l].Text, "Asynchronously append") {
				t.Errorf("appendFile's entry opens at %d, not at its paragraph", l)
			}
			if !slices.Contains(p.Own, "append") {
				t.Errorf("appendFile's heading is not read as %q: %q", "append", p.Own)
			}
		}
	}
	list := readMarkdownDoc("# Files\n\n## Flags\n\n- The flag a opens the file for appending, and creates it when it does not exist.\n- The flag r opens the file for reading, and fails when it does not exist.\n", "Flags")
	for pi, p := range list.Passages {
		if p.Heading == "Flags" {
			if l := list.lead(pi); l < 0 || !strings.Contains(list.Sents[l].Text, "appending") {
				t.Errorf("a passage of items alone opens at %d, not at its first item", l)
			}
		}
	}

	e := testEngine(t, nil)
	seed(t, e, &page{URL: "https://z.example/files", Title: "ZB files", Markdown: md, Text: score.Unmark(md)})
	out, err := e.Research(context.Background(), api.ResearchInput{Input: "How do I append text to a file with zb?", Model: "mini"})
	if err != nil {
		t.Fatal(err)
	}
	sum, _, _ := strings.Cut(out.Content, "\n## Findings")
	if !strings.Contains(sum, "Asynchronously append data to a file") {
		t.Errorf("the summary does not open on zb.appendFile():\n%s", out.Content)
	}
}

// A term's description may open on fewer words than a sentence of its
// own needs, as texinfo manuals write a function's ("Prepare a closure
// function." under ffi_prep_closure_loc): the term is its subject, and
// the opening is what a how-to question about it is answered by. Prose
// that short is still no quote.
func TestShortDescriptionOpensItsTerm(t *testing.T) {
	md := "# The Engine API\n\nEngines are made, then run.\n\n**Function: zb_status zb_prep_engine (zb_engine \\*engine, int flags)**\n\n" +
		"Prepare an engine. The arguments to `zb_prep_engine` are the engine and its flags.\n\n" +
		"**Function: void zb_engine_free (zb_engine \\*engine)**\n\nFree an engine that has run.\n\nRun it now.\n"
	d := readMarkdownDoc(md, "The Engine API")
	if s := d.Sents[sentAt(t, d, "Prepare an engine.")]; !s.OK {
		t.Errorf("a term's three-word opening cannot be quoted")
	}
	if s := d.Sents[sentAt(t, d, "Run it now.")]; s.OK {
		t.Errorf("a three-word sentence of prose can be quoted")
	}
	got := newCorpus([]*rdoc{d}).pick(newAsk("How do I prepare an engine with zb?", nil, false), 1, newUsedSet(), pickOptions{noLists: true})
	if len(got) != 1 || !strings.HasPrefix(d.Sents[got[0].sents[0]].Text, "Prepare an engine.") || !strings.Contains(got[0].label, "zb_prep_engine") {
		t.Errorf("the best answer is not zb_prep_engine's opening: %+v", got)
	}
}

// A section's quotes come from more than one source when more than one
// answers: the best page gives at most sectionPerSource of them while
// another has one to give, and all of them when none has.
func TestSectionQuotesSpanSources(t *testing.T) {
	var md strings.Builder
	md.WriteString("# Zorblax tuning\n\n")
	for _, s := range []string{
		"To tune the zorblax engine, set its flux ratio with the flux knob before the first run.",
		"Tune the zorblax engine's valves in pairs, the inlet valve first and the outlet valve after it.",
		"The dial on the front panel tunes the zorblax engine's idle speed from 200 to 900 turns.",
		"Gears are tuned last: a zorblax engine with worn gears cannot be tuned to its rated speed.",
		"Each lever tunes one cylinder of the zorblax engine, numbered from the left as seen from the seat.",
		"A zorblax engine tuned in winter needs its springs tuned again when the weather warms up.",
		"The tuner's log records every change made while tuning the zorblax engine, with the date of each.",
	} {
		fmt.Fprintf(&md, "## %s\n\n%s\n\n", strings.Fields(s)[1], s)
	}
	other := "# Field notes\n\n## Tuning by ear\n\nA zorblax engine can also be tuned by ear, listening for its hum.\n"
	docs := []*rdoc{readMarkdownDoc(md.String(), "Zorblax tuning"), readMarkdownDoc(other, "Field notes")}
	setPriors(docs)
	a := newAsk("how do I tune the zorblax engine?", nil, false)
	from := func(qs []quote) (n [2]int) {
		for _, q := range qs {
			n[q.doc]++
		}
		return n
	}
	if n := from(newCorpus(docs).pick(a, 6, newUsedSet(), pickOptions{perPassage: 2})); n[1] != 0 {
		t.Fatalf("without a limit the second page already gives a quote (%v): the test shows nothing", n)
	}
	if n := from(newCorpus(docs).pick(a, 6, newUsedSet(), pickOptions{perPassage: 2, perSource: sectionPerSource})); n != [2]int{5, 1} {
		// The second page's one quote comes in before the first page's
		// fifth, which fills the sixth place when the second has no more.
		t.Errorf("quotes per source = %v, want 5 from the first page and 1 from the second", n)
	}
	if n := from(newCorpus(docs[:1]).pick(a, 6, newUsedSet(), pickOptions{perPassage: 2, perSource: sectionPerSource})); n[0] != 6 {
		t.Errorf("one source alone gives %d quotes, want 6", n[0])
	}
	// An article of one long section gives a section all it asks for:
	// two quotes a passage while other passages answer, then more.
	var one strings.Builder
	one.WriteString("# Zorblax tuning\n\nTuning the zorblax engine, from a mechanic's notes.\n\n")
	for _, l := range strings.Split(md.String(), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			one.WriteString(l + "\n\n")
		}
	}
	article := readMarkdownDoc(one.String(), "Zorblax tuning")
	quoted := 0
	for _, q := range newCorpus([]*rdoc{article}).pick(a, 6, newUsedSet(), pickOptions{perPassage: 2, perSource: sectionPerSource}) {
		quoted += len(q.all())
	}
	if quoted < 7 {
		t.Errorf("an article of one section gives %d of its 7 sentences on tuning", quoted)
	}
}

// A how-to question's answer ranks higher when it leads into an example
// that shows how, with the question's words in its code, than the same
// sentence would without it.
func TestHowToPrefersTheExample(t *testing.T) {
	d := readMarkdownDoc("# Digests\n\n## Digests\n\nComputing the SHA-256 hash of some data in a program:\n\n"+
		"```\nconst input = readFile(process.argv[2]);\nconst h = crypto.digest('sha256');\nfor (const chunk of input) {\n  h.update(chunk);\n}\nconsole.log(h.hex());\n```\n", "Digests")
	page := *d.Page
	bare := rdoc{Page: &page}
	bare.Sents = slices.Clone(d.Sents)
	i := slices.IndexFunc(bare.Sents, func(s doc.Sentence) bool { return s.Code != "" })
	if i < 0 {
		t.Fatal("the example is not the sentence's")
	}
	bare.Sents[i].Code = ""
	how := newAsk("How do I compute a SHA-256 hash of some data?", nil, false)
	with, without := newCorpus([]*rdoc{d}).scores(how), newCorpus([]*rdoc{&bare}).scores(how)
	if with[i] <= without[i] {
		t.Errorf("the sentence that shows how scores %.3f, as it does without its example (%.3f)", with[i], without[i])
	}
}

// What a question sets aside ("besides Helgrind") is not what it asks
// about: its words are no answer terms, and a sentence about it ranks
// below one that answers as well about something else.
func TestSetAsideIsNotAsked(t *testing.T) {
	q := "Which valgrind tool finds data races besides Helgrind?"
	if got := excluded(q); !slices.Equal(got, []string{"helgrind"}) {
		t.Errorf("excluded = %q", got)
	}
	if slices.Contains(answerTerms(q), "helgrind") {
		t.Errorf("answer terms %q hold what the question sets aside", answerTerms(q))
	}
	if got := excluded("How do I list every voice except for the MBROLA ones, in espeak-ng?"); !slices.Contains(got, "mbrola") || slices.Contains(got, "espeak") {
		t.Errorf("excluded = %q", got)
	}
	d := readMarkdownDoc("# Thread checkers\n\n## Helgrind\n\nHelgrind is a Valgrind tool that finds data races in threaded programs.\n\n"+
		"## DRD\n\nDRD is a Valgrind tool that finds data races in threaded programs.\n", "Thread checkers")
	got := newCorpus([]*rdoc{d}).pick(newAsk(q, nil, false), 1, newUsedSet(), pickOptions{noLists: true})
	if len(got) != 1 || !strings.HasPrefix(d.Sents[got[0].sents[0]].Text, "DRD") {
		t.Errorf("the best answer is not about DRD: %+v", got)
	}
	// On its own page, a sentence that names what was set aside counts
	// for less again: Helgrind's manual says how Helgrind finds races,
	// which is what the question does not ask.
	hg := "# %s\n\n## Detected errors: data races\n\nOnce you understand the happens-before relation, it is easy to see how Helgrind finds races in your code.\n"
	own := readMarkdownDoc(fmt.Sprintf(hg, "Helgrind: a thread error detector"), "Helgrind: a thread error detector")
	shared := readMarkdownDoc(fmt.Sprintf(hg, "Thread error detectors"), "Thread error detectors")
	a := newAsk(q, nil, false)
	onOwn, onShared := newCorpus([]*rdoc{own}).scores(a)[0], newCorpus([]*rdoc{shared}).scores(a)[0]
	if onShared == 0 || onOwn > onShared*0.6 {
		t.Errorf("the set-aside thing's sentence scores %.3f on its own page and %.3f on a shared one", onOwn, onShared)
	}
}

// A passage that opens on what a how-to question asks, and whose next
// sentence leads into the example, is quoted with that sentence and the
// example under it (Readline's
// "A common use case for readline is to consume an input file one line
// at a time. The easiest way to do so is …:" and its loop).
func TestHowToOpeningTakesItsExample(t *testing.T) {
	var code strings.Builder
	code.WriteString("const rl = readline.open(file);\n")
	for i := 0; i < text.MaxQuotedCode+2; i++ {
		fmt.Fprintf(&code, "// step %d of reading each line of the file\n", i)
	}
	code.WriteString("for await (const line of rl) {\n  console.log(line);\n}\n")
	md := "# Readline\n\n## Reading a file line by line\n\nA common use case is to consume an input file one line at a time. " +
		"The easiest way to do so is a loop over the interface:\n\n```\n" + code.String() + "```\n"
	d := readMarkdownDoc(md, "Readline")
	how := newAsk("How do I read a file line by line?", nil, false)
	c := newCorpus([]*rdoc{d})
	first := slices.IndexFunc(d.Sents, func(s doc.Sentence) bool { return strings.HasPrefix(s.Text, "A common use case") })
	q, ok := c.quoteAt(0, first, how, newUsedSet())
	if !ok || len(q.sents) != 2 || !strings.Contains(q.code, "for await (const line of rl)") {
		t.Fatalf("the opening is not quoted with the sentence that leads into the example and the example: %v %q %q", ok, c.text(q), q.code)
	}
}

// A compared thing's section holds what the question asks of each
// ("measure"), not every sentence that names the thing: a list of the
// zorblax's suppression kinds is not what it measures.
func TestCompareSectionsHoldWhatIsAsked(t *testing.T) {
	e := testEngine(t, nil)
	zmd := "# Zorblax\n\nZorblax is a flux meter for engines. It measures the flux of an engine while it runs.\n\n" +
		"## Suppressions\n\nThe zorblax suppression kinds are as follows:\n\n- `Flux1`, meaning a zorblax flux error of one unit.\n- `Flux2`, meaning a zorblax flux error of two units.\n- `Leak`, meaning a zorblax leak.\n\n" +
		"## Options\n\nThe zorblax tool reads its options from a file named zorblax.conf in the working folder.\n"
	qmd := "# Quibble\n\nQuibble is a gear counter for engines. It measures the wear of each gear in turns.\n\n" +
		"## Output\n\nThe quibble tool prints its report to a file named quibble.out when the engine stops.\n"
	seed(t, e, &page{URL: "https://z.example/zorblax", Title: "Zorblax", Markdown: zmd, Text: score.Unmark(zmd)})
	seed(t, e, &page{URL: "https://z.example/quibble", Title: "Quibble", Markdown: qmd, Text: score.Unmark(qmd)})
	out, err := e.Research(context.Background(), api.ResearchInput{Input: "compare zorblax and quibble: what does each measure?", Model: "mini"})
	if err != nil {
		t.Fatal(err)
	}
	for _, unwanted := range []string{"suppression kinds", "zorblax.conf", "quibble.out"} {
		if strings.Contains(out.Content, unwanted) {
			t.Errorf("the compare quotes %q, which says nothing of what each measures:\n%s", unwanted, out.Content)
		}
	}
	if !strings.Contains(out.Content, "It measures the flux of an engine") || !strings.Contains(out.Content, "It measures the wear of each gear") {
		t.Errorf("the compare lacks what each measures:\n%s", out.Content)
	}
}

// A word no source holds is read as the sources spell it, one letter
// apart: a manual's "wisper" answers a question's "whisper".
func TestMisspeltWordStillAnswers(t *testing.T) {
	md := "# Voice files\n\n## breath\n\nAdds noise which corresponds to the formant frequency peaks of the voice.\n\n" +
		"Use together with a low voicing value to make a wisper sound from the zorblax voice.\n\n" +
		"## flutter\n\nAdds pitch fluctuations to make the zorblax voice sound older.\n"
	c := newCorpus([]*rdoc{readMarkdownDoc(md, "Voice files")})
	a := c.respell(newAsk("Which setting makes the zorblax voice sound like a whisper?", nil, false))
	if !slices.Contains(a.terms, "wisper") {
		t.Fatalf("terms %q: whisper is not read as wisper", a.terms)
	}
	got := c.pick(a, 1, newUsedSet(), pickOptions{noLists: true})
	if len(got) != 1 || !strings.Contains(c.docs[0].Sents[got[0].sents[0]].Text, "wisper") {
		t.Errorf("the best answer is not the wisper sentence: %+v", got)
	}
	// A word the sources hold stays as asked.
	if b := c.respell(newAsk("How do I add noise to the voice?", nil, false)); !slices.Equal(b.terms, newAsk("How do I add noise to the voice?", nil, false).terms) {
		t.Errorf("terms held by the sources were respelled: %q", b.terms)
	}
}

// A name in camel case that no source writes whole is read by the words
// inside it that they do: "AddressSanitizer" asked, "the gcc or clang
// sanitizer" written. A name the sources write stays whole.
func TestCamelCaseNameNoSourceWrites(t *testing.T) {
	md := "# Building zorb\n\n## Building\n\nThe zorb programs can then be built with make.\n\n" +
		"## Sanitizer flags\n\nIt is possible to build zorb with the gcc or clang sanitizer by passing the flags to configure:\n\n" +
		"```\nCFLAGS=\"-fsanitize=address\" ./configure\n```\n"
	c := newCorpus([]*rdoc{readMarkdownDoc(md, "Building zorb")})
	a := c.respell(newAsk("How do I build zorb with AddressSanitizer turned on?", nil, false))
	if !slices.Contains(a.terms, "sanit") || slices.Contains(a.terms, "addresssanit") {
		t.Fatalf("terms %q", a.terms)
	}
	got := c.pick(a, 1, newUsedSet(), pickOptions{noLists: true})
	if len(got) != 1 || !strings.Contains(c.docs[0].Sents[got[0].sents[0]].Text, "sanitizer") {
		t.Errorf("the best answer is not the sanitizer's: %+v", got)
	}
	held := newCorpus([]*rdoc{readMarkdownDoc("# Zorb\n\n## Events\n\nAn EventEmitter calls its listeners in order.\n", "Zorb")})
	if b := held.respell(newAsk("When does an EventEmitter call its listeners?", nil, false)); !slices.Contains(b.terms, "eventemitt") {
		t.Errorf("a name the sources write was split: %q", b.terms)
	}
}

// A quote reads from its paragraph's opening only when that opening
// stands alone: "This facility is called the zorb API." leans on the
// paragraph before, so the answer after it is quoted without it.
func TestLeaningOpeningIsNotReadIn(t *testing.T) {
	md := "# The Zorb API\n\nThe engine also provides a way to write a generic handler that takes any arguments. This can be useful when writing an interpreter.\n\n" +
		"This facility is called the zorb API. Zorbs are not supported on all platforms; you can check the `ZORBS` define to determine whether they are.\n"
	d := readMarkdownDoc(md, "The Zorb API")
	c := newCorpus([]*rdoc{d})
	got := c.pick(newAsk("Are zorbs supported on every platform?", nil, false), 1, newUsedSet(), pickOptions{noLists: true})
	if len(got) != 1 {
		t.Fatalf("%d quotes", len(got))
	}
	if first := d.Sents[got[0].sents[0]].Text; strings.HasPrefix(first, "This") {
		t.Errorf("the quote opens on %q, which leans on the paragraph before", first)
	}
	if !slices.ContainsFunc(got[0].sents, func(i int) bool { return strings.HasPrefix(d.Sents[i].Text, "Zorbs are not supported") }) {
		t.Errorf("the answer is not quoted: %+v", got)
	}
}

// One page served as HTML and as markdown is one source, though two of
// a report's searches find it under its two URLs.
func TestPageUnderTwoURLsIsOneSource(t *testing.T) {
	e := testEngine(t, nil)
	sep := "The zorb.sep property gives the platform-specific path segment separator of the zorblax engine, a slash on POSIX."
	del := "The zorb.delimiter property gives the platform-specific path delimiter of the zorblax engine, a colon on POSIX."
	seed(t, e,
		&page{URL: "https://docs.example/api/zorbpath.html", Title: "Zorb paths", Text: sep + " " + sep + " " + del,
			Markdown: "# Zorb paths\n\n## zorb.sep\n\n" + sep + " " + sep + "\n\n## zorb.delimiter\n\n" + del + "\n"},
		&page{URL: "https://docs.example/api/zorbpath.md", Title: "Zorb paths", Text: del + " " + del + " " + sep,
			Markdown: "# Zorb paths\n\n## zorb.delimiter\n\n" + del + " " + del + "\n\n## zorb.sep\n\n" + sep + "\n"},
		&page{URL: "https://docs.example/api/other.html", Title: "Zorb engines", Text: "The zorblax engine runs on POSIX and other platforms.", Markdown: "# Zorb engines\n\nThe zorblax engine runs on POSIX and other platforms.\n"},
	)
	out, err := e.Research(context.Background(), api.ResearchInput{Input: "What is the difference between zorb.sep and zorb.delimiter?", Model: "mini"})
	if err != nil || out.Status != api.ResearchCompleted {
		t.Fatalf("%v %+v", err, out)
	}
	n := 0
	for _, s := range out.Sources {
		if strings.HasPrefix(s.URL, "https://docs.example/api/zorbpath.") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the page is %d sources: %+v", n, out.Sources)
	}
}

// A release note is quoted under the release it belongs to: which
// release changed a thing is half of what changed.
func TestReleaseNoteNamesItsRelease(t *testing.T) {
	d := readMarkdownDoc("# NEWS\n\n## Release 3.18.0 (15 Oct 2021)\n\n### PLATFORM CHANGES\n\n\\* Support for ZorbOS on x86 and arm64 has been added to the tool.\n\n"+
		"## Release 3.17.0 (19 Mar 2021)\n\nThe tool now reads its options from a zorb file at startup.\n", "NEWS")
	d.changelog = true
	c := newCorpus([]*rdoc{d})
	q, ok := c.quoteAt(0, sentAt(t, d, "* Support for ZorbOS on x86 and arm64 has been added to the tool."), newAsk("which release added ZorbOS support", nil, true), newUsedSet())
	if !ok {
		t.Fatal("the note cannot be quoted")
	}
	if got := c.text(q); got != "Release 3.18.0 (15 Oct 2021): Support for ZorbOS on x86 and arm64 has been added to the tool." {
		t.Errorf("quoted as %q", got)
	}
	// A page that is not a changelog names no release.
	d.changelog = false
	if q, _ := c.quoteAt(0, sentAt(t, d, "The tool now reads its options from a zorb file at startup."), newAsk("zorb file options", nil, false), newUsedSet()); q.label != "" {
		t.Errorf("label %q on a page that is not a changelog", q.label)
	}
}

// A quote that reads from a sentence a quote already taken holds goes on
// that quote instead of being lost ("term: opening … the answer").
func TestOverlappingQuotesJoin(t *testing.T) {
	md := "# Zorb\n\n## zorb.frob()\n\nThe zorb engine frobs widgets in the zorb shop every day. This makes the frobbed widgets shine for a week.\n\n" +
		"Widgets are sorted by colour before they are frobbed by it. The zorb frob tool is cleaned with oil after each frob.\n\n" +
		"## Other\n\nAn unrelated passage about the zorb engine sits here.\n"
	d := readMarkdownDoc(md, "Zorb")
	c := newCorpus([]*rdoc{d})
	s0 := sentAt(t, d, "The zorb engine frobs widgets in the zorb shop every day.")
	s1 := sentAt(t, d, "This makes the frobbed widgets shine for a week.")
	s3 := sentAt(t, d, "The zorb frob tool is cleaned with oil after each frob.")
	other := sentAt(t, d, "An unrelated passage about the zorb engine sits here.")
	p := &picking{c: c, used: newUsedSet(), out: []quote{{doc: 0, sents: []int{s0, s1}}}}
	p.used.add(c.usedKey(0, s0))
	p.used.add(c.usedKey(0, s1))
	if !p.join(quote{doc: 0, sents: []int{s0, s3}}) || !slices.Equal(p.out[0].sents, []int{s0, s1, s3}) {
		t.Errorf("not joined: %+v", p.out)
	}
	if p.join(quote{doc: 0, sents: []int{s0, other}}) {
		t.Error("a sentence of another passage joined")
	}
}

// A comparison's things share the plural after the last of them ("the
// 'exit' and 'close' events of a child process": two kinds of events),
// and a clause that says when ("After setting up a closure, how do I
// call it?") is no question of its own: no heading is a fragment.
func TestSectionHeadingsAreWholeThings(t *testing.T) {
	secs, compared := reportSections("What is the difference between the 'exit' and 'close' events of a zorb process?")
	if len(secs) != 2 || secs[0].title != "'exit' events" || secs[1].title != "'close' events" {
		t.Errorf("sections %+v", secs)
	}
	if len(compared) != 2 || !strings.Contains(compared[0], "of a zorb process") || !strings.Contains(compared[1], "of a zorb process") {
		t.Errorf("compared %q: each is of a zorb process", compared)
	}
	// A noun that is not plural belongs to the last thing alone.
	if secs, _ := reportSections("compare memcheck and the massif heap profiler"); len(secs) != 2 || secs[0].title != "Memcheck" || secs[1].title != "Massif heap profiler" {
		t.Errorf("sections %+v", secs)
	}
	if secs, _ := reportSections("After setting up a zorb closure, how do I call it like an ordinary C function?"); len(secs) != 1 || secs[0].title != "Findings" {
		t.Errorf("sections %+v, want one", secs)
	}
	if secs, _ := reportSections("What does cachegrind measure, and how do I read its output?"); len(secs) != 2 {
		t.Errorf("sections %+v, want two", secs)
	}
}

// A sentence a one-line command cuts in two ("Use", the command, "to
// request the dumping …") is one sentence with the command inline, and
// its passage is found in the page; a tail that opens in lower case
// after a command ("with", a command, "where …") stays cut off.
func TestSentenceGoesOnPastItsCommand(t *testing.T) {
	e := testEngine(t, nil)
	md := "# Zorbgrind\n\n## Dumping profiles\n\nThere are different ways to dump a zorbgrind profile:\n\n" +
		"- **Dump on exit.** This method needs no special action on your part.\n" +
		"- **Interactive dumping.** Use\n\n      zorbctl -d [hint]\n\n  to request a dump of the profile of the running program.\n\n" +
		"## Headers\n\nIf the zorbgrind header is not found, you may try to replace line:\n\n    #include <zorb.h>\n\nwith\n\n    #include \"/path/zorb.h\"\n\nwhere the path is where the zorbgrind header is installed.\n"
	plain := "Zorbgrind Dumping profiles There are different ways to dump a zorbgrind profile: Dump on exit. This method needs no special action on your part. " +
		"Interactive dumping. Use zorbctl -d [hint] to request a dump of the profile of the running program."
	seed(t, e, &page{URL: "https://docs.example/zorbgrind.html", Title: "Zorbgrind", Text: plain, Markdown: md})
	quotesFound(t, e, "How do I get zorbgrind to dump its profile while the program is running?",
		"Use `zorbctl -d [hint]` to request a dump of the profile of the running program.", "zorbctl -d [hint] to request")
	d := readMarkdownDoc(md, "Zorbgrind")
	for _, s := range d.Sents {
		if strings.HasPrefix(s.Text, "with") && s.OK {
			t.Errorf("the tail %q is quotable", s.Text)
		}
	}
}

// A quote whose opening an earlier part of the report quoted (the
// summary took an entry's opening; a section wants the entry's later
// sentence, "term: opening … the sentence") is taken without that
// opening when the rest stands alone, and only after the round's quotes
// that clash with nothing. A clash with a quote of the same pick, or a
// rest that leans on what is left out, is not trimmed.
func TestQuotedOpeningIsLeftOut(t *testing.T) {
	md := "# Zorb options\n\n**--zorb-frob=<yes|no>**\n\nThe zorb engine frobs widgets in the zorb shop every day. This makes the frobbed widgets shine for a week.\n\n" +
		"The zorb frob tool is cleaned with oil after each frob.\n\n## Sorting\n\nWidgets are sorted by colour before they are frobbed by it.\n"
	d := readMarkdownDoc(md, "Zorb options")
	c := newCorpus([]*rdoc{d})
	s0 := sentAt(t, d, "The zorb engine frobs widgets in the zorb shop every day.")
	s1 := sentAt(t, d, "This makes the frobbed widgets shine for a week.")
	s2 := sentAt(t, d, "Widgets are sorted by colour before they are frobbed by it.")
	s3 := sentAt(t, d, "The zorb frob tool is cleaned with oil after each frob.")
	used := newUsedSet()
	used.add(c.usedKey(0, s0)) // the summary's
	p := &picking{c: c, used: used}
	if got, ok := p.trim(quote{doc: 0, sents: []int{s0, s3}}); !ok || !slices.Equal(got.sents, []int{s3}) {
		t.Errorf("trim = %+v, %v; want the sentence alone", got, ok)
	}
	if _, ok := p.trim(quote{doc: 0, sents: []int{s0, s1}}); ok {
		t.Error(`trimmed to "This makes …", which leans on the opening left out`)
	}
	p.out = []quote{{doc: 0, sents: []int{s0, s2}}}
	if _, ok := p.trim(quote{doc: 0, sents: []int{s0, s3}}); ok {
		t.Error("trimmed against a quote of the same pick")
	}

	// In a pick, the entry's quotes read "--zorb-frob: opening … the
	// sentence"; with the opening quoted, the trimmed quote comes after
	// the one that clashes with nothing, though it scores higher.
	if q, ok := c.quoteAt(0, s3, ask{}, newUsedSet()); !ok || !slices.Equal(q.sents, []int{s0, s3}) {
		t.Fatalf("the entry's quote is %+v, not its opening and the sentence", q)
	}
	sc := make([]float64, len(c.sref))
	sc[c.sBase[0]+s3], sc[c.sBase[0]+s2] = 2, 1
	used = newUsedSet()
	used.add(c.usedKey(0, s0))
	used.add(c.usedKey(0, s1))
	p = &picking{c: c, n: 2, used: used, sc: sc, fromPassage: map[[2]int]int{}, fromSource: map[int]int{}, taken: map[int]bool{}}
	p.round([]int{c.sBase[0] + s3, c.sBase[0] + s2}, 2, 0)
	if len(p.out) != 2 || !slices.Equal(p.out[0].sents, []int{s2}) || !slices.Equal(p.out[1].sents, []int{s3}) {
		t.Errorf("picked %+v; want %d, then %d alone", p.out, s2, s3)
	}
}

// A section's opening that points at the thing its heading names ("This
// attribute is only a label …" under "gender") is quoted under that
// heading, not set aside as leaning on text before it; one that points
// at anything else still leans.
func TestSectionOpeningNamesItsHeading(t *testing.T) {
	md := "# Zorb voices\n\n## gender\n\n```\ngender <gender> [<age>]\n```\n\nThis attribute is only a label for zorb voice selection. It does not change the sound of the zorb voice.\n\n" +
		"## Choosing a voice\n\nThis means the zorb voice is chosen by its name alone.\n"
	d := readMarkdownDoc(md, "Zorb voices")
	c := newCorpus([]*rdoc{d})
	s := sentAt(t, d, "This attribute is only a label for zorb voice selection.")
	if d.Sents[s].Lost {
		t.Fatal("the opening under gender is lost")
	}
	var b strings.Builder
	q, ok := c.quoteAt(0, s+1, newAsk("Does the gender of a zorb voice change its sound?", nil, false), newUsedSet())
	if !ok {
		t.Fatal("no quote")
	}
	c.write(&b, q, 1, false)
	if want := "`gender`: This attribute is only a label for zorb voice selection. It does not change the sound of the zorb voice."; !strings.HasPrefix(b.String(), want) {
		t.Errorf("quote %q, want %q", b.String(), want)
	}
	if !d.Sents[sentAt(t, d, "This means the zorb voice is chosen by its name alone.")].Lost {
		t.Error(`"This means …" opening a section reads as standing alone`)
	}
}

// A parameter of an API entry is quoted under the entry it belongs to:
// "`priority` <integer> The scheduling priority …" alone does not say
// whose priority.
func TestParameterIsQuotedUnderItsEntry(t *testing.T) {
	md := "# Zorb\n\n## `zorb.setLevel([pid, ]level)`\n\n* `pid` {integer} The process ID to set the zorb level for.\n* `level` {integer} The zorb level to assign to the process.\n\n" +
		"Attempts to set the zorb level for the process.\n\n## Notes\n\nThe zorb shop opens at nine:\n\n* Every zorb level is an integer.\n"
	d := readMarkdownDoc(md, "Zorb")
	c := newCorpus([]*rdoc{d})
	s := sentAt(t, d, "level {integer} The zorb level to assign to the process.")
	q, ok := c.quoteAt(0, s, ask{}, newUsedSet())
	if !ok {
		t.Fatal("the parameter is not quotable")
	}
	if got, want := c.text(q), "`zorb.setLevel([pid, ]level)`: `level` {integer} The zorb level to assign to the process."; got != want {
		t.Errorf("quote %q, want %q", got, want)
	}
	// An item of a section that documents no entry has no label.
	s = sentAt(t, d, "Every zorb level is an integer.")
	if q, ok := c.quoteAt(0, s, ask{}, newUsedSet()); ok && q.label != "" && !q.isList() {
		t.Errorf("an item outside an entry is labelled %q", q.label)
	}
}

// A sentence that opens on "And" goes on from the one before it, across
// that one's command: "And list which voices … with:" is quoted with
// "You can select a voice … from the command line:", the command inline
// between them, and the quote is found in the page. After a longer
// example, "Once this code is invoked, …" still leans on what the report
// cannot hold inline.
func TestAndGoesOnAcrossACommand(t *testing.T) {
	e := testEngine(t, nil)
	md := "# Zorb\n\n## Voice selection\n\nAll the zorb voices are collected into one list. You can select a zorb voice from this list from the command line:\n\n" +
		"    zorb -voice awb -f alice.txt\n\nAnd list which zorb voices are compiled into the zorb binary with:\n\n    zorb -lv\n\n" +
		"## Example\n\nThe following example shows the zorb module:\n\n```\nconst z = zorb();\nz.run();\nz.close();\n```\n\nOnce this code is invoked, the zorb program will not exit until the zorb is closed.\n"
	d := readMarkdownDoc(md, "Zorb")
	and := d.Sents[sentAt(t, d, "And list which zorb voices are compiled into the zorb binary with:")]
	if and.Lost || and.Dep < 0 {
		t.Fatalf("the And sentence: lost %v, dep %d", and.Lost, and.Dep)
	}
	if once := d.Sents[sentAt(t, d, "Once this code is invoked, the zorb program will not exit until the zorb is closed.")]; !once.Lost {
		t.Errorf("the sentence after a longer example does not lean: dep %d", once.Dep)
	}
	plain := "Zorb Voice selection All the zorb voices are collected into one list. You can select a zorb voice from this list from the command line: zorb -voice awb -f alice.txt " +
		"And list which zorb voices are compiled into the zorb binary with: zorb -lv"
	seed(t, e, &page{URL: "https://docs.example/zorb.html", Title: "Zorb", Text: plain, Markdown: md})
	quotesFound(t, e, "How do I see which zorb voices are compiled into the zorb binary?",
		"from the command line: `zorb -voice awb -f alice.txt` And list which zorb voices are compiled into the zorb binary with:", "zorb -voice awb -f alice.txt And list")
}

// "It is possible to …" does not lean on the sentence before it: its
// "it" points at what follows. "For example:" leading into code is the
// sentence before's example, and is quoted with it.
func TestDummyItAndForExample(t *testing.T) {
	d := readMarkdownDoc("# Building zorb\n\n#### Sanitizer flags\n\nIt is possible to build zorb with the clang sanitizer by passing the right `CFLAGS` to `configure`. For example:\n\n"+
		"```\nCFLAGS=\"-fsanitize=address\" ./configure\nmake\n```\n\n## Notes\n\nIt is a fast zorb.\n", "Building zorb")
	first := sentAt(t, d, "It is possible to build zorb with the clang sanitizer by passing the right CFLAGS to configure.")
	if s := d.Sents[first]; s.Lost || s.Dep >= 0 {
		t.Errorf("a dummy it leans: lost %v, dep %d", s.Lost, s.Dep)
	}
	if s := d.Sents[sentAt(t, d, "It is a fast zorb.")]; !s.Lost {
		t.Error("a section opening on a pointing it does not lean")
	}
	ex := sentAt(t, d, "For example:")
	if s := d.Sents[ex]; !s.OK || s.Dep != first {
		t.Fatalf("For example: ok %v, dep %d", s.OK, s.Dep)
	}
	c := newCorpus([]*rdoc{d})
	q, ok := c.quoteAt(0, first, newAsk("how do I build zorb with the sanitizer", nil, false), newUsedSet())
	if !ok || !slices.Equal(q.sents, []int{first, ex}) || !strings.Contains(q.code, "-fsanitize=address") {
		t.Errorf("quote %+v, code %q", q.sents, q.code)
	}
}

// A quote that has its sentences still takes the next one when that goes
// on from its last: Valgrind's "So the best solution is to turn off
// optimisation altogether." is followed by "Since this often makes
// things unmanageably slow, a reasonable compromise is to use -O.",
// which a reader of the first needs.
func TestFullQuoteTakesWhatGoesOnFromIt(t *testing.T) {
	d := readMarkdownDoc("# Zorb\n\n## Optimisation\n\n"+
		"On rare occasions the zorb optimiser fools the checker at level two. "+
		"We have looked into fixing this, and the result is too slow. "+
		"So the best solution is to turn the zorb optimiser off. "+
		"Since this often makes zorb slow, a reasonable compromise is level one.\n", "Zorb")
	c := newCorpus([]*rdoc{d})
	best := sentAt(t, d, "So the best solution is to turn the zorb optimiser off.")
	q, ok := c.quoteAt(0, best, newAsk("which zorb optimiser level should I use?", nil, false), newUsedSet())
	last := sentAt(t, d, "Since this often makes zorb slow, a reasonable compromise is level one.")
	if !ok || !slices.Contains(q.sents, last) {
		t.Errorf("ok %v, quote %v: the compromise (%d) is left out", ok, q.sents, last)
	}
}
