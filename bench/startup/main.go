// Command startup measures how fast hark starts, as whole processes, beside
// glow in the same run: package init time, `hark --version` (time and peak
// RSS), `hark search` on the embedded gateway with a 10,000-page index, the
// TUI's first frame on a pty, its first frame with content (hark --search
// QUERY showing results), and the idle TUI's RSS. Each figure is the
// median (with min and max) of -runs runs, interleaved so that a busy
// moment of the machine touches all alike.
//
//	go run ./bench/startup -runs 15
//
// Every figure is taken in two page cache states, interleaved (-cache
// picks one): "warm", the binary's pages left in the page cache by the
// previous run, as for a command run again and again; and "cold", the
// binary's pages (hark's and glow's alike) evicted just before every run,
// so that the kernel reads the binary from disk as after a reboot or an
// install. Shared libraries, the index and the config stay cached in both.
//
// It builds hark from this checkout and glow from the Go module proxy
// (github.com/charmbracelet/glow/v2, a measuring peer only; -glow PATH uses
// another). The index is made once, from generated pages, in a temporary
// data directory (-keep keeps it for the next run).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var (
	runs     = flag.Int("runs", 15, "runs of each measurement")
	pages    = flag.Int("pages", 10000, "pages in the search index")
	glowPath = flag.String("glow", "", "glow binary (default: build v2.1.1 from the module proxy)")
	workDir  = flag.String("dir", "", "work directory (default: a new temporary one)")
	keep     = flag.Bool("keep", false, "keep the work directory (the built index) for the next run")
	cache    = flag.String("cache", "both", "page cache state of the binaries at each run: warm, cold (evicted before every run) or both")
)

func main() {
	flag.Parse()
	log.SetFlags(0)
	var modes []string
	switch *cache {
	case "warm", "cold":
		modes = []string{*cache}
	case "both":
		modes = []string{"warm", "cold"}
	default:
		log.Fatalf("-cache %q: must be warm, cold or both", *cache)
	}
	dir := *workDir
	if dir == "" {
		d, err := os.MkdirTemp("", "hark-startup-")
		if err != nil {
			log.Fatal(err)
		}
		dir = d
	}
	if !*keep && *workDir == "" {
		defer os.RemoveAll(dir)
	}
	root, err := repoRoot()
	if err != nil {
		log.Fatal(err)
	}
	hark := filepath.Join(dir, "hark")
	run(root, nil, "go", "build", "-o", hark, ".")
	// Just linked, the binary's page cache holds the large folios the
	// external linker's writes made, and a fault maps a whole folio: the
	// same bytes show about 10 MB more RSS than once read from disk.
	// Measure that once, then evict the file's pages, so that even the
	// warm figures are those of a binary once read from disk.
	linked := map[string][]float64{}
	for range 3 {
		_, rss := timed(exec.Command(hark, "--version"), nil)
		linked["version RSS MB, just linked"] = append(linked["version RSS MB, just linked"], rss)
	}
	evict(hark)
	glow := *glowPath
	if glow == "" {
		glow = buildGlow(dir)
	}
	env := isolatedEnv(dir)
	index(hark, env, dir)
	report := filepath.Join(dir, "report.md")
	if err := os.WriteFile(report, []byte(longReport(200<<10)), 0o644); err != nil {
		log.Fatal(err)
	}

	m := linked
	add := func(k string, v float64) { m[k] = append(m[k], v) }
	queries := []string{"memory leak detection", "thread race conditions", "cache profiling", "signal handling", "heap block overrun"}
	for i := 0; i < *runs; i++ {
		for _, mode := range modes {
			// prep readies bin for one run: in the cold state its pages
			// leave the page cache.
			prep := func(bin string) string {
				if mode == "cold" {
					evict(bin)
				}
				return bin
			}
			rec := func(k string, v float64) { add(k+" ["+mode+"]", v) }
			d, rss := timed(exec.Command(prep(hark), "--version"), env)
			rec("version ms", d)
			rec("version RSS MB", rss)
			rec("init ms", initSum(prep(hark), env))
			if glow != "" {
				d, _ = timed(exec.Command(prep(glow), "--version"), env)
				rec("glow version ms", d)
			}
			d, _ = timed(exec.Command(prep(hark), "search", queries[i%len(queries)]), env)
			rec("search ms", d)
			ff, idle := firstFrame(exec.Command(prep(hark)), env, "Tools", true)
			rec("tui first frame ms", ff)
			rec("tui idle RSS MB", idle)
			// The first frame with content: Search showing a query's results.
			ff, _ = firstFrame(exec.Command(prep(hark), "--search", queries[i%len(queries)]), env, "Page ", false)
			rec("tui content frame ms", ff)
			if glow != "" {
				ff, _ = firstFrame(exec.Command(prep(glow), "-t", report), env, "Section 1", false)
				rec("glow report frame ms", ff)
			}
		}
	}
	host, _ := os.Hostname()
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("hark start-up, %d runs each, pages in index %d; host %s, load %s\n", *runs, *pages, host, strings.Fields(string(load) + " ?")[0])
	fmt.Println("[warm]: the binary left in the page cache by the previous run; [cold]: its pages evicted just before each run")
	fmt.Println("| What | median | min | max |")
	fmt.Println("|---|---|---|---|")
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := m[k]
		sort.Float64s(v)
		fmt.Printf("| %s | %.1f | %.1f | %.1f |\n", k, v[len(v)/2], v[0], v[len(v)-1])
	}
}

