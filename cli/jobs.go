package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"hark/api"
)

// Research and crawl run as jobs on the gateway: --detach starts one and
// prints its ID at once, `hark jobs` lists them, and `hark jobs attach
// ID` replays a job's log, follows it to its end and prints its result as
// the command that started it would have (docs/deploy.md, "Jobs").

// detachTools are the commands that take --detach.
var detachTools = map[string]bool{api.ToolResearch: true, api.ToolCrawl: true}

// submitDetached starts tool as a job and prints its ID on stdout (for
// scripts: ID=$(hark research --detach …)), and how to come back to it
// on stderr.
func (a *App) submitDetached(cmd *cobra.Command, cl *api.Client, tool string, inputs map[string]any) error {
	j, err := cl.SubmitJob(cmd.Context(), tool, inputs)
	if err != nil {
		return fromGateway(err)
	}
	if a.jsonOut {
		if err := writeJSON(a.stdout, j); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(a.stdout, j.ID)
	}
	name := strings.TrimPrefix(tool, "vendor_")
	switch {
	case a.jsonOut && !a.backgroundRun():
	case a.cfg.BaseURL != "":
		fmt.Fprintf(a.stderr, "hark: %s job %s %s; follow it with: hark jobs attach %s\n", name, j.ID, j.State, j.ID)
	case a.backgroundRun():
		fmt.Fprintf(a.stderr, "hark: %s job %s %s; a hark in the background runs it now; follow it with: hark jobs attach %s\n", name, j.ID, j.State, j.ID)
		a.detachOutput()
		err := a.runJobs(cmd.Context(), cl)
		// Its result goes to the library, as one waited for: with no
		// one attached, a detached report was only ever printed by
		// hark jobs attach.
		if done, gerr := cl.GetJob(cmd.Context(), j.ID); gerr == nil {
			cl.KeepJob(cmd.Context(), done)
		}
		return err
	default:
		fmt.Fprintf(a.stderr, "hark: %s job %s %s; the embedded gateway runs it when the TUI next starts; hark jobs attach %s runs it now\n", name, j.ID, j.State, j.ID)
	}
	return nil
}

