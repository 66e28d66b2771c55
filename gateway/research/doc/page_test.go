package doc

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"hark/gateway/text"
	"hark/gateway/text/lexicon"
)

// sentAt is the index of the sentence of d that reads plain, or fails.
func sentAt(t *testing.T, d *Page, plain string) int {
	t.Helper()
	i := slices.IndexFunc(d.Sents, func(s Sentence) bool { return text.Unmark(s.Text) == plain })
	if i < 0 {
		t.Fatalf("no sentence %q", plain)
	}
	return i
}

// needLexicon skips a test of word families on a machine without
// Debian's wordnet-base, wbritish and wamerican (scripts/setup.sh
// installs them, so CI has them).
func needLexicon(t *testing.T) {
	t.Helper()
	if m := lexicon.Default().Missing; len(m) > 0 {
		t.Skipf("lexicon resources missing: %v", m)
	}
}

// A FAQ's bold question heads the answer under it, though it takes two
// sentences to ask; an article's bold lead (research's TestReadMarkdownDoc) stays
// prose.
func TestBoldQuestionHeadsItsAnswer(t *testing.T) {
	d := ReadMarkdown("# FAQ\n\n**3.4.** **I tried running a Java program under the tool. Does the tool handle such programs?**\n\n"+
		"The tool can handle dynamically generated code. Run it with `--smc-check=all` then.\n", "FAQ")
	s := d.Sents[sentAt(t, d, "The tool can handle dynamically generated code.")]
	p := d.Passages[s.Passage]
	if !p.Term || p.Heading != "3.4. I tried running a Java program under the tool. Does the tool handle such programs?" {
		t.Errorf("the answer's passage is %q (term %v), want the question", p.Heading, p.Term)
	}
	if i := slices.IndexFunc(d.Sents, func(s Sentence) bool { return s.OK && text.Unmark(s.Text) == "Does the tool handle such programs?" }); i >= 0 {
		t.Error("the question reads as a sentence that can be quoted")
	}
}

// A FAQ's numbered entry heads its answer when it states the problem
// rather than asking: "**4.1.** **My program uses the C++ STL … there
// should be none.**" The answer's sentences sit under it, and the
// entry is not quoted as though it answered.
func TestNumberedFAQEntryHeadsItsAnswer(t *testing.T) {
	d := ReadMarkdown("# FAQ\n\n### 4. The tool behaves unexpectedly\n\n**4.1.** **My program uses the C++ STL. The tool reports 'still reachable' memory at exit, but there should be none.**\n\n"+
		"Relax, it is a feature. Many C++ standard libraries use their own memory pool allocators.\n", "FAQ")
	s := d.Sents[sentAt(t, d, "Many C++ standard libraries use their own memory pool allocators.")]
	if p := d.Passages[s.Passage]; !p.Term || !strings.HasPrefix(p.Heading, "4.1. My program uses the C++ STL.") {
		t.Errorf("the answer's passage is %q (term %v), want the entry", p.Heading, p.Term)
	}
	if slices.ContainsFunc(d.Sents, func(s Sentence) bool {
		return s.OK && strings.Contains(text.Unmark(s.Text), "there should be none")
	}) {
		t.Error("the entry reads as a sentence that can be quoted")
	}
	// An entry that goes on over its examples ("**or otherwise aborts
	// …**") is one term, not a fragment heading the answer.
	d = ReadMarkdown("# FAQ\n\n**3.2.**\n\n**My program dies like this:**\n\n```\nassertion failed\n```\n\n**or otherwise aborts in the allocator.**\n\n"+
		"Your program may trash the tool's memory manager, which then dies.\n", "FAQ")
	s = d.Sents[sentAt(t, d, "Your program may trash the tool's memory manager, which then dies.")]
	if p := d.Passages[s.Passage]; !p.Term || p.Heading != "3.2. My program dies like this: or otherwise aborts in the allocator." {
		t.Errorf("the answer's passage is %q (term %v), want the whole entry", p.Heading, p.Term)
	}
	// A bold lead of two sentences with no number stays prose.
	d = ReadMarkdown("# Post\n\n**Testing your frontend code is hard. Coverage tells you what the tests reach.**\n\nMore text here for the reader.\n", "Post")
	if !slices.ContainsFunc(d.Sents, func(s Sentence) bool {
		return s.OK && text.Unmark(s.Text) == "Coverage tells you what the tests reach."
	}) {
		t.Error("an unnumbered bold lead of two sentences is not prose")
	}
}

