package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/api/apitest"
)

// hark jobs names each job by what it works on (a research's question, a
// crawl's URL): a list of IDs and "research" told two jobs apart by
// their start times alone. attach and cancel take an ID's first
// characters, as the list is read.
func TestJobsListAndShortIDs(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	at := time.Date(2026, 12, 7, 21, 44, 0, 0, time.UTC)
	list := api.JobList{Jobs: []api.Job{
		{ID: "49bda6d0-9405-2edd-4891-7b733d83486a", Tool: api.ToolResearch, State: api.JobRunning, Attempt: 1, Created: at,
			Inputs: json.RawMessage(`{"input":"what does git worktree lock do?"}`)},
		{ID: "49bd0000-1111-2222-3333-444455556666", Tool: api.ToolCrawl, State: api.JobCompleted, Attempt: 1, Created: at,
			Inputs: json.RawMessage(`{"url":"https://git-scm.com/docs"}`)},
	}}
	for range 4 {
		s.Script(api.PathJobs, apitest.OK(list))
	}
	code, out, errs := hark(t, s, "", "jobs")
	if code != 0 || !strings.Contains(out, "WHAT") || !strings.Contains(out, "what does git worktree lock do?") || !strings.Contains(out, "https://git-scm.com/docs") {
		t.Fatalf("jobs: %d\n%s%s", code, out, errs)
	}

	id := list.Jobs[0].ID
	s.Script(fmt.Sprintf(api.PathJobFmt, id), apitest.OK(api.Job{ID: id, Tool: api.ToolResearch, State: api.JobFailed, Code: api.JobCancelled}))
	code, _, errs = hark(t, s, "", "jobs", "cancel", "49bda6")
	if code != 0 || !strings.Contains(errs, "job "+id+" cancelled") {
		t.Errorf("cancel 49bda6: %d %s", code, errs)
	}
	for _, c := range []struct {
		arg, want string
		code      int
	}{
		{"49bd", `job ID "49bd": 2 jobs' IDs start so`, exitUsage},
		{"ffff", "no job whose ID starts with ffff", exitUsage},
		{"49b", "a whole ID or its first 4 or more characters", exitUsage},
		{"zzzzzz", "a whole ID or its first 4 or more characters", exitUsage},
	} {
		if code, _, errs := hark(t, s, "", "jobs", "attach", c.arg); code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("attach %s: %d %q, want %d and %q", c.arg, code, errs, c.code, c.want)
		}
	}
}
