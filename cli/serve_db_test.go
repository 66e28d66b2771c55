package cli

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"hark/api"
	"hark/gateway"
	"hark/gateway/pgtest"
)

// pgURLWithPassword is the cluster's URL with a password in it (trust
// authentication ignores it), to see that no output shows it.
func pgURLWithPassword(c *pgtest.Cluster) string {
	return strings.Replace(c.URL(), pgtest.Superuser+"@", pgtest.Superuser+":s3cret-pw@", 1)
}

// --migrate-only applies the migrations, reports the version, and does it
// again as a no-op; a URL that is not postgres:// is refused by name.
func TestServeMigrateOnly(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("HARK_DATABASE_URL", "")
	dbURL := pgURLWithPassword(pgtest.Start(t))
	cfgPath := filepath.Join(t.TempDir(), "gateway.toml")
	for range 2 {
		code, out, errs := runArgs("serve", "--migrate-only", "--database", dbURL, "--config", cfgPath, "--data-dir", t.TempDir())
		if code != 0 || !strings.Contains(out, fmt.Sprintf("schema at version %[1]d (this hark's latest: %[1]d)", gateway.PGSchemaVersion)) {
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
	cluster := pgtest.Start(t)
	t.Setenv("HARK_DATABASE_URL", pgURLWithPassword(cluster))
	cfgPath := filepath.Join(t.TempDir(), "gw", "gateway.toml")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--config", cfgPath, "--data-dir", t.TempDir()}, strings.NewReader(""), &out, &errb)
	}()
	baseRe := regexp.MustCompile(`HARK_BASE_URL=(http://127\.0\.0\.1:\d+)`)
	var m []string
	for range 200 {
		if m = baseRe.FindStringSubmatch(out.String()); m != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if m == nil {
		t.Fatalf("no listen line:\n%s\n%s", out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "credit quotas and the search index in PostgreSQL") || strings.Contains(out.String(), "s3cret-pw") {
		t.Fatalf("start-up lines:\n%s", out.String())
	}
	key := regexp.MustCompile(`hark_[0-9a-f]{64}`).FindString(out.String())
	c, _ := api.New(api.Options{BaseURL: m[1], APIKey: key})
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
	conn, err := pgx.Connect(context.Background(), cluster.URL())
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
