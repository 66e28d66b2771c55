package lexicon

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hark/gateway/text"
)

var (
	fixtureWordNet  = filepath.Join("testdata", "wordnet")
	fixtureBritish  = filepath.Join("testdata", "dict", "british-english")
	fixtureAmerican = filepath.Join("testdata", "dict", "american-english")
)

func term(t *testing.T, w string) string {
	t.Helper()
	s, ok := text.Term(w)
	if !ok {
		t.Fatalf("%q has no term", w)
	}
	return s
}

// The reader reads WordNet's own format: lemmas by binary search in the
// index, synsets at their byte offsets, irregular forms from the
// exception lists.
func TestWordNetReadsTheDatabase(t *testing.T) {
	wn, err := OpenWordNet(fixtureWordNet)
	if err != nil {
		t.Fatal(err)
	}
	defer wn.Close()
	if !wn.Has("speak", Verb) || wn.Has("speak", Adv) || wn.Has("zzz", Noun) {
		t.Error("Has: the index lookup is wrong")
	}
	if got := wn.BaseForms("spoke", Verb); !slices.Equal(got, []string{"speak"}) {
		t.Errorf("BaseForms(spoke, verb) = %q, want [speak] (verb.exc)", got)
	}
	if got := wn.BaseForms("conversions", Noun); !slices.Equal(got, []string{"conversion"}) {
		t.Errorf("BaseForms(conversions, noun) = %q, want [conversion] (morphy's -s)", got)
	}
	if b, ok := wn.Irregular("children", Noun); !ok || b != "child" {
		t.Errorf("Irregular(children) = %q, %v", b, ok)
	}
	if syn := wn.Synonyms("speak", 2); !slices.Contains(syn, "talk") {
		t.Errorf("Synonyms(speak) = %q, want talk among them", syn)
	}
	var derived []string
	for _, r := range wn.Derived("speak") {
		derived = append(derived, r.Word)
	}
	if !slices.Contains(derived, "speech") || !slices.Contains(derived, "speaker") {
		t.Errorf("Derived(speak) = %q, want speech and speaker", derived)
	}
	if !wn.SameSynset("colour", "color") || wn.SameSynset("speak", "color") {
		t.Error("SameSynset is wrong")
	}
}

// A missing file is an error that names it.
func TestWordNetMissingFileIsNamed(t *testing.T) {
	dir := t.TempDir()
	_, err := OpenWordNet(dir)
	if err == nil || !strings.Contains(err.Error(), "index.noun") {
		t.Errorf("err = %v, want one naming index.noun", err)
	}
	// A synset line cut short is an error, not a panic.
	for _, ln := range []string{"", "00000001 30 v", "00000001 30 v 02 speak 0", "00000001 30 v 01 speak 0 002 + 1 n"} {
		if _, err := parseSynset([]byte(ln)); err == nil {
			t.Errorf("parseSynset(%q): no error", ln)
		}
	}
}

// Families join what the stemmer leaves apart, and nothing else: an
// irregular form, an abstract noun and its verb, a British
// spelling, a clipped form; not an agent noun, nor an adjective made
// from a noun, nor a form that is a word of its own.
func TestFamilies(t *testing.T) {
	l := Load(fixtureWordNet, fixtureBritish, fixtureAmerican)
	if len(l.Missing) > 0 {
		t.Fatal(l.Missing)
	}
	for from, to := range map[string]string{
		"spoke": "speak", "spoken": "speak", "speech": "speak", "children": "child", "conversion": "convert",
		"colour": "color", "centre": "center", "optimisation": "optimization",
		"uninitialised": "uninitialized", "licence": "license", "app": "application", "tmp": "temporary",
	} {
		if got, want := l.Family(term(t, from)), term(t, to); got != want {
			t.Errorf("Family(%q) = %q, want %q (%q's)", term(t, from), got, want, to)
		}
	}
	// "death" shares one letter with "die": a derivation shares two.
	for _, w := range []string{"speaker", "browser", "noise", "saw", "promise", "prise", "filled", "hour", "index", "death", "height"} {
		if got := l.Family(term(t, w)); got != term(t, w) {
			t.Errorf("Family(%q) = %q, want it unchanged", term(t, w), got)
		}
	}
}

