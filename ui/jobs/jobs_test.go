package jobs

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/library"
	"hark/ui/common"
)

// drain runs cmd and every command its messages lead to through f,
// collecting the notices and the messages meant for the root.
func drain(t *testing.T, f *Follower, cmd tea.Cmd) (notices []string, root []tea.Msg) {
	t.Helper()
	queue := []tea.Cmd{cmd}
	deadline := time.Now().Add(20 * time.Second)
	for len(queue) > 0 && time.Now().Before(deadline) {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		if b, ok := msg.(tea.BatchMsg); ok {
			queue = append(queue, b...)
			continue
		}
		if !Handles(msg) {
			root = append(root, msg)
			continue
		}
		next, notice := f.Update(msg)
		if notice != "" {
			notices = append(notices, notice)
		}
		queue = append(queue, next)
	}
	return notices, root
}

// A TUI started while a research job runs on the gateway reattaches: it
// follows the job's log (shown as notices) to its end and opens the
// report in Research.
func TestReattachOpensTheReport(t *testing.T) {
	const id = "0c5f3e1a-0000-4000-8000-000000000001"
	var polls atomic.Int32
	out, _ := json.Marshal(api.ResearchOutput{RequestID: id, Status: api.ResearchCompleted, Content: "# Report\n\nDone.", Sources: []api.ResearchSource{}})
	job := api.Job{ID: id, Tool: api.ToolResearch, State: api.JobRunning, Inputs: json.RawMessage(`{"input":"what is memcheck?"}`)}
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var data any
		switch r.URL.Path {
		case api.PathJobs:
			if r.URL.Query().Get("active") != "1" {
				t.Errorf("listed %s, want the active jobs", r.URL)
			}
			data = api.JobList{Jobs: []api.Job{job}}
		case api.PathJobs + "/" + id + "/events":
			switch polls.Add(1) {
			case 1:
				data = api.JobEvents{Job: job, Events: []api.JobEvent{{Seq: 1, Kind: "queued", Msg: "replayed"}}}
			case 2:
				data = api.JobEvents{Job: job, Events: []api.JobEvent{{Seq: 2, Kind: "progress", Msg: "round 1 of 3"}}}
			case 3:
				if r.URL.Query().Get("after") != "2" {
					t.Errorf("third poll %s, want after=2", r.URL)
				}
				j := job
				j.State = api.JobCompleted
				data = api.JobEvents{Job: j, Events: []api.JobEvent{{Seq: 3, Kind: "completed", Msg: "completed"}}}
			default:
				j := job
				j.State = api.JobCompleted
				data = api.JobEvents{Job: j, Events: []api.JobEvent{}}
			}
		case api.PathJobs + "/" + id:
			j := job
			j.State, j.Output = api.JobCompleted, out
			data = j
		default:
			http.NotFound(w, r)
			return
		}
		raw, _ := json.Marshal(data)
		json.NewEncoder(w).Encode(api.Envelope{Code: 200, Message: api.MsgSuccess, Data: raw})
	}))
	defer gw.Close()
	var kept []api.Result
	cl, err := api.New(api.Options{BaseURL: gw.URL, APIKey: "hark_test", OnResult: func(r api.Result) { kept = append(kept, r) }})
	if err != nil {
		t.Fatal(err)
	}
	f := New(&common.Common{Client: cl, Gateway: gw.URL})
	notices, root := drain(t, f, f.Start())
	all := strings.Join(notices, "\n")
	for _, want := range []string{"1 job(s) still running", "research job 0c5f3e1a: round 1 of 3", "completed; opened"} {
		if !strings.Contains(all, want) {
			t.Errorf("notices lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "replayed") {
		t.Errorf("the replayed log replaced the offer's notice:\n%s", all)
	}
	if len(root) != 1 {
		t.Fatalf("root messages %#v, want the report to open", root)
	}
	show, ok := root[0].(common.ShowKeptMsg)
	if !ok || show.Item.Kind != library.KindResearch || show.Item.Query != "what is memcheck?" || !strings.Contains(show.Item.Output, "# Report") || show.Item.ID >= 0 {
		t.Fatalf("opened %#v", root[0])
	}
	// The report is kept in the library as one waited for would be.
	if len(kept) != 1 || kept[0].Tool != api.ToolResearch || kept[0].Inputs["input"] != "what is memcheck?" {
		t.Fatalf("kept %+v", kept)
	}
}

// A gateway without job routes (another vendor's, an older hark) gives
// nothing to reattach to, and no complaint.
func TestNoJobRoutesIsQuiet(t *testing.T) {
	gw := httptest.NewServer(http.NotFoundHandler())
	defer gw.Close()
	cl, _ := api.New(api.Options{BaseURL: gw.URL, APIKey: "hark_test"})
	f := New(&common.Common{Client: cl})
	notices, root := drain(t, f, f.Start())
	if len(notices) != 0 || len(root) != 0 {
		t.Fatalf("notices %q, messages %#v", notices, root)
	}
}
