package research

import (
	"slices"
	"testing"

	"hark/gateway/research/doc"
	"hark/gateway/text"
	"hark/gateway/text/lexicon"
)

// needLexicon skips a test of word families on a machine without
// Debian's wordnet-base, wbritish and wamerican (scripts/setup.sh
// installs them, so CI has them).
func needLexicon(t *testing.T) {
	t.Helper()
	if m := lexicon.Default().Missing; len(m) > 0 {
		t.Skipf("lexicon resources missing: %v", m)
	}
}

// A name written as one word ("Node.js", "SHA-256") asks a quote for no
// more than a word does: four written words ask for two of them.
func TestAnswersCountWrittenWords(t *testing.T) {
	a := newAsk("How do I encrypt data with AES in Node.js?", nil, false)
	if n := writtenWords(a.query); n != 4 {
		t.Errorf("writtenWords = %d, want 4", n)
	}
	if !a.answers(doc.Terms("Instances of the Cipher class are used to encrypt data.")) {
		t.Error("two of the four words do not answer")
	}
	if a.answers(doc.Terms("The Crypto module handles binary data.")) {
		t.Error("one of the four words answers")
	}
	// One or two written words ask for all their terms.
	if b := newAsk("zb.freeflux()", nil, false); b.answers(doc.Terms("zb.totalflux() returns the total flux.")) {
		t.Error("zb.totalflux() answers zb.freeflux()")
	}
}

// What a how-to question asks to do is asked, even in a word that
// elsewhere says how to answer: "compare" of "How do I compare two
// secret tokens" is what the answer does ("This is suitable for
// comparing HMAC digests …"); of "Compare memcheck and massif" it is not.
func TestHowToActionIsAsked(t *testing.T) {
	cmp, _ := text.Term("compare")
	for q, want := range map[string]bool{
		"How do I compare two secret tokens in Node.js?":      true,
		"Compare memcheck and massif":                         false,
		"What is the difference between memcheck and massif?": false,
	} {
		if got := slices.Contains(answerTerms(q), cmp); got != want {
			t.Errorf("%q: compare asked %v, want %v (terms %q)", q, got, want, answerTerms(q))
		}
	}
	use, _ := text.Term("use")
	if slices.Contains(answerTerms("How do I use massif?"), use) {
		t.Errorf(`"use" is asked of "How do I use massif?"`)
	}
	list, _ := text.Term("list")
	if !slices.Contains(answerTerms("How do I list the voices espeak-ng has?"), list) {
		t.Errorf(`"list" is not asked of "How do I list the voices espeak-ng has?"`)
	}
}

// A question for the flag or option that does a thing, or whether there
// is a way to do it, asks how to do it: its answer is a command, an
// option or an example, as a how-to's is.
func TestWhichFlagAsksHow(t *testing.T) {
	for q, want := range map[string]bool{
		"Which linker flag do I need when compiling a program that uses the zorb library?": true,
		"What option makes the tool quieter?":                                              true,
		"Which valgrind tool finds data races besides Helgrind?":                           false,
		"What is the zorb engine?":                                                         false,
		"Is there a ready-made way to define a zorb type for a custom complex type?":       true,
		"Is there a zorb engine on Windows?":                                               false,
	} {
		if got := newAsk(q, nil, false).how; got != want {
			t.Errorf("%q: how %v, want %v", q, got, want)
		}
	}
}

// A key chord is one term as well as its key's: "Ctrl+C" is not "the
// Ctrl key".
func TestKeyChordIsOneTerm(t *testing.T) {
	q := doc.Terms("How do I catch Ctrl+C in a prompt?")
	chord := doc.Terms("The input stream receives a Ctrl-C input.")
	key := doc.Terms("true to indicate the Ctrl key")
	if matched(q, chord) <= matched(q, key) {
		t.Errorf("Ctrl+C meets %q no better than %q (question %q)", chord, key, q)
	}
}

// A compiler's optimisation flag is read with the words it stands for:
// "-O0" answers "which optimisation level", "-o out" does not.
func TestOptimisationFlagIsALevel(t *testing.T) {
	q := doc.Terms("Which compiler optimisation level should I use with zorb?")
	for _, s := range []string{"Compile with option -O1 instead of -O0.", "A reasonable compromise is to use -O.", "Build with \x01-Os\x02 for size."} {
		if got := doc.Terms(s); !containsAll(got, doc.Terms("optimization level")) || matched(q, got) < 2 {
			t.Errorf("%q reads as %q", s, got)
		}
	}
	for _, s := range []string{"Write the binary with -o zorb.", "Pass --Output to zorb.", "Zorb-O2 is a model name."} {
		if got := doc.Terms(s); slices.Contains(got, "level") {
			t.Errorf("%q reads as a level: %q", s, got)
		}
	}
}

// A how-to's example holds the question's words in what it does, not
// in its language's syntax: `struct tm { … }` does not show how to
// define a structure type in libffi, `tm_type.type = FFI_TYPE_STRUCT`
// does.
func TestCodeKeywordsShowNothing(t *testing.T) {
	a := newAsk("how do I define a structure type in libffi?", nil, false)
	plain := &doc.Sentence{Code: "struct tm {\n    int tm_sec;\n    long int __tm_gmtoff__;\n};"}
	describes := &doc.Sentence{Code: "ffi_type tm_type;\ntm_type.type = FFI_TYPE_STRUCT;"}
	if howCode(a, plain) {
		t.Errorf("a C struct's syntax answers %q", a.query)
	}
	if !howCode(a, describes) {
		t.Errorf("ffi_type's setup does not answer %q", a.query)
	}
}

// A question's expansions come from each source apart, as terms, and
// leave out the question's own terms.
func TestQuestionExpansions(t *testing.T) {
	needLexicon(t)
	got := expansions("How do I speak a colour file?")
	own := doc.Terms("How do I speak a colour file?")
	bySource := map[lexicon.Source][]string{}
	for _, e := range got {
		if slices.Contains(own, e.Term) {
			t.Errorf("%v expands to the question's own term %q", e.Source, e.Term)
		}
		if e.Weight <= 0 || e.Weight > 1 {
			t.Errorf("%v: weight %v out of (0, 1]", e, e.Weight)
		}
		bySource[e.Source] = append(bySource[e.Source], e.Term)
	}
	if talk, _ := text.Term("talk"); !slices.Contains(bySource[lexicon.Synonym], talk) {
		t.Errorf("synonyms %q: want talk (speak's)", bySource[lexicon.Synonym])
	}
	if speaker, _ := text.Term("speaker"); !slices.Contains(bySource[lexicon.Derived], speaker) {
		t.Errorf("derived %q: want speaker (speak's)", bySource[lexicon.Derived])
	}
}

// The word lists come from words.txt whole: each list's words, no
// comment read as a word, and a list the file lacks is refused.
func TestWordLists(t *testing.T) {
	if got := len(wordList("code_keywords")); got != 54 {
		t.Errorf("code_keywords has %d words, want 54", got)
	}
	if !codeKeywords()[doc.Terms("struct")[0]] || codeKeywords()["#"] {
		t.Error("words.txt's lists are not read as written")
	}
	defer func() {
		if recover() == nil {
			t.Error("a list words.txt lacks was not refused")
		}
	}()
	wordList("no_such_list")
}
