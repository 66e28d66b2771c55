package research

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"hark/api"
	"hark/gateway/research/doc"
	"hark/gateway/text"
)

// sentAt is the index of the sentence of d that reads plain, or fails.
func sentAt(t *testing.T, d *rdoc, plain string) int {
	t.Helper()
	i := slices.IndexFunc(d.Sents, func(s doc.Sentence) bool { return text.Unmark(s.Text) == plain })
	if i < 0 {
		t.Fatalf("no sentence %q", plain)
	}
	return i
}

// A list whose items name things ("The environment variable
// `$VALGRIND_OPTS`") is quoted whole under its lead-in; a list of pieces
// of sentences is not quoted as items.
func TestListOfNamesIsQuoted(t *testing.T) {
	d := readMarkdownDoc("# Core\n\n## Setting Default Options\n\nNote that the tool also reads options from three places:\n\n"+
		"- The file `~/.toolrc`\n- The environment variable `$TOOL_OPTS`\n- The file `./.toolrc`\n\n"+
		"## doc.Cache lines\n\nReferences that straddle two cache lines are treated as follows:\n\n"+
		"- If both blocks hit --> counted as one hit\n- If one block hits, the other misses --> counted as one miss.\n", "Core")
	c := newCorpus([]*rdoc{d})
	q, ok := c.quoteAt(0, sentAt(t, d, "Note that the tool also reads options from three places:"), newAsk("how do I set default options", nil, false), newUsedSet())
	if !ok || len(q.items) != 3 || c.text(q.items[1]) != "The environment variable `$TOOL_OPTS`" {
		t.Errorf("list of names: ok %v, items %d, %+v", ok, len(q.items), q)
	}
	for _, s := range []string{"The file ./.toolrc", "The environment variable $TOOL_OPTS"} {
		if !nameItem(d.Sents[sentAt(t, d, s)].Text) {
			t.Errorf("%q is not read as a name", s)
		}
	}
	for _, s := range []string{"If both blocks hit --> counted as one hit", "If one block hits, the other misses --> counted as one miss."} {
		if nameItem(d.Sents[sentAt(t, d, s)].Text) {
			t.Errorf("%q, a piece of a sentence, is read as a name", s)
		}
	}
}

// For a how-to question, a step of a numbered list is quoted as the
// procedure: under the sentence before the list, or, when the report
// quoted that already, under its section's heading, every step numbered
// as the page numbers it. A bulleted list's item, or any question but a
// how-to one, is quoted alone.
func TestNumberedStepsAreQuotedAsAProcedure(t *testing.T) {
	d := readMarkdownDoc("# Voices\n\n## Windows Installation\n\nThe SAPI5 version uses the `mbrola.dll`.\n\n"+
		"1. Install the synthesizer. Include the voice `mb-en1`.\n2. Install the Windows version of MBROLA.\n3. Use the voice `MB-EN1`.\n\n"+
		"## Notes\n\n- Install nothing else. It is enough.\n- Restart the program.\n", "Voices")
	c := newCorpus([]*rdoc{d})
	how := newAsk("how do I use mbrola voices on windows", nil, false)
	step := sentAt(t, d, "Install the Windows version of MBROLA.")
	q, ok := c.quoteAt(0, step, how, newUsedSet())
	if !ok || c.text(q) != "The SAPI5 version uses the `mbrola.dll`." || len(q.items) != 3 || c.text(q.items[1]) != "Install the Windows version of MBROLA." {
		t.Errorf("procedure: ok %v, %q, %d steps", ok, c.text(q), len(q.items))
	}
	used := newUsedSet()
	used.add(c.usedKey(0, sentAt(t, d, "The SAPI5 version uses the mbrola.dll.")))
	q, ok = c.quoteAt(0, step, how, used)
	if !ok || c.text(q) != "Windows Installation" || len(q.items) != 3 || c.text(q.items[0]) != "Install the synthesizer. Include the voice `mb-en1`." {
		t.Errorf("procedure under its heading: ok %v, %q, %d steps", ok, c.text(q), len(q.items))
	}
	var b strings.Builder
	c.write(&b, q, 1, true)
	if want := "- Windows Installation [1]\n  1. Install the synthesizer. Include the voice `mb-en1`.\n  2. Install the Windows version of MBROLA.\n  3. Use the voice `MB-EN1`.\n"; b.String() != want {
		t.Errorf("the procedure is written\n%s\nwant\n%s", b.String(), want)
	}
	if q, _ := c.quoteAt(0, step, newAsk("what is mbrola on windows", nil, false), newUsedSet()); q.isList() {
		t.Errorf("a step is quoted as a procedure for a question that is not how-to: %q", c.text(q))
	}
	if q, _ := c.quoteAt(0, sentAt(t, d, "Restart the program."), how, newUsedSet()); q.isList() {
		t.Errorf("a bulleted item is quoted as a procedure: %q", c.text(q))
	}
}

