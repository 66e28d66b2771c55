package web

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/extract/score"
)

func TestResearchEmptyIndexSaysSo(t *testing.T) {
	e := testEngine(t, nil)
	out, err := e.Research(context.Background(), api.ResearchInput{Input: "What is a sitemap?", Model: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != api.ResearchCompleted || out.RequestID == "" {
		t.Fatalf("%+v", out)
	}
	if !strings.Contains(out.Content, "local search index is empty") || !strings.Contains(out.Content, "hark index") {
		t.Errorf("report should say the index is empty and how to fill it: %q", out.Content)
	}
	if out.Sources == nil || len(out.Sources) != 0 {
		t.Errorf("sources = %#v", out.Sources)
	}
}

func TestResearchReport(t *testing.T) {
	site := newTestSite(t)
	e := testEngine(t, nil)
	if _, err := e.Crawl(context.Background(), api.CrawlInput{URL: site.URL, MaxDepth: 2, MaxBreadth: 50, Limit: 50}); err != nil {
		t.Fatal(err)
	}
	out, err := e.Research(context.Background(), api.ResearchInput{Input: "How does a polite crawler treat robots.txt, and what do sitemap indexes do?", Model: "pro"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != api.ResearchCompleted {
		t.Fatalf("status %s", out.Status)
	}
	c := out.Content
	for _, want := range []string{"# How does a polite crawler", "## Summary", "## Sources", "[1]", "1. [", "robots.txt", "sitemap indexes group"} {
		if !strings.Contains(c, want) {
			t.Errorf("report lacks %q:\n%s", want, c)
		}
	}
	if strings.Count(c, "\n## ") != 5 { // summary, two questions, method, sources
		t.Errorf("want a section per sub-question:\n%s", c)
	}
	if len(out.Sources) < 2 {
		t.Fatalf("sources: %+v", out.Sources)
	}
	for _, s := range out.Sources {
		if !strings.HasPrefix(s.URL, site.URL) && !strings.HasPrefix(s.URL, site.External) || s.Title == "" {
			t.Errorf("source %+v", s)
		}
	}
	// Every citation number names a listed source, and every listed
	// source is cited: the list s shows matches the report.
	for i := 1; i <= 9; i++ {
		cited := strings.Contains(c, "["+string(rune('0'+i))+"]")
		if cited && i > len(out.Sources) {
			t.Errorf("citation [%d] beyond %d sources", i, len(out.Sources))
		}
		if !cited && i <= len(out.Sources) {
			t.Errorf("source %d of %d is never cited:\n%s", i, len(out.Sources), c)
		}
	}
	// The task is persisted.
	again, err := e.ResearchTask(context.Background(), out.RequestID)
	if err != nil || again.Status != api.ResearchCompleted || again.Content != c {
		t.Errorf("persisted task: %v %+v", err, again)
	}

	// auto says what it chose, so the body and a saved header agree.
	auto, err := e.Research(context.Background(), api.ResearchInput{Input: "crawler politeness", Model: "auto"})
	if err != nil || !strings.Contains(auto.Content, "Model `auto`, which chose `mini`") {
		t.Errorf("auto: %v %+v", err, auto)
	}

	mini, err := e.Research(context.Background(), api.ResearchInput{Input: "crawler politeness", Model: "mini"})
	if err != nil || mini.Status != api.ResearchCompleted || len(mini.Sources) > 4 || !strings.Contains(mini.Content, "Model `mini`") {
		t.Errorf("mini: %v %+v", err, mini)
	}
	// The same question: pro reads more sources, in more rounds, than mini.
	q := "How do crawlers follow links, read robots.txt and sitemaps?"
	m2, err1 := e.Research(context.Background(), api.ResearchInput{Input: q, Model: "mini"})
	p2, err2 := e.Research(context.Background(), api.ResearchInput{Input: q, Model: "pro"})
	if err1 != nil || err2 != nil || len(p2.Sources) <= len(m2.Sources) || !strings.Contains(p2.Content, "Model `pro`: 3 search round(s)") || !strings.Contains(m2.Content, "Model `mini`: 1 search round(s)") {
		t.Errorf("pro should read more sources than mini: %v %v, %d vs %d", err1, err2, len(p2.Sources), len(m2.Sources))
	}
	none, err := e.Research(context.Background(), api.ResearchInput{Input: "volcanic xylophonists", Model: "mini"})
	if err != nil || none.Status != api.ResearchCompleted || !strings.Contains(none.Content, "No page found") {
		t.Errorf("no match: %v %+v", err, none)
	}
	if planFor("auto", "sitemaps").Model != "mini" || planFor("auto", "compare robots.txt handling in crawlers, and explain how sitemap indexes are read by search engines").Model != "pro" {
		t.Error("auto model choice")
	}
}

// blockingSearcher stands in for a slow backend.
type blockingSearcher struct{ release chan struct{} }

func (b blockingSearcher) Search(ctx context.Context, in api.SearchInput) (*api.SearchOutput, error) {
	select {
	case <-b.release:
		return &api.SearchOutput{Query: in.Query, Results: []api.SearchResult{}}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func TestResearchWaitEndsWithCtxAndTaskLivesOn(t *testing.T) {
	db := testDB(t)
	e := testEngine(t, db)
	bs := blockingSearcher{release: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	out, err := e.runResearch(ctx, api.ResearchInput{Input: "anything at all", Model: "mini"}, bs, false)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if out == nil || out.Status != api.ResearchInProgress || out.Content != "" {
		t.Fatalf("while running: %+v", out)
	}
	close(bs.release)
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := e.ResearchTask(context.Background(), out.RequestID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == api.ResearchCompleted {
			if !strings.Contains(got.Content, "No matching sources") {
				t.Errorf("content %q", got.Content)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task stuck in %s", got.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// A task left running by a stopped gateway is failed on the next start.
	if err := e.store.createResearch(context.Background(), "left-over", "q", "mini"); err != nil {
		t.Fatal(err)
	}
	e2 := testEngine(t, db)
	got, err := e2.ResearchTask(context.Background(), "left-over")
	if err != nil || got.Status != api.ResearchFailed || got.Content != "" {
		t.Errorf("left-over task: %v %+v", err, got)
	}
	if _, err := e2.ResearchTask(context.Background(), "nope"); err == nil {
		t.Error("unknown id accepted")
	}
}

func TestSubQuestions(t *testing.T) {
	got := subQuestions("How do crawlers read robots.txt? What do sitemap indexes contain; why use canonical URLs", 6)
	if len(got) != 4 || got[1] != "How do crawlers read robots.txt" {
		t.Errorf("%q", got)
	}
	if got := subQuestions("salt and pepper", 6); len(got) != 1 {
		t.Errorf("%q", got)
	}
}

func TestResearchReadsURLsInTheInput(t *testing.T) {
	site := newTestSite(t)
	e := testEngine(t, nil) // empty index
	out, err := e.Research(context.Background(), api.ResearchInput{Input: "What does " + site.URL + "/b say about sitemap indexes?", Model: "mini"})
	if err != nil || out.Status != api.ResearchCompleted {
		t.Fatalf("%v %+v", err, out)
	}
	if len(out.Sources) == 0 || out.Sources[0].URL != site.URL+"/b" || !strings.Contains(out.Content, "sitemap indexes group many sitemaps") {
		t.Errorf("named URL not used: %+v\n%s", out.Sources, out.Content)
	}
	if strings.Contains(out.Content, "index is empty") {
		t.Error("reported an empty index after reading the named URL")
	}
}

// A result that cannot be saved is an error, not a task stuck in progress.
func TestResearchSaveFailureIsAnError(t *testing.T) {
	db := testDB(t)
	e := testEngine(t, db)
	bs := blockingSearcher{release: make(chan struct{})}
	errc := make(chan error, 1)
	go func() {
		_, err := e.runResearch(context.Background(), api.ResearchInput{Input: "anything", Model: "mini"}, bs, false)
		errc <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var status string
		if err := db.QueryRow(`SELECT status FROM web_research`).Scan(&status); err == nil && status == api.ResearchInProgress {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("task never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := db.Exec(`DROP TABLE web_research`); err != nil {
		t.Fatal(err)
	}
	close(bs.release)
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "save the result") {
		t.Errorf("err = %v", err)
	}
}

// Research sentences come from prose only: never from a code block, and
// never a heading run into the sentence after it.
func TestResearchSentencesSkipCodeAndHeadings(t *testing.T) {
	files, _ := filepath.Glob("testdata/extract/*.html")
	checked := 0
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := parseHTML("http://docs.example/"+filepath.Base(f), body, "", time.Now(), extractOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// What a sentence cut across a block boundary would hold: two
		// lines of a code block run together, or a heading run into the
		// words after it.
		var glued []string
		blocks := strings.Split(p.Markdown, "\n\n")
		for i, blk := range blocks {
			switch {
			case strings.HasPrefix(blk, "```"):
				lines := strings.Split(strings.Trim(blk, "`\n"), "\n")
				for j := 1; j+1 < len(lines); j++ {
					a, b := strings.TrimSpace(lines[j]), strings.TrimSpace(lines[j+1])
					if a != "" && b != "" {
						glued = append(glued, a+" "+b)
					}
				}
			case strings.HasPrefix(blk, "#") && i+1 < len(blocks):
				words := strings.Fields(score.Unmark(blocks[i+1]))
				if len(words) > 3 {
					glued = append(glued, strings.TrimSpace(strings.TrimLeft(score.Unmark(blk), "#"))+" "+strings.Join(words[:3], " "))
				}
			}
		}
		for _, s := range sentences(p.Text) {
			if !isAnswerSentence(s, 5, 90) {
				continue
			}
			checked++
			for _, g := range glued {
				if strings.Contains(s, g) {
					t.Errorf("%s: sentence %q runs across blocks (%q)", filepath.Base(f), s, g)
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d sentences checked", checked)
	}
}
