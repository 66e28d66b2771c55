// Package jobs reattaches the TUI to the research and crawl jobs still
// running on the gateway when it starts: a report asked for before an SSH
// session dropped, or before hark quit, is followed to its end and opened
// in the pane that shows it (a report in Research, a crawl in Pages). The
// jobs' log shows in the status bar as it comes.
//
// The Follower is the root model's: it holds no state of the jobs (each
// poll's command carries where the log was), and every call runs in a
// command through common.Calls.
package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/library"
	"hark/ui/common"
)

// Follower lists the running jobs once connected, and follows each.
type Follower struct {
	c        *common.Common
	seq      int
	runs     map[int]context.CancelFunc
	followed map[string]bool
	opened   int64 // a negative number per opened result (see open)
}

// New is the follower of c's gateway.
func New(c *common.Common) *Follower {
	return &Follower{c: c, runs: map[int]context.CancelFunc{}, followed: map[string]bool{}}
}

func (f *Follower) calls() common.Calls { return common.NewCalls(&f.seq, f.runs, nil).SideBySide() }

// listedMsg is the gateway's running jobs, or why they could not be read.
type listedMsg struct {
	seq  int
	jobs []api.Job
	err  error
}

// eventsMsg is one poll of a job's log.
type eventsMsg struct {
	seq   int
	id    string
	after int
	ev    *api.JobEvents
	err   error
	// lost is when the gateway stopped answering this follow (zero while
	// it answers), tries the polls since.
	lost  time.Time
	tries int
}

// doneMsg is a followed job's end, with its output.
type doneMsg struct {
	seq int
	job *api.Job
	err error
}

// Handles reports whether msg is the follower's.
func Handles(msg tea.Msg) bool {
	switch msg.(type) {
	case listedMsg, eventsMsg, doneMsg:
		return true
	}
	return false
}

// Start lists the jobs still running; the root calls it once the client
// exists.
func (f *Follower) Start() tea.Cmd {
	cl := f.c.Client
	if cl == nil {
		return nil
	}
	return f.calls().Run(func(ctx context.Context, seq int) tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		jobs, err := cl.Jobs(ctx, true)
		return listedMsg{seq: seq, jobs: jobs, err: err}
	})
}

// Following reports whether job id is being followed to its end.
func (f *Follower) Following(id string) bool { return f.followed[id] }

// Stop cancels the polls under way (hark is quitting).
func (f *Follower) Stop() {
	for n, cancel := range f.runs {
		cancel()
		delete(f.runs, n)
	}
}

// Update takes a follower's message; notice, when its text is not empty,
// is for the status bar: a job that failed, or could not be followed, is
// a warning, never a success.
func (f *Follower) Update(msg tea.Msg) (cmd tea.Cmd, notice common.NoticeMsg) {
	c, text, warn := f.update(msg)
	return c, common.NoticeMsg{Text: text, Warn: warn}
}

