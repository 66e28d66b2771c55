package research

import (
	"context"
	"encoding/json"
	"testing"

	"hark/gateway/research/researchset"
	"hark/gateway/web"
	"hark/gateway/web/webtest"
)

// Research reads what the index stored when each page was indexed (its
// terms, for which pages a question's searches return) where a page has
// it, and the body where it does not (a page indexed before): the same
// questions over the same pages give byte-identical reports either way.
func TestStoredPassagesReadAsTheBody(t *testing.T) {
	t.Parallel()
	qs, err := researchset.Load("testdata/questions.json")
	if err != nil {
		t.Fatal(err)
	}
	step := 4
	if raceEnabled {
		step = 16
	}
	var some []researchset.Question
	for i, q := range qs {
		if i%step == 0 {
			some = append(some, q)
		}
	}
	db := testDB(t)
	w, err := web.New(web.Config{DB: db, MaxPageBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	webtest.IndexCorpus(t, corpusDir, func(dir string) (int, error) { return w.Index(context.Background(), dir) })
	var stored int
	if err := db.QueryRow(`SELECT count(*) FROM web_pages WHERE terms <> '' AND length(passages) > 0`).Scan(&stored); err != nil || stored == 0 {
		t.Fatalf("%d pages with their passages stored (%v)", stored, err)
	}
	reports := func() []string {
		// A research engine of its own each time: nothing read before is
		// kept between the two.
		r, err := New(Config{DB: db, Index: w})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		outs := askAll(t, &testEng{r, w}, some)
		var out []string
		for _, o := range outs {
			o.RequestID = ""
			b, err := json.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
		}
		return out
	}
	withStored := reports()
	if _, err := db.Exec(`UPDATE web_pages SET terms = '', heading_terms = '', passages = x''`); err != nil {
		t.Fatal(err)
	}
	fromBody := reports()
	for i := range withStored {
		if withStored[i] != fromBody[i] {
			t.Fatalf("%q: with stored passages\n%s\nread from the body\n%s", some[i].Question, withStored[i], fromBody[i])
		}
	}
	w.Close()
}