// A step that leads into its command is quoted with it, in the report
// and in its passages: a procedure's commands are its answer.
func TestProcedureStepsShowTheirCode(t *testing.T) {
	d := readMarkdownDoc("# Library\n\n## Simple steps\n\nTo use the zorblax engine from C:\n\n"+
		"1. Ensure you have its headers installed\n2. Compile your file with command:\n\n   ```\n   gcc prog.c -lzorblax -o prog\n   ```\n\n"+
		"3. Run the program with the command:\n\n   ```\n   ./prog\n   ```\n", "Library")
	d.url, d.kept = "https://z.example/lib", "Compile your file with command:\n\n    gcc prog.c -lzorblax -o prog\n"
	c := newCorpus([]*rdoc{d})
	how := newAsk("how do I compile a C program with the zorblax library", nil, false)
	q, ok := c.quoteAt(0, sentAt(t, d, "Compile your file with command:"), how, newUsedSet())
	if !ok || len(q.items) != 3 || q.items[1].code != "gcc prog.c -lzorblax -o prog" || q.items[2].code != "./prog" {
		t.Fatalf("procedure: ok %v, %d steps, %+v", ok, len(q.items), q.items)
	}
	var b strings.Builder
	c.write(&b, q, 1, true)
	if want := "  2. Compile your file with command:\n\n     ```\n     gcc prog.c -lzorblax -o prog\n     ```\n"; !strings.Contains(b.String(), want) {
		t.Errorf("the step's command is not under it:\n%s", b.String())
	}
	found := false
	for _, p := range c.passages {
		found = found || p.Code && p.Quote == "gcc prog.c -lzorblax -o prog" && p.Start >= 0
	}
	if !found {
		t.Errorf("the step's command is not among the passages at its place: %+v", c.passages)
	}
}

// A procedure interrupted by a note and numbered anew after it ("3.
// Configure the project:", "Check that log shows following lines:",
// "1. Build the project:") is one procedure: its steps go on past the
// note, and the note is not quoted alone.
func TestProcedureGoesOnPastANote(t *testing.T) {
	d := readMarkdownDoc("# Building\n\n## Building the zorb app\n\n"+
		"1. Set the location of the zorb SDK:\n\n   ```\n   export ZORB_HOME=/opt/zorb\n   ```\n\n"+
		"2. Configure the zorb project:\n\n   ```\n   ./configure --with-zorb\n   ```\n\n"+
		"Check that the configure log shows the following lines:\n\n```\nzorb: yes\n```\n\n"+
		"1. Build the zorb project:\n\n   ```\n   make zorb-release\n   ```\n\n"+
		"## Other\n\n1. An unrelated first step of another task here.\n2. An unrelated second step of that other task.\n", "Building")
	c := newCorpus([]*rdoc{d})
	how := newAsk("how do I build the zorb app", nil, false)
	q, ok := c.quoteAt(0, sentAt(t, d, "Set the location of the zorb SDK:"), how, newUsedSet())
	if !ok || len(q.items) != 3 || q.items[2].code != "make zorb-release" {
		t.Fatalf("procedure: ok %v, %d steps, %+v", ok, len(q.items), q.items)
	}
	if d.Sents[sentAt(t, d, "Check that the configure log shows the following lines:")].OK {
		t.Error("the note between the steps can be quoted alone")
	}
	// A list under another heading is another procedure.
	if q, ok := c.quoteAt(0, sentAt(t, d, "An unrelated first step of another task here."), how, newUsedSet()); ok && len(q.items) > 2 {
		t.Errorf("another section's steps joined: %+v", q.items)
	}
}

