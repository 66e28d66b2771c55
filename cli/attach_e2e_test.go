package cli

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"hark/gateway/config"
	"hark/gateway/pgtest"
	"hark/gateway/store"
)

// The replica `hark jobs attach` follows is killed (SIGKILL) mid-crawl:
// the client keeps following, at the gateway's other replica
// (HARK_FALLBACK_URLS) on PostgreSQL, or at the same address once the
// server is back on gateway.db, and prints the job's log to its end and
// its pages: every entry of the log once, in order, none missed.
func TestAttachSurvivesKilledReplica(t *testing.T) {
	t.Parallel()
	bin := buildHarkBinary(t)
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			site := slowSite(t, 500*time.Millisecond)
			cfg, key := writeTeamConfig(t, config.BackendLocal, "")
			dir, dbURL := t.TempDir(), ""
			if backend == "postgres" {
				dbURL = pgtest.Fresh(t)
			}
			a := startReplica(t, bin, cfg, dir, dbURL)
			var b *replica
			if backend == "postgres" {
				b = startReplica(t, bin, cfg, t.TempDir(), dbURL)
			}
			out, err := harkCmd(context.Background(), t, bin, a.base, key, "crawl", "--detach", "--max-depth", "5", "--limit", "6", site.URL+"/p0.html").Output()
			if err != nil {
				t.Fatalf("crawl --detach: %v", err)
			}
			id := strings.TrimSpace(string(out))

			attach := harkCmd(context.Background(), t, bin, a.base, key, "jobs", "attach", id)
			if b != nil {
				attach.Env = append(attach.Env, "HARK_FALLBACK_URLS="+b.base)
			}
			var stderr, stdout lockedBuffer
			attach.Stderr, attach.Stdout = &stderr, &stdout
			if err := attach.Start(); err != nil {
				t.Fatal(err)
			}
			ended := make(chan error, 1)
			go func() { ended <- attach.Wait() }()
			for deadline := time.Now().Add(60 * time.Second); !strings.Contains(stderr.String(), "progress"); time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the attach printed no progress:\n%s", stderr.String())
				}
			}
			a.kill(t)
			if backend == "sqlite" {
				u, _ := url.Parse(a.base)
				time.Sleep(1500 * time.Millisecond) // the client tries the dead address meanwhile
				a = startReplicaAt(t, bin, cfg, dir, "", u.Host)
			}
			select {
			case err := <-ended:
				if err != nil {
					t.Fatalf("attach: %v\n%s", err, stderr.String())
				}
			case <-time.After(3 * time.Minute):
				t.Fatalf("the attach did not end:\n%s", stderr.String())
			}
			log := stderr.String()
			if !strings.Contains(log, "the gateway stopped answering") || !strings.Contains(log, "the gateway answers again") {
				t.Errorf("the attach did not say it lost and found the gateway:\n%s", log)
			}
			for i := range 6 {
				if !strings.Contains(stdout.String(), fmt.Sprintf("/p%d.html", i)) {
					t.Errorf("page p%d missing from the crawl's output", i)
				}
			}
			// The printed log is the job's log: each entry once, in order.
			var db *store.DB
			if backend == "postgres" {
				if db, err = store.OpenPostgres(context.Background(), dbURL, 1); err != nil {
					t.Fatal(err)
				}
				defer db.Close()
			} else {
				raw, err := store.OpenDB(dir)
				if err != nil {
					t.Fatal(err)
				}
				defer raw.Close()
				db = store.FromSQLite(raw)
			}
			rows, err := db.Query(context.Background(), `SELECT kind, msg FROM hark_job_events WHERE job_id = ? ORDER BY seq`, id)
			if err != nil {
				t.Fatal(err)
			}
			want, err := store.Rows(rows, func(scan func(...any) error) (string, error) {
				var kind, msg string
				err := scan(&kind, &msg)
				return kind + " " + msg, err
			})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			line := regexp.MustCompile(`^\d\d:\d\d:\d\d  (\S+) +(.*)$`)
			for _, l := range strings.Split(log, "\n") {
				if m := line.FindStringSubmatch(l); m != nil {
					got = append(got, m[1]+" "+m[2])
				}
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("printed log:\n%s\n\nthe job's log:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			t.Logf("%s: %d log entries followed across the kill", backend, len(got))
		})
	}
}
