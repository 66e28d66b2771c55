package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/jackc/pgx/v5"

	"hark/api"
	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/pgtest"
	"hark/gateway/store"
)

// pgURLWithPassword is a database URL with a password put in (trust
// authentication ignores it), to see that no output shows it.
func pgURLWithPassword(url string) string {
	return strings.Replace(url, pgtest.Superuser+"@", pgtest.Superuser+":s3cret-pw@", 1)
}

// --migrate-only applies the migrations, reports the version, and does it
// again as a no-op; a URL that is not postgres:// is refused by name.
func TestServeMigrateOnly(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("HARK_DATABASE_URL", "")
	dbURL := pgURLWithPassword(pgtest.Fresh(t))
	cfgPath := filepath.Join(t.TempDir(), "gateway.toml")
	for range 2 {
		code, out, errs := runArgs("serve", "--migrate-only", "--database", dbURL, "--config", cfgPath, "--data-dir", t.TempDir())
		want := "PostgreSQL postgres://hark:xxxxx@"
		if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, ": every table up to date") ||
			!regexp.MustCompile(`(?m)^  usage +version [1-9]\d*  \S`).MatchString(out) ||
			!regexp.MustCompile(`(?m)^  web +version [1-9]\d* `).MatchString(out) || strings.Contains(out, "research") {
			t.Fatalf("exit %d\n%s\n%s", code, out, errs)
		}
		if strings.Contains(out+errs, "s3cret-pw") {
			t.Fatal("the database password was shown")
		}
	}
	t.Setenv("HARK_DATABASE_URL", "mysql://u:s3cret-pw@127.0.0.1/x")
	code, out, errs := runArgs("serve", "--migrate-only", "--config", cfgPath, "--data-dir", t.TempDir())
	if code != 2 || !strings.Contains(errs, "HARK_DATABASE_URL: must be a postgres://") || strings.Contains(out+errs, "s3cret-pw") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