// A pointer set aside from a sentence's claim leaves it quotable; a
// sentence whose claim is the pointer is not.
func TestPointerSetAside(t *testing.T) {
	d := ReadMarkdown("# Output\n\n## Output File\n\nThe tool writes a profile to a file. "+
		"This file is meant to be read by the accompanying program `cg_annotate`, described in the next section. "+
		"The format is explained in the next section. Its fields are the following (see the table below).\n", "Output")
	for s, far := range map[string]bool{
		"This file is meant to be read by the accompanying program cg_annotate, described in the next section.": false,
		"The format is explained in the next section.":                                                          true,
		"Its fields are the following (see the table below).":                                                   true,
	} {
		if got := d.Sents[sentAt(t, d, s)].Far; got != far {
			t.Errorf("%q: points elsewhere %v, want %v", s, got, far)
		}
	}
}

// "This is an example for …:" leads into what follows it, and leans on
// nothing before: it can open a quote, where "This means …" cannot.
func TestForwardPointingThisStandsAlone(t *testing.T) {
	d := ReadMarkdown("# Complex\n\n## Custom types\n\nSome text before the example goes here.\n\n"+
		"This is an example for defining a custom zorb type descriptor for compilers that support them:\n\n```\nzorb_type t;\n```\n\n"+
		"This means the descriptor must be set by hand before the call.\n", "Complex")
	if s := d.Sents[sentAt(t, d, "This is an example for defining a custom zorb type descriptor for compilers that support them:")]; s.Lost || s.Dep >= 0 {
		t.Errorf("the example's lead-in leans back: lost %v, dep %d", s.Lost, s.Dep)
	}
	if s := d.Sents[sentAt(t, d, "This means the descriptor must be set by hand before the call.")]; !s.Lost && s.Dep < 0 {
		t.Error("\"This means …\" stands alone")
	}
}

// A numbered step that is a short order and its command ("Build the
// project:" and `make apk-release`) is a whole step of a procedure and
// can be quoted; the same few words as a paragraph of their own cannot.
func TestShortStepWithItsCommandIsQuotable(t *testing.T) {
	md := "# Building zorb\n\n## Building with Gradle\n\n1. Set the location of the SDK:\n\n        $ export ZORB_HOME=/opt/zorb\n\n" +
		"2. Build the project:\n\n        $ make zorb-release\n\n## Notes\n\nBuild the project:\n\n    make zorb-release\n"
	d := ReadMarkdown(md, "Building zorb")
	var step, para *Sentence
	for i := range d.Sents {
		s := &d.Sents[i]
		if strings.HasPrefix(s.Text, "Build the project") {
			if d.Blocks[s.Block].Kind == ListItem {
				step = s
			} else {
				para = s
			}
		}
	}
	if step == nil || para == nil {
		t.Fatalf("sentences not read: %+v", d.Sents)
	}
	if !step.OK || !strings.Contains(step.Code, "make zorb-release") {
		t.Errorf("the step is not quotable with its command: ok %v, code %q", step.OK, step.Code)
	}
	if para.OK {
		t.Errorf("a three-word paragraph is quotable: %q", para.Text)
	}
}

// Research's terms meet a word by its irregular forms ("speak" in a
// question, flite_file_to_speech in code).
func TestTermsMeetNamesAndWordForms(t *testing.T) {
	needLexicon(t)
	code := Terms("const cipher = createCipheriv(algorithm, key, iv); flite_file_to_speech(argv[1])")
	for _, q := range []string{"speak a file", "spoken"} {
		for _, w := range Terms(q) {
			if !slices.Contains(code, w) {
				t.Errorf("%q: term %q is not among %q", q, w, code)
			}
		}
	}
	if a, b := Terms("the children failed"), Terms("each child's failure"); !reflect.DeepEqual(a, []string{"child", "fail"}) || !slices.Contains(b, "child") || !slices.Contains(b, "fail") {
		t.Errorf("families: %q, %q", a, b)
	}
	// A clipped word is the word it clips: an "app" is an
	// "application".
	if a, b := Terms("the app's config dir struct"), Terms("application configuration directory structure"); !reflect.DeepEqual(a, b) {
		t.Errorf("clipped forms: %q, %q", a, b)
	}
	// A verb and its noun that the stemmer leaves apart: "describe" and
	// "descriptions", "extend" and "extension".
	if a, b := Terms("describe explain extend"), Terms("descriptions explanation extensions"); !reflect.DeepEqual(a, b) {
		t.Errorf("a verb and its noun: %q, %q", a, b)
	}
}