// evict drops path's pages from the page cache (they are clean once
// synced), so the next exec reads the file from disk.
func evict(path string) {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		log.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		log.Fatal(err)
	}
}

func repoRoot() (string, error) {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", fmt.Errorf("run this from inside the hark checkout: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func run(dir string, env []string, name string, args ...string) string {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = env
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		log.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// buildGlow builds glow v2.1.1 from its module zip (the proxy refuses the
// version list `go install` asks for, not the version itself).
func buildGlow(dir string) string {
	out, err := exec.Command("go", "mod", "download", "-json", "github.com/charmbracelet/glow/v2@v2.1.1").Output()
	if err != nil {
		log.Printf("glow unavailable (%v); measuring hark alone", err)
		return ""
	}
	var src string
	for _, l := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), ": "); ok && k == `"Dir"` {
			src, _ = strconv.Unquote(strings.TrimSuffix(v, ","))
		}
	}
	dst := filepath.Join(dir, "glow-src")
	run(dir, nil, "cp", "-r", src, dst)
	run(dir, nil, "chmod", "-R", "u+w", dst)
	bin := filepath.Join(dir, "glow")
	run(dst, nil, "go", "build", "-o", bin, ".")
	return bin
}

// isolatedEnv points every hark and glow directory into dir, with the
// embedded gateway (no base URL) and no sound.
func isolatedEnv(dir string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TERM=xterm-256color",
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_DATA_HOME=" + filepath.Join(dir, "data"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, "cache"), "HARK_AUDIO_SINK=null", "HARK_ALLOW_PRIVATE=1"}
	return env
}

