// Command load puts `hark serve` under load and under attack on loopback,
// and reports what a careful operator would look at: the rate served,
// the statuses, the latency of the calls served and refused, the
// server's RSS and open files (before, at peak, 5 s after), and the usage
// rows against the 200 responses. It is bounded in count and time and
// talks only to 127.0.0.1.
//
//	go run . -hark /path/to/hark          # the full run (about 3 minutes)
//	go run . -short -check                # CI: short phases, asserts on counts only
//
// Phases: invoke vendor_search at 50, 200 and 500 req/s (open loop: a
// call starts on schedule whether or not earlier ones have answered);
// 50 TTS and 50 STT streams at once; two slow STT streams held open while
// a 5 s clip is recognised; slow-body clients; and a kill -9 of the
// server in the middle of 200 req/s, after which it is started again on
// the same data directory.
//
// -only replicas measures instead invoke throughput and latency of one
// SQLite node, and of one and three replicas on one PostgreSQL that the
// program starts (Debian's PostgreSQL 15, as the tests do). -only
// manuals measures search on real manuals (valgrind's, Node.js's): the
// latency of one client, and what 16 clients are served.
//
// It is a module of its own so that nothing here enters hark's go.mod.
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"hark/api"
	"hark/gateway"
)

var (
	harkPath = flag.String("hark", "", "hark binary (default: build it from this checkout)")
	short    = flag.Bool("short", false, "short phases (CI)")
	check    = flag.Bool("check", false, "exit 1 unless the count targets hold (no 500s, no timeouts, every refusal with Retry-After, usage rows == 200s, none pending, credit headers on every answer, slow bodies cut off)")
	pages    = flag.Int("pages", 400, "pages in the search index")
	serveArg = flag.String("serve", "", "more flags for hark serve, e.g. \"--max-invoke 2\"")
	only     = flag.String("only", "", "run only this phase: invoke; replicas (one SQLite node against one and three replicas on PostgreSQL); or manuals (search latency and served rate on valgrind's and Node.js's manuals)")
)

// failures collects broken count targets for -check.
var failures []string

func expect(ok bool, format string, args ...any) {
	if !ok {
		failures = append(failures, fmt.Sprintf(format, args...))
	}
}

func main() {
	flag.Parse()
	log.SetFlags(0)
	work, err := os.MkdirTemp("", "hark-load-*")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)
	bin := *harkPath
	if bin == "" {
		bin = buildHark(work)
	}
	keys, cfgPath := writeConfig(work)
	if *only == "manuals" {
		runManuals(bin, work, cfgPath, keys[0])
		return
	}
	dataDir := filepath.Join(work, "data")
	indexPages(bin, work, dataDir)
	if *only == "replicas" {
		runReplicas(bin, work, keys[0], cfgPath, dataDir)
		return
	}

	srv := startServer(bin, work, cfgPath, dataDir)
	defer func() { srv.stop() }()
	c := &client{base: srv.base, key: keys[0], keys: keys, http: &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 200, MaxConnsPerHost: 200},
	}}
	// Warm up: the index opens, the voice catalogue is listed, the first
	// recogniser loads (about 90 MB), so that the baseline is a server
	// ready for every kind of call.
	for range 5 {
		c.invoke("warm up")
	}
	clip := c.clip()
	sttStream(c, clip[:32000], 0)
	c.http.CloseIdleConnections()
	time.Sleep(3 * time.Second)
	since = time.Now()
	base := srv.sample()
	fmt.Printf("hark serve (pid %d) on %s; %d cores; load average %s\n", srv.pid(), srv.base, numCPU(), loadAvg())
	fmt.Printf("baseline (warm: index open, one recogniser loaded): RSS %.0f MiB, open files %d\n\n", base.rssMiB, base.fds)

	dur := 10 * time.Second
	if *short {
		dur = 2 * time.Second
	}
	var total tally
	fmt.Println("| offered | served/s | 200 | 503 | other | timeouts | p50 served | p99 served | p99 refused | max refused | RSS peak | files peak |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, rate := range []int{50, 200, 500} {
		peak := srv.watch()
		t := c.drive(rate, dur)
		p := peak()
		total.add(t)
		fmt.Printf("| %d req/s × %s | %.0f | %d | %d | %d | %d | %s | %s | %s | %s | %.0f MiB | %d |\n",
			rate, dur, float64(t.status[200])/dur.Seconds(), t.status[200], t.status[503], t.others(), t.timeouts,
			ms(t.pct(t.served, 50)), ms(t.pct(t.served, 99)), ms(t.pct(t.refused, 99)), ms(t.pct(t.refused, 100)), p.rssMiB, p.fds)
		if rate >= 200 {
			expect(t.status[500] == 0, "%d req/s: %d × 500", rate, t.status[500])
			expect(t.timeouts == 0, "%d req/s: %d timeouts", rate, t.timeouts)
		}
	}
	expect(total.noRetryAfter == 0, "%d refusals without Retry-After", total.noRetryAfter)
	expect(total.noCredits == 0, "%d answers without X-Credits-Used", total.noCredits)
	c.http.CloseIdleConnections()
	time.Sleep(5 * time.Second)
	after := srv.sample()
	fmt.Printf("\n5 s after the invoke load: RSS %.0f MiB (baseline %.0f), open files %d (baseline %d)\n",
		after.rssMiB, base.rssMiB, after.fds, base.fds)
	expect(after.fds <= base.fds+10, "open files %d, baseline %d", after.fds, base.fds)
	expect(after.rssMiB < 2*base.rssMiB, "RSS %.0f MiB, baseline %.0f", after.rssMiB, base.rssMiB)
	ok, pending := usageRows(dataDir)
	fmt.Printf("usage rows settled ok: %d; 200 responses: %d; pending: %d\n", ok, total.status[200], pending)
	expect(ok == total.status[200], "usage rows %d != 200 responses %d", ok, total.status[200])
	expect(pending == 0, "%d usage rows pending", pending)

	served, refused := serverSide(work)
	fmt.Printf("server side (its log's duration_ms, all invoke phases): p99 served %s, p99 refused %s, max refused %s\n",
		ms(total.pct(served, 99)), ms(total.pct(refused, 99)), ms(total.pct(refused, 100)))
	if *only == "invoke" {
		return
	}
	streams := 50
	if *short {
		streams = 10
	}
	fmt.Println()
	slowDone := make(chan struct{})
	go func() { // slow clients arrive while the streams run
		slowBodies(c, srv.base, 4)
		close(slowDone)
	}()
	ttsStreams(c, streams)
	sttStreams(c, clip, streams)
	slowSTT(c, clip)
	<-slowDone

	// kill -9 in the middle of 200 req/s, then start again.
	okBefore, _ := usageRows(dataDir)
	done := make(chan tally)
	go func() { done <- c.drive(200, dur) }()
	time.Sleep(dur / 2)
	srv.kill()
	t := <-done
	srv = startServer(bin, work, cfgPath, dataDir)
	okAfter, pendingAfter := usageRows(dataDir)
	fmt.Printf("\nkill -9 mid-load (200 req/s): %d answered 200 before the kill, %d usage rows settled ok in that phase, %d cut off; after the restart %d rows pending\n",
		t.status[200], okAfter-okBefore, t.failed, pendingAfter)
	expect(okAfter-okBefore >= t.status[200], "after the kill: %d rows for %d answered 200", okAfter-okBefore, t.status[200])
	expect(pendingAfter == 0, "after the restart: %d rows pending", pendingAfter)

	if len(failures) > 0 {
		fmt.Println("\nTARGETS MISSED:")
		for _, f := range failures {
			fmt.Println("  -", f)
		}
		if *check {
			srv.stop()
			os.Exit(1)
		}
	}
}