// Spelling pairs come from matching the two lists: a pair needs a
// spelling difference and one side missing from the other list (or one
// synset).
func TestSpellingPairsFromLists(t *testing.T) {
	wn, err := OpenWordNet(fixtureWordNet)
	if err != nil {
		t.Fatal(err)
	}
	defer wn.Close()
	s, err := LoadSpelling(fixtureBritish, fixtureAmerican, wn)
	if err != nil {
		t.Fatal(err)
	}
	for b, a := range map[string]string{"colour": "color", "behaviour": "behavior", "centre": "center", "catalogue": "catalog",
		"licence": "license", "optimise": "optimize", "travelled": "traveled", "uninitialised": "uninitialized"} {
		if got, ok := s.American(b); !ok || got != a {
			t.Errorf("American(%q) = %q, %v; want %q", b, got, ok, a)
		}
		if v := s.Variants(a); !slices.Contains(v, b) {
			t.Errorf("Variants(%q) = %q, want %q among them", a, v, b)
		}
	}
	for _, b := range []string{"prise", "filled", "promise", "hour"} {
		if a, ok := s.American(b); ok {
			t.Errorf("American(%q) = %q; both lists hold both words", b, a)
		}
	}
	if _, err := LoadSpelling(filepath.Join(t.TempDir(), "none"), fixtureAmerican, nil); err == nil {
		t.Error("a missing list is no error")
	}
}