// index fills the embedded gateway's index with generated pages, once.
func index(hark string, env []string, dir string) {
	marker := filepath.Join(dir, "indexed-"+strconv.Itoa(*pages))
	if _, err := os.Stat(marker); err == nil {
		return
	}
	src := filepath.Join(dir, "pages")
	if err := os.MkdirAll(src, 0o755); err != nil {
		log.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < *pages; i++ {
		sub := filepath.Join(src, fmt.Sprintf("d%02d", i%50))
		os.MkdirAll(sub, 0o755)
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("page-%05d.md", i)), []byte(page(r, i)), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	start := time.Now()
	log.Printf("indexing %d pages...", *pages)
	run(dir, env, hark, "index", "--limit", strconv.Itoa(*pages+10), src)
	log.Printf("indexed in %s", time.Since(start).Round(time.Second))
	os.WriteFile(marker, nil, 0o644)
}

var vocabulary = strings.Fields(`memory leak detection thread race condition cache profiling signal handling heap block
overrun allocation pointer buffer stack frame error report suppression file option valgrind tool instrument
program source line function call graph branch miss instruction count lock order mutex condition variable
barrier semaphore atomic operation data structure client request debug symbol output format summary user
system kernel process child fork exec pipe socket network address port protocol header payload message`)

// page is one generated documentation page of about 3 KB, its words drawn
// with a skew toward the start of the vocabulary, as in real text.
func page(r *rand.Rand, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Page %d: %s %s\n\n", i, word(r), word(r))
	for p := 0; p < 6; p++ {
		fmt.Fprintf(&b, "## %s %s\n\n", word(r), word(r))
		for s := 0; s < 5; s++ {
			for w := 0; w < 12; w++ {
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(word(r))
			}
			b.WriteString(". ")
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

func word(r *rand.Rand) string {
	n := len(vocabulary)
	return vocabulary[min(n-1, int(float64(n)*r.Float64()*r.Float64()))]
}

// timed runs cmd to completion and returns its wall time in ms and its
// peak RSS in MB.
func timed(cmd *exec.Cmd, env []string) (float64, float64) {
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		log.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out.String())
	}
	d := time.Since(start)
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	rss := 0.0
	if ru != nil {
		rss = float64(ru.Maxrss) / 1024
	}
	return float64(d.Microseconds()) / 1000, rss
}

// initSum is the sum of the package init times GODEBUG=inittrace=1 reports
// for one `hark --version`, in ms.
func initSum(hark string, env []string) float64 {
	cmd := exec.Command(hark, "--version")
	cmd.Env = append(env, "GODEBUG=inittrace=1")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		log.Fatal(err)
	}
	sum := 0.0
	for _, l := range strings.Split(errb.String(), "\n") {
		f := strings.Fields(l)
		// init PKG @T ms, D ms clock, ...
		if len(f) > 5 && f[0] == "init" && f[5] == "ms" {
			if v, err := strconv.ParseFloat(f[4], 64); err == nil {
				sum += v
			}
		}
	}
	return sum
}

// firstFrame starts cmd on an 80x24 pty and returns the ms until want
// appears on the terminal; with idleRSS, it then waits 2 s and returns the
// process's resident set in MB.
func firstFrame(cmd *exec.Cmd, env []string, want string, idleRSS bool) (float64, float64) {
	master, slave, err := openPty(80, 24)
	if err != nil {
		log.Fatal(err)
	}
	defer master.Close()
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	slave.Close()
	got := make(chan time.Duration, 1)
	go func() {
		var seen bytes.Buffer
		b := make([]byte, 32<<10)
		found := false
		for {
			n, err := master.Read(b)
			seen.Write(b[:n])
			answerQueries(master, b[:n])
			if !found && strings.Contains(ansi.ReplaceAllString(seen.String(), ""), want) {
				found = true
				got <- time.Since(start)
			}
			if err != nil {
				if !found {
					got <- -1
				}
				return
			}
		}
	}()
	var d time.Duration
	select {
	case d = <-got:
	case <-time.After(20 * time.Second):
		d = -1
	}
	if d < 0 {
		cmd.Process.Kill()
		cmd.Wait()
		log.Fatalf("%s: %q never appeared on the terminal", strings.Join(cmd.Args, " "), want)
	}
	rss := 0.0
	if idleRSS {
		time.Sleep(2 * time.Second)
		rss = residentMB(cmd.Process.Pid)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-done
	}
	return float64(d.Microseconds()) / 1000, rss
}

// ansi matches the escape sequences between styled runs of text, so that
// "## Section 1" is found however the program styled its words.
var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][0-9A-Za-z]`)

// answerQueries answers what a terminal is asked at start, as a real one
// does: the background colour (OSC 11) and the cursor position (DSR). glow
// waits for both before its first frame; hark asks for the colour without
// waiting.
func answerQueries(master *os.File, out []byte) {
	if bytes.Contains(out, []byte("\x1b]11;?")) {
		master.Write([]byte("\x1b]11;rgb:1c1c/1c1c/1c1c\x1b\\"))
	}
	if bytes.Contains(out, []byte("\x1b[6n")) {
		master.Write([]byte("\x1b[1;1R"))
	}
}

func residentMB(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

func openPty(cols, rows int) (master, slave *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		return nil, nil, err
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		return nil, nil, err
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(rows), Col: uint16(cols)}); err != nil {
		return nil, nil, err
	}
	return m, s, nil
}

// longReport is a markdown report of about size bytes, like the TUI's pty
// benchmarks use: headings, paragraphs, lists, tables and code.
func longReport(size int) string {
	var b strings.Builder
	b.WriteString("# Research report\n\n")
	for i := 1; b.Len() < size; i++ {
		fmt.Fprintf(&b, "## Section %d\n\n", i)
		fmt.Fprintf(&b, "Terminal interfaces stay **responsive** over slow links because they send only what changed. "+
			"Section %d looks at [source %d](https://example.com/s%d) and compares `render` costs across widths; "+
			"the results hold for both light and dark themes, and for narrow and wide terminals alike.\n\n", i, i, i)
		b.WriteString("- a first finding that wraps onto a second line when the terminal is narrow enough\n- a second finding\n- a third, with `code`\n\n")
		if i%5 == 0 {
			b.WriteString("| metric | value |\n|---|---|\n| bytes | 190 |\n| frames | 60 |\n\n")
			b.WriteString("```go\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n```\n\n")
		}
	}
	return b.String()
}
