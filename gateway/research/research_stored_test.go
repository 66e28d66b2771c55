package research

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/research/doc"
	"hark/gateway/research/researchset"
	"hark/gateway/web"
	"hark/gateway/web/webtest"
)

// Research reads what the index stored when each page was indexed (its
// terms, for which pages a question's searches return, and research's
// parse of the page) where a page has it, and the body where it does not (a page indexed before): the same
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
	w, err := web.New(web.Config{DB: db, MaxPageBytes: 1 << 20, Parse: doc.Parse})
	if err != nil {
		t.Fatal(err)
	}
	webtest.IndexCorpus(t, corpusDir, func(dir string) (int, error) { return w.Index(context.Background(), dir) })
	var stored int
	if err := db.QueryRow(`SELECT count(*) FROM web_pages WHERE terms <> '' AND length(passages) > 0`).Scan(&stored); err != nil || stored == 0 {
		t.Fatalf("%d pages with their passages stored (%v)", stored, err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM web_pages WHERE length(parsed) > 0`).Scan(&stored); err != nil || stored == 0 {
		t.Fatalf("%d pages with research's parse stored (%v)", stored, err)
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
	// A page whose terms are read from its body is one indexed before
	// they were stored, and so before the index kept data tables: the
	// pages with tables keep theirs, whose terms are their prose's
	// (web's TestStoredPassagesReadAsTheBody). Every page is parsed anew.
	if _, err := db.Exec(`UPDATE web_pages SET terms = '', heading_terms = '', passages = x'' WHERE markdown NOT LIKE '%| --- |%'`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE web_pages SET parsed = x''`); err != nil {
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

// A page's stored parse reads back as the page parsed anew, for every
// page of the corpus; one cut short is not read (doc's tests hold the
// codec to other damage).
func TestStoredDocsReadAsParsed(t *testing.T) {
	t.Parallel()
	db := testDB(t)
	w, err := web.New(web.Config{DB: db, MaxPageBytes: 1 << 20, Parse: doc.Parse})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	webtest.IndexCorpus(t, corpusDir, func(dir string) (int, error) { return w.Index(context.Background(), dir) })
	rows, err := db.Query(`SELECT url FROM web_pages`)
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			t.Fatal(err)
		}
		urls = append(urls, u)
	}
	rows.Close()
	if len(urls) == 0 {
		t.Fatal("no pages indexed")
	}
	for _, u := range urls {
		title, body, md, parsed, err := w.Kept(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := doc.Decode(parsed)
		if !ok {
			t.Fatalf("%s: the stored parse (%d bytes) is not read", u, len(parsed))
		}
		want := doc.ReadText(body, title)
		if md != "" {
			want = doc.ReadMarkdown(md, title)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: the stored parse reads as\n%+v\nthe page parsed anew\n%+v", u, got, want)
		}
		if _, ok := doc.Decode(parsed[:len(parsed)-1]); ok {
			t.Fatalf("%s: a parse cut short is read", u)
		}
	}
}

// A page research fetches comes back with the parse its indexing worked
// out, and the report is the one research writes parsing it itself.
func TestFetchedPagesComeParsed(t *testing.T) {
	site := newTestSite(t)
	ctx := context.Background()
	report := func(parse func(title, text, markdown string) []byte) string {
		db := testDB(t)
		w, err := web.New(web.Config{DB: db, AllowPrivate: true, PageTimeout: 700 * time.Millisecond, MaxPageBytes: 256 << 10, Parse: parse})
		if err != nil {
			t.Fatal(err)
		}
		e := over(t, db, w)
		if parse != nil {
			_, title, body, md, parsed, err := w.Read(ctx, site.URL+"/b")
			if err != nil {
				t.Fatal(err)
			}
			got, ok := doc.Decode(parsed)
			want := doc.ReadText(body, title)
			if md != "" {
				want = doc.ReadMarkdown(md, title)
			}
			if !ok || !reflect.DeepEqual(got, want) {
				t.Fatalf("the fetched page's parse (%v) reads as\n%+v\nthe page parsed\n%+v", ok, got, want)
			}
		}
		out, err := e.Research(ctx, api.ResearchInput{Input: "What does " + site.URL + "/b say about sitemap indexes?", Model: "mini"})
		if err != nil || out.Status != api.ResearchCompleted {
			t.Fatalf("%v %+v", err, out)
		}
		out.RequestID = ""
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if with, without := report(doc.Parse), report(nil); with != without {
		t.Fatalf("with the parse stored\n%s\nwithout\n%s", with, without)
	}
}
