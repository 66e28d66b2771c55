package main

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// runManuals measures vendor_search through HTTP on real manuals (issue
// #41): valgrind's HTML manual and Node.js's API docs as Debian installs
// them, indexed with `hark index`, and asked the questions of
// bench/research/manuals. First one client in turn (the latency of a
// search on an idle gateway), then 16 closed-loop clients (what 2 cores
// serve), with a queue that holds every client, as -only replicas does.
func runManuals(bin, work, cfgPath, key string) {
	dirs := []string{"/usr/share/doc/valgrind/html", "/usr/share/doc/nodejs/api"}
	dataDir := filepath.Join(work, "manuals")
	start := time.Now()
	for _, d := range dirs {
		if _, err := os.Stat(d); err != nil {
			log.Fatalf("%s is not installed: apt-get install valgrind nodejs", d)
		}
		cmd := exec.Command(bin, "--data-dir", dataDir, "index", d)
		cmd.Env = isolatedEnv(work)
		if out, err := cmd.CombinedOutput(); err != nil {
			log.Fatalf("hark index %s: %v\n%s", d, err, out)
		}
	}
	indexed := time.Since(start)
	raw, err := os.ReadFile(filepath.Join(repoRoot(), "bench/research/manuals/questions.json"))
	if err != nil {
		log.Fatal(err)
	}
	var qs []struct{ Question string }
	if err := json.Unmarshal(raw, &qs); err != nil {
		log.Fatal(err)
	}
	srv := startServer(bin, work, queueingConfig(cfgPath), dataDir)
	defer srv.stop()
	c := &client{base: srv.base, key: key, http: &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}}}
	for range 3 {
		c.invoke("warm up")
	}
	fmt.Printf("vendor_search (basic, 5 results) on %v, indexed in %s; %d cores; load average %s\n\n", dirs, indexed.Round(time.Second), numCPU(), loadAvg())

	rounds := 3
	if *short {
		rounds = 1
	}
	var one []time.Duration
	cpu0 := srv.cpu()
	for range rounds {
		for _, q := range qs {
			began := time.Now()
			resp, err := c.invoke(q.Question)
			if err != nil || resp.StatusCode != 200 {
				log.Fatalf("%q: %v %v", q.Question, err, resp)
			}
			one = append(one, time.Since(began))
		}
	}
	fmt.Printf("one client, %d searches in turn: p50 %s, p90 %s, p99 %s; server CPU %s a search\n", len(one), ms(pct(one, 50)), ms(pct(one, 90)), ms(pct(one, 99)), ms((srv.cpu()-cpu0)/time.Duration(len(one))))

	dur, workers := 10*time.Second, 16
	if *short {
		dur = 2 * time.Second
	}
	var mu sync.Mutex
	t := tally{status: map[int]int{}}
	var lat []time.Duration
	var wg sync.WaitGroup
	end := time.Now().Add(dur)
	cpu0 = srv.cpu()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(end); i++ {
				began := time.Now()
				resp, err := c.invoke(qs[(w*7+i)%len(qs)].Question)
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
	cpu := srv.cpu() - cpu0
	notServed := t.status[503] + t.others() + t.failed + t.timeouts
	fmt.Printf("%d closed-loop clients for %s: %.0f served/s, %d answered 200, %d not served; p50 %s, p99 %s; server CPU %s a search\n",
		workers, dur, float64(t.status[200])/dur.Seconds(), t.status[200], notServed, ms(pct(lat, 50)), ms(pct(lat, 99)), ms(cpu/time.Duration(max(1, t.status[200]))))
	expect(notServed == 0, "manuals: %d calls not served", notServed)
	if len(failures) > 0 && *check {
		fmt.Println("\nTARGETS MISSED:")
		for _, f := range failures {
			fmt.Println("  -", f)
		}
		os.Exit(1)
	}
}
