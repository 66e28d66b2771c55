package tasks

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"

	"hark/api"
	"hark/gateway/engine"
)

// A task goes from pending to completed with its report, sources and
// passages read back as written; an id no task has is refused by its
// field; a task started again under its id starts over.
func TestTaskLifecycle(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "tasks.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := Open(db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Create(ctx, "t1", "what is memcheck?", "mini"); err != nil {
		t.Fatal(err)
	}
	out, err := s.Get(ctx, "t1")
	if err != nil || out.Status != api.ResearchPending || out.Content != "" {
		t.Fatalf("a new task: %+v, %v", out, err)
	}
	src := []api.ResearchSource{{URL: "file:///m.html", Title: "Memcheck"}}
	pas := []api.ResearchPassage{{Source: 1, Quote: "Memcheck is a memory error detector."}}
	if err := s.Finish(ctx, "t1", api.ResearchCompleted, "# report", src, pas, nil, ""); err != nil {
		t.Fatal(err)
	}
	out, err = s.Get(ctx, "t1")
	if err != nil || out.Status != api.ResearchCompleted || out.Content != "# report" || len(out.Sources) != 1 || len(out.Passages) != 1 || out.Passages[0].Quote != pas[0].Quote {
		t.Fatalf("a completed task: %+v, %v", out, err)
	}
	if err := s.Create(ctx, "t1", "again", "pro"); err != nil {
		t.Fatal(err)
	}
	if out, _ = s.Get(ctx, "t1"); out.Status != api.ResearchPending || len(out.Sources) != 0 || out.Content != "" {
		t.Fatalf("a task started again: %+v", out)
	}
	_, err = s.Get(ctx, "no-such-task")
	var ie *engine.InputError
	if !errors.As(err, &ie) || ie.Field != "request_id" {
		t.Fatalf("an unknown id: %v, want an input error naming request_id", err)
	}
}
