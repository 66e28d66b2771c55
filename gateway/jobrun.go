package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"time"

	"hark/api"
	"hark/gateway/engine"
	"hark/gateway/jobs"
	"hark/gateway/store"
)

// Research and crawl run as durable jobs (package jobs) on the gateway's
// database: PostgreSQL's for a team, so that every replica sees every
// job, else gateway.db's. The spec's synchronous invoke of
// these tools submits a job and waits for it; /v1/jobs (jobs_http.go)
// submits one and returns at once, lists, and follows them.

// jobTools are the tools that run as jobs: the ones that take minutes.
var jobTools = map[string]bool{api.ToolResearch: true, api.ToolCrawl: true}

// JobTiming shortens the jobs' heartbeat for tests; zero keeps the
// defaults (a beat every second, another node takes over after 6 s).
type JobTiming struct {
	BeatEvery, StaleAfter, PollEvery time.Duration
}

func (s *Server) openJobs(db *store.DB, timing JobTiming, lazy bool, periodic []jobs.Periodic) error {
	jo := jobs.Options{
		DB:       db,
		Run:      s.runJob,
		Classify: s.classify,
		// As many as the research and fetch classes admit together: a
		// synchronous call holds its admission slot while its job runs.
		Workers:    max(1, s.limits.MaxResearch+s.limits.MaxFetch),
		Logger:     s.quietLog,
		BeatEvery:  timing.BeatEvery,
		StaleAfter: timing.StaleAfter,
		PollEvery:  timing.PollEvery,
		Lazy:       lazy && len(periodic) == 0,
		Periodic:   periodic,
		Ended:      s.jobEnded,
	}
	q, err := jobs.Open(context.Background(), jo)
	if err != nil {
		return err
	}
	s.jobs = q
	s.stopJobs = s.closeJobs
	return nil
}

// closeJobs stops this node's workers; its running jobs go back to the
// queue for another replica, or this one's next start.
func (s *Server) closeJobs() {
	if s.jobs == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.jobs.Close(ctx); err != nil {
		s.log.Warn("jobs: stop", "error", err.Error())
	}
}

// runJob runs a job's tool on this node, with the workspace's engines as
// this node's config builds them (every replica reads the same config).
func (s *Server) runJob(ctx context.Context, j *jobs.Job) (any, error) {
	ws := s.workspace(j.Workspace)
	t := s.toolMap[j.Tool]
	switch {
	case ws == nil:
		return nil, &httpError{status: CodeNotFound, msg: fmt.Sprintf("workspace %q is not in this gateway's config", truncate(j.Workspace, maxEcho))}
	case t == nil:
		return nil, &httpError{status: CodeNotFound, msg: fmt.Sprintf("unknown tool %q", truncate(j.Tool, maxEcho))}
	case !t.available(ws.web):
		return nil, fmt.Errorf("%s: %w (no engine registered)", t.slug, engine.ErrUnavailable)
	}
	ctx = engine.WithTaskID(ctx, j.ID)
	if j.Meta.AllowPrivate {
		// Submitted where private addresses were read: so is it run.
		ctx = engine.WithPrivateAllowed(ctx)
	}
	// A step's message may hold a URL the crawl met: the job's log keeps
	// no key or secret.
	ctx = engine.WithProgress(ctx, func(msg string) { s.jobs.Progress(ctx, j.ID, s.redact.Scrub(msg)) })
	if !t.research {
		// Research bounds itself (its engine's own timeout); the others
		// get the upstream timeout, as a direct call would.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(s.limits.UpstreamTimeout))
		defer cancel()
	}
	start := time.Now()
	out, err := callEngine(ctx, func(ctx context.Context) (any, error) { return t.run(ctx, ws.web, j.Input) })
	s.metrics.engineTime(t.slug, start)
	if err == nil && isNil(out) {
		err = fmt.Errorf("%s: the engine returned no output", t.slug)
	}
	end := "completed"
	switch {
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		end = "stopped" // this node stops, or another took the job over
	case err != nil:
		end = "failed"
	}
	s.metrics.jobRun.WithLabelValues(t.slug, end).Observe(time.Since(start).Seconds())
	return out, err
}

// jobEnded gives back what a detached job was charged when it failed on
// its caller's input (a private address refused, a select_paths that is
// no regular expression): as a synchronous call, which is charged
// nothing when it fails, it cost nothing. A refund is a row of its own in
// the usage history, op "refund <tool>", with the job's ID as its trace.
func (s *Server) jobEnded(ctx context.Context, j *jobs.Job) {
	if j.State != jobs.StateFailed || j.Code != CodeInvalidInput || j.Meta.Charged <= 0 {
		return
	}
	ws := s.workspace(j.Workspace)
	if ws == nil {
		return
	}
	if err := s.meter.Refund(ws.account, j.ID, j.Tool, j.Meta.Charged); err != nil {
		s.quietLog.Error("jobs: refund", "job", j.ID, "workspace", ws.name, "error", err.Error())
		return
	}
	what := fmt.Sprintf("%d credits", j.Meta.Charged)
	if j.Meta.Charged == 1 {
		what = "1 credit"
	}
	s.jobs.Progress(ctx, j.ID, what+" given back: the job failed on its input")
}

// runAsJob is a synchronous call of a job tool: submit, then wait under
// ctx. The output is the engine's own value when this node ran the job,
// else the tool's output type decoded from the job's; a failure on
// another node comes back with the status and message it had there.
func (s *Server) runAsJob(ctx context.Context, ws *workspace, t *tool, raw json.RawMessage) (any, error) {
	// Not Charged: the call settles its own credits (billed).
	j, err := s.jobs.Submit(ctx, jobs.Spec{Workspace: ws.name, Tool: t.slug, Input: raw, Meta: jobs.Meta{AllowPrivate: s.allowPrivate}})
	if err != nil {
		return nil, err
	}
	done, out, err := s.jobs.Wait(ctx, j.ID)
	if done == nil || out != nil || err != nil {
		return out, err
	}
	return jobOutput(t, done)
}

// jobOutput is an ended job's result as the tool's call returns it.
func jobOutput(t *tool, j *jobs.Job) (any, error) {
	if j.State == jobs.StateFailed {
		code := j.Code
		if code == 0 {
			code = http.StatusInternalServerError
		}
		return nil, &httpError{status: code, msg: j.Error}
	}
	ptr := reflect.New(t.output)
	out := ptr.Interface()
	if err := json.Unmarshal(j.Output, out); err != nil {
		return nil, fmt.Errorf("%s: job %s: read its output: %w", t.slug, j.ID, err)
	}
	return out, nil
}
