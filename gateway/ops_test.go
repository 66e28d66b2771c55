package gateway

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/pgtest"
)

// opsGet asks an operator route, with the operator token when tok is set.
func opsGet(t *testing.T, base, path, tok string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+path, nil)
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// readyChecks decodes /readyz's answer.
func readyChecks(t *testing.T, body string) (status string, checks map[string]string) {
	t.Helper()
	var v struct {
		Status string            `json:"status"`
		Checks map[string]string `json:"checks"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("readyz %q: %v", body, err)
	}
	return v.Status, v.Checks
}

// metricValue is the value of one series of a scrape ("" when absent).
func metricValue(scrape, series string) string {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`)
	if m := re.FindStringSubmatch(scrape); m != nil {
		return m[1]
	}
	return ""
}

// serveOps starts g's operator address on loopback.
func serveOps(t *testing.T, srv *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.ServeOps(ln)
	return "http://" + ln.Addr().String()
}

const opsToken = "ops-token-for-the-test-7c41"

// The operator's routes on gateway.db: liveness open to all, readiness
// and metrics behind the operator token on the gateway's address and
// open on the operator address; the metrics count what the gateway did;
// a draining node is not ready while it finishes its calls.
func TestOpsRoutes(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) {
		c.Ops.TokenSHA256 = auth.HashKey(opsToken)
		c.Workspaces[0].CreditQuota = 1
	})
	if status, body := opsGet(t, g.base, PathHealthz, ""); status != 200 || !strings.Contains(body, `"status":"ok"`) {
		t.Fatalf("healthz: %d %s", status, body)
	}
	for _, p := range []string{PathReadyz, PathMetrics} {
		if status, body := opsGet(t, g.base, p, ""); status != 401 || !strings.Contains(body, "operator token") {
			t.Errorf("%s without the token: %d %s", p, status, body)
		}
		if status, _ := opsGet(t, g.base, p, g.key); status != 401 {
			t.Errorf("%s with an API key: %d, want 401", p, status)
		}
	}
	status, body := opsGet(t, g.base, PathReadyz, opsToken)
	if st, checks := readyChecks(t, body); status != 200 || st != "ready" || checks["database"] != "ok" || checks["migrations"] != "ok" {
		t.Fatalf("readyz: %d %s", status, body)
	}

	// What the metrics count: a call served, one refused by the quota,
	// one for no route; engine time; the limits' gauges.
	search := `{"inputs":{"query":"q"}}`
	if s, _, _ := g.call(t, "POST", invokePath(api.ToolSearch), g.key, search); s != 200 {
		t.Fatalf("search: %d", s)
	}
	if s, _, _ := g.call(t, "POST", invokePath(api.ToolSearch), g.key, search); s != 402 {
		t.Fatalf("over the quota: %d", s)
	}
	g.call(t, "GET", "/v1/nowhere", g.key, nil)
	_, scrape := opsGet(t, g.base, PathMetrics, opsToken)
	route := `route="POST /v1/openapi/third-party-service/vendor_search/{tool}/invoke"`
	for series, want := range map[string]string{
		`hark_http_requests_total{method="POST",` + route + `,status="200"}`: "1",
		`hark_http_requests_total{method="POST",` + route + `,status="402"}`: "1",
		`hark_http_requests_total{method="GET",route="other",status="404"}`:  "1",
		`hark_refusals_total{limit="quota"}`:                                 "1",
		`hark_engine_seconds_count{op="vendor_search"}`:                      "1",
		`hark_admission_running{class="search"}`:                             "0",
		`hark_admission_waiting{class="fetch"}`:                              "0",
		`hark_reservations_open`:                                             "0",
		`hark_ledger_reservations_pending`:                                   "0",
		`hark_jobs{state="running"}`:                                         "0",
		`go_sql_max_open_connections{db_name="SQLite"}`:                      strconv.Itoa(config.DefaultLimits().MaxDBConns),
	} {
		if got := metricValue(scrape, series); got != want {
			t.Errorf("%s = %q, want %s", series, got, want)
		}
	}
	if !strings.Contains(scrape, "# TYPE hark_http_request_duration_seconds histogram") || !strings.Contains(scrape, "go_goroutines ") {
		t.Error("the scrape lacks the latency histogram or the Go runtime's series")
	}
	// Operator probes are not requests of the interface.
	if strings.Contains(scrape, `route="GET /metrics"`) || strings.Contains(g.logs.String(), `"path":"/healthz"`) {
		t.Error("operator routes were counted or logged as requests")
	}

	// The operator address needs no token; a node draining its calls is
	// not ready there (the gateway's own address has closed).
	ops := serveOps(t, g.srv)
	if status, scrape := opsGet(t, ops, PathMetrics, ""); status != 200 || metricValue(scrape, `hark_refusals_total{limit="quota"}`) != "1" {
		t.Fatalf("metrics on the operator address: %d", status)
	}
	done := make(chan int, 1)
	go func() {
		s, _, _ := g.call(t, "POST", invokePath(api.ToolSearch), g.keys["partial"], `{"inputs":{"query":"gate"}}`)
		done <- s
	}()
	waitFor(t, "the held call runs", func() bool { return g.srv.admitSearch.Running() == 1 })
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		shut <- g.srv.Shutdown(ctx)
	}()
	waitFor(t, "readyz says draining", func() bool {
		status, body := opsGet(t, ops, PathReadyz, "")
		_, checks := readyChecks(t, body)
		return status == 503 && strings.HasPrefix(checks["draining"], "yes")
	})
	if status, _ := opsGet(t, ops, PathHealthz, ""); status != 200 {
		t.Errorf("healthz while draining: %d", status)
	}
	close(g.web.gate)
	if s := <-done; s != 200 {
		t.Errorf("the held call: %d", s)
	}
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(ops + PathHealthz); err == nil {
		t.Error("the operator address still answers after Shutdown")
	}
}