// serverSide reads the durations of the invoke calls from the server's
// log: what the server spent, without the client's own scheduling.
func serverSide(work string) (served, refused []time.Duration) {
	b, _ := os.ReadFile(filepath.Join(work, "serve.log"))
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.Contains(line, "/invoke") {
			continue
		}
		var status, d int
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "status="); ok {
				status, _ = strconv.Atoi(v)
			}
			if v, ok := strings.CutPrefix(f, "duration_ms="); ok {
				d, _ = strconv.Atoi(v)
			}
		}
		switch status {
		case 200:
			served = append(served, time.Duration(d)*time.Millisecond)
		case 503:
			refused = append(refused, time.Duration(d)*time.Millisecond)
		}
	}
	return served, refused
}

func ms(d time.Duration) string {
	if d < 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}

// client calls the server under test.
type client struct {
	base, key string
	keys      []string // streams take them in turn
	next      atomic.Int64
	http      *http.Client
}

// streamKey is the key of the next stream.
func (c *client) streamKey() string {
	return c.keys[int(c.next.Add(1))%len(c.keys)]
}

// tally is the outcome of a set of calls.
type tally struct {
	status           map[int]int
	timeouts, failed int
	served, refused  []time.Duration
	noRetryAfter     int
	noCredits        int
}

func (t *tally) add(o tally) {
	if t.status == nil {
		t.status = map[int]int{}
	}
	for k, v := range o.status {
		t.status[k] += v
	}
	t.timeouts += o.timeouts
	t.failed += o.failed
	t.noRetryAfter += o.noRetryAfter
	t.noCredits += o.noCredits
}

func (t *tally) others() int {
	n := 0
	for k, v := range t.status {
		if k != 200 && k != 503 {
			n += v
		}
	}
	return n
}

func (t *tally) pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return -1
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, len(s)*p/100)]
}

var words = strings.Fields("gateway search index audio stream voice speech river garden window coffee music travel science history " +
	"ocean mountain energy market kitchen library city school health animal forest planet computer language")

