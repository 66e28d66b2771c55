package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/auth"
	"hark/gateway/pgtest"
)

// Workspaces and keys in the database alone, end to end, on gateway.db
// (two `hark serve` on one data directory) and on PostgreSQL (two
// replicas): a gateway.toml with no workspace; a workspace added, a key
// of it made, both taken by the running gateways within a second; its
// quota changed and held at once; a key rotated with an overlap, then the
// old one refused; the usage reported as a table, JSON and CSV; the
// workspace removed and its keys refused.
func TestServeWorkspacesInTheDatabase(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("HARK_BASE_URL", "")
	t.Setenv("HARK_DATABASE_URL", "")
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			cfgPath := filepath.Join(t.TempDir(), "gateway.toml")
			// No workspace, no key: the database holds them.
			if err := os.WriteFile(cfgPath, []byte("[limits]\nrate_per_second = 1000\nrate_burst = 1000\nmax_invoke = 16\nqueue_length = 16\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			dataDir := t.TempDir()
			db := []string{"--config", cfgPath, "--data-dir", dataDir}
			if backend == "postgres" {
				db = append(db, "--database", pgURLWithPassword(pgtest.Fresh(t)))
			}
			serve := func(args ...string) (int, string, string) {
				t.Helper()
				return runArgs(append(append([]string{"serve"}, args...), db...)...)
			}
			bases := []string{serveUntilEnd(t, db...), serveUntilEnd(t, db...)}
			call := func(base, key string) int {
				req, _ := http.NewRequest("POST", base+fmt.Sprintf(api.PathInvokeFmt, api.ToolSearch), strings.NewReader(`{"inputs":{"query":"q"}}`))
				req.Header.Set("Authorization", "Bearer "+key)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.StatusCode
			}
			limit := func(base, key string) string { // a free call's X-Credits-Limit
				req, _ := http.NewRequest("GET", base+api.PathTools, nil)
				req.Header.Set("Authorization", "Bearer "+key)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.Header.Get(api.HeaderCreditsLimit)
			}
			within := func(what string, d time.Duration, ok func() bool) {
				t.Helper()
				start := time.Now()
				for !ok() {
					if time.Since(start) > d {
						t.Fatalf("%s: not within %s", what, d)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}

			if code, out, errs := serve("workspaces", "add", "team", "--quota", "3", "--period", "day"); code != 0 || !strings.Contains(out, `Added workspace "team"`) {
				t.Fatalf("workspaces add: exit %d\n%s%s", code, out, errs)
			}
			if code, _, errs := serve("workspaces", "add", "team"); code != 2 || !strings.Contains(errs, `holds a workspace "team" already`) {
				t.Fatalf("a second team: exit %d: %s", code, errs)
			}
			code, out, errs := serve("keys", "add", "--workspace", "team", "--name", "alice", "--expires", "30d")
			key := regexp.MustCompile(`hark_[0-9a-f]{64}`).FindString(out)
			if code != 0 || key == "" || !strings.Contains(out, "It works until") {
				t.Fatalf("keys add: exit %d\n%s%s", code, out, errs)
			}
			for _, b := range bases {
				within("the new workspace's key on a replica", time.Second, func() bool { return call(b, key) == 200 })
			}
			// 2 of the quota of 3 spent above; one more, then 402.
			if s := call(bases[0], key); s != 200 {
				t.Fatalf("third call %d", s)
			}
			if s := call(bases[1], key); s != 402 {
				t.Fatalf("over the quota: %d", s)
			}
			// The quota raised without a restart: both replicas within a second.
			if code, _, errs := serve("workspaces", "set", "team", "--quota", "5"); code != 0 {
				t.Fatalf("workspaces set: exit %d: %s", code, errs)
			}
			for _, b := range bases {
				within("the raised quota on a replica", time.Second, func() bool { return limit(b, key) == "5" })
			}
			for _, b := range bases {
				if s := call(b, key); s != 200 {
					t.Fatalf("a call within the raised quota: %d", s)
				}
			}
			if s := call(bases[0], key); s != 402 {
				t.Fatalf("over the raised quota: %d", s)
			}
			if code, _, errs := serve("workspaces", "set", "team", "--quota", "100"); code != 0 {
				t.Fatalf("workspaces set: exit %d: %s", code, errs)
			}
			for _, b := range bases {
				within("the quota of 100 on a replica", time.Second, func() bool { return limit(b, key) == "100" })
			}

			// Rotation: the new key works within a second, the old for the overlap.
			id := auth.HashKey(key)[:8]
			code, out, errs = serve("keys", "rotate", id, "--overlap", "2s")
			newKey := regexp.MustCompile(`hark_[0-9a-f]{64}`).FindString(out)
			if code != 0 || newKey == "" || !strings.Contains(out, "The old key "+id+" works until") {
				t.Fatalf("keys rotate: exit %d\n%s%s", code, out, errs)
			}
			rotated := time.Now()
			within("the rotated key", time.Second, func() bool { return call(bases[1], newKey) == 200 })
			if s := call(bases[0], key); s != 200 && time.Since(rotated) < 2*time.Second {
				t.Fatalf("the old key in its overlap: %d", s)
			}
			within("the old key's end", 4*time.Second, func() bool { return call(bases[0], key) == 401 && call(bases[1], key) == 401 })
			if s := call(bases[0], newKey); s != 200 {
				t.Fatalf("the new key after the overlap: %d", s)
			}
			code, out, _ = runArgs(append([]string{"--json", "serve", "keys", "list"}, db...)...)
			var listed []struct {
				ID      string
				Expires *time.Time
				Active  bool
			}
			if err := json.Unmarshal([]byte(out), &listed); code != 0 || err != nil || len(listed) != 2 {
				t.Fatalf("keys list --json: exit %d %v\n%s", code, err, out)
			}
			for _, k := range listed {
				if k.ID == id && (k.Active || k.Expires == nil) {
					t.Errorf("the rotated-out key: %+v", k)
				}
			}

			// The usage report: calls and credits per workspace, key and tool.
			code, out, errs = runArgs(append([]string{"--json", "serve", "usage"}, db...)...)
			var rep struct {
				Rows []struct {
					Workspace              string
					KeyID                  string `json:"key_id"`
					Tool                   string
					Calls, Errors, Credits int64
				}
			}
			if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
				t.Fatalf("usage --json: exit %d %v\n%s%s", code, err, out, errs)
			}
			calls := map[string]int64{}
			for _, r := range rep.Rows {
				if r.Workspace != "team" || r.Tool != api.ToolSearch {
					t.Errorf("usage row %+v", r)
				}
				calls[r.KeyID] += r.Calls
				if r.Credits != r.Calls || r.Errors != 0 {
					t.Errorf("usage row %+v: one credit a search, no errors", r)
				}
			}
			if calls[id] < 7 || calls[auth.HashKey(newKey)[:8]] < 2 {
				t.Errorf("calls by key %v; want at least 7 of %s and 2 of the new key", calls, id)
			}
			code, out, _ = serve("usage", "--csv", "--by", "workspace,tool")
			if code != 0 || !strings.HasPrefix(out, "workspace,tool,calls,errors,credits\nteam,vendor_search,") {
				t.Errorf("usage --csv: exit %d\n%s", code, out)
			}
			code, out, _ = serve("usage", "--by", "key")
			if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "total") || strings.Contains(out, key) {
				t.Errorf("usage table: exit %d\n%s", code, out)
			}
			if code, _, errs = serve("usage", "--by", "colour"); code != 2 || !strings.Contains(errs, `--by: "colour" is not workspace, key or tool`) {
				t.Errorf("usage --by colour: exit %d: %s", code, errs)
			}

			code, out, _ = runArgs(append([]string{"--json", "serve", "workspaces", "list"}, db...)...)
			if code != 0 || !strings.Contains(out, `"name": "team"`) || !strings.Contains(out, `"credit_quota": 100`) {
				t.Errorf("workspaces list --json: exit %d\n%s", code, out)
			}
			// A rate limit, changed without a restart.
			if code, _, errs := serve("workspaces", "set", "team", "--rate", "0.01", "--burst", "1"); code != 0 {
				t.Fatalf("workspaces set --rate: exit %d: %s", code, errs)
			}
			for _, b := range bases {
				within("the rate of 0.01 a second on a replica", time.Second, func() bool { return call(b, newKey) == 429 })
			}
			if code, _, errs = serve("workspaces", "rm", "team"); code != 0 {
				t.Fatalf("workspaces rm: exit %d: %s", code, errs)
			}
			for _, b := range bases {
				within("the removed workspace's keys refused", time.Second, func() bool { return call(b, newKey) == 401 })
			}
		})
	}
}

