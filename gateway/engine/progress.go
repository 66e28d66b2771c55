package engine

import (
	"context"
	"fmt"
)

// A long tool (research, crawl) runs as a job (gateway/jobs): its
// context carries the job's ID, which research uses as its request_id
// so that the task is found on every replica, and a progress reporter
// that appends to the job's event log. Both are absent on a call that
// is not a job; Progress is then a no-op.

type taskIDKey struct{}
type progressKey struct{}

// WithTaskID gives the work under ctx the ID of the job it runs for.
func WithTaskID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, taskIDKey{}, id)
}

// TaskID is the ID of the job the work under ctx runs for, or "".
func TaskID(ctx context.Context) string {
	id, _ := ctx.Value(taskIDKey{}).(string)
	return id
}

// WithProgress makes Progress under ctx call report.
func WithProgress(ctx context.Context, report func(msg string)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// Progress reports a step of the work under ctx to its job's event log.
func Progress(ctx context.Context, format string, args ...any) {
	if report, ok := ctx.Value(progressKey{}).(func(string)); ok {
		report(fmt.Sprintf(format, args...))
	}
}
