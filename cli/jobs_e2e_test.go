package cli

// End-to-end tests of durable jobs against real servers: hark serve
// processes built from this tree (killed with SIGKILL, as a crashed
// replica is), a throwaway PostgreSQL, and slow loopback sites and a
// slow loopback SearXNG so that the work is still running when the test
// kills, detaches or restarts.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"hark/api"
	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/pgtest"
)

// buildHarkBinary builds the hark command of this tree.
func buildHarkBinary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the hark binary and runs servers")
	}
	bin, err := harkBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// harkBinary is the hark the tests run as servers and clients: the one
// scripts/test.sh built (HARK_BIN), or one built once for the whole test
// binary, removed by TestMain.
var harkBinary = sync.OnceValues(func() (string, error) {
	if bin := os.Getenv("HARK_BIN"); bin != "" {
		if _, err := os.Stat(bin); err == nil {
			return bin, nil
		}
	}
	dir, err := os.MkdirTemp("", "hark-cli-test-")
	if err != nil {
		return "", err
	}
	builtHarkDir = dir
	bin := filepath.Join(dir, "hark")
	if out, err := exec.Command("go", "build", "-o", bin, "hark").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// builtHarkDir is the folder harkBinary built hark in, if it did.
var builtHarkDir string

// topicPages are the slow site's pages: a chain (each links the next)
// about one subject, so that research finds them and a crawl walks them
// one level at a time.
var topicPages = []string{
	"Memcheck is a memory error detector for C and C++ programs. Memcheck detects memory leaks by tracking every heap block the program allocates.",
	"Memcheck reports invalid reads when a program reads memory it does not own. An invalid read report names the address and the stack trace of the read.",
	"Memcheck detects use of uninitialised values. Memcheck tracks the definedness of every bit of memory the program uses.",
	"A memory leak report from Memcheck lists definitely lost, indirectly lost and possibly lost blocks. Memcheck detects leaks at program exit.",
	"Memcheck slows a program by a factor of ten to fifty. Memcheck runs the program on a synthetic processor.",
	"Memcheck reports invalid frees and mismatched allocation functions. Memcheck detects overlapping source and destination in memcpy.",
	"Memcheck suppression files silence known errors. Memcheck reads the default suppressions at start.",
	"Memcheck client requests let a program tell Memcheck about custom allocators. Memcheck then detects leaks in pools.",
}

// slowSite serves topicPages at /p0.html … with each answer delayed.
func slowSite(t testing.TB, delay time.Duration) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/p%d.html", &i); err != nil || i < 0 || i >= len(topicPages) {
			http.NotFound(w, r)
			return
		}
		time.Sleep(delay)
		next := ""
		if i+1 < len(topicPages) {
			next = fmt.Sprintf(`<p><a href="/p%d.html">Next part</a></p>`, i+1)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Memcheck part %d</title></head><body><main><h1>Memcheck part %d</h1><p>%s</p>%s</main></body></html>`,
			i, i, topicPages[i], next)
	}))
	t.Cleanup(s.Close)
	return s
}

// slowSearx is a SearXNG JSON API whose every search is slow and finds
// the site's pages.
func slowSearx(t testing.TB, site string, delay time.Duration, searches *atomic.Int32) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/search" {
			http.NotFound(w, r)
			return
		}
		searches.Add(1)
		time.Sleep(delay)
		type res struct {
			URL     string  `json:"url"`
			Title   string  `json:"title"`
			Content string  `json:"content"`
			Score   float64 `json:"score"`
		}
		out := struct {
			Query   string `json:"query"`
			Results []res  `json:"results"`
		}{Query: r.URL.Query().Get("q")}
		for i, p := range topicPages {
			out.Results = append(out.Results, res{URL: fmt.Sprintf("%s/p%d.html", site, i), Title: fmt.Sprintf("Memcheck part %d", i), Content: p, Score: float64(len(topicPages) - i)})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(s.Close)
	return s
}

// writeTeamConfig writes a gateway.toml with one workspace on backend
// and returns its path and API key.
func writeTeamConfig(t testing.TB, backend, url string) (path, key string) {
	t.Helper()
	key, err := auth.NewAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	search := `backend = "local"`
	if backend != config.BackendLocal {
		search = fmt.Sprintf("backend = %q\nurl = %q", backend, url)
	}
	path = filepath.Join(t.TempDir(), "gateway.toml")
	toml := fmt.Sprintf("[[workspace]]\nname = \"team\"\napi_key_sha256 = [%q]\n\n[workspace.search]\n%s\n", auth.HashKey(key), search)
	if err := os.WriteFile(path, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, key
}

// replica is one running hark serve process.
type replica struct {
	cmd  *exec.Cmd
	base string
	out  *lockedBuffer
	done chan struct{}
}

func (r *replica) pid() int { return r.cmd.Process.Pid }

// runsJob reports whether a job's node is this process ("host/pid/…").
func (r *replica) runsJob(j *api.Job) bool {
	return strings.Contains(j.Node, "/"+strconv.Itoa(r.pid())+"/")
}

// kill ends the process with SIGKILL: no shutdown, no requeue, as when a
// machine dies.
func (r *replica) kill(t testing.TB) {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-r.done
}

// startReplica runs hark serve on a free loopback port; dbURL "" keeps
// everything in dataDir's gateway.db.
func startReplica(t testing.TB, bin, cfgPath, dataDir, dbURL string) *replica {
	t.Helper()
	return startReplicaAt(t, bin, cfgPath, dataDir, dbURL, "127.0.0.1:0")
}

// startReplicaAt is startReplica listening on listen.
func startReplicaAt(t testing.TB, bin, cfgPath, dataDir, dbURL, listen string) *replica {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--listen", listen, "--config", cfgPath, "--data-dir", dataDir, "--allow-private")
	cmd.Env = append(os.Environ(), "HARK_DATABASE_URL="+dbURL, "XDG_CONFIG_HOME="+t.TempDir(), "HARK_BASE_URL=")
	r := &replica{cmd: cmd, out: &lockedBuffer{}, done: make(chan struct{})}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = r.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		re := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)
		for sc.Scan() {
			r.out.Write([]byte(sc.Text() + "\n"))
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	go func() { cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			cmd.Process.Signal(syscall.SIGKILL)
			<-r.done
		}
	})
	select {
	case r.base = <-found:
	case <-r.done:
		t.Fatalf("hark serve exited:\n%s", r.out.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("hark serve did not start:\n%s", r.out.String())
	}
	return r
}

func (r *replica) client(t testing.TB, key string) *api.Client {
	t.Helper()
	c, err := api.New(api.Options{BaseURL: r.base, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waitForEvent polls a job's log until an entry of kind appears.
func waitForEvent(t testing.TB, c *api.Client, id, kind string) *api.Job {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		ev, err := c.JobEventsAfter(context.Background(), id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ev.Events {
			if e.Kind == kind {
				return &ev.Job
			}
		}
		if ev.Job.Done() {
			t.Fatalf("job ended before a %s event: %+v %+v", kind, ev.Job, ev.Events)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no %s event in 60 s", kind)
	return nil
}

// A pro research runs on replica A, which is killed (SIGKILL) in the
// middle; replica B, on the same PostgreSQL, finishes it: the client
// follows the job through B to its report, the log says what happened,
// and the ledger holds one charge for it.
func TestJobSurvivesKilledReplica(t *testing.T) {
	t.Parallel()
	bin := buildHarkBinary(t)
	pgURL := pgtest.Fresh(t)
	site := slowSite(t, 0)
	var searches atomic.Int32
	sx := slowSearx(t, site.URL, 400*time.Millisecond, &searches)
	cfg, key := writeTeamConfig(t, config.BackendSearXNG, sx.URL)

	a := startReplica(t, bin, cfg, t.TempDir(), pgURL)
	ca := a.client(t, key)
	question := "What is Memcheck, how does Memcheck detect memory leaks, and what does Memcheck report about invalid reads?"
	j, err := ca.SubmitJob(context.Background(), api.ToolResearch, map[string]any{"input": question, "model": "pro"})
	if err != nil {
		t.Fatal(err)
	}
	// Round one takes several slow searches: kill A once it is under way.
	running := waitForEvent(t, ca, j.ID, "progress")
	if !a.runsJob(running) {
		t.Fatalf("job runs on %q, not replica A (pid %d)", running.Node, a.pid())
	}
	b := startReplica(t, bin, cfg, t.TempDir(), pgURL)
	a.kill(t)
	killed := time.Now()

	cb := b.client(t, key)
	var kinds []string
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	done, err := cb.FollowJob(ctx, j.ID, func(e api.JobEvent) { kinds = append(kinds, e.Kind) })
	if err != nil {
		t.Fatalf("follow through B: %v\nB:\n%s", err, b.out.String())
	}
	t.Logf("recovered and finished %s after the kill; log %v", time.Since(killed).Round(time.Millisecond), kinds)
	if done.State != api.JobCompleted || done.Attempt < 2 || !b.runsJob(done) {
		t.Fatalf("job %+v; want completed on B (pid %d), attempt 2 or more", done, b.pid())
	}
	if !strings.Contains(strings.Join(kinds, " "), "retry") {
		t.Errorf("the log does not say the job was retried: %v", kinds)
	}
	var out api.ResearchOutput
	if err := json.Unmarshal(done.Output, &out); err != nil {
		t.Fatal(err)
	}
	if out.Status != api.ResearchCompleted || out.RequestID != j.ID || !strings.Contains(out.Content, "Memcheck") || len(out.Sources) == 0 {
		t.Fatalf("report: status %s, request_id %s (job %s), %d sources\n%s", out.Status, out.RequestID, j.ID, len(out.Sources), out.Content)
	}
	seen := map[string]bool{}
	for _, s := range out.Sources {
		if seen[s.URL] {
			t.Errorf("source %s twice", s.URL)
		}
		seen[s.URL] = true
	}
	// One charge for the job, whatever ran it twice.
	conn, err := pgx.Connect(context.Background(), pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var rows, credits int64
	if err := conn.QueryRow(context.Background(), `SELECT count(*), COALESCE(SUM(credits),0) FROM gateway_usage WHERE operation = $1`, api.ToolResearch).Scan(&rows, &credits); err != nil {
		t.Fatal(err)
	}
	if rows != 1 || credits <= 0 {
		t.Fatalf("ledger: %d research rows, %d credits; want one charge", rows, credits)
	}
	// The synchronous invoke is the same job, submitted and waited for.
	res, err := cb.Invoke(context.Background(), api.ToolResearch, map[string]any{"input": "What does Memcheck report about invalid frees?", "model": "mini"})
	if err != nil {
		t.Fatal(err)
	}
	var sync api.ResearchOutput
	if err := json.Unmarshal(res.Output, &sync); err != nil || sync.Status != api.ResearchCompleted {
		t.Fatalf("synchronous research: %v %+v", err, sync)
	}
	if sj, err := cb.GetJob(context.Background(), sync.RequestID); err != nil || sj.State != api.JobCompleted {
		t.Fatalf("the synchronous research's request_id is not its job: %v %+v", err, sj)
	}
}

// harkCmd runs the hark binary as a client of base with key.
func harkCmd(ctx context.Context, t *testing.T, bin, base, key string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "HARK_BASE_URL="+base, "HARK_API_KEY="+key, "XDG_CONFIG_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
	return cmd
}

// A client starts a slow crawl with --detach, attaches, drops (killed
// mid-follow, as when its SSH session ends), and attaches again: the
// second attach replays the whole log, follows the crawl to its end and
// prints every page. The gateway is the embedded default's: SQLite.
func TestDetachAndReattachCrawl(t *testing.T) {
	t.Parallel()
	bin := buildHarkBinary(t)
	site := slowSite(t, 600*time.Millisecond)
	cfg, key := writeTeamConfig(t, config.BackendLocal, "")
	r := startReplica(t, bin, cfg, t.TempDir(), "")

	out, err := harkCmd(context.Background(), t, bin, r.base, key, "crawl", "--detach", "--max-depth", "5", "--limit", "6", site.URL+"/p0.html").Output()
	if err != nil {
		t.Fatalf("crawl --detach: %v", err)
	}
	id := strings.TrimSpace(string(out))
	if !regexp.MustCompile(`^[0-9a-f-]{36}$`).MatchString(id) {
		t.Fatalf("crawl --detach printed %q, not a job ID", out)
	}
	list, err := harkCmd(context.Background(), t, bin, r.base, key, "jobs", "--active").Output()
	if err != nil || !strings.Contains(string(list), id) {
		t.Fatalf("hark jobs --active: %v\n%s", err, list)
	}

	// The first attach is cut off after a second, mid-crawl.
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	first := harkCmd(ctx, t, bin, r.base, key, "jobs", "attach", id)
	var firstErr lockedBuffer
	first.Stderr = &firstErr
	firstOut, _ := first.Output()
	if !strings.Contains(firstErr.String(), "started") || strings.Contains(string(firstOut), "p5.html") {
		t.Fatalf("first attach: the crawl should be under way and unfinished\nstdout:\n%s\nstderr:\n%s", firstOut, firstErr.String())
	}

	second := harkCmd(context.Background(), t, bin, r.base, key, "jobs", "attach", id)
	libHome := t.TempDir() // the library the attach keeps the crawl in
	second.Env = append(second.Env, "XDG_DATA_HOME="+libHome)
	var secondErr lockedBuffer
	second.Stderr = &secondErr
	secondOut, err := second.Output()
	if err != nil {
		t.Fatalf("second attach: %v\n%s", err, secondErr.String())
	}
	log := secondErr.String()
	for _, want := range []string{"queued", "started", "progress", "completed"} {
		if !strings.Contains(log, want) {
			t.Errorf("the replayed log lacks %q:\n%s", want, log)
		}
	}
	if strings.Count(log, " queued ") != 1 {
		t.Errorf("the log was not replayed exactly once:\n%s", log)
	}
	for i := range 6 {
		if !strings.Contains(string(secondOut), fmt.Sprintf("/p%d.html", i)) {
			t.Errorf("page p%d missing from the attached crawl's output:\n%s", i, secondOut)
		}
	}

	lib := harkCmd(context.Background(), t, bin, r.base, key, "library", "list")
	lib.Env = append(lib.Env, "XDG_DATA_HOME="+libHome)
	if b, err := lib.Output(); err != nil || !strings.Contains(string(b), "crawl") {
		t.Errorf("the attached crawl is not kept in the library: %v\n%s", err, b)
	}

	// A detached crawl cancelled: attaching then exits as an interrupted
	// call does (130), its log ending "cancelled".
	out, err = harkCmd(context.Background(), t, bin, r.base, key, "crawl", "--detach", "--max-depth", "5", "--limit", "6", site.URL+"/p0.html").Output()
	if err != nil {
		t.Fatal(err)
	}
	id = strings.TrimSpace(string(out))
	if b, err := harkCmd(context.Background(), t, bin, r.base, key, "jobs", "cancel", id).CombinedOutput(); err != nil || !strings.Contains(string(b), "cancelled") {
		t.Fatalf("jobs cancel: %v\n%s", err, b)
	}
	cancelled := harkCmd(context.Background(), t, bin, r.base, key, "jobs", "attach", id)
	var cErr lockedBuffer
	cancelled.Stderr = &cErr
	err = cancelled.Run()
	if code := cancelled.ProcessState.ExitCode(); code != exitInterrupted || !strings.Contains(cErr.String(), "cancelled by the client") {
		t.Fatalf("attach to a cancelled job: exit %d (%v)\n%s", code, err, cErr.String())
	}
}

// A server killed (SIGKILL) in the middle of a crawl resumes it when it
// starts again on the same data directory: the embedded default, SQLite.
func TestRestartResumesJob(t *testing.T) {
	t.Parallel()
	bin := buildHarkBinary(t)
	site := slowSite(t, 500*time.Millisecond)
	cfg, key := writeTeamConfig(t, config.BackendLocal, "")
	data := t.TempDir()
	r := startReplica(t, bin, cfg, data, "")
	c := r.client(t, key)
	j, err := c.SubmitJob(context.Background(), api.ToolCrawl, map[string]any{"url": site.URL + "/p0.html", "max_depth": 5, "limit": 6})
	if err != nil {
		t.Fatal(err)
	}
	waitForEvent(t, c, j.ID, "progress")
	r.kill(t)

	again := startReplica(t, bin, cfg, data, "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done, err := again.client(t, key).FollowJob(ctx, j.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if done.State != api.JobCompleted || done.Attempt < 2 || !again.runsJob(done) {
		t.Fatalf("job %+v; want completed by the restarted server, attempt 2 or more", done)
	}
	var out api.CrawlOutput
	if err := json.Unmarshal(done.Output, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 6 {
		t.Fatalf("%d pages, want 6 (no page twice, none lost)", len(out.Results))
	}
	seen := map[string]bool{}
	for _, p := range out.Results {
		if seen[p.URL] {
			t.Errorf("page %s twice", p.URL)
		}
		seen[p.URL] = true
	}
}

// On the embedded gateway, which runs jobs only while a hark serves its
// data directory, --detach prints the job's ID and returns at once, and a
// hark in the background runs the job to its end (issue 43: the job sat
// queued until the TUI or jobs attach started). A crawl of a loopback
// site detached with --allow-private reads it; the background run exits
// once nothing is left to run.
func TestDetachOnTheEmbeddedGatewayRuns(t *testing.T) {
	t.Parallel()
	bin := buildHarkBinary(t)
	site := slowSite(t, 300*time.Millisecond)
	data := t.TempDir()
	run := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, append([]string{"--data-dir", data}, args...)...)
		cmd.Env = append(os.Environ(), "HARK_BASE_URL=", "HARK_API_KEY=", "HARK_ALLOW_PRIVATE=", "XDG_CONFIG_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
		return cmd
	}
	start := time.Now()
	var stderr strings.Builder
	cmd := run("crawl", "--detach", "--allow-private", "--max-depth", "2", "--limit", "3", site.URL+"/p0.html")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	id := strings.TrimSpace(string(out))
	if err != nil || !regexp.MustCompile(`^[0-9a-f-]{36}$`).MatchString(id) || !strings.Contains(stderr.String(), "a hark in the background runs it now") {
		t.Fatalf("crawl --detach: %v, printed %q, said %q", err, out, stderr.String())
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("--detach took %s to return", d)
	}
	// Nothing attaches: the background run alone takes it to its end.
	var state string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var b []byte
		if b, err = run("--json", "jobs").Output(); err != nil {
			t.Fatalf("jobs: %v", err)
		}
		var list api.JobList
		json.Unmarshal(b, &list)
		if len(list.Jobs) == 1 && (list.Jobs[0].State == api.JobCompleted || list.Jobs[0].State == api.JobFailed) {
			state = list.Jobs[0].State + " " + list.Jobs[0].Error
			break
		}
	}
	if state != api.JobCompleted+" " {
		t.Fatalf("the detached crawl, with no one attached: %q", state)
	}
	// The background run exits once nothing is left to run.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		pids := processesWith(data)
		if len(pids) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background run is still running (pids %v)", pids)
		}
	}
	// It kept the crawl in the library, as one waited for; attaching
	// prints it and keeps nothing more.
	crawls := func() int {
		b, err := run("--json", "library", "list").Output()
		var items []struct{ Kind string }
		if err != nil || json.Unmarshal(b, &items) != nil {
			t.Fatalf("library list: %v %s", err, b)
		}
		n := 0
		for _, it := range items {
			if it.Kind == "crawl" {
				n++
			}
		}
		return n
	}
	if n := crawls(); n != 1 {
		t.Errorf("the background run kept %d crawls, want 1", n)
	}
	b, err := run("jobs", "attach", id).Output()
	if err != nil || !strings.Contains(string(b), "== "+site.URL+"/p0.html ==") {
		t.Errorf("attach after the end: %v\n%s", err, b)
	}
	if n := crawls(); n != 1 {
		t.Errorf("after attach: %d crawls kept, want 1", n)
	}
}

// processesWith lists the processes whose command line holds s.
func processesWith(s string) []string {
	var out []string
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		if b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline")); err == nil && strings.Contains(string(b), s) {
			out = append(out, d.Name())
		}
	}
	return out
}