// A team whose workspaces and keys live in its PostgreSQL alone manages
// them from a machine with no gateway.toml: with --database (or
// HARK_DATABASE_URL) the admin commands need none and write none;
// without a database they say where the config was looked for (exit 2).
func TestServeAdminWithoutAConfigFile(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("HARK_BASE_URL", "")
	t.Setenv("HARK_DATABASE_URL", "")
	cfgPath := filepath.Join(t.TempDir(), "gateway.toml")
	code, out, errs := runArgs("serve", "keys", "list", "--config", cfgPath)
	if code != 2 || !strings.Contains(errs, "no gateway config at "+cfgPath) || !strings.Contains(errs, "--database") {
		t.Fatalf("keys list with no config and no database: exit %d\n%s%s", code, out, errs)
	}
	db := []string{"--config", cfgPath, "--data-dir", t.TempDir(), "--database", pgURLWithPassword(pgtest.Fresh(t))}
	run := func(args ...string) string {
		t.Helper()
		code, out, errs := runArgs(append(args, db...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
		return out
	}
	run("serve", "workspaces", "add", "team", "--quota", "100")
	run("serve", "keys", "add", "--workspace", "team", "--name", "alice")
	var listed []struct{ Workspace, Name, Source string }
	if err := json.Unmarshal([]byte(run("--json", "serve", "keys", "list")), &listed); err != nil ||
		len(listed) != 1 || listed[0].Workspace != "team" || listed[0].Name != "alice" || listed[0].Source != "database" {
		t.Fatalf("keys list --json: %+v %v", listed, err)
	}
	if _, err := os.Stat(cfgPath); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a gateway.toml was written: %v", err)
	}
}