// A British word no list holds is read by the endings the lists'
// pairs teach ("-ise" is "-ize"), unless the lists hold its stem as a
// word of its own ("promise").
func TestSpellingEndingsLearnt(t *testing.T) {
	dir := t.TempDir()
	verbs := []string{"normal", "final", "local", "legal", "total", "vital", "real"}
	var brit, amer []string
	for _, v := range verbs {
		for _, end := range []string{"ise", "ised", "ises"} {
			brit = append(brit, v+end)
			amer = append(amer, v+strings.Replace(end, "s", "z", 1))
		}
	}
	brit = append(brit, "promise", "promised", "hour")
	amer = append(amer, "promise", "promised", "hour")
	bp, ap := filepath.Join(dir, "british"), filepath.Join(dir, "american")
	if err := os.WriteFile(bp, []byte(strings.Join(brit, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ap, []byte(strings.Join(amer, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	l := Load(filepath.Join(dir, "no-wordnet"), bp, ap)
	for b, a := range map[string]string{"vectorised": "vectorized", "tokenisation": "tokenization", "cannibalising": "cannibalizing"} {
		if got, want := l.Family(term(t, b)), l.Family(term(t, a)); got != want {
			t.Errorf("%q reads %q, %q reads %q", b, got, a, want)
		}
	}
	for _, w := range []string{"promise", "promised", "hours", "vector"} {
		if got := l.Family(term(t, w)); got != term(t, w) {
			t.Errorf("%q reads %q, want its own term", w, got)
		}
	}
}

// Without the resources the lexicon still answers, with the clipped
// forms it ships, and says what is missing.
func TestLoadWithoutResources(t *testing.T) {
	dir := t.TempDir()
	l := Load(dir, filepath.Join(dir, "b"), filepath.Join(dir, "a"))
	if len(l.Missing) != 2 {
		t.Errorf("Missing = %q, want WordNet and the word lists", l.Missing)
	}
	if got := l.Family(term(t, "config")); got != term(t, "configuration") {
		t.Errorf("Family(config) = %q", got)
	}
	if got := l.Family(term(t, "speech")); got != term(t, "speech") {
		t.Errorf("Family(speech) = %q without WordNet", got)
	}
	for _, src := range []Source{Synonym, Derived, Spelling} {
		if e := l.Expand("speak", src); e != nil {
			t.Errorf("Expand(speak, %v) = %v without resources", src, e)
		}
	}
}

// What is missing is said once, as a warning naming the files and the
// packages that bring them.
func TestMissingIsLogged(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	dir := t.TempDir()
	loadLogged(dir, filepath.Join(dir, "british-english"), filepath.Join(dir, "american-english"), log)
	out := buf.String()
	if strings.Count(out, "level=WARN") != 1 {
		t.Fatalf("want one warning, got %q", out)
	}
	for _, want := range []string{"index.noun", "british-english", "wordnet-base"} {
		if !strings.Contains(out, want) {
			t.Errorf("the warning does not name %s: %q", want, out)
		}
	}
	buf.Reset()
	loadLogged(fixtureWordNet, fixtureBritish, fixtureAmerican, log)
	if strings.Contains(buf.String(), "level=WARN") {
		t.Errorf("a warning with every file present: %q", buf.String())
	}
}

// Expand gives one source's terms, in the families' form, weighted.
func TestExpand(t *testing.T) {
	l := Load(fixtureWordNet, fixtureBritish, fixtureAmerican)
	syn := l.Expand("speak", Synonym)
	if len(syn) == 0 || syn[0].Weight != 1 || syn[0].Source != Synonym {
		t.Fatalf("Expand(speak, Synonym) = %v", syn)
	}
	for i := 1; i < len(syn); i++ {
		if syn[i].Weight >= syn[i-1].Weight {
			t.Errorf("synonym weights do not fall: %v", syn)
		}
	}
	if !slices.ContainsFunc(syn, func(e Expansion) bool { return e.Term == term(t, "talk") }) {
		t.Errorf("talk is not a synonym of speak: %v", syn)
	}
	der := l.Expand("speak", Derived)
	// "speech" is speak's own family; "speaker" is another term.
	if slices.ContainsFunc(der, func(e Expansion) bool { return e.Term == term(t, "speak") }) ||
		!slices.ContainsFunc(der, func(e Expansion) bool { return e.Term == term(t, "speaker") }) {
		t.Errorf("Expand(speak, Derived) = %v", der)
	}
	if sp := l.Expand("colour", Spelling); len(sp) != 0 {
		t.Errorf("Expand(colour, Spelling) = %v: the families read both spellings as one already", sp)
	}
}

// RM3 weighs the terms of the better documents more, leaves out the
// query's own and those of one document only, and its weights sum to
// one half.
func TestRM3(t *testing.T) {
	docs := []Doc{
		{Terms: []string{"voic", "festiv", "synthes", "festiv", "unique"}, Score: 3},
		{Terms: []string{"voic", "festiv", "diphon"}, Score: 2},
		{Terms: []string{"voic", "diphon", "other"}, Score: 1},
	}
	got := RM3([]string{"voic"}, docs, 5)
	if len(got) != 2 || got[0].Term != "festiv" || got[1].Term != "diphon" {
		t.Fatalf("RM3 = %v, want festiv then diphon", got)
	}
	sum := 0.0
	for _, e := range got {
		sum += e.Weight
		if e.Source != Feedback {
			t.Errorf("source %v", e.Source)
		}
	}
	if sum < 0.4999 || sum > 0.5001 {
		t.Errorf("weights sum to %v, want 0.5", sum)
	}
	if RM3(nil, nil, 5) != nil || RM3([]string{"x"}, docs, 0) != nil {
		t.Error("no documents or no terms asked: want nil")
	}
	// Scores of zero weigh the documents alike.
	if got := RM3(nil, []Doc{{Terms: []string{"a", "b"}}, {Terms: []string{"b"}}}, 5); len(got) != 1 || got[0].Term != "b" {
		t.Errorf("RM3 with zero scores = %v", got)
	}
}

// Debian's files, where installed (the set-up installs them; CI has
// them): the families research relies on.
func TestDebianLexicon(t *testing.T) {
	if _, err := os.Stat(filepath.Join(WordNetDir, "data.noun")); err != nil {
		t.Skip("wordnet-base is not installed")
	}
	l := Default()
	if len(l.Missing) > 0 {
		t.Fatal(l.Missing)
	}
	for from, to := range map[string]string{
		"spoke": "speak", "speech": "speak", "children": "child", "mice": "mouse", "description": "describe",
		"extension": "extend", "explanation": "explain", "failure": "fail", "written": "write",
		"colour": "color", "optimisation": "optimization",
		"behaviour": "behavior", "recognised": "recognized", "analyse": "analyze", "licence": "license",
		"catalogue": "catalog", "travelled": "traveled", "centre": "center",
		// No list holds these: the endings learnt from the pairs read them.
		"vectorised": "vectorized", "tokenisation": "tokenization", "deserialised": "deserialized",
	} {
		if got, want := l.Family(term(t, from)), l.Family(term(t, to)); got != want {
			t.Errorf("%q reads %q, %q reads %q", from, got, to, want)
		}
	}
	// Words of their own: an agent, a noun WordNet's corpus attests
	// ("bit", "left"), a stem another lemma has ("rang" of "range",
	// "process" of "processing", "convers" of "converse").
	for _, w := range []string{"speaker", "browser", "noise", "saw", "found", "bases", "data", "promise", "precise", "exercise",
		"hour", "tour", "bit", "left", "range", "process", "remote", "test", "conversion", "use", "speed"} {
		if got := l.Family(term(t, w)); got != term(t, w) {
			t.Errorf("%q reads %q, want its own term", w, got)
		}
	}
}
