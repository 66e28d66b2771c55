package research

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/research/doc"
	"hark/gateway/web"
	"hark/gateway/web/webtest"
)

// Research is tested over the real web engine: the loopback site, the
// pages a test seeds, the web engine's extraction pages (webTestdata) and
// the question set with its corpus (testdata: questions.json, corpus/).
const webTestdata = "../web/testdata"

// corpusDir is the question set's pages, one folder per documentation set.
const corpusDir = "testdata/corpus"

type webEngine = web.Engine

// testEng is a research engine and the web engine it reads, on one
// database: a test crawls or seeds through the one and asks the other.
type testEng struct {
	*Engine
	*webEngine
}

func testDB(t testing.TB) *sql.DB { return webtest.DB(t) }

func newTestSite(t testing.TB) *webtest.Site { return webtest.NewSite(t) }

// over opens research on w, closed when the test ends.
func over(t testing.TB, db *sql.DB, w *web.Engine) *testEng {
	t.Helper()
	r, err := New(Config{DB: db, Index: w})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return &testEng{r, w}
}

// testEngine is an engine allowed to reach loopback, with small limits so
// the slow and huge pages fail fast.
func testEngine(t testing.TB, db *sql.DB) *testEng {
	t.Helper()
	if db == nil {
		db = testDB(t)
	}
	w, err := web.New(web.Config{DB: db, AllowPrivate: true, PageTimeout: 700 * time.Millisecond, MaxPageBytes: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	return over(t, db, w)
}

// corpusEngine is research over the question set's pages, indexed once
// per run of the package's tests (indexing them is most of a corpus
// test's time under -race) into a database in corpusTemp. The tests that
// share it only ask questions, which add nothing to the index, so they
// can run in parallel and read the same index as one engine each would.
func corpusEngine(t testing.TB) *testEng {
	t.Helper()
	corpus.once.Do(func() {
		db, err := sql.Open("sqlite", filepath.Join(corpusTemp, "corpus.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
		if err != nil {
			t.Fatal(err)
		}
		w, err := web.New(web.Config{DB: db, MaxPageBytes: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		r, err := New(Config{DB: db, Index: w})
		if err != nil {
			t.Fatal(err)
		}
		corpus.close = func() { r.Close(); w.Close(); db.Close() }
		webtest.IndexCorpus(t, corpusDir, func(dir string) (int, error) { return w.Index(context.Background(), dir) })
		corpus.e = &testEng{r, w}
	})
	if corpus.e == nil {
		t.Fatal("the corpus could not be indexed (the first test to ask says why)")
	}
	return corpus.e
}

// corpus is the one corpus engine; corpusTemp holds its database.
var (
	corpus struct {
		once  sync.Once
		e     *testEng
		close func()
	}
	corpusTemp string
)

func TestMain(m *testing.M) {
	var err error
	if corpusTemp, err = os.MkdirTemp("", "hark-research-test-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if corpus.close != nil {
		corpus.close()
	}
	os.RemoveAll(corpusTemp)
	os.Exit(code)
}

// page is what a test seeds the index with.
type page struct{ URL, Title, Text, Markdown string }

func seed(t testing.TB, e *testEng, pages ...*page) {
	t.Helper()
	for _, p := range pages {
		if err := e.Put(context.Background(), p.URL, p.Title, p.Text, p.Markdown); err != nil {
			t.Fatal(err)
		}
	}
}

// quotesFound runs research on input (model mini) and checks that the
// report holds want and that a recorded passage holding quote is found
// at its place in the page.
func quotesFound(t *testing.T, e *testEng, input, want, quote string) {
	t.Helper()
	out, err := e.Research(context.Background(), api.ResearchInput{Input: input, Model: "mini"})
	if err != nil || out.Status != api.ResearchCompleted {
		t.Fatalf("%v %+v", err, out)
	}
	if !strings.Contains(out.Content, want) {
		t.Errorf("the report lacks %q:\n%s", want, out.Content)
	}
	found := false
	for _, p := range out.Passages {
		if strings.Contains(p.Quote, quote) {
			found = p.Start >= 0
		}
	}
	if !found {
		t.Errorf("no passage holding %q is found in the page: %+v", quote, out.Passages)
	}
}

// readMarkdownDoc is a page's markdown read as a report's source.
func readMarkdownDoc(md, title string) *rdoc { return &rdoc{Page: doc.ReadMarkdown(md, title)} }

// readTextDoc is a page's plain text read as a report's source.
func readTextDoc(body, title string) *rdoc { return &rdoc{Page: doc.ReadText(body, title)} }