// drive calls vendor_search at rate calls a second for d, each call on
// its own schedule, and waits for every answer.
func (c *client) drive(rate int, d time.Duration) tally {
	var mu sync.Mutex
	t := tally{status: map[int]int{}}
	var wg sync.WaitGroup
	n := int(float64(rate) * d.Seconds())
	start := time.Now()
	for i := range n {
		time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(rate))))
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := words[i%len(words)] + " " + words[(i/len(words))%len(words)]
			began := time.Now()
			resp, err := c.invoke(q)
			took := time.Since(began)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if os.IsTimeout(err) || strings.Contains(err.Error(), "Timeout") {
					t.timeouts++
				} else {
					t.failed++
				}
				return
			}
			t.status[resp.StatusCode]++
			switch resp.StatusCode {
			case 200:
				t.served = append(t.served, took)
			case 503:
				t.refused = append(t.refused, took)
				if resp.Header.Get("Retry-After") == "" {
					t.noRetryAfter++
				}
			}
			if resp.Header.Get(gateway.HeaderCreditsUsed) == "" {
				t.noCredits++
			}
		}()
	}
	wg.Wait()
	return t
}

func (c *client) invoke(query string) (*http.Response, error) {
	body := fmt.Sprintf(`{"inputs":{"query":%q,"max_results":5}}`, query)
	req, _ := http.NewRequest("POST", c.base+fmt.Sprintf(api.PathInvokeFmt, api.ToolSearch), strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, nil
}

// clip is about 5 s of speech, 16 kHz s16le, from the server's TTS.
func (c *client) clip() []byte {
	body, _ := json.Marshal(api.TTSRequest{Provider: api.DefaultProvider, VoiceCode: "flite:slt", Format: api.FormatPCM, SampleRate: 16000,
		Text: "The river runs past the old mill. Open the window and let the fresh air in."})
	req, _ := http.NewRequest("POST", c.base+api.PathTTS, strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+c.key)
	resp, err := c.http.Do(req)
	if err != nil {
		log.Fatalf("clip: %v", err)
	}
	defer resp.Body.Close()
	var env struct {
		Code int             `json:"code"`
		Data api.TTSResponse `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || env.Code != 200 {
		log.Fatalf("clip: %v %d", err, env.Code)
	}
	pcm, err := base64.StdEncoding.DecodeString(env.Data.AudioData)
	if err != nil {
		log.Fatal(err)
	}
	return pcm
}

// server is a running `hark serve`.
type server struct {
	cmd  *exec.Cmd
	base string
	done chan struct{}
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// startServer starts `hark serve` on dataDir with extra flags; its log is
// serve.log, or serve-<data dir's name>.log for another data directory.
func startServer(bin, work, cfgPath, dataDir string, extra ...string) *server {
	args := append([]string{"serve", "--config", cfgPath, "--data-dir", dataDir, "--listen", "127.0.0.1:0"}, strings.Fields(*serveArg)...)
	args = append(args, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = isolatedEnv(work)
	out, err := cmd.StdoutPipe()
	if err != nil {
		log.Fatal(err)
	}
	logName := "serve.log"
	if filepath.Base(dataDir) != "data" {
		logName = "serve-" + filepath.Base(dataDir) + ".log"
	}
	logf, err := os.Create(filepath.Join(work, logName))
	if err != nil {
		log.Fatal(err)
	}
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	s := &server{cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); logf.Close(); close(s.done) }()
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "hark gateway listening on "); ok {
			s.base = strings.TrimSpace(rest)
			break
		}
	}
	if s.base == "" {
		log.Fatal("hark serve did not start; see its log")
	}
	go io.Copy(io.Discard, out)
	return s
}

// kill ends the server with SIGKILL: no shutdown, no settling.
func (s *server) kill() {
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
}

func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(40 * time.Second):
		s.kill()
	}
}

type usage struct {
	rssMiB float64
	fds    int
}

// sample reads the server's RSS and open descriptors from /proc.
func (s *server) sample() usage {
	var u usage
	pid := strconv.Itoa(s.pid())
	if b, err := os.ReadFile("/proc/" + pid + "/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
				u.rssMiB = float64(kb) / 1024
			}
		}
	}
	if ents, err := os.ReadDir("/proc/" + pid + "/fd"); err == nil {
		u.fds = len(ents)
	}
	return u
}

// watch samples every 100 ms until the returned function is called, which
// returns the peaks.
func (s *server) watch() func() usage {
	var peak usage
	var mu sync.Mutex
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			u := s.sample()
			mu.Lock()
			peak.rssMiB, peak.fds = max(peak.rssMiB, u.rssMiB), max(peak.fds, u.fds)
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() usage {
		close(stop)
		wg.Wait()
		return peak
	}
}

// cpu is the CPU time (user and system) the server has used so far,
// from /proc/PID/stat: a search's CPU reads less of the machine's other
// load than its latency does. 0 where /proc cannot say.
func (s *server) cpu() time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(s.pid()) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command's name, which is in parentheses and
	// may hold spaces: utime and stime are the 12th and 13th of them.
	rest := string(b)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ, 100 on Linux
}

func numCPU() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return max(1, strings.Count(string(b), "processor\t:"))
}

func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
