package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Periodic is work a gateway does on a schedule, run once per period
// across every replica: River's leader alone inserts a periodic job, and
// any one node runs it (the watched pages' checks).
type Periodic struct {
	Name  string        // names the work in River's job kind's args
	Every time.Duration // how often
	Run   func(ctx context.Context) error
}

// periodicArgs is River's periodic job: the name of the work it runs.
type periodicArgs struct {
	Name string `json:"name"`
}

func (periodicArgs) Kind() string { return "hark_periodic" }

// InsertOpts: one job per name waiting at a time, and a failure is not
// retried (the next period runs it again).
func (periodicArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning, rivertype.JobStateScheduled}}}
}

type periodicWorker struct {
	river.WorkerDefaults[periodicArgs]
	q *Queue
}

func (w *periodicWorker) Work(ctx context.Context, j *river.Job[periodicArgs]) error {
	for _, p := range w.q.opts.Periodic {
		if p.Name == j.Args.Name {
			return p.Run(ctx)
		}
	}
	return nil // a name this node does not know: an older replica's
}

// addPeriodic registers the periodic work with River's config.
func (q *Queue) addPeriodic(workers *river.Workers, cfg *river.Config) {
	if len(q.opts.Periodic) == 0 {
		return
	}
	river.AddWorker(workers, &periodicWorker{q: q})
	for _, p := range q.opts.Periodic {
		name := p.Name
		cfg.PeriodicJobs = append(cfg.PeriodicJobs, river.NewPeriodicJob(river.PeriodicInterval(p.Every),
			func() (river.JobArgs, *river.InsertOpts) { return periodicArgs{Name: name}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}))
	}
}
