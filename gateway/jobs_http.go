package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"hark/api"
	"hark/gateway/jobs"
)

// The job routes (a hark extension; api/jobs.go is the client): submit a
// research or crawl that returns at once, list a workspace's jobs, read
// one, and replay and follow its log. Every answer comes from the
// database, so any replica gives it, whichever replica runs the job.

// jobID is the form of a job's ID (a UUID's layout).
var jobID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// maxEventWait bounds a long poll of a job's log.
const maxEventWait = 30 * time.Second

func (s *Server) handleJobSubmit(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Tool   string          `json:"tool"`
		Inputs json.RawMessage `json:"inputs"`
	}
	if err := s.decodeBody(w, r, &body); err != nil {
		s.writeError(w, r, err)
		return
	}
	if !jobTools[body.Tool] {
		s.writeError(w, r, &httpError{status: CodeInvalidInput, msg: fmt.Sprintf("invalid tool: must be %s or %s, got %q", api.ToolResearch, api.ToolCrawl, truncate(body.Tool, maxEcho))})
		return
	}
	t, ws, valid, raw, err := s.checkCall(r, body.Tool, body.Inputs)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// Charged once, now: a retry after a node dies charges nothing more,
	// and a failure on the caller's input gives it back (jobEnded).
	cost := t.cost(valid)
	out, err := s.billed(r, t.slug, cost, nil, func(ctx context.Context) (any, error) {
		return s.jobs.Submit(ctx, jobs.Spec{Workspace: ws.name, Tool: t.slug, Input: raw,
			Meta: jobs.Meta{AllowPrivate: s.allowPrivate, Charged: cost}})
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeData(w, r, apiJob(out.(*jobs.Job), false))
}

func (s *Server) handleJobList(w http.ResponseWriter, r *http.Request) {
	active := r.URL.Query().Get("active")
	if active != "" && active != "0" && active != "1" {
		s.writeError(w, r, &httpError{status: CodeInvalidInput, msg: "invalid active: must be 0 or 1"})
		return
	}
	list, err := s.jobs.List(r.Context(), stateOf(r).workspace.name, active == "1", 100)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := api.JobList{Jobs: make([]api.Job, len(list))}
	for i := range list {
		out.Jobs[i] = apiJob(&list[i], false)
	}
	s.writeData(w, r, out)
}

// jobOf reads the job the path names, of the caller's workspace.
func (s *Server) jobOf(r *http.Request) (*jobs.Job, error) {
	id := r.PathValue("id")
	if !jobID.MatchString(id) {
		return nil, &httpError{status: CodeInvalidInput, msg: fmt.Sprintf("invalid id: a job ID looks like 0c5f3e1a-…-…-…-… (36 characters), got %q", truncate(id, maxEcho))}
	}
	j, err := s.jobs.Get(r.Context(), stateOf(r).workspace.name, id)
	if errors.Is(err, jobs.ErrNotFound) {
		return nil, &httpError{status: CodeNotFound, msg: fmt.Sprintf("no job %s in this workspace", id)}
	}
	return j, err
}

func (s *Server) handleJob(w http.ResponseWriter, r *http.Request) {
	j, err := s.jobOf(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeData(w, r, apiJob(j, true))
}

// handleJobCancel stops a queued or running job; an ended one is
// answered as it ended.
func (s *Server) handleJobCancel(w http.ResponseWriter, r *http.Request) {
	j, err := s.jobOf(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if j, err = s.jobs.Cancel(r.Context(), j.Workspace, j.ID); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeData(w, r, apiJob(j, false))
}

func (s *Server) handleJobEvents(w http.ResponseWriter, r *http.Request) {
	j, err := s.jobOf(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	q := r.URL.Query()
	after, wait := 0, 0
	for _, p := range []struct {
		name string
		v    *int
		max  int
	}{{"after", &after, 1 << 30}, {"wait", &wait, int(maxEventWait / time.Second)}} {
		if raw := q.Get(p.name); raw != "" {
			n, err := strconv.Atoi(raw)
			if err != nil || n < 0 || n > p.max {
				s.writeError(w, r, &httpError{status: CodeInvalidInput, msg: fmt.Sprintf("invalid %s: must be a whole number from 0 to %d", p.name, p.max)})
				return
			}
			*p.v = n
		}
	}
	// A draining replica answers at once, so that its shutdown does not
	// wait out a long poll; the client asks again, elsewhere.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(s.drainCtx, cancel)
	defer stop()
	evs, j, err := s.jobs.Events(ctx, j.Workspace, j.ID, after, time.Duration(wait)*time.Second)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := api.JobEvents{Job: apiJob(j, false), Events: make([]api.JobEvent, len(evs))}
	for i, e := range evs {
		out.Events[i] = api.JobEvent{Seq: e.Seq, Time: e.Time, Kind: e.Kind, Msg: e.Msg}
	}
	s.writeData(w, r, out)
}

// apiJob is a job as the routes answer it, with its inputs when it has
// them (a list has them, so that a job reads as its question or URL);
// full adds the output.
func apiJob(j *jobs.Job, full bool) api.Job {
	out := api.Job{ID: j.ID, Tool: j.Tool, State: j.State, Attempt: j.Attempt, Node: j.Node,
		Code: j.Code, Error: j.Error, Created: j.Created, Updated: j.Updated, Inputs: j.Input}
	if full {
		out.Output = j.Output
	}
	return out
}