// Without an operator token, readiness and metrics are not on the
// gateway's address at all; liveness is.
func TestOpsRoutesWithoutToken(t *testing.T) {
	t.Parallel()
	g := startGateway(t, nil)
	if status, _ := opsGet(t, g.base, PathHealthz, ""); status != 200 {
		t.Fatalf("healthz: %d", status)
	}
	for _, p := range []string{PathReadyz, PathMetrics} {
		if status, body := opsGet(t, g.base, p, "anything"); status != 403 || !strings.Contains(body, "[ops] listen") {
			t.Errorf("%s: %d %s", p, status, body)
		}
	}
}

// On PostgreSQL: ready while the database answers and its tables are
// this hark's; not ready, at once, when a migration is missing or the
// database stops, while liveness still answers; the pool's use is in
// the metrics.
func TestOpsOnPostgres(t *testing.T) {
	cluster := pgtest.Start(t) // this test stops its server
	key, _ := auth.NewAPIKey()
	cfg := &config.Config{Limits: config.Limits{RatePerSecond: 1000, RateBurst: 1000},
		Workspaces: []config.Workspace{config.LocalWorkspace(auth.HashKey(key))}}
	g := startPGReplica(t, cfg, cluster.URL())
	ops := serveOps(t, g.srv)
	status, body := opsGet(t, ops, PathReadyz, "")
	if st, _ := readyChecks(t, body); status != 200 || st != "ready" {
		t.Fatalf("readyz: %d %s", status, body)
	}
	_, scrape := opsGet(t, ops, PathMetrics, "")
	for _, series := range []string{"hark_db_pool_max_conns", "hark_db_pool_acquired_conns", `go_sql_open_connections{db_name="PostgreSQL"}`, `hark_jobs{state="queued"}`} {
		if metricValue(scrape, series) == "" {
			t.Errorf("no %s in the scrape", series)
		}
	}
	if metricValue(scrape, "hark_db_pool_max_conns") != "8" {
		t.Errorf("pool bound %s, want 8", metricValue(scrape, "hark_db_pool_max_conns"))
	}

	db := openPG(t, cluster.URL())
	if _, err := db.Exec(context.Background(), `UPDATE hark_schema SET version = version - 1 WHERE owner = 'usage'`); err != nil {
		t.Fatal(err)
	}
	status, body = opsGet(t, ops, PathReadyz, "")
	if _, checks := readyChecks(t, body); status != 503 || !strings.Contains(checks["migrations"], "usage tables are at version") {
		t.Fatalf("readyz with a migration missing: %d %s", status, body)
	}
	if _, err := db.Exec(context.Background(), `UPDATE hark_schema SET version = version + 1 WHERE owner = 'usage'`); err != nil {
		t.Fatal(err)
	}

	if err := cluster.Stop(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	status, body = opsGet(t, ops, PathReadyz, "")
	if _, checks := readyChecks(t, body); status != 503 || !strings.HasPrefix(checks["database"], "does not answer") {
		t.Fatalf("readyz without the database: %d %s", status, body)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("readyz took %s without the database", time.Since(start))
	}
	if status, _ := opsGet(t, ops, PathHealthz, ""); status != 200 {
		t.Errorf("healthz without the database: %d", status)
	}
}
