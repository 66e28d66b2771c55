package text

import (
	"slices"
	"strings"
	"testing"
)

func TestSentenceBounds(t *testing.T) {
	got := Sentences("Most of the work goes into dealing with it. We begin with an example (see tests/tc14.c). In this case it deadlocks. " +
		"It reads e.g. robots.txt first. Dr. Who wrote it.\n3. The third step.")
	want := []string{"Most of the work goes into dealing with it.", "We begin with an example (see tests/tc14.c).",
		"In this case it deadlocks.", "It reads e.g. robots.txt first.", "Dr. Who wrote it.", "3. The third step."}
	if !slices.Equal(got, want) {
		t.Errorf("sentences:\n got %q\nwant %q", got, want)
	}
	// Plain text (an indexed .txt file) marks a heading only by a short
	// line of its own; a wrapped paragraph's first line is not one.
	got = Sentences("4. Interpreting Memcheck's output\nHere's an example C program, in a file called a.c, with a memory error and a leak.\n\n" +
		"The quick brown fox jumps over the lazy dog and then\nruns away into the forest.")
	want = []string{"4. Interpreting Memcheck's output", "Here's an example C program, in a file called a.c, with a memory error and a leak.",
		"The quick brown fox jumps over the lazy dog and then runs away into the forest."}
	if !slices.Equal(got, want) {
		t.Errorf("plain text:\n got %q\nwant %q", got, want)
	}
	// The extractor's text puts each list item on a short line of its
	// own; wrapped text breaks only full lines.
	got = Sentences("With pip there are two ways to do this:\nA regular install\nAn editable install\n\n" +
		"This is what should be used in CI systems and for deployments, since it\nmirrors how a package would get installed.")
	want = []string{"With pip there are two ways to do this:", "A regular install", "An editable install",
		"This is what should be used in CI systems and for deployments, since it mirrors how a package would get installed."}
	if !slices.Equal(got, want) {
		t.Errorf("list lines:\n got %q\nwant %q", got, want)
	}
	for s, ok := range map[string]bool{
		"leak reports will be produced, but each leak report will describe it.": false,
		"Leak reports will be produced for each block that leaked.":             true,
		"malloc_usable_size returns the usable size of the block.":              true,
		"--leak-check=full reports each leak in detail.":                        true,
		"Memcheck is a memory error detector":                                   false,
	} {
		if got := IsAnswerSentence(s, 5, 90); got != ok {
			t.Errorf("IsAnswerSentence(%q) = %v, want %v", s, got, ok)
		}
	}
}

// SentencesUnder gives each sentence the heading it sits under (markdown,
// or a short line of its own in plain text), marks a section's first
// sentence, and hands a short code block to the sentence before it,
// never into any sentence's text; every sentence a code block follows is
// marked so.
func TestSentencesUnder(t *testing.T) {
	src := "2.5 The Closure API\n\nlibffi also provides a way to write a generic function. This is useful.\n\n" +
		"## Voice selection\n\nAll voices sit in one list. You can select a voice from the command line\n\n" +
		"    flite -voice awb -f doc/alice\n\n    flite -voice slt -f doc/alice\n\nVoices may also be loaded from files.\n\n" +
		"```sh\nflite --help\n```\n\n# Long code\n\nThe whole program:\n\n```\n" + strings.Repeat("x();\n", MaxQuotedCode+1) + "```\n"
	got := SentencesUnder(src)
	want := []Placed{
		{Text: "libffi also provides a way to write a generic function.", Heading: "2.5 The Closure API", Lead: true},
		{Text: "This is useful.", Heading: "2.5 The Closure API"},
		{Text: "All voices sit in one list.", Heading: "Voice selection", Lead: true},
		{Text: "You can select a voice from the command line", Heading: "Voice selection",
			Code: "flite -voice awb -f doc/alice\n\nflite -voice slt -f doc/alice", BeforeCode: true},
		{Text: "Voices may also be loaded from files.", Heading: "Voice selection", Code: "flite --help", BeforeCode: true},
		{Text: "The whole program:", Heading: "Long code", Lead: true, BeforeCode: true}, // too long to quote
	}
	if !slices.Equal(got, want) {
		t.Errorf("SentencesUnder:\n got %+v\nwant %+v", got, want)
	}
}
