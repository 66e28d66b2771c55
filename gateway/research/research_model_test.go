package research

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/engine"
	"hark/gateway/model"
	"hark/gateway/model/modeltest"
	"hark/gateway/text"
)

// memcheckPages are three small pages about one question.
var memcheckPages = []*page{
	{URL: "https://docs.example/valgrind/quick-start", Title: "The Valgrind Quick Start Guide", Markdown: `# The Valgrind Quick Start Guide

## Running your program under Memcheck

To find memory leaks, run your program under Memcheck with valgrind --leak-check=yes myprog arg1 arg2. The --leak-check option turns on the detailed memory leak detector.

Your program will run much slower (eg. 20 to 30 times) than normal, and use a lot more memory.
`},
	{URL: "https://docs.example/valgrind/memcheck", Title: "Memcheck: a memory error detector", Markdown: `# Memcheck: a memory error detector

## Memory leak detection

Memcheck keeps track of all heap blocks issued in response to calls to malloc and new. When the program exits, it knows which blocks have not been freed. If --leak-check is set appropriately, for each remaining block, Memcheck determines if the block is reachable from pointers within the root-set.
`},
}

// honestWriter quotes the first sentence of each source, citing it.
func honestWriter(r modeltest.Request) modeltest.Reply {
	ps := modeltest.Passages(r.User)
	var ns []int
	for n := range ps {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	var b strings.Builder
	for _, n := range ns {
		lines := strings.SplitN(ps[n], "\n", 2) // the title, then the passages
		if len(lines) < 2 {
			continue
		}
		s := text.Sentences(lines[1])
		if len(s) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s [%d]. ", strings.TrimSuffix(s[0], "."), n)
	}
	return modeltest.Reply{Text: strings.TrimSpace(b.String()), Chunk: 9}
}

func writtenEngine(t *testing.T, srv *modeltest.Server, edit ...func(*model.Config)) *testEng {
	t.Helper()
	cfg := model.Config{Provider: model.ProviderOpenAI, BaseURL: srv.BaseURL(), APIKey: modeltest.Key, Chat: modeltest.ChatModel}
	for _, f := range edit {
		f(&cfg)
	}
	c, err := model.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := testEngine(t, nil)
	e.cfg.Writer = c
	for _, p := range memcheckPages {
		pg := *p
		pg.Text = strings.ReplaceAll(pg.Markdown, "#", "")
		seed(t, e, &pg)
	}
	return e
}

func research39(t *testing.T, e *testEng, ctx context.Context, strict ...bool) *api.ResearchOutput {
	t.Helper()
	out, err := e.Research(ctx, api.ResearchInput{Input: "How do I find memory leaks with Memcheck?", Model: "mini", Strict: len(strict) > 0 && strict[0]})
	if err != nil || out.Status != api.ResearchCompleted {
		t.Fatalf("%v %+v", err, out)
	}
	return out
}

func TestWrittenReportChecksEverySentence(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewOpenAI(t)
	srv.Write(honestWriter)
	e := writtenEngine(t, srv)
	var progress []string
	ctx := engine.WithProgress(context.Background(), func(m string) { progress = append(progress, m) })
	out := research39(t, e, ctx)
	if !strings.Contains(out.Content, "*Written by fake-writer (openai): 2 of 2 sentences supported by their passages.*") {
		t.Fatalf("report:\n%s", out.Content)
	}
	if strings.Contains(out.Content, "unsupported") || len(out.Sources) != 2 || len(out.Passages) == 0 {
		t.Fatalf("report:\n%s\n%+v", out.Content, out.Sources)
	}
	req := srv.Requests()
	if len(req) != 1 || !strings.Contains(req[0].User, "[1] ") || !strings.Contains(req[0].System, "cite") {
		t.Fatalf("requests %+v", req)
	}
	checks := 0
	for _, p := range progress {
		if strings.HasPrefix(p, "✓ ") {
			checks++
		}
	}
	if checks != 2 {
		t.Fatalf("progress %q: want each sentence's check as it ended", progress)
	}
}

func carelessWriter(r modeltest.Request) modeltest.Reply {
	rep := honestWriter(r)
	rep.Text += " Memcheck needs --leak-check=full to report leaks [1]. Valgrind runs programs on a virtual CPU [9]. It never reports false positives."
	return rep
}

func TestWrittenReportMarksUnsupported(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewOpenAI(t)
	srv.Write(carelessWriter)
	out := research39(t, writtenEngine(t, srv), context.Background())
	w := out.Written
	if w == nil || w.Model != "fake-writer (openai)" || w.Supported != 2 || w.Sentences != 5 || len(w.Checks) != 5 {
		t.Fatalf("written %+v", w)
	}
	if c := w.Checks[3]; c.Supported || c.Reason != "cites passage [9], but there are 2" || len(c.Cites) != 1 || c.Cites[0] != 9 {
		t.Fatalf("check %+v", c)
	}
	for _, want := range []string{
		"2 of 5 sentences supported",
		"⚠ unsupported: `--leak-check=full` is not in passage [1]",
		"⚠ unsupported: cites passage [9], but there are 2",
		"⚠ unsupported: cites no passage",
		"## Unsupported sentences",
		"## Sources",
	} {
		if !strings.Contains(out.Content, want) {
			t.Errorf("the report lacks %q:\n%s", want, out.Content)
		}
	}
}

func TestWrittenReportFallsBack(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		reply modeltest.Reply
		edit  func(*model.Config)
		want  string
	}{
		{"server error", modeltest.Reply{Status: 500}, nil, "failed (HTTP 500)"},
		{"unknown model", modeltest.Reply{}, func(c *model.Config) { c.Chat = "nope" }, `has no model "nope"`},
		{"bad key", modeltest.Reply{}, func(c *model.Config) { c.APIKey = "sk-bad-0000111122223333" }, "openai-compatible endpoint at http://"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.NewOpenAI(t)
			for range 3 {
				srv.Script(c.reply)
			}
			var edits []func(*model.Config)
			if c.edit != nil {
				edits = append(edits, c.edit)
			}
			edits = append(edits, func(m *model.Config) { m.Retries = -1 })
			out := research39(t, writtenEngine(t, srv, edits...), context.Background())
			if !strings.Contains(out.Content, "did not write this report") || !strings.Contains(out.Content, c.want) ||
				!strings.Contains(out.Content, "extractive report") || !strings.Contains(out.Content, "## Method") {
				t.Fatalf("report:\n%s", out.Content)
			}
			if strings.Contains(out.Content, "sk-bad") || strings.Contains(out.Content, "3333") {
				t.Fatalf("the report shows the key:\n%s", out.Content)
			}
		})
	}
}