func (f *Follower) update(msg tea.Msg) (cmd tea.Cmd, notice string, warn bool) {
	switch msg := msg.(type) {
	case listedMsg:
		if !f.calls().Done(msg.seq) || msg.err != nil || len(msg.jobs) == 0 {
			// A gateway without jobs (an older hark, another vendor's)
			// has nothing to reattach to; that is not a failure.
			return nil, "", false
		}
		var cmds []tea.Cmd
		var names []string
		for _, j := range msg.jobs {
			if f.followed[j.ID] {
				continue
			}
			f.followed[j.ID] = true
			names = append(names, toolName(j.Tool))
			cmds = append(cmds, f.poll(j.ID, 0))
		}
		if len(cmds) == 0 {
			return nil, "", false
		}
		return tea.Batch(cmds...), fmt.Sprintf("%d job(s) still running on the gateway (%s): reattached; each opens when it ends",
			len(cmds), strings.Join(names, ", ")), false
	case eventsMsg:
		if !f.calls().Done(msg.seq) {
			return nil, "", false
		}
		if msg.err != nil {
			lost := msg.lost
			if lost.IsZero() {
				lost = time.Now()
			}
			if api.Retryable(msg.err) && time.Since(lost) < api.DefaultPatience {
				// The replica went away (killed, restarting): ask again,
				// with backoff, at the client's next address; the log
				// goes on after the last entry shown.
				wait := min(250*time.Millisecond<<min(msg.tries, 5), 5*time.Second)
				return f.pollAfter(msg.id, msg.after, wait, lost, msg.tries+1),
					fmt.Sprintf("job %s: the gateway does not answer; trying again (%d)", short(msg.id), msg.tries+1), true
			}
			delete(f.followed, msg.id)
			return nil, fmt.Sprintf("job %s: %v", short(msg.id), msg.err), true
		}
		after := msg.after
		var last string
		for _, e := range msg.ev.Events {
			after = e.Seq
			if e.Kind == "progress" || e.Kind == "retry" {
				last = e.Msg // news; queued and started are not
			}
		}
		if msg.ev.Job.Done() && len(msg.ev.Events) == 0 {
			return f.fetch(msg.id), "", false
		}
		notice := ""
		if !msg.lost.IsZero() {
			notice = fmt.Sprintf("%s job %s: the gateway answers again; following on", toolName(msg.ev.Job.Tool), short(msg.id))
		}
		// The first answer replays the log: the offer's notice stands,
		// and only what happens from now on replaces it.
		if last != "" && msg.after > 0 {
			notice = fmt.Sprintf("%s job %s: %s", toolName(msg.ev.Job.Tool), short(msg.id), last)
		}
		return f.poll(msg.id, after), notice, false
	case doneMsg:
		if !f.calls().Done(msg.seq) {
			return nil, "", false
		}
		if msg.err != nil {
			return nil, fmt.Sprintf("job: %v", msg.err), true
		}
		j := msg.job
		delete(f.followed, j.ID)
		if j.State == api.JobFailed {
			return nil, fmt.Sprintf("%s job %s failed: %s", toolName(j.Tool), short(j.ID), j.Error), true
		}
		item, ok := f.item(j)
		if !ok {
			return nil, fmt.Sprintf("%s job %s completed", toolName(j.Tool), short(j.ID)), false
		}
		return func() tea.Msg { return common.ShowKeptMsg{Item: item} },
			fmt.Sprintf("%s job %s completed; opened", toolName(j.Tool), short(j.ID)), false
	}
	return nil, "", false
}

// poll asks for the log after seq after, waiting on the gateway for news.
func (f *Follower) poll(id string, after int) tea.Cmd {
	return f.pollAfter(id, after, 0, time.Time{}, 0)
}

// pollAfter is poll after a wait, the gateway lost since lost (zero: it
// answers) and tried tries times since.
func (f *Follower) pollAfter(id string, after int, wait time.Duration, lost time.Time, tries int) tea.Cmd {
	cl := f.c.Client
	return f.calls().Run(func(ctx context.Context, seq int) tea.Msg {
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return eventsMsg{seq: seq, id: id, after: after, err: ctx.Err()}
			case <-t.C:
			}
		}
		ev, err := cl.JobEventsAfter(ctx, id, after, 20*time.Second)
		if err != nil {
			return eventsMsg{seq: seq, id: id, after: after, err: err, lost: lost, tries: tries}
		}
		return eventsMsg{seq: seq, id: id, after: after, ev: ev, lost: lost}
	})
}

// fetch reads an ended job with its output.
func (f *Follower) fetch(id string) tea.Cmd {
	cl := f.c.Client
	return f.calls().Run(func(ctx context.Context, seq int) tea.Msg {
		j, err := cl.GetJob(ctx, id)
		if err == nil {
			cl.KeepJob(ctx, j) // into the library, as a report waited for is
		}
		return doneMsg{seq: seq, job: j, err: err}
	})
}

// item is an ended job's result as the panes open a kept item: a report
// in Research, a crawl in Pages. Its ID is negative: it is not (yet) an
// item of the library, and each result opened is a session of its own.
func (f *Follower) item(j *api.Job) (library.Item, bool) {
	kind := map[string]string{api.ToolResearch: library.KindResearch, api.ToolCrawl: library.KindCrawl}[j.Tool]
	if kind == "" || len(j.Output) == 0 {
		return library.Item{}, false
	}
	var in struct {
		Input string `json:"input"`
		URL   string `json:"url"`
	}
	_ = json.Unmarshal(j.Inputs, &in)
	f.opened--
	it := library.Item{ID: f.opened, Kind: kind, Tool: j.Tool, Query: in.Input, URL: in.URL, Inputs: string(j.Inputs),
		Output: string(j.Output), Gateway: f.c.Gateway, Created: j.Created}
	it.Title = in.Input
	if kind == library.KindCrawl {
		it.Title, it.Query = in.URL, in.URL
	}
	return it, true
}

func toolName(slug string) string { return strings.TrimPrefix(slug, "vendor_") }

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
