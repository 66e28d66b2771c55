package gateway

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/auth"
	"hark/gateway/config"
)

// keyForms are the ways a client may send its key where no key belongs:
// as made, in upper case, without the "hark_" prefix (in either case).
func keyForms(key string) map[string]string {
	bare := strings.TrimPrefix(key, "hark_")
	return map[string]string{"as made": key, "upper case": strings.ToUpper(key),
		"no prefix": bare, "no prefix, upper case": strings.ToUpper(bare)}
}

// leaks reports whether text holds any part of key long enough to matter:
// 12 hex digits of it, in either case.
func leaks(text, key string) bool {
	bare := strings.TrimPrefix(key, "hark_")
	lower := strings.ToLower(text)
	for i := 0; i+12 <= len(bare); i += 12 {
		if strings.Contains(lower, bare[i:i+12]) {
			return true
		}
	}
	return false
}

// A key in any case, with or without its prefix, put in a path or sent
// as the HTTP method, reaches neither the log, nor the message that
// echoes the path or method, nor the metrics.
func TestKeyInPathOrMethodIsRedactedInEveryForm(t *testing.T) {
	t.Parallel()
	const tok = "ops-token-redact-test-4410"
	g := startGateway(t, func(c *config.Config) { c.Ops.TokenSHA256 = auth.HashKey(tok) })
	for form, k := range keyForms(g.key) {
		for _, tc := range []struct{ method, path string }{
			{"GET", api.PathPrefix + "/voice/" + k + "/voices"},
			{"DELETE", api.PathPrefix + "/voice/" + k + "/voices"},
			{"GET", "/nowhere/" + k + ".json"},
			{"POST", api.PathPrefix + "/" + api.SearchService + "/" + k + "/invoke"},
		} {
			_, env, _ := g.call(t, tc.method, tc.path, g.key, nil)
			if leaks(env.Message, g.key) || !strings.Contains(env.Message, "[redacted]") {
				t.Errorf("%s: %s %s: message %q", form, tc.method, tc.path, env.Message)
			}
		}
		// The key as the method: "hark_… /v1/… HTTP/1.1".
		c, err := net.Dial("tcp", strings.TrimPrefix(g.base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n", k, api.PathTools, g.key)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		c.Close()
		if err != nil {
			t.Fatalf("%s: the key as the method: %v", form, err)
		}
		var body strings.Builder
		bufio.NewReader(resp.Body).WriteTo(&body)
		if resp.StatusCode != http.StatusMethodNotAllowed || leaks(body.String(), g.key) {
			t.Errorf("%s: the key as the method: %d %s", form, resp.StatusCode, body.String())
		}
	}
	g.waitLog("[redacted]")
	time.Sleep(100 * time.Millisecond) // the last line is written after its answer
	if leaks(g.logs.String(), g.key) {
		t.Errorf("the key reached the log:\n%s", g.logs.String())
	}
	status, metrics := opsGet(t, g.base, PathMetrics, tok)
	if status != 200 || leaks(metrics, g.key) || !strings.Contains(metrics, `method="other"`) {
		t.Errorf("metrics: %d; the key's method counted as other: %v", status, strings.Contains(metrics, `method="other"`))
	}
}

// A failed call whose error holds the key (sent as a TTS voice, or in a
// crawl URL) records [redacted] in gateway_usage.error, as its answer
// says; so does the crawl job's log.
func TestKeyInAFailedCallIsRedactedInTheLedgerAndJobLog(t *testing.T) {
	t.Parallel()
	g := startGateway(t, nil)
	ctx := context.Background()
	for form, k := range keyForms(g.key) {
		status, env, _ := g.call(t, "POST", api.PathTTS, g.key, map[string]any{
			"provider": api.DefaultProvider, "text": "hello", "voice_code": k})
		if status != CodeInvalidInput || leaks(env.Message, g.key) || !strings.Contains(env.Message, "[redacted]") {
			t.Errorf("%s: TTS with the key as the voice: %d %q", form, status, env.Message)
		}
		status, env, _ = g.call(t, "POST", invokePath(api.ToolCrawl), g.key, map[string]any{
			"inputs": map[string]any{"url": "http://127.0.0.1:1/docs/" + k + "/index.html"}})
		if status != CodeVendorFailed || leaks(env.Message, g.key) || !strings.Contains(env.Message, "[redacted]") {
			t.Errorf("%s: a crawl URL holding the key: %d %q", form, status, env.Message)
		}
	}
	rows, err := g.srv.Usage(ctx, "local", 100)
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, r := range rows {
		if r.Status != "error" {
			continue
		}
		failed++
		if leaks(r.Error, g.key) || !strings.Contains(r.Error, "[redacted]") {
			t.Errorf("gateway_usage.error of %s: %q", r.Operation, r.Error)
		}
	}
	if failed != 8 {
		t.Errorf("%d failed rows, want 8: %+v", failed, rows)
	}
	jobs, err := g.srv.jobs.List(ctx, "local", false, 100)
	if err != nil || len(jobs) != 4 {
		t.Fatalf("crawl jobs: %d %v", len(jobs), err)
	}
	for _, j := range jobs {
		events, _, err := g.srv.jobs.Events(ctx, "local", j.ID, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var log strings.Builder
		for _, e := range events {
			fmt.Fprintf(&log, "%s %s\n", e.Kind, e.Msg)
		}
		if leaks(log.String()+j.Error, g.key) || !strings.Contains(log.String(), "fetching") || !strings.Contains(log.String(), "[redacted]") {
			t.Errorf("job %s: error %q, log:\n%s", j.ID, j.Error, log.String())
		}
	}
}