func TestWrittenReportKeepsWhatWasCheckedWhenTheStreamDrops(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewOpenAI(t)
	srv.Write(func(r modeltest.Request) modeltest.Reply {
		rep := honestWriter(r)
		rep.Text += " " + strings.Repeat("More words that never end ", 20)
		rep.DropAfter = (len(rep.Text) - 200) / rep.Chunk
		return rep
	})
	out := research39(t, writtenEngine(t, srv), context.Background())
	for _, want := range []string{"The answer stops here", "stopped streaming before the answer ended", "2 of 2 sentences supported"} {
		if !strings.Contains(out.Content, want) {
			t.Errorf("the report lacks %q:\n%s", want, out.Content)
		}
	}
}

func TestWrittenReportStrictDropsUnsupported(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewOpenAI(t)
	srv.Write(carelessWriter)
	out := research39(t, writtenEngine(t, srv), context.Background(), true)
	for _, gone := range []string{"--leak-check=full", "virtual CPU", "false positives", "⚠", "## Unsupported sentences"} {
		if strings.Contains(out.Content, gone) {
			t.Errorf("strict kept %q:\n%s", gone, out.Content)
		}
	}
	if !strings.Contains(out.Content, "2 of 5 sentences supported by their passages; 3 unsupported sentences dropped (strict)") {
		t.Errorf("report:\n%s", out.Content)
	}
	if out.Written == nil || out.Written.Dropped != 3 || !out.Written.Checks[2].Dropped {
		t.Fatalf("written %+v", out.Written)
	}
}

// Without a model, the report is the extractive one, and says nothing of
// a writer.
func TestNoModelNothingChanges(t *testing.T) {
	t.Parallel()
	e := testEngine(t, nil)
	for _, p := range memcheckPages {
		pg := *p
		pg.Text = strings.ReplaceAll(pg.Markdown, "#", "")
		seed(t, e, &pg)
	}
	out := research39(t, e, context.Background(), true)
	if out.Written != nil || strings.Contains(out.Content, "Written by") || !strings.Contains(out.Content, "## Method") {
		t.Fatalf("%+v\n%s", out.Written, out.Content)
	}
}

// Cancelling a research job stops the model's call: the fake sees the
// stream closed, and the task ends saying why.
func TestCancelledJobStopsTheModel(t *testing.T) {
	t.Parallel()
	srv := modeltest.NewOpenAI(t)
	started := make(chan struct{}, 1)
	srv.Write(func(r modeltest.Request) modeltest.Reply {
		started <- struct{}{}
		return modeltest.Reply{Text: strings.Repeat("Memcheck keeps track of heap blocks [1]. ", 400), Chunk: 5, Delay: 10 * time.Millisecond}
	})
	e := writtenEngine(t, srv)
	ctx, cancel := context.WithCancel(engine.WithTaskID(context.Background(), "job-39-cancel"))
	go func() {
		<-started
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	_, err := e.Research(ctx, api.ResearchInput{Input: "How do I find memory leaks with Memcheck?", Model: "mini"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for srv.Aborted() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if srv.Aborted() != 1 {
		t.Fatal("the model's stream went on after the job was cancelled")
	}
	for time.Now().Before(deadline) {
		out, err := e.ResearchTask(context.Background(), "job-39-cancel")
		if err == nil && out.Status == api.ResearchFailed {
			if msg := string(out.Extra["error"]); !strings.Contains(msg, "its job was cancelled") {
				t.Fatalf("failed with %s", msg)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the cancelled task did not end")
}