// A word spelt the British way is the word spelt the American way:
// Valgrind's manual writes "uninitialised" and "optimisation".
// Words whose "-ise" is their own stay, and keep meeting their family.
func TestBritishSpellingsMeetAmerican(t *testing.T) {
	needLexicon(t)
	for _, p := range [][2]string{
		{"uninitialised values", "uninitialized values"},
		{"compiler optimisation levels", "compiler optimization levels"},
		{"the behaviour of the colour centre", "the behavior of the color center"},
		{"recognised tags", "recognized tags"},
		{"a catalogue licence", "a catalog license"},
	} {
		if a, b := Terms(p[0]), Terms(p[1]); !reflect.DeepEqual(a, b) {
			t.Errorf("%q: %q, %q: %q", p[0], a, p[1], b)
		}
	}
	for _, p := range [][2]string{{"promised", "promise"}, {"precise", "precision"}, {"revised", "revision"}, {"your hours", "your hour"}} {
		if a, b := Terms(p[0]), Terms(p[1]); !reflect.DeepEqual(a, b) {
			t.Errorf("%q reads %q, %q reads %q", p[0], a, p[1], b)
		}
	}
	// Words whose "-ise" or "-our" is their own are read as the stemmer
	// reads them.
	for _, w := range []string{"noise", "praise", "wise", "advertiser", "promise", "hour", "tour", "four"} {
		if got, want := Terms(w), text.Terms(w); !reflect.DeepEqual(got, want) {
			t.Errorf("%q reads %q, want %q", w, got, want)
		}
	}
}

// A data table's rows are sentences of their own, each a statement of
// its header's names and its cells, which can be quoted; the page's
// kept lines of the row and the header are kept with it. The
// paragraphs on either side of the table are not read as one, and a
// table whose first row is data quotes none of its rows.
func TestTableRowsReadAsStatements(t *testing.T) {
	md := "# Numeric Types\n\nNumeric types consist of two-, four-, and eight-byte integers.\n\n**Table 8.2. Numeric Types**\n\n" +
		"| Name | Storage Size | Description | Range |\n| --- | --- | --- | --- |\n" +
		"| `smallint` | 2 bytes | small integer | -32768 to +32767 |\n" +
		"| `integer` | 4 bytes | typical choice for integer | -2147483648 to +2147483647 |\n\n" +
		"The syntax of constants for the numeric types is described elsewhere.\n\n" +
		"| smallint | 2 bytes |\n| --- | --- |\n| integer | 4 bytes |\n"
	d := ReadMarkdown(md, "Numeric Types")
	i := sentAt(t, d, "smallint — Storage Size: 2 bytes; Description: small integer; Range: -32768 to +32767.")
	s := d.Sents[i]
	blk := d.Blocks[s.Block]
	if blk.Kind != TableRow || !s.OK || blk.Row != "smallint | 2 bytes | small integer | -32768 to +32767" || blk.Head != "Name | Storage Size | Description | Range" {
		t.Errorf("row: kind %d, OK %v, row %q, head %q", blk.Kind, s.OK, blk.Row, blk.Head)
	}
	if slices.Contains(s.Toks, Terms("range")[0]) || !slices.Contains(s.Toks, "smallint") || !slices.Contains(s.Context, Terms("range")[0]) ||
		!slices.Contains(s.Context, Terms("numeric")[0]) || !slices.Equal(blk.Key, []string{"smallint"}) {
		t.Errorf("a row's words are its cells', its context its header's and the caption's, its key its first cell's: %v / %v / %v", s.Toks, s.Context, blk.Key)
	}
	if !strings.HasPrefix(s.Text, string(text.CodeOpen)+"smallint"+string(text.CodeClose)) {
		t.Errorf("a cell's code stays marked: %q", s.Text)
	}
	before := sentAt(t, d, "Numeric types consist of two-, four-, and eight-byte integers.")
	after := sentAt(t, d, "The syntax of constants for the numeric types is described elsewhere.")
	if after == before+1 || after == before+2 {
		t.Errorf("the paragraphs around the table read as neighbours: %d, %d", before, after)
	}
	for _, k := range []int{after + 1, after + 2} {
		if k >= len(d.Sents) || d.Blocks[d.Sents[k].Block].Kind != TableRow || d.Sents[k].OK {
			t.Fatalf("a headless table's rows are sentences that cannot be quoted: %+v", d.Sents[after:])
		}
	}
	if got := text.Unmark(d.Sents[after+1].Text); got != "smallint | 2 bytes" {
		t.Errorf("a headless table's row: %q", got)
	}
}
