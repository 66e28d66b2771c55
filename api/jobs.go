package api

// Jobs are a hark extension beyond the gateway interface: research and
// crawl run as durable jobs that a client submits, leaves and comes back
// to, on any replica of a team's gateway (docs/deploy.md, "Jobs").

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Job routes.
const (
	PathJobs         = PathPrefix + "/jobs"
	PathJobFmt       = PathJobs + "/%s"        // %s = job ID
	PathJobEventsFmt = PathJobs + "/%s/events" // ?after=SEQ&wait=SECONDS
)

// JobCancelled is the code of a job that a client cancelled.
const JobCancelled = 499

// Job states.
const (
	JobQueued    = "queued"
	JobRunning   = "running"
	JobCompleted = "completed"
	JobFailed    = "failed"
)

// Job is one job. Output is the tool's output (the invoke's "output")
// once completed; Code and Error say why a failed job failed.
type Job struct {
	ID      string          `json:"id"`
	Tool    string          `json:"tool"`
	State   string          `json:"state"`
	Attempt int             `json:"attempt"`
	Node    string          `json:"node,omitempty"`
	Inputs  json.RawMessage `json:"inputs,omitempty"`
	Output  json.RawMessage `json:"output,omitempty"`
	Code    int             `json:"code,omitempty"`
	Error   string          `json:"error,omitempty"`
	Created time.Time       `json:"created"`
	Updated time.Time       `json:"updated"`
}

// Done reports whether the job has ended.
func (j *Job) Done() bool { return j.State == JobCompleted || j.State == JobFailed }

// JobEvent is one entry of a job's log.
type JobEvent struct {
	Seq  int       `json:"seq"`
	Time time.Time `json:"time"`
	Kind string    `json:"kind"` // queued, started, progress, retry, completed, failed
	Msg  string    `json:"msg"`
}

// JobSubmit is the body of POST PathJobs.
type JobSubmit struct {
	Tool   string         `json:"tool"`
	Inputs map[string]any `json:"inputs"`
}

// JobList is GET PathJobs's data.
type JobList struct {
	Jobs []Job `json:"jobs"`
}

// JobEvents is GET PathJobEventsFmt's data: the entries after the
// asked-for seq, and the job as it stands.
type JobEvents struct {
	Job    Job        `json:"job"`
	Events []JobEvent `json:"events"`
}

// SubmitJob starts tool as a job and returns it at once; it is charged
// now, once, whatever retries it takes.
func (c *Client) SubmitJob(ctx context.Context, tool string, inputs map[string]any) (*Job, error) {
	if err := validSlug("tool", tool); err != nil {
		return nil, err
	}
	if inputs == nil {
		inputs = map[string]any{}
	}
	data, err := c.post(ctx, PathJobs, JobSubmit{Tool: tool, Inputs: inputs})
	if err != nil {
		return nil, fmt.Errorf("submit %s job: %w", tool, err)
	}
	var j Job
	if err := json.Unmarshal(data, &j); err != nil || j.ID == "" {
		return nil, &Error{HTTPStatus: 200, Code: CodeOK, Message: "submit job: data is not a job: " + snippet(data)}
	}
	return &j, nil
}

// Jobs lists the workspace's jobs, newest first; active keeps the queued
// and running ones.
func (c *Client) Jobs(ctx context.Context, active bool) ([]Job, error) {
	p := PathJobs
	if active {
		p += "?active=1"
	}
	data, err := c.get(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	var l JobList
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, &Error{HTTPStatus: 200, Code: CodeOK, Message: "list jobs: data is not {jobs}: " + snippet(data)}
	}
	return l.Jobs, nil
}

// GetJob reads one job, with its output once it has ended.
func (c *Client) GetJob(ctx context.Context, id string) (*Job, error) {
	data, err := c.get(ctx, fmt.Sprintf(PathJobFmt, url.PathEscape(id)))
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", id, err)
	}
	var j Job
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, &Error{HTTPStatus: 200, Code: CodeOK, Message: "job: data is not a job: " + snippet(data)}
	}
	return &j, nil
}

// CancelJob stops a queued or running job (it then fails, "cancelled by
// the client"); an ended job is returned as it ended.
func (c *Client) CancelJob(ctx context.Context, id string) (*Job, error) {
	data, err := c.do(ctx, call{method: http.MethodDelete, path: fmt.Sprintf(PathJobFmt, url.PathEscape(id))}, c.timeout)
	if err != nil {
		return nil, fmt.Errorf("cancel job %s: %w", id, err)
	}
	var j Job
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, &Error{HTTPStatus: 200, Code: CodeOK, Message: "cancel job: data is not a job: " + snippet(data)}
	}
	return &j, nil
}

// JobEventsAfter returns a job's log entries after seq after, waiting up
// to wait on the gateway for the first new one (a long poll).
func (c *Client) JobEventsAfter(ctx context.Context, id string, after int, wait time.Duration) (*JobEvents, error) {
	q := url.Values{"after": {strconv.Itoa(after)}, "wait": {strconv.Itoa(int(wait / time.Second))}}
	cl := call{method: http.MethodGet, path: fmt.Sprintf(PathJobEventsFmt, url.PathEscape(id)) + "?" + q.Encode()}
	data, err := c.withRetries(ctx, c.retry.MaxAttempts, c.retry.MaxElapsed, retryableGET, func() (json.RawMessage, error) {
		return c.do(ctx, cl, c.timeout+wait)
	})
	if err != nil {
		return nil, fmt.Errorf("job %s events: %w", id, err)
	}
	var ev JobEvents
	if err := json.Unmarshal(data, &ev); err != nil {
		return nil, &Error{HTTPStatus: 200, Code: CodeOK, Message: "job events: data is not {job, events}: " + snippet(data)}
	}
	return &ev, nil
}

// FollowJob replays a job's log from the start, then follows it live,
// calling onEvent for each entry, until the job ends; it returns the
// ended job with its output. A dropped connection is retried, and the
// log resumes where it stopped.
func (c *Client) FollowJob(ctx context.Context, id string, onEvent func(JobEvent)) (*Job, error) {
	after := 0
	for {
		ev, err := c.JobEventsAfter(ctx, id, after, 20*time.Second)
		if err != nil {
			return nil, err
		}
		for _, e := range ev.Events {
			if onEvent != nil {
				onEvent(e)
			}
			after = e.Seq
		}
		if ev.Job.Done() && len(ev.Events) == 0 {
			j, err := c.GetJob(ctx, id)
			if err == nil {
				c.KeepJob(ctx, j)
			}
			return j, err
		}
	}
}

// KeepJob hands a completed job's result to Options.OnResult, as Invoke
// does its own: a report followed to its end is kept like one waited for.
func (c *Client) KeepJob(ctx context.Context, j *Job) {
	if c.onResult == nil || ctx.Value(unkeptKey{}) != nil || j.State != JobCompleted || len(j.Output) == 0 {
		return
	}
	var inputs map[string]any
	_ = json.Unmarshal(j.Inputs, &inputs)
	c.onResult(Result{Tool: j.Tool, Inputs: inputs, Output: j.Output, TraceID: "job-" + j.ID, Gateway: c.baseStr})
}