func newJobsCmd(a *App) *cobra.Command {
	var active bool
	cmd := &cobra.Command{
		Use:   "jobs",
		Short: "List research and crawl jobs; attach to one",
		Long: `jobs lists the workspace's research and crawl jobs, newest first (a job is
started with research --detach or crawl --detach, or by any research or
crawl call). attach replays a job's log, follows it live to its end, and
prints its result. Jobs live in the gateway's database: any replica of a
team's gateway lists and follows them, and a job outlives the client that
started it and the server that ran it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := a.jobsClient(cmd.Context())
			if err != nil {
				return err
			}
			list, err := cl.Jobs(cmd.Context(), active)
			if err != nil {
				return fromGateway(err)
			}
			if a.jsonOut {
				return writeJSON(a.stdout, api.JobList{Jobs: list})
			}
			if len(list) == 0 {
				fmt.Fprintln(a.stderr, "hark: no jobs")
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tTOOL\tSTATE\tATTEMPT\tSTARTED\tWHAT\tERROR")
			for _, j := range list {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", j.ID, strings.TrimPrefix(j.Tool, "vendor_"), j.State, j.Attempt,
					j.Created.Local().Format("2006-01-02 15:04:05"), clip(jobWhat(j), 50), clip(j.Error, 60))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&active, "active", false, "only the queued and running jobs")
	// The embedded gateway runs its queued jobs in whichever hark process
	// serves it, this one included: a crawl of an intranet started with
	// --allow-private needs it here too.
	cmd.PersistentFlags().BoolVar(&a.jobsAllowPrivate, "allow-private", false, "let the embedded gateway, which runs the jobs while this command does, read private and loopback addresses")

	cmd.AddCommand(newJobsAttachCmd(a), newJobsCancelCmd(a))
	return cmd
}

func newJobsAttachCmd(a *App) *cobra.Command {
	return &cobra.Command{
		Use:   "attach ID",
		Short: "Replay a job's log, follow it to its end, and print its result",
		Args:  exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := a.jobsClient(cmd.Context())
			if err != nil {
				return err
			}
			id, err := a.jobID(cmd.Context(), cl, args[0])
			if err != nil {
				return err
			}
			j, err := cl.FollowJobWith(cmd.Context(), id, api.Follow{
				OnEvent: func(e api.JobEvent) {
					fmt.Fprintf(a.stderr, "%s  %-9s %s\n", e.Time.Local().Format("15:04:05"), e.Kind, a.scrub(e.Msg))
				},
				// A replica that dies under the follow: try again, at the
				// gateway's next address, and go on after the last entry.
				OnReconnect: func(r api.Reconnect) {
					if r.Attempt == 0 {
						fmt.Fprintf(a.stderr, "hark: the gateway answers again at %s; following on\n", r.Base)
						return
					}
					fmt.Fprintf(a.stderr, "hark: the gateway stopped answering (%s); trying %s in %s (attempt %d)\n",
						a.scrub(r.Err.Error()), r.Base, r.Wait.Round(time.Millisecond), r.Attempt)
				},
			})
			if err != nil {
				return jobError(id, err)
			}
			return a.printJob(cmd.Context(), j)
		},
	}
}

func newJobsCancelCmd(a *App) *cobra.Command {
	return &cobra.Command{
		Use:   "cancel ID",
		Short: "Stop a queued or running job",
		Args:  exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := a.jobsClient(cmd.Context())
			if err != nil {
				return err
			}
			id, err := a.jobID(cmd.Context(), cl, args[0])
			if err != nil {
				return err
			}
			j, err := cl.CancelJob(cmd.Context(), id)
			if err != nil {
				return jobError(id, err)
			}
			if a.jsonOut {
				return writeJSON(a.stdout, j)
			}
			if j.Code == api.JobCancelled {
				fmt.Fprintf(a.stderr, "hark: job %s cancelled\n", j.ID)
			} else {
				fmt.Fprintf(a.stderr, "hark: job %s had ended (%s); nothing to cancel\n", j.ID, j.State)
			}
			return nil
		},
	}
}

// fullJobID is a job's whole ID, as the gateway names jobs.
var fullJobID = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// jobID is the job arg names: its whole ID, or the start of one job's ID
// among the workspace's jobs (as git takes a commit's first letters), so
// that "hark jobs attach 49bd" works as the list is read.
func (a *App) jobID(ctx context.Context, cl *api.Client, arg string) (string, error) {
	if fullJobID.MatchString(arg) {
		return arg, nil
	}
	return byPrefix(arg, "job", "hark jobs", func() ([]string, error) {
		list, err := cl.Jobs(ctx, false)
		ids := make([]string, len(list))
		for i, j := range list {
			ids[i] = j.ID
		}
		return ids, err
	})
}

// jobWhat is what a job works on, from its inputs: a research's
// question, a crawl's URL ("" when the gateway lists no inputs).
func jobWhat(j api.Job) string {
	var in struct {
		Input string `json:"input"`
		URL   string `json:"url"`
	}
	if json.Unmarshal(j.Inputs, &in) != nil {
		return ""
	}
	if in.Input != "" {
		return in.Input
	}
	return in.URL
}

// jobError is a job call's failure: an ID the gateway does not know is
// the user's to correct, exit 2 as an unknown library ID is, with where
// the IDs are listed; anything else is the gateway's.
func jobError(id string, err error) error {
	var ae *api.Error
	if errors.As(err, &ae) && ae.HTTPStatus == http.StatusNotFound {
		return targetError{fmt.Errorf("jobs: no job %s in this workspace (hark jobs lists the IDs)", id)}
	}
	return fromGateway(err)
}

// jobsClient is the client of the jobs commands: with --allow-private,
// the embedded gateway they start (and which runs the jobs while they
// do) may read private and loopback addresses.
func (a *App) jobsClient(ctx context.Context) (*api.Client, error) {
	if a.jobsAllowPrivate {
		a.cfg.AllowPrivate = true // before the call that starts the embedded gateway
	}
	return a.client(ctx)
}

// printJob prints an ended job's result as its tool's command prints it;
// a failed job exits as the failed call would have.
func (a *App) printJob(ctx context.Context, j *api.Job) error {
	if j.State == api.JobFailed && j.Code == api.JobCancelled {
		return interruptedError{fmt.Errorf("job %s: %s", j.ID, j.Error)}
	}
	if j.State == api.JobFailed {
		code := j.Code
		if code == 0 {
			code = 500
		}
		return fromGateway(&api.Error{HTTPStatus: code, Code: code, Message: fmt.Sprintf("job %s: %s", j.ID, j.Error)})
	}
	if len(j.Output) == 0 {
		return upstreamError{errors.New("job " + j.ID + " completed without output")}
	}
	var in struct {
		Input string `json:"input"`
	}
	if json.Unmarshal(j.Inputs, &in) == nil && j.Tool == api.ToolResearch {
		a.question = in.Input // the report's heading, as research prints it
	}
	res := &api.InvokeResult{Service: api.SearchService, Tool: j.Tool, Output: j.Output}
	switch {
	case a.jsonOut:
		return writeJSON(a.stdout, res)
	default:
		return a.printOutput(ctx, res)
	}
}

// clip is s on one line, at most n characters.
func clip(s string, n int) string {
	s = oneLine(s)
	if len([]rune(s)) > n {
		s = string([]rune(s)[:n-1]) + "…"
	}
	return s
}
