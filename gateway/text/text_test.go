package text

import (
	"database/sql"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// TestStemAgreesWithFTS5 stems every word of real manual pages with Stem
// and with the index's own tokenizer (FTS5 "porter unicode61
// remove_diacritics 2", read back through fts5vocab) and requires the
// same term for each: a word research ranks must be the word the index
// matched.
func TestStemAgreesWithFTS5(t *testing.T) {
	t.Parallel()
	words := map[string]bool{}
	for _, w := range strings.Fields(`tune tuning tuned tunes zorblax caresses ponies ties caress cats feed agreed
plastered bled motoring sing conflated troubled sized hopping tanned falling hissing fizzed failing filing happy sky
relational conditional rational valenci hesitanci digitizer conformabli radicalli differentli vileli analogousli
vietnamization predication operator feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti
triplicate formative formalize electriciti electrical hopeful goodness revival allowance inference airliner gyroscopic
adjustable defensible irritant replacement adjustment dependent adoption homologou communism activate angulariti
homologous effective bowdlerize probate rate cease controll roll generalization oscillators arguing archaeology
logical biology measurement agreement crying yelling cafés naïve über`) {
		words[w] = true
	}
	tag := regexp.MustCompile(`<[^>]*>`)
	files, _ := filepath.Glob("../research/testdata/corpus/valgrind/*.html")
	if len(files) == 0 {
		t.Fatal("no pages to read words from")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range Words(tag.ReplaceAllString(string(b), " ")) {
			words[w] = true
		}
	}
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE VIRTUAL TABLE f USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(f, 'instance')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	tx, _ := db.Begin()
	list := make([]string, 0, len(words))
	for w := range words {
		if _, err := tx.Exec(`INSERT INTO f(rowid, x) VALUES (?, ?)`, len(list)+1, w); err != nil {
			t.Fatal(err)
		}
		list = append(list, w)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT doc, term FROM v`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n, bad := 0, 0
	for rows.Next() {
		var doc int
		var term string
		if err := rows.Scan(&doc, &term); err != nil {
			t.Fatal(err)
		}
		w := list[doc-1]
		n++
		if got := Stem(Words(w)[0]); got != term {
			bad++
			if bad <= 30 {
				t.Errorf("Stem(%q) = %q, FTS5 has %q", w, got, term)
			}
		}
	}
	if n < 2000 {
		t.Errorf("only %d words compared", n)
	}
	t.Logf("%d words compared, %d differ", n, bad)
}

// TestTermsMeetWordForms: "how do I tune zorblax?" and "The zorblax
// engine is tuned by …" share their terms.
func TestTermsMeetWordForms(t *testing.T) {
	q, d := Terms("how do I tune zorblax?"), Terms("The zorblax engine is tuned by setting")
	if Coverage(q, d) != 1 {
		t.Errorf("terms %v do not meet %v", q, d)
	}
	if got := CoverageOf(q, "The zorblax engine is tuned by setting"); got != 1 {
		t.Errorf("CoverageOf = %v", got)
	}
}

func TestSplit(t *testing.T) {
	for in, want := range map[string][]string{
		"Use e.g. valgrind. It works.":                        {"Use e.g. valgrind.", "It works."},
		"Run \x01a.out. x\x02 now. Then stop.":                {"Run \x01a.out. x\x02 now.", "Then stop."},
		"See (Actually, it merges. The option lets you). Ok.": {"See (Actually, it merges. The option lets you).", "Ok."},
		"Dr. J. Smith wrote it. Fine!":                        {"Dr. J. Smith wrote it.", "Fine!"},
	} {
		if got := Split(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Split(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRank(t *testing.T) {
	idx, scores := Rank("tuning zorblax", []string{"nothing here", "how to tune the zorblax engine", "zorblax"})
	if idx[0] != 1 || scores[0] != 0 {
		t.Errorf("Rank = %v %v", idx, scores)
	}
}

// "sha256" in code meets "SHA-256" in a question.
func TestTermsSplitLettersFromDigits(t *testing.T) {
	q, d := Terms("compute a SHA-256 hash"), Terms("createHash('sha256')")
	if Coverage(q[1:3], d) != 1 {
		t.Errorf("%v does not meet %v", q, d)
	}
	if got := Terms("utf8 v8 x86_64"); !reflect.DeepEqual(got, []string{"utf8", "utf", "8", "v8", "8", "x86", "86", "64"}) {
		t.Errorf("Terms = %q", got)
	}
}

// TestPresentIsTermsOfTheText: Present, which skips words whose first
// letter opens no query term, finds exactly the query terms that are the
// Term of a word of the text, on real pages, for runs of their words
// taken as queries.
func TestPresentIsTermsOfTheText(t *testing.T) {
	t.Parallel()
	tag := regexp.MustCompile(`<[^>]*>`)
	files, _ := filepath.Glob("../research/testdata/corpus/valgrind/*.html")
	if len(files) < 3 {
		t.Fatal("no pages to read")
	}
	for _, f := range files[:3] {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		page := tag.ReplaceAllString(string(b), " ") + " Über ÉCLAIRS happily Relational RUNNING ayed"
		have := map[string]bool{}
		words := Words(page)
		for _, w := range words {
			if t, ok := Term(w); ok {
				have[t] = true
			}
		}
		queries := [][]string{Terms("über eclair happy relate run ayed zzz")}
		for i := 0; i+4 < len(words); i += 401 {
			queries = append(queries, Terms(strings.Join(words[i:i+4], " ")+" nowhereword"))
		}
		for _, q := range queries {
			want := map[string]bool{}
			for _, w := range q {
				if have[w] {
					want[w] = true
				}
			}
			if got := Present(q, page); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: Present(%q) = %v, want %v", filepath.Base(f), q, got, want)
			}
		}
	}
}

// IDF is the weight Score gives a term: a term fewer documents hold
// weighs more, one none holds nothing.
func TestBM25IDF(t *testing.T) {
	ix := NewBM25([][]string{{"libffi", "complex"}, {"libffi", "function"}, {"libffi", "function"}})
	if c, f, l := ix.IDF("complex"), ix.IDF("function"), ix.IDF("libffi"); !(c > f && f > l && l > 0) {
		t.Errorf("IDF complex %.3f, function %.3f, libffi %.3f: want falling, all above 0", c, f, l)
	}
	if v := ix.IDF("absent"); v != 0 {
		t.Errorf("IDF of a term no document holds = %.3f, want 0", v)
	}
	// A document of average length holding the term once scores its IDF.
	if one := ix.Score([]string{"complex"}); math.Abs(one[0]-ix.IDF("complex")) > 1e-9 {
		t.Errorf("Score %.4f and IDF %.4f disagree", one[0], ix.IDF("complex"))
	}
}

func TestNameParts(t *testing.T) {
	for in, want := range map[string][]string{
		"fs.appendFile(path, data[, options], callback)": {"append", "file"},
		"emitter.prependListener(eventName, listener)":   {"prepend", "listen", "event", "name"},
		"os.uptime()":                         nil,
		"HTTPServer and ffi_prep_closure_loc": nil,
	} {
		if got := NameParts(in); !slices.Equal(got, want) {
			t.Errorf("NameParts(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRespell(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"whisper", "wisper", true}, {"colour", "color", true}, {"recieve", "receive", true}, {"abc", "abd", true},
		{"form", "fork", true}, {"abc", "abc", false}, {"whisper", "whisk", false}, {"abcd", "badc", false},
	} {
		if got := OneEdit(c.a, c.b); got != c.want {
			t.Errorf("OneEdit(%q, %q) = %v", c.a, c.b, got)
		}
	}
	ix := NewBM25([][]string{{"wisper", "voic"}, {"wisper"}, {"fork"}, {"whisker"}})
	if got, ok := ix.Respell("whisper"); !ok || got != "wisper" {
		t.Errorf("Respell(whisper) = %q, %v", got, ok)
	}
	if _, ok := ix.Respell("wisper"); ok {
		t.Error("a term the documents hold is respelled")
	}
	if _, ok := ix.Respell("form"); ok {
		t.Error("a four-letter term is respelled")
	}
}