// A paragraph that speaks of the list before it ("These files are
// compiled into …") is quoted under the list, with its lead-in: on its
// own its "these" points at nothing.
func TestSentenceAfterAListIsQuotedWithIt(t *testing.T) {
	d := readMarkdownDoc("# Zorb\n\n## Translation files\n\nThere are two separate kinds of zorb source files:\n\n"+
		"- Rules. The source file is `zorb_rules` for each language.\n- Lists. The source file is `zorb_list` for each language.\n\n"+
		"These files are compiled into the file `zorb_dict` in the data directory.\n", "Zorb")
	d.url, d.kept = "https://z.example/zorb", "These files are compiled into the file zorb_dict in the data directory."
	after := sentAt(t, d, "These files are compiled into the file zorb_dict in the data directory.")
	if s := d.Sents[after]; s.Lost || s.AfterList < 0 {
		t.Fatalf("the sentence after the list: lost %v, afterList %d", s.Lost, s.AfterList)
	}
	c := newCorpus([]*rdoc{d})
	q, ok := c.quoteAt(0, after, newAsk("which file are zorb source files compiled into", nil, false), newUsedSet())
	if !ok || len(q.items) != 2 || !slices.Equal(q.after, []int{after}) {
		t.Fatalf("quote: ok %v, %d items, after %v", ok, len(q.items), q.after)
	}
	var b strings.Builder
	c.write(&b, q, 1, true)
	if want := "  - Lists. The source file is `zorb_list` for each language.\n\n  These files are compiled into the file `zorb_dict` in the data directory.\n"; !strings.Contains(b.String(), want) {
		t.Errorf("written:\n%s", b.String())
	}
	if !slices.ContainsFunc(c.passages, func(p api.ResearchPassage) bool {
		return strings.HasPrefix(p.Quote, "These files are compiled") && p.Start >= 0
	}) {
		t.Errorf("the sentence's passage is not recorded at its place: %+v", c.passages)
	}
}

// A list past ten items is quoted by its first ten, but the item that
// answers stands in for the tenth when it comes later.
func TestLongListKeepsTheAnsweringItem(t *testing.T) {
	var md strings.Builder
	md.WriteString("# Options\n\n## Options\n\nThe tool accepts the following options, each of which must be given before the file:\n\n")
	for i := 1; i <= 11; i++ {
		fmt.Fprintf(&md, "- Option number %d of the tool sets its setting number %d.\n", i, i)
	}
	md.WriteString("- The zorb option frobs the zorblax engine before the tool starts.\n")
	d := readMarkdownDoc(md.String(), "Options")
	c := newCorpus([]*rdoc{d})
	q, ok := c.quoteAt(0, sentAt(t, d, "The zorb option frobs the zorblax engine before the tool starts."), newAsk("how do I frob the zorblax engine", nil, false), newUsedSet())
	if !ok || len(q.items) != 10 {
		t.Fatalf("ok %v, %d items", ok, len(q.items))
	}
	if last := d.Sents[q.items[9].sents[0]].Text; !strings.Contains(last, "zorb option") {
		t.Errorf("the tenth item is %q, not the one that answers", last)
	}
	if first := d.Sents[q.items[0].sents[0]].Text; !strings.Contains(first, "number 1 ") {
		t.Errorf("the first item is %q", first)
	}
}

