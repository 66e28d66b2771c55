package cli

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/config"
	"hark/gateway/pgtest"
)

// BenchmarkJobReattach is the time a client takes to reattach to a
// running crawl: the first answer of its log (replayed from the start,
// with the job's state) through a hark serve replica over loopback HTTP.
func BenchmarkJobReattach(b *testing.B) {
	bin := buildHarkBinary(b)
	site := slowSite(b, 2*time.Second)
	cfg, key := writeTeamConfig(b, config.BackendLocal, "")
	// The key's rate limit (10 a second) would be what is measured.
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(f, "\n[limits]\nrate_per_second = 100000\nrate_burst = 100000\n")
	f.Close()
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			url := ""
			if backend == "postgres" {
				url = pgtest.Fresh(b)
			}
			r := startReplica(b, bin, cfg, b.TempDir(), url)
			c := r.client(b, key)
			j, err := c.SubmitJob(context.Background(), api.ToolCrawl, map[string]any{"url": site.URL + "/p0.html", "max_depth": 5, "limit": 8})
			if err != nil {
				b.Fatal(err)
			}
			waitForEvent(b, c, j.ID, "started")
			for b.Loop() {
				ev, err := c.JobEventsAfter(context.Background(), j.ID, 0, 0)
				if err != nil || len(ev.Events) < 2 || ev.Job.Done() {
					b.Fatalf("%v %+v", err, ev)
				}
			}
		})
	}
}

// BenchmarkJobsRecoveredAfterKill runs 8 crawls on replica A, kills it
// with SIGKILL, and measures on replica B (same PostgreSQL) how many of
// them end and how long after the kill the last one does.
func BenchmarkJobsRecoveredAfterKill(b *testing.B) {
	const n = 8
	bin := buildHarkBinary(b)
	site := slowSite(b, 300*time.Millisecond)
	cfg, key := writeTeamConfig(b, config.BackendLocal, "")
	for b.Loop() {
		url := pgtest.Fresh(b)
		a := startReplica(b, bin, cfg, b.TempDir(), url)
		ca := a.client(b, key)
		var ids []string
		for range n {
			j, err := ca.SubmitJob(context.Background(), api.ToolCrawl, map[string]any{"url": site.URL + "/p0.html", "max_depth": 5, "limit": 8})
			if err != nil {
				b.Fatal(err)
			}
			ids = append(ids, j.ID)
		}
		waitForEvent(b, ca, ids[0], "progress")
		bb := startReplica(b, bin, cfg, b.TempDir(), url)
		a.kill(b)
		killed := time.Now()
		cb := bb.client(b, key)
		recovered, retried := 0, 0
		var last time.Duration
		for _, id := range ids {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			j, err := cb.FollowJob(ctx, id, nil)
			cancel()
			if err != nil {
				b.Fatal(err)
			}
			if j.State == api.JobCompleted {
				recovered++
				last = max(last, j.Updated.Sub(killed))
			}
			if j.Attempt > 1 {
				retried++
			}
		}
		b.ReportMetric(float64(recovered), "recovered")
		b.ReportMetric(float64(retried), "retried")
		b.ReportMetric(last.Seconds(), "s-to-last-done")
	}
}
