package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/pgtest"
)

// serveReplica runs `hark serve` on the database until the test ends and
// returns its base URL and its output so far (the first replica's holds
// the key it made).
func serveReplica(t *testing.T, dbURL, cfgPath string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--allow-private", "--database", dbURL, "--config", cfgPath, "--data-dir", t.TempDir()},
			strings.NewReader(""), &out, &errb)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("serve exit %d: %s", code, errb.String())
			}
		case <-time.After(10 * time.Second):
			t.Error("serve did not stop")
		}
	})
	baseRe := regexp.MustCompile(`HARK_BASE_URL=(http://127\.0\.0\.1:\d+)`)
	for range 200 {
		if m := baseRe.FindStringSubmatch(out.String()); m != nil {
			return m[1], out.String()
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no listen line:\n%s\n%s", out.String(), errb.String())
	return "", ""
}

// One index for the team: `hark index --database` adds a folder to the
// PostgreSQL index, which a replica of `hark serve --database` searches;
// a page one replica extracts, another replica's search finds.
func TestIndexIntoTeamDatabase(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("HARK_BASE_URL", "")
	t.Setenv("HARK_DATABASE_URL", "")
	dbURL := pgURLWithPassword(pgtest.Fresh(t))
	docs := t.TempDir()
	os.WriteFile(filepath.Join(docs, "tuning.md"), []byte("# Flux capacitor tuning\n\nSet the flux capacitor to 1.21 gigawatts before travelling.\n"), 0o644)

	code, out, errs := hark(t, nil, "", "--data-dir", t.TempDir(), "index", "--database", dbURL, docs)
	if code != 0 || !strings.Contains(out, "Indexed 1 page") || !strings.Contains(out, "The index in PostgreSQL") || !strings.Contains(out, "now holds 1 page") {
		t.Fatalf("index --database: %d %q %q", code, out, errs)
	}
	if strings.Contains(out+errs, "s3cret-pw") {
		t.Fatal("the database password was shown")
	}
	code, _, errs = hark(t, nil, "", "--data-dir", t.TempDir(), "index", "--database", "mysql://u@h/x", docs)
	if code != exitUsage || !strings.Contains(errs, "--database: must be a postgres://") {
		t.Fatalf("index --database mysql: %d %q", code, errs)
	}

	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><head><title>Zorblax turbines</title></head><body><main><h1>Zorblax turbines</h1>
<p>Zorblax turbines hum quietly when their blades are balanced, and louder when they are not.</p></main></body></html>`))
	}))
	defer site.Close()

	cfgPath := filepath.Join(t.TempDir(), "gateway.toml")
	base1, out1 := serveReplica(t, dbURL, cfgPath)
	key := regexp.MustCompile(`hark_[0-9a-f]{64}`).FindString(out1)
	base2, _ := serveReplica(t, dbURL, cfgPath)
	c1, _ := api.New(api.Options{BaseURL: base1, APIKey: key})
	c2, _ := api.New(api.Options{BaseURL: base2, APIKey: key})
	ctx := context.Background()

	res, err := c2.Search(ctx, api.SearchInput{Query: "flux capacitor"})
	if err != nil || len(res.Results) != 1 || !strings.HasSuffix(res.Results[0].URL, "/tuning.md") {
		t.Fatalf("replica 2's search for what hark index added: %+v, %v", res, err)
	}
	if _, err := c1.Extract(ctx, api.ExtractInput{URLs: []string{site.URL + "/turbines.html"}}); err != nil {
		t.Fatal(err)
	}
	res, err = c2.Search(ctx, api.SearchInput{Query: "zorblax turbines"})
	if err != nil || len(res.Results) != 1 || res.Results[0].URL != site.URL+"/turbines.html" {
		t.Fatalf("replica 2's search for the page replica 1 extracted: %+v, %v", res, err)
	}
}
