package ui

import (
	"context"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/engine"
	"hark/ui/research"
)

// heldResearch answers once the test lets it (or after a minute), as a
// research does after a while.
type heldResearch struct{ release chan struct{} }

func (r heldResearch) Research(ctx context.Context, in api.ResearchInput) (*api.ResearchOutput, error) {
	select {
	case <-r.release:
	case <-time.After(time.Minute):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &api.ResearchOutput{RequestID: engine.TaskID(ctx), Status: api.ResearchCompleted,
		Content: "# Okapis\n\nThe okapi is a giraffid of the Congo.", Sources: []api.ResearchSource{}}, nil
}

// A research job runs on hark's real gateway when the TUI starts (one
// left by an SSH session that dropped): the TUI says so, follows it, and
// opens the report in Research when it ends.
func TestE2EReattachToRunningResearch(t *testing.T) {
	held := heldResearch{release: make(chan struct{})}
	base, key := localGateway(t, held)
	cl, err := api.New(api.Options{BaseURL: base, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	j, err := cl.SubmitJob(context.Background(), api.ToolResearch, map[string]any{"input": "what is an okapi?"})
	if err != nil {
		t.Fatal(err)
	}
	r := startAt(t, base, key, 100, 30)
	// The offer is a status-bar notice, which a later call may replace
	// at once on a busy machine: what is checked is that the job is
	// followed (ui/jobs' own test checks the notices).
	r.waitFor("the running job reattached", func(m *Model) bool { return m.jobs.Following(j.ID) })
	close(held.release) // the research ends now
	deadline := time.Now().Add(20 * time.Second)
	for {
		ch := make(chan bool, 1)
		r.p.Send(inspectMsg(func(m *Model) {
			s := m.panes[2].(*research.Pane).Current()
			ch <- m.Active() == 2 && s != nil && s.Out != nil && s.Out.RequestID == j.ID && screenHas("giraffid of the Congo")(m)
		}))
		if <-ch {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the job's report did not open in Research")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
