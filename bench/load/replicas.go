package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/jackc/pgx/v5"

	"hark/gateway/config"
	"hark/gateway/pgtest"
)

// runReplicas measures vendor_search invoke on the same index, key and
// quota three ways: one `hark serve` on gateway.db; one on PostgreSQL;
// three on one PostgreSQL, the calls spread over them in turn. Closed
// loop: workers each call again as soon as an answer comes, so the figure
// is what the setup can serve, not what was offered. Every replica is a
// process of this machine, as is PostgreSQL: on 2 cores three replicas
// share the cores one would have, so the figure shows the cost of the
// shared state, not a scale-out.
func runReplicas(bin, work, key, cfgPath, dataDir string) {
	cluster, err := pgtest.Run()
	if err != nil {
		log.Fatal(err)
	}
	defer cluster.Stop()
	cfgPath = queueingConfig(cfgPath)
	dur, workers := 10*time.Second, 16
	if *short {
		dur = 2 * time.Second
	}
	fmt.Printf("invoke vendor_search, %d closed-loop clients for %s each; %d cores; load average %s\n\n", workers, dur, numCPU(), loadAvg())
	fmt.Println("| setup | served/s | 200 | refused or failed | mean | p50 | p99 | ledger rows = 200s |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, s := range []struct {
		name     string
		pg       bool
		replicas int
	}{{"SQLite, 1 node", false, 1}, {"PostgreSQL, 1 replica", true, 1}, {"PostgreSQL, 3 replicas", true, 3}} {
		var extra []string
		if s.pg {
			extra = []string{"--database", cluster.URL()}
		}
		var srvs []*server
		var bases []string
		for i := range s.replicas {
			dir := filepath.Join(work, fmt.Sprintf("replica-%d-%d", len(bases), i))
			if !s.pg {
				dir = dataDir
			} else {
				copyIndex(dataDir, dir)
			}
			srv := startServer(bin, work, cfgPath, dir, extra...)
			srvs = append(srvs, srv)
			bases = append(bases, srv.base)
		}
		c := &client{key: key, http: &http.Client{Timeout: 30 * time.Second,
			Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}}}
		for _, b := range bases { // warm: the index opens
			c.base = b
			for range 3 {
				c.invoke("warm up")
			}
		}
		// Rows carry their time in ms: keep the warm-up's out of the count.
		time.Sleep(5 * time.Millisecond)
		start := time.Now()
		t, lat := closedLoop(c, bases, workers, dur)
		var n int
		if s.pg {
			n = pgUsageRows(cluster.URL(), start)
		} else {
			since = start
			n, _ = usageRows(dataDir)
		}
		ledger := fmt.Sprintf("%d = %d", n, t.status[200])
		expect(n == t.status[200], "%s: %d ledger rows for %d answered 200", s.name, n, t.status[200])
		fmt.Printf("| %s | %.0f | %d | %d | %s | %s | %s | %s |\n", s.name, float64(t.status[200])/dur.Seconds(),
			t.status[200], t.status[503]+t.others()+t.failed+t.timeouts, ms(mean(lat)), ms(pct(lat, 50)), ms(pct(lat, 99)), ledger)
		expect(t.status[503]+t.others()+t.failed+t.timeouts == 0, "%s: %d calls not served", s.name, t.status[503]+t.others()+t.failed+t.timeouts)
		for _, srv := range srvs {
			srv.stop()
		}
	}
	if len(failures) > 0 {
		fmt.Println("\nTARGETS MISSED:")
		for _, f := range failures {
			fmt.Println("  -", f)
		}
		if *check {
			os.Exit(1)
		}
	}
}

// queueingConfig is the load config with an invoke queue that holds every
// client: a call waits for one of the replica's slots (one per core)
// instead of being shed after 20 ms, so that the figure is what the
// replicas serve, not how fast admission refuses.
func queueingConfig(path string) string {
	cfg, err := config.Load(path)
	if err != nil {
		log.Fatal(err)
	}
	cfg.Limits.QueueLength, cfg.Limits.QueueWait = 64, config.Duration(30*time.Second)
	out := filepath.Join(filepath.Dir(path), "gateway-replicas.toml")
	f, err := os.Create(out)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if err := toml.NewEncoder(f).Encode(cfg); err != nil {
		log.Fatal(err)
	}
	return out
}

// closedLoop runs workers that call vendor_search in turn on bases until
// d has passed, and returns the statuses and the latencies of the 200s.
func closedLoop(c *client, bases []string, workers int, d time.Duration) (tally, []time.Duration) {
	var mu sync.Mutex
	t := tally{status: map[int]int{}}
	var lat []time.Duration
	var wg sync.WaitGroup
	end := time.Now().Add(d)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wc := &client{key: c.key, http: c.http}
			for i := 0; time.Now().Before(end); i++ {
				wc.base = bases[(w+i)%len(bases)]
				q := words[(w*31+i)%len(words)] + " " + words[(i*7)%len(words)]
				began := time.Now()
				resp, err := wc.invoke(q)
				took := time.Since(began)
				mu.Lock()
				if err != nil {
					t.failed++
				} else {
					t.status[resp.StatusCode]++
					if resp.StatusCode == 200 {
						lat = append(lat, took)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return t, lat
}

func mean(d []time.Duration) time.Duration {
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return sum / time.Duration(max(1, len(d)))
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, len(s)*p/100)]
}

// copyIndex gives a replica its own gateway.db holding the indexed pages
// (the index is per replica until it moves to PostgreSQL).
func copyIndex(from, to string) {
	if err := os.MkdirAll(to, 0o700); err != nil {
		log.Fatal(err)
	}
	for _, suffix := range []string{"", "-wal"} {
		src, err := os.Open(filepath.Join(from, "gateway.db"+suffix))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			log.Fatal(err)
		}
		dst, err := os.OpenFile(filepath.Join(to, "gateway.db"+suffix), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			log.Fatal(err)
		}
		if _, err := io.Copy(dst, src); err != nil {
			log.Fatal(err)
		}
		src.Close()
		dst.Close()
	}
}

// pgUsageRows counts the vendor_search rows settled ok since start.
func pgUsageRows(url string, since time.Time) int {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM gateway_usage WHERE operation='vendor_search' AND status='ok' AND ts>=$1`, since.UnixMilli()).Scan(&n); err != nil {
		log.Fatal(err)
	}
	return n
}
