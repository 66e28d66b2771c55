package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"hark/api"
)

// The job routes: a crawl submitted returns at once and is listed, read
// and followed to its output; bad input is refused naming the field; a key
// sees only its workspace's jobs.
func TestJobRoutes(t *testing.T) {
	g := startGateway(t, nil)
	c := g.client(t, g.key)
	ctx := context.Background()
	// The page waits until the submit has answered, so that the answer
	// is seen to come before the work ends.
	release := make(chan struct{})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.Write([]byte("a page about okapis"))
	}))
	defer site.Close()
	j, err := c.SubmitJob(ctx, api.ToolCrawl, map[string]any{"url": site.URL + "/"})
	close(release)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != api.JobQueued && j.State != api.JobRunning {
		t.Fatalf("submitted job %+v", j)
	}
	fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var kinds []string
	done, err := c.FollowJob(fctx, j.ID, func(e api.JobEvent) { kinds = append(kinds, e.Kind) })
	if err != nil {
		t.Fatal(err)
	}
	var out api.CrawlOutput
	if done.State != api.JobCompleted || json.Unmarshal(done.Output, &out) != nil || len(out.Results) == 0 {
		t.Fatalf("job %+v", done)
	}
	if len(kinds) < 3 || kinds[0] != "queued" || kinds[len(kinds)-1] != "completed" {
		t.Fatalf("log %v", kinds)
	}
	list, err := c.Jobs(ctx, false)
	if err != nil || len(list) != 1 || list[0].ID != j.ID {
		t.Fatalf("list %+v %v", list, err)
	}
	// The list names a job by its inputs (hark jobs shows the URL or
	// the question); its output is for GET /jobs/{id}.
	var in struct{ URL string }
	if json.Unmarshal(list[0].Inputs, &in) != nil || in.URL != site.URL+"/" || len(list[0].Output) != 0 {
		t.Errorf("the listed job's inputs %s, output %d bytes", list[0].Inputs, len(list[0].Output))
	}
	if active, _ := c.Jobs(ctx, true); len(active) != 0 {
		t.Fatalf("active %+v", active)
	}

	for _, tc := range []struct {
		method, path string
		body         any
		status       int
		msg          string
	}{
		{"POST", api.PathJobs, map[string]any{"tool": api.ToolSearch, "inputs": map[string]any{"query": "x"}}, 400, "invalid tool: must be vendor_research or vendor_crawl"},
		{"POST", api.PathJobs, map[string]any{"tool": api.ToolCrawl, "inputs": map[string]any{"url": "http://a.test", "limit": 501}}, 400, "invalid limit"},
		{"POST", api.PathJobs, `{"tool": "vendor_crawl", "inputs": 4}`, 400, "inputs"},
		{"GET", api.PathJobs + "?active=yes", nil, 400, "invalid active: must be 0 or 1"},
		{"GET", api.PathJobs + "/nope", nil, 400, "invalid id"},
		{"GET", api.PathJobs + "/" + j.ID + "/events?after=-1", nil, 400, "invalid after"},
		{"GET", api.PathJobs + "/" + j.ID + "/events?wait=31", nil, 400, "invalid wait: must be a whole number from 0 to 30"},
		{"GET", api.PathJobs + "/0c5f3e1a-0000-4000-8000-000000000001", nil, 404, "no job"},
	} {
		status, env, _ := g.call(t, tc.method, tc.path, g.key, tc.body)
		wantError(t, status, env, tc.status, tc.msg)
	}
	// Another workspace's key does not see the job.
	status, env, _ := g.call(t, http.MethodGet, api.PathJobs+"/"+j.ID, g.keys["partial"], nil)
	wantError(t, status, env, 404, "no job")
	// Cancelling an ended job leaves it as it ended.
	got, err := c.CancelJob(ctx, j.ID)
	if err != nil || got.State != api.JobCompleted {
		t.Fatalf("cancel an ended job: %+v %v", got, err)
	}
}
