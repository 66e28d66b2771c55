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
// ended job with its output. See FollowJobWith for a gateway that stops
// answering.
func (c *Client) FollowJob(ctx context.Context, id string, onEvent func(JobEvent)) (*Job, error) {
	return c.FollowJobWith(ctx, id, Follow{OnEvent: onEvent})
}

// Follow says how FollowJobWith follows a job.
type Follow struct {
	// After is the last log entry the caller has already (0: replay the
	// whole log).
	After int
	// OnEvent is given each entry after After, in order, each once.
	OnEvent func(JobEvent)
	// OnReconnect, when set, is told each time the gateway stopped
	// answering and the follow tries again, and once (Attempt 0) when it
	// answers again.
	OnReconnect func(Reconnect)
	// Patience is how long the follow keeps trying to reach the gateway
	// (at Options.BaseURL and its Fallbacks, in turn) once it stopped
	// answering; default DefaultPatience.
	Patience time.Duration
}

// DefaultPatience is how long a followed job's client keeps trying to
// reach a gateway that stopped answering: long enough for a replica to
// restart, or for another to take the job over.
const DefaultPatience = 5 * time.Minute

// Reconnect is one try of a follow to reach the gateway again.
type Reconnect struct {
	Attempt int           // 1 for the first try after the gateway stopped answering; 0: it answers again
	Base    string        // the address tried next
	Wait    time.Duration // how long until then
	Err     error         // why the last try failed
}

// FollowJobWith follows a job as FollowJob does. When the gateway that
// answered it stops answering (a replica killed, restarting, a
// connection cut) it tries
// again with backoff (at most 5 s apart), at the next address of the
// client each time, for Patience, and resumes after the last entry it
// gave: no entry is given twice, none is skipped.
func (c *Client) FollowJobWith(ctx context.Context, id string, f Follow) (*Job, error) {
	patience := f.Patience
	if patience <= 0 {
		patience = DefaultPatience
	}
	after := f.After
	var lost time.Time
	attempt := 0
	answered := false
	for {
		var ev *JobEvents
		var err error
		if answered {
			ev, err = c.jobEventsOnce(ctx, id, after, 20*time.Second)
		} else {
			// A gateway that never answered this follow is not one that
			// died under it: the usual retries, then the error.
			ev, err = c.JobEventsAfter(ctx, id, after, 20*time.Second)
			if err != nil {
				return nil, err
			}
		}
		answered = true
		if err != nil {
			if ctx.Err() != nil || !retryableGET(err) {
				return nil, fmt.Errorf("job %s events: %w", id, err)
			}
			if lost.IsZero() {
				lost = time.Now()
			}
			attempt++
			wait := min(250*time.Millisecond<<min(attempt-1, 5), 5*time.Second)
			if time.Since(lost)+wait > patience {
				return nil, fmt.Errorf("job %s events: the gateway did not answer for %s: %w", id, time.Since(lost).Round(time.Second), err)
			}
			if f.OnReconnect != nil {
				f.OnReconnect(Reconnect{Attempt: attempt, Base: c.bases[c.cur.Load()], Wait: wait, Err: err})
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, fmt.Errorf("job %s events: %w", id, ctx.Err())
			case <-t.C:
			}
			continue
		}
		if !lost.IsZero() && f.OnReconnect != nil {
			f.OnReconnect(Reconnect{Base: c.bases[c.cur.Load()]})
		}
		lost, attempt = time.Time{}, 0
		for _, e := range ev.Events {
			if e.Seq <= after {
				continue // given already
			}
			if f.OnEvent != nil {
				f.OnEvent(e)
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

// jobEventsOnce is one attempt of JobEventsAfter: FollowJobWith does its
// own retries.
func (c *Client) jobEventsOnce(ctx context.Context, id string, after int, wait time.Duration) (*JobEvents, error) {
	q := url.Values{"after": {strconv.Itoa(after)}, "wait": {strconv.Itoa(int(wait / time.Second))}}
	data, err := c.do(ctx, call{method: http.MethodGet, path: fmt.Sprintf(PathJobEventsFmt, url.PathEscape(id)) + "?" + q.Encode()}, c.timeout+wait)
	if err != nil {
		return nil, err
	}
	var ev JobEvents
	if err := json.Unmarshal(data, &ev); err != nil {
		return nil, &Error{HTTPStatus: 200, Code: CodeOK, Message: "job events: data is not {job, events}: " + snippet(data)}
	}
	return &ev, nil
}

// JobTracePrefix begins the trace_id a job's kept result carries,
// "job-" and the job's ID: one job is one result, however often it is
// followed to its end.
const JobTracePrefix = "job-"

// KeepJob hands a completed job's result to Options.OnResult, as Invoke
// does its own: a report followed to its end is kept like one waited for.
func (c *Client) KeepJob(ctx context.Context, j *Job) {
	if c.onResult == nil || ctx.Value(unkeptKey{}) != nil || j.State != JobCompleted || len(j.Output) == 0 {
		return
	}
	var inputs map[string]any
	_ = json.Unmarshal(j.Inputs, &inputs)
	c.onResult(Result{Tool: j.Tool, Inputs: inputs, Output: j.Output, TraceID: JobTracePrefix + j.ID, Gateway: c.baseStr})
}
