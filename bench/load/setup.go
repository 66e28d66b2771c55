package main

import (
	"database/sql"
	"fmt"
	"log"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	_ "modernc.org/sqlite"

	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/store"
)

// repoRoot is the hark checkout this module sits in (bench/load).
func repoRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		log.Fatal(err)
	}
	for dir := wd; dir != "/"; dir = filepath.Dir(dir) {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(b), "module hark\n") {
			return dir
		}
	}
	log.Fatal("run from inside the hark checkout (bench/load), or give -hark")
	return ""
}

func buildHark(work string) string {
	bin := filepath.Join(work, "hark")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = repoRoot()
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatalf("build hark: %v", err)
	}
	return bin
}

// isolatedEnv keeps hark's config, data and cache inside work.
func isolatedEnv(work string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(work, "home"), "LANG=C.UTF-8"}
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"} {
		env = append(env, v+"="+filepath.Join(work, strings.ToLower(v)))
	}
	return env
}

// writeConfig writes a gateway.toml whose one workspace has a quota (so
// every call writes a pending row first, the ledger's harder path) far
// above what the run spends, and a per-key rate limit above the load,
// so that the server itself, not the limiter, meets the load.
// The workspace has ten keys, as a team would: streams are spread over
// them, so that the server's stream capacity, not the per-key limit
// (streams_per_key, 8), decides; the invoke load uses the first.
func writeConfig(work string) (keys []string, path string) {
	for range 10 {
		key, err := auth.NewAPIKey()
		if err != nil {
			log.Fatal(err)
		}
		keys = append(keys, key)
	}
	ws := config.LocalWorkspace(auth.HashKey(keys[0]))
	for _, k := range keys[1:] {
		ws.APIKeySHA256 = append(ws.APIKeySHA256, auth.HashKey(k))
	}
	ws.Name, ws.CreditQuota = "load", 100_000_000
	cfg := config.Config{
		Limits:     config.Limits{RatePerSecond: 100000, RateBurst: 100000},
		Workspaces: []config.Workspace{ws},
	}
	path = filepath.Join(work, "gateway.toml")
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if err := toml.NewEncoder(f).Encode(cfg); err != nil {
		log.Fatal(err)
	}
	return keys, path
}

// indexPages writes n generated markdown pages and indexes them with
// `hark index`, so that searches read a real BM25 index.
func indexPages(bin, work, dataDir string) {
	dir := filepath.Join(work, "pages")
	os.MkdirAll(dir, 0o755)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range *pages {
		var b strings.Builder
		fmt.Fprintf(&b, "# %s and %s, page %d\n\n", words[r.IntN(len(words))], words[r.IntN(len(words))], i)
		for p := range 6 {
			for w := range 60 {
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[r.IntN(len(words))])
			}
			fmt.Fprintf(&b, " (paragraph %d).\n\n", p)
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("page-%04d.md", i)), []byte(b.String()), 0o644)
	}
	cmd := exec.Command(bin, "--data-dir", dataDir, "index", dir)
	cmd.Env = isolatedEnv(work)
	if out, err := cmd.CombinedOutput(); err != nil {
		log.Fatalf("hark index: %v\n%s", err, out)
	}
}

// since marks the start of the measured calls in the usage history.
var since = time.Now()

// usageRows counts the vendor_search rows since the run began: settled
// ok, and still pending.
func usageRows(dataDir string) (ok, pending int) {
	path := filepath.Join(dataDir, store.DBFile)
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	err = db.QueryRow(`SELECT
		COALESCE(SUM(status='ok'),0), COALESCE(SUM(status='pending'),0)
		FROM gateway_usage WHERE operation='vendor_search' AND ts>=?`, since.UnixMilli()).Scan(&ok, &pending)
	if err != nil {
		log.Fatalf("read usage: %v", err)
	}
	return ok, pending
}
