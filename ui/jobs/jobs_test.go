package jobs

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
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
func drain(t *testing.T, f *Follower, cmd tea.Cmd) (notices []common.NoticeMsg, root []tea.Msg) {
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
		if notice.Text != "" {
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
	all := noticeTexts(notices)
	for _, n := range notices {
		if n.Warn {
			t.Errorf("a job that went well warns: %q", n.Text)
		}
	}
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
		t.Fatalf("notices %+v, messages %#v", notices, root)
	}
}

func noticeTexts(ns []common.NoticeMsg) string {
	var s []string
	for _, n := range ns {
		s = append(s, n.Text)
	}
	return strings.Join(s, "\n")
}

// A job that failed is a warning in the status bar, never a check mark
// (issue 43: "✓ crawl job c916a146 failed").
func TestAFailedJobWarns(t *testing.T) {
	const id = "0c5f3e1a-0000-4000-8000-000000000002"
	job := api.Job{ID: id, Tool: api.ToolCrawl, State: api.JobRunning, Inputs: json.RawMessage(`{"url":"http://127.0.0.1:1/"}`)}
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var data any
		j := job
		j.State, j.Error = api.JobFailed, "address is private, loopback or link-local; refused"
		switch r.URL.Path {
		case api.PathJobs:
			data = api.JobList{Jobs: []api.Job{job}}
		case api.PathJobs + "/" + id + "/events":
			if r.URL.Query().Get("after") == "1" {
				data = api.JobEvents{Job: j, Events: []api.JobEvent{}}
			} else {
				data = api.JobEvents{Job: j, Events: []api.JobEvent{{Seq: 1, Kind: "failed", Msg: j.Error}}}
			}
		case api.PathJobs + "/" + id:
			data = j
		default:
			http.NotFound(w, r)
			return
		}
		raw, _ := json.Marshal(data)
		json.NewEncoder(w).Encode(api.Envelope{Code: 200, Message: api.MsgSuccess, Data: raw})
	}))
	defer gw.Close()
	cl, _ := api.New(api.Options{BaseURL: gw.URL, APIKey: "hark_test"})
	f := New(&common.Common{Client: cl, Gateway: gw.URL})
	notices, _ := drain(t, f, f.Start())
	if len(notices) == 0 {
		t.Fatal("no notices")
	}
	last := notices[len(notices)-1]
	if !strings.Contains(last.Text, "crawl job 0c5f3e1a failed: address is private") || !last.Warn {
		t.Fatalf("the failure's notice: %+v", last)
	}
}

// The replica a reattached TUI follows dies mid-job: the follower asks
// again with backoff, at the gateway's other address, and goes on from
// the last log entry it showed, to the end; no entry is asked for twice.
func TestFollowSurvivesAReplicaDying(t *testing.T) {
	const id = "0c5f3e1a-0000-4000-8000-000000000002"
	out, _ := json.Marshal(api.ResearchOutput{RequestID: id, Status: api.ResearchCompleted, Content: "# Report\n\nDone.", Sources: []api.ResearchSource{}})
	job := api.Job{ID: id, Tool: api.ToolResearch, State: api.JobRunning, Inputs: json.RawMessage(`{"input":"what is memcheck?"}`)}
	var afters []string // every poll's after, on either replica
	var mu sync.Mutex
	events := []api.JobEvent{{Seq: 1, Kind: "queued", Msg: "queued"}, {Seq: 2, Kind: "progress", Msg: "round 1 of 3"},
		{Seq: 3, Kind: "retry", Msg: "replica a stopped; the job goes back to the queue"}, {Seq: 4, Kind: "completed", Msg: "completed"}}
	replica := func(upTo int) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var data any
			switch r.URL.Path {
			case api.PathJobs:
				data = api.JobList{Jobs: []api.Job{job}}
			case api.PathJobs + "/" + id + "/events":
				after, _ := strconv.Atoi(r.URL.Query().Get("after"))
				mu.Lock()
				afters = append(afters, r.URL.Query().Get("after"))
				mu.Unlock()
				j := job
				var evs []api.JobEvent
				for _, e := range events[:upTo] {
					if e.Seq > after {
						evs = append(evs, e)
					}
				}
				if upTo == len(events) {
					j.State = api.JobCompleted
				}
				if evs == nil && upTo < len(events) {
					time.Sleep(100 * time.Millisecond)
				}
				data = api.JobEvents{Job: j, Events: append([]api.JobEvent{}, evs...)}
			case api.PathJobs + "/" + id:
				j := job
				j.State, j.Output = api.JobCompleted, out
				data = j
			}
			raw, _ := json.Marshal(data)
			json.NewEncoder(w).Encode(api.Envelope{Code: 200, Message: api.MsgSuccess, Data: raw})
		})
	}
	a := httptest.NewServer(replica(2)) // serves the log's first two entries, then dies
	b := httptest.NewServer(replica(len(events)))
	defer b.Close()
	cl, err := api.New(api.Options{BaseURL: a.URL, Fallbacks: []string{b.URL}, APIKey: "hark_test",
		Retry: api.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	f := New(&common.Common{Client: cl, Gateway: a.URL})
	go func() {
		for {
			mu.Lock()
			n := len(afters)
			mu.Unlock()
			if n >= 3 {
				a.CloseClientConnections()
				a.Close()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	notices, root := drain(t, f, f.Start())
	all := noticeTexts(notices)
	for _, want := range []string{"the gateway does not answer; trying again (1)", "research job 0c5f3e1a: replica a stopped", "completed; opened"} {
		if !strings.Contains(all, want) {
			t.Errorf("notices lack %q:\n%s", want, all)
		}
	}
	if len(root) != 1 {
		t.Fatalf("root messages %#v, want the report to open", root)
	}
	mu.Lock()
	defer mu.Unlock()
	// After the replay (0) and the second entry (2), the polls go on
	// after 2 until the other replica gives 3 and 4: nothing twice.
	seen := strings.Join(afters, " ")
	if !strings.HasPrefix(seen, "0 2") || strings.Contains(seen, " 0") || !strings.Contains(seen, " 4") {
		t.Errorf("polls after %s", seen)
	}
}
