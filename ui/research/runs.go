package research

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/ui/common"
)

// The research calls: each runs in the background, side by side with
// the others, while every pane stays usable.

type doneMsg struct {
	id  int
	out *api.ResearchOutput
	err error
}

// RetryMsg reports a retry of a running research call.
type RetryMsg struct {
	ID    int
	Event api.RetryEvent
}

// ProgressMsg is one step a running research reported: with a language
// model writing the answer, each sentence as it ends, with its check
// ("✓ …" or "✗ … (reason)").
type ProgressMsg struct {
	ID  int
	Msg string
}

// Background reports running research for the status bar.
func (p *Pane) Background() string {
	n, oldest := 0, time.Time{}
	for _, s := range p.sessions {
		if s.Running {
			n++
			if oldest.IsZero() || s.Started.Before(oldest) {
				oldest = s.Started
			}
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		return "research " + common.Elapsed(p.c.Now().Sub(oldest))
	}
	return fmt.Sprintf("%d researches, %s", n, common.Elapsed(p.c.Now().Sub(oldest)))
}

// models are the model choices from the runtime tool list.
func (p *Pane) models() []string { return p.c.Enum(Slug, "model") }

func (p *Pane) modelValue() string {
	if p.model != "" {
		return p.model
	}
	if t := p.c.Tool(Slug); t != nil {
		if f := t.Input("model"); f != nil {
			if d, ok := f.Default.(string); ok {
				return d
			}
		}
	}
	return ""
}

func (p *Pane) byID(id int) *Session {
	for _, s := range p.sessions {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// calls are the pane's research calls, numbered with the sessions (a
// session's ID is its call's number) and run side by side: a new question
// cancels none of those under way, and each one's result is its
// session's (none is stale). The spinner runs while any is under way.
func (p *Pane) calls() common.Calls {
	return common.NewCalls(&p.nextID, p.runs, &p.progress).SideBySide()
}

// cancelCurrent stops the research shown; the others run on.
func (p *Pane) cancelCurrent() {
	if s := p.current; s != nil && s.Running {
		p.calls().CancelOne(s.ID)
	}
}

func (p *Pane) cycleModel() {
	ms := p.models()
	if len(ms) == 0 {
		return
	}
	cur := p.modelValue()
	next := ms[0]
	for i, m := range ms {
		if m == cur {
			next = ms[(i+1)%len(ms)]
		}
	}
	p.model = next
}

// start runs a research call in the background; the other panes stay
// usable, and each retry is reported through Common.Send.
func (p *Pane) start(q, model string, inputs map[string]any) tea.Cmd {
	if q == "" && inputs == nil {
		return nil
	}
	if inputs == nil {
		inputs = map[string]any{"input": q}
		if model != "" {
			inputs["model"] = model
		}
	}
	client, send, now := p.c.Client, p.c.Send, p.c.Now()
	calls := p.calls()
	cmd := calls.Start("researching", now, func(ctx context.Context, id int) tea.Msg {
		if send != nil {
			ctx = api.WithRetryObserver(ctx, func(ev api.RetryEvent) { send(RetryMsg{ID: id, Event: ev}) })
		}
		var progress func(string)
		if send != nil {
			progress = func(m string) { send(ProgressMsg{ID: id, Msg: m}) }
		}
		output, err := runResearch(ctx, client, inputs, progress)
		if err != nil {
			return doneMsg{id: id, err: fmt.Errorf("research: %w", err)}
		}
		out, err := api.DecodeResearch(output)
		return doneMsg{id: id, out: out, err: err}
	})
	s := &Session{ID: calls.Seq(), Question: q, Model: model, Started: now, Running: true}
	p.sessions = append(p.sessions, s)
	p.show(s)
	p.focus = focusReport
	return cmd
}

// runResearch runs research as a job where the gateway has jobs, so that
// its steps (a model's sentences with their checks) arrive as they
// happen and cancelling stops the work on the gateway; elsewhere it is
// one call that waits.
func runResearch(ctx context.Context, client *api.Client, inputs map[string]any, progress func(string)) (json.RawMessage, error) {
	if client == nil || progress == nil {
		res, err := common.Invoke(ctx, client, Slug, inputs)
		if err != nil {
			return nil, err
		}
		return res.Output, nil
	}
	j, err := client.SubmitJob(ctx, Slug, inputs)
	var ae *api.Error
	if errors.As(err, &ae) && ae.Status(http.StatusNotFound, http.StatusMethodNotAllowed) {
		res, err := common.Invoke(ctx, client, Slug, inputs) // a gateway without jobs
		if err != nil {
			return nil, err
		}
		return res.Output, nil
	}
	if err != nil {
		return nil, &common.ToolError{Slug: Slug, Inputs: inputs, Err: err}
	}
	done, err := client.FollowJob(ctx, j.ID, func(e api.JobEvent) {
		if e.Kind == "progress" {
			progress(e.Msg)
		}
	})
	if ctx.Err() != nil {
		// x: stop the job where it runs, and the model with it.
		stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_, _ = client.CancelJob(stop, j.ID)
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	if done.State != api.JobCompleted {
		return nil, &api.Error{Code: done.Code, Message: done.Error}
	}
	return done.Output, nil
}