// Of two pages saying the same, the one search ranked higher among the
// sources read gives the better quote: the page's rank is evidence no one
// sentence shows.
func TestPageRankWeighsSentences(t *testing.T) {
	page := "# Suppressions\n\nThe tool reads suppressions from the file named by the option.\n"
	docs := []*rdoc{readMarkdownDoc(page, "Suppressions"), readMarkdownDoc(page, "Suppressions")}
	setPriors(docs)
	c := newCorpus(docs)
	sc := c.scores(newAsk("how does the tool read suppressions", nil, false))
	first, second := sc[c.sBase[0]], sc[c.sBase[1]]
	if want := (1 + pagePriorWeight) / (1 + pagePriorWeight/2); first <= 0 || second <= 0 || math.Abs(first/second-want) > 1e-9 {
		t.Errorf("the first page's sentence scores %v, the second's %v: want them in the ratio of their ranks' priors", first, second)
	}
}

// A section's numbered steps are quoted as the whole procedure: for "how
// do I build the zorb Android app", the first step under "Building with
// Gradle" quotes both steps with their commands.
func TestSectionOfStepsIsQuotedWhole(t *testing.T) {
	d := readMarkdownDoc("# Building zorb\n\n## Tools\n\nZorb tools can be built on any machine.\n\n"+
		"## Android\n\nThe zorb sources hold the code of the port.\n\n### Building with Gradle\n\n"+
		"1. Set the location of the SDK:\n\n   ```\n   export SDK_HOME=/opt/sdk\n   ```\n\n"+
		"2. Run the release target:\n\n   ```\n   make apk-release\n   ```\n\n"+
		"The package is written to the output folder.\n", "Building zorb")
	c := newCorpus([]*rdoc{d})
	how := newAsk("How do I build the zorb Android app?", nil, false)
	step := sentAt(t, d, "Set the location of the SDK:")
	q, ok := c.quoteAt(0, step, how, newUsedSet())
	if !ok || len(q.items) != 2 || q.items[1].code != "make apk-release" {
		t.Errorf("procedure: ok %v, %+v", ok, q.items)
	}
}

// A list item's later sentence that answers is shown in the list quote
// that stands for it: after the item's first sentence, "…" between,
// whether it is in the item's first paragraph past what the item shows
// or in a later paragraph of the item. The list quote was the items'
// first sentences alone, so the sentence that ranked was not in it.
func TestListQuoteShowsTheItemSentenceThatAnswers(t *testing.T) {
	d := readMarkdownDoc("# Core\n\n## Options\n\nThese options apply to every tool:\n\n"+
		"- `--demangle=<yes|no>`: Enable or disable automatic demangling of C++ names. The demangler handles symbols mangled by g++ versions 2.X, 3.X and 4.X, and by many other compilers too. An important fact about demangling is that function names in suppressions files should be mangled.\n\n"+
		"  If you are writing suppressions by hand, use the --demangle=no option to get the mangled names.\n\n"+
		"- `--num-callers=<number>`: Specifies the maximum number of entries shown in stack traces.\n", "Core")
	c := newCorpus([]*rdoc{d})
	a := newAsk("how do I see mangled names to write a suppression by hand", nil, false)
	for _, s := range []string{
		"If you are writing suppressions by hand, use the --demangle=no option to get the mangled names.",
		"An important fact about demangling is that function names in suppressions files should be mangled.",
	} {
		at := sentAt(t, d, s)
		q, ok := c.quoteAt(0, at, a, newUsedSet())
		if !ok || !q.isList() {
			t.Fatalf("%q: ok %v, a list %v", s, ok, q.isList())
		}
		if !slices.Contains(q.all(), at) {
			t.Errorf("the list quote for %q does not hold it: %q", s, c.text(q.items[0]))
		}
		if got := c.text(q.items[0]); !strings.HasPrefix(got, "`--demangle=<yes|no>`: Enable or disable automatic demangling of C++ names. … ") {
			t.Errorf("the item is written %q", got)
		}
		if got := c.text(q.items[1]); got != "`--num-callers=<number>`: Specifies the maximum number of entries shown in stack traces." {
			t.Errorf("another item is written %q", got)
		}
	}
}

