package web

import (
	"database/sql"
	"testing"
	"time"

	"hark/gateway/research"
	"hark/gateway/web/webtest"
)

// The loopback site and the databases are webtest's, which research's
// tests read too.

func testDB(t testing.TB) *sql.DB { return webtest.DB(t) }

type testSite = webtest.Site

func newTestSite(t testing.TB) *testSite { return webtest.NewSite(t) }

const lorem = webtest.Lorem

func article(title, body, extraHead string) string { return webtest.Article(title, body, extraHead) }

// testEngine is an engine allowed to reach loopback, with small limits so
// the slow and huge pages fail fast.
func testEngine(t testing.TB, db *sql.DB) *Engine {
	t.Helper()
	if db == nil {
		db = testDB(t)
	}
	e, err := New(Config{DB: db, AllowPrivate: true, PageTimeout: 700 * time.Millisecond, MaxPageBytes: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// researchOn is research over e, as gateway/embedded wires it, closed
// when the test ends.
func researchOn(t testing.TB, e *Engine) *research.Engine {
	t.Helper()
	r, err := research.New(research.Config{DB: e.db, Index: e})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