// hark serve with HARK_DATABASE_URL writes its usage to PostgreSQL.
func TestServeOnPostgres(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("HARK_BASE_URL", "")
	pgURL := pgtest.Fresh(t)
	t.Setenv("HARK_DATABASE_URL", pgURLWithPassword(pgURL))
	cfgPath := filepath.Join(t.TempDir(), "gw", "gateway.toml")
	s := startServe(t, "--config", cfgPath, "--data-dir", t.TempDir())
	defer s.cancel()
	out, errb, cancel, done := &s.out, &s.errb, s.cancel, s.done
	if !strings.Contains(out.String(), "in PostgreSQL") || strings.Contains(out.String(), "s3cret-pw") {
		t.Fatalf("start-up lines:\n%s", out.String())
	}
	key := regexp.MustCompile(`hark_[0-9a-f]{64}`).FindString(out.String())
	c, _ := api.New(api.Options{BaseURL: s.base, APIKey: key})
	if _, err := c.Search(context.Background(), api.SearchInput{Query: "anything"}); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	conn, err := pgx.Connect(context.Background(), pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var rows, credits int
	if err := conn.QueryRow(context.Background(), `SELECT count(*), COALESCE(SUM(credits),0) FROM gateway_usage WHERE operation='vendor_search' AND status='ok'`).Scan(&rows, &credits); err != nil {
		t.Fatal(err)
	}
	if rows != 1 || credits != 1 {
		t.Fatalf("PostgreSQL holds %d search rows, %d credits; want 1, 1", rows, credits)
	}
}

func runArgs(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// The flag wins over HARK_DATABASE_URL, which wins over gateway.toml.
func TestServeDatabasePrecedence(t *testing.T) {
	t.Setenv("HARK_DATABASE_URL", "")
	if u, src := (serveDB{}).resolve("postgres://file/db"); u != "postgres://file/db" || src != "database_url in gateway.toml" {
		t.Errorf("file: %q from %s", u, src)
	}
	t.Setenv("HARK_DATABASE_URL", "postgres://env/db")
	if u, src := (serveDB{}).resolve("postgres://file/db"); u != "postgres://env/db" || src != "HARK_DATABASE_URL" {
		t.Errorf("env: %q from %s", u, src)
	}
	if u, src := (serveDB{url: "postgres://flag/db"}).resolve("postgres://file/db"); u != "postgres://flag/db" || src != "--database" {
		t.Errorf("flag: %q from %s", u, src)
	}
	if r := redactedURL("postgres://u:pw@h/db"); strings.Contains(r, "pw") {
		t.Errorf("redacted %q", r)
	}
}

// gateway.db gets the same versioned migrations, reported the same way.
func TestServeMigrateOnlySQLite(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HARK_DATABASE_URL", "")
	dataDir := t.TempDir()
	code, out, errs := runArgs("serve", "--migrate-only", "--config", filepath.Join(t.TempDir(), "gateway.toml"), "--data-dir", dataDir)
	want := filepath.Join(dataDir, store.DBFile) + ": every table up to date"
	if code != 0 || !strings.Contains(out, want) || !regexp.MustCompile(`(?m)^  research +version 2 `).MatchString(out) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

// keys add shows the new key once; list shows IDs, names and workspaces
// but no secret; revoke marks it; bad input names its field.
func TestServeKeys(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HARK_DATABASE_URL", "")
	cfgPath := filepath.Join(t.TempDir(), "gateway.toml")
	seed, err := writeNewConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	dd := t.TempDir()
	keys := func(args ...string) (int, string, string) {
		return runArgs(append([]string{"serve", "keys", "--config", cfgPath, "--data-dir", dd}, args...)...)
	}
	code, out, errs := keys("add", "--workspace", "local", "--name", "carol")
	key := regexp.MustCompile(`hark_[0-9a-f]{64}`).FindString(out)
	if code != 0 || key == "" || !strings.Contains(out, "shown only now") {
		t.Fatalf("add: exit %d\n%s\n%s", code, out, errs)
	}
	id := auth.HashKey(key)[:8]
	code, out, errs = keys("list")
	if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "carol") || !strings.Contains(out, auth.HashKey(seed)[:8]) {
		t.Fatalf("list: exit %d\n%s\n%s", code, out, errs)
	}
	if strings.Contains(out+errs, key[5:21]) || strings.Contains(out+errs, seed[5:21]) || strings.Contains(out, auth.HashKey(key)) {
		t.Fatalf("list shows a secret or a whole hash:\n%s", out)
	}
	if code, out, errs = keys("revoke", id); code != 0 || !strings.Contains(out, "Revoked key "+id) {
		t.Fatalf("revoke: exit %d\n%s\n%s", code, out, errs)
	}
	if code, out, _ = keys("list"); !regexp.MustCompile(id + `.*revoked`).MatchString(out) {
		t.Fatalf("list after revoke:\n%s", out)
	}
	// --json: the same keys, for scripts; no secret, no whole hash.
	code, out, errs = keys("list", "--json")
	var listed []struct {
		ID, Workspace, Name, Source string
		Created, Revoked            *time.Time
		Active                      bool
	}
	if err := json.Unmarshal([]byte(out), &listed); code != 0 || err != nil || len(listed) != 2 {
		t.Fatalf("list --json: exit %d, %v\n%s\n%s", code, err, out, errs)
	}
	for _, k := range listed {
		switch k.ID {
		case id:
			if k.Name != "carol" || k.Source != "database" || k.Active || k.Revoked == nil || k.Created == nil {
				t.Errorf("the revoked key: %+v", k)
			}
		case auth.HashKey(seed)[:8]:
			if k.Source != "gateway.toml" || !k.Active || k.Revoked != nil || k.Created != nil {
				t.Errorf("the seed key: %+v", k)
			}
		default:
			t.Errorf("a key no one made: %+v", k)
		}
	}
	if strings.Contains(out, key[5:21]) || strings.Contains(out, auth.HashKey(key)) {
		t.Fatalf("list --json shows a secret or a whole hash:\n%s", out)
	}
	if code, _, errs = keys("add", "--workspace", "nosuch"); code != 2 || !strings.Contains(errs, `workspace: "nosuch" is not a workspace`) {
		t.Fatalf("unknown workspace: exit %d: %s", code, errs)
	}
	if code, _, errs = keys("add"); code != 2 || !strings.Contains(errs, "--workspace: is required") {
		t.Fatalf("no workspace: exit %d: %s", code, errs)
	}
	if code, _, errs = keys("revoke", "deadbeef"); code != 2 || !strings.Contains(errs, `no key "deadbeef"`) {
		t.Fatalf("unknown ID: exit %d: %s", code, errs)
	}
}

// serveUntilEnd runs `hark serve` with args in this process until the
// test ends, checking then that it stopped cleanly, and returns its base
// URL.
func serveUntilEnd(t *testing.T, args ...string) string {
	t.Helper()
	s := startServe(t, args...)
	t.Cleanup(func() {
		s.cancel()
		select {
		case code := <-s.done:
			if code != 0 {
				t.Errorf("serve exit %d: %s", code, s.errb.String())
			}
		case <-time.After(10 * time.Second):
			t.Error("serve did not stop")
		}
	})
	return s.base
}

// Three `hark serve` replicas on one PostgreSQL, end to end: a key added
// with `hark serve keys add` while they run works on all of them within a
// second; a burst of three times its rate-limit burst, spread over them,
// gets exactly the burst served and the rest 429 with Retry-After; revoked
// with `hark serve keys revoke`, it is refused by all three within a second.
func TestServeReplicasOnPostgres(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("HARK_BASE_URL", "")
	t.Setenv("HARK_DATABASE_URL", pgURLWithPassword(pgtest.Fresh(t)))
	cfgPath := filepath.Join(t.TempDir(), "gateway.toml")
	if _, err := writeNewConfig(cfgPath); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	const burst = 12
	cfg.Limits.RatePerSecond, cfg.Limits.RateBurst = 0.01, burst // no token comes back during the test
	// Admission would shed some of the burst with 503 after the limiter
	// took their tokens; the test is about the limiter.
	cfg.Limits.MaxInvoke, cfg.Limits.QueueLength = 64, 64
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgPath, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	var bases []string
	for range 3 {
		bases = append(bases, serveUntilEnd(t, "--config", cfgPath, "--data-dir", t.TempDir()))
	}
	code, out, errs := runArgs("serve", "keys", "add", "--workspace", "local", "--name", "team", "--config", cfgPath, "--data-dir", t.TempDir())
	key := regexp.MustCompile(`hark_[0-9a-f]{64}`).FindString(out)
	if code != 0 || key == "" {
		t.Fatalf("keys add: exit %d\n%s\n%s", code, out, errs)
	}
	call := func(base string) (int, http.Header) {
		req, _ := http.NewRequest("POST", base+fmt.Sprintf(api.PathInvokeFmt, api.ToolSearch), strings.NewReader(`{"inputs":{"query":"q"}}`))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header
	}
	// until wants every replica to answer status within a second; a 200
	// takes a token of the key's bucket, which it returns in used.
	until := func(status int) (used int) {
		for _, b := range bases {
			start := time.Now()
			for {
				got, _ := call(b)
				if got == 200 {
					used++
				}
				if got == status {
					break
				}
				if time.Since(start) > time.Second {
					t.Fatalf("%s answers %d after 1 s, want %d", b, got, status)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		return used
	}
	used := until(200)
	var mu sync.Mutex
	var wg sync.WaitGroup
	codes := map[int]int{}
	for i := range 3 * burst {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, h := call(bases[i%3])
			mu.Lock()
			defer mu.Unlock()
			codes[status]++
			if status == 429 && h.Get("Retry-After") == "" {
				t.Error("429 without Retry-After")
			}
		}()
	}
	wg.Wait()
	if codes[200] != burst-used || codes[429] != 3*burst-(burst-used) || len(codes) != 2 {
		t.Fatalf("statuses %v after %d tokens used, want %d x 200, the rest 429", codes, used, burst-used)
	}
	id := auth.HashKey(key)[:8]
	if code, out, errs := runArgs("serve", "keys", "revoke", id, "--config", cfgPath, "--data-dir", t.TempDir()); code != 0 {
		t.Fatalf("keys revoke: exit %d\n%s\n%s", code, out, errs)
	}
	until(http.StatusUnauthorized)
}

// One rule for a database URL: a malformed one is a usage error (exit 2)
// wherever it is given and whatever is wrong with it, named by where it
// came from and never quoting its password; a well-formed one whose
// server does not answer is the database's failure (exit 6).
func TestDatabaseURLExitCodes(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HARK_DATABASE_URL", "")
	cfgPath := filepath.Join(t.TempDir(), "gateway.toml")
	if _, err := writeNewConfig(cfgPath); err != nil {
		t.Fatal(err)
	}
	dd := t.TempDir()
	for _, bad := range []string{"mysql://u:s3cret-pw@h/db", "postgres://u:s3cret-pw@[::1/db", "postgres://u:s3cret-pw@h:port/db", "postgresql://u:s3cret-pw@h/db?sslmode=sometimes"} {
		for _, args := range [][]string{
			{"serve", "--migrate-only", "--database", bad, "--config", cfgPath, "--data-dir", dd},
			{"serve", "keys", "list", "--database", bad, "--config", cfgPath, "--data-dir", dd},
			{"index", "--database", bad, "--data-dir", dd, "https://example.org/"},
		} {
			code, out, errs := runArgs(args...)
			if code != 2 || !strings.Contains(errs, "--database") || strings.Contains(out+errs, "s3cret-pw") {
				t.Errorf("%v: exit %d\n%s%s", args, code, out, errs)
			}
		}
	}
	// Nothing listens on port 1 of loopback.
	code, out, errs := runArgs("serve", "keys", "list", "--database", "postgres://u:s3cret-pw@127.0.0.1:1/db?connect_timeout=2", "--config", cfgPath, "--data-dir", dd)
	if code != 6 || strings.Contains(out+errs, "s3cret-pw") || !strings.Contains(errs, "connect to PostgreSQL") {
		t.Errorf("an unreachable database: exit %d\n%s%s", code, out, errs)
	}
}