// A list whose items are short names closed by a full stop ("Misuses
// of the POSIX pthreads API.", as a DocBook manual's list of the
// sections to come writes them) is quoted under its lead-in: the full
// stop made each item read as a fragment, and the list had no items.
func TestListOfNamesWithFullStopsIsQuoted(t *testing.T) {
	d := readMarkdownDoc("# Helgrind\n\n## Overview\n\nHelgrind can detect three classes of errors, which are discussed in detail in the next three sections:\n\n"+
		"1. Misuses of the POSIX pthreads API.\n2. Potential deadlocks arising from lock ordering problems.\n3. Data races.\n", "Helgrind")
	c := newCorpus([]*rdoc{d})
	lead := sentAt(t, d, "Helgrind can detect three classes of errors, which are discussed in detail in the next three sections:")
	q, ok := c.quoteAt(0, lead, newAsk("what errors can helgrind detect", nil, false), newUsedSet())
	if !ok || len(q.items) != 3 || c.text(q.items[1]) != "Potential deadlocks arising from lock ordering problems." {
		t.Errorf("list of names with full stops: ok %v, items %d", ok, len(q.items))
	}
	if nameItem("If one block hits, the other misses.") || nameItem("counted as one miss.") {
		t.Error("a piece of a sentence is read as a name")
	}
}

// A list the pick has quoted for its lead-in takes in an item's later
// sentence that ranks (join), past the passage's cap and without a
// place of its own: the section was full, or its passage had given its
// quote, and the item's answering sentence was in no report.
func TestListQuoteTakesInTheItemSentenceThatAnswers(t *testing.T) {
	d := readMarkdownDoc("# Wasm\n\n## Standalone\n\nStandalone Wasm has some downsides for memory growth and JavaScript:\n\n"+
		"- WASI does not provide a notification API for memory growth, so JavaScript must check on every call whether the memory grew and update its views, which costs time on every import and export of the module.\n"+
		"  To avoid that overhead, Emscripten provides a notification API, emscripten_notify_memory_growth, which JavaScript can use.\n"+
		"- Some APIs are just easy to do in JavaScript.\n", "Wasm")
	c := newCorpus([]*rdoc{d})
	a := newAsk("how does javascript find out that wasm memory has grown", nil, false)
	used := newUsedSet()
	lead := sentAt(t, d, "Standalone Wasm has some downsides for memory growth and JavaScript:")
	ex, ok := c.listQuote(0, lead)
	if !ok {
		t.Fatal("no list quote")
	}
	for _, k := range ex.all() {
		used.add(c.usedKey(0, k))
	}
	p := &picking{c: c, a: a, n: 2, used: used, sc: make([]float64, len(c.sref)), fromPassage: map[[2]int]int{{0, d.Sents[lead].Passage}: 1}, fromSource: map[int]int{0: 1}, taken: map[int]bool{}, out: []quote{ex}}
	at := sentAt(t, d, "To avoid that overhead, Emscripten provides a notification API, emscripten_notify_memory_growth, which JavaScript can use.")
	p.sc[c.sBase[0]+at] = 1
	p.take([]int{c.sBase[0] + at}, 1, 0, false)
	if len(p.out) != 1 || !slices.Contains(p.out[0].all(), at) {
		t.Fatalf("the item's sentence is not taken into the list: %d quotes, item %q", len(p.out), c.text(p.out[0].items[0]))
	}
	if !used.has(c.usedKey(0, at)) {
		t.Error("the sentence joined is not marked quoted")
	}
}
