package gateway

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/config"
)

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
	}
}

// Past its running bound and its queue, an invoke is refused at once with
// 503, Retry-After and the envelope; the calls admitted all finish, each
// with one settled usage row.
func TestAdmissionShedsPastTheQueue(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) {
		c.Limits.MaxInvoke, c.Limits.QueueLength, c.Limits.QueueWait = 2, 1, config.Duration(time.Hour)
	})
	search := map[string]any{"inputs": map[string]any{"query": "gate"}}
	var wg sync.WaitGroup
	codes := make(chan int, 3)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, _, h := g.call(t, "POST", invokePath(api.ToolSearch), g.key, search)
			if h.Get(HeaderCreditsUsed) == "" {
				t.Error("an admitted call lacks X-Credits-Used")
			}
			codes <- status
		}()
		if len(codes) == 0 {
			waitFor(t, "the call is admitted or queued", func() bool {
				return g.srv.admitSearch.Running()+g.srv.admitSearch.Waiting() >= 1+len(codes)
			})
		}
	}
	waitFor(t, "two running and one waiting", func() bool {
		return g.srv.admitSearch.Running() == 2 && g.srv.admitSearch.Waiting() == 1
	})
	status, env, h := g.call(t, "POST", invokePath(api.ToolSearch), g.key, search)
	wantError(t, status, env, CodeUnavailable, "gateway busy", "2 search calls running")
	if h.Get("Retry-After") != "1" || h.Get(HeaderCreditsUsed) == "" || h.Get(HeaderCreditsCharged) != "0" {
		t.Errorf("refusal headers: Retry-After %q, used %q, charged %q", h.Get("Retry-After"), h.Get(HeaderCreditsUsed), h.Get(HeaderCreditsCharged))
	}
	// Other classes are not held up by a full invoke class.
	if status, _, _ := g.call(t, "GET", api.PathTools, g.key, nil); status != 200 {
		t.Errorf("tool list while invoke is full: %d", status)
	}
	close(g.web.gate)
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != 200 {
			t.Errorf("an admitted call answered %d", c)
		}
	}
	rows, err := g.srv.Usage(context.Background(), "local", 100)
	if err != nil {
		t.Fatal(err)
	}
	ok := 0
	for _, r := range rows {
		if r.Status == "ok" {
			ok++
		}
		if r.Status == "pending" {
			t.Errorf("pending row: %+v", r)
		}
	}
	if ok != 3 {
		t.Errorf("%d settled rows, want 3 (one per 200)", ok)
	}
}

// An engine that ignores its deadline keeps its admission slot until it
// returns, so abandoned work cannot pile up beyond the bound.
func TestAdmissionSlotOutlivesAnOverrunningEngine(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) {
		c.Limits.MaxInvoke, c.Limits.QueueLength, c.Limits.QueueWait = 1, 1, config.Duration(time.Millisecond)
		c.Limits.UpstreamTimeout = config.Duration(50 * time.Millisecond)
	})
	status, _, _ := g.call(t, "POST", invokePath(api.ToolSearch), g.key, map[string]any{"inputs": map[string]any{"query": "gate-ignore-ctx"}})
	if status != CodeTimeout {
		t.Fatalf("overrunning engine: %d, want 504", status)
	}
	status, env, _ := g.call(t, "POST", invokePath(api.ToolSearch), g.key, map[string]any{"inputs": map[string]any{"query": "q"}})
	wantError(t, status, env, CodeUnavailable, "gateway busy")
	close(g.web.gate)
	waitFor(t, "the slot is freed", func() bool { return g.srv.admitSearch.Running() == 0 })
	if status, _, _ := g.call(t, "POST", invokePath(api.ToolSearch), g.key, map[string]any{"inputs": map[string]any{"query": "q"}}); status != 200 {
		t.Errorf("after the engine returned: %d", status)
	}
}

// A body sent slower than body_min_rate is cut off within body_timeout
// with 408, with or without a key.
func TestSlowBodyIsCutOff(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) {
		c.Limits.BodyTimeout, c.Limits.BodyMinRate = config.Duration(300*time.Millisecond), 1000
	})
	for _, key := range []string{g.key, ""} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(g.base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		auth := ""
		if key != "" {
			auth = "Authorization: Bearer " + key + "\r\n"
		}
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\n%sContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{", invokePath(api.ToolSearch), auth)
		stop := make(chan struct{})
		go func() { // a byte every 100 ms: 10 bytes/s
			for {
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
					if _, err := conn.Write([]byte(" ")); err != nil {
						return
					}
				}
			}
		}()
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		close(stop)
		if key == "" {
			// Without a key the body is never read: 401 at once.
			if err != nil || resp.StatusCode != 401 {
				t.Fatalf("no key: %v %v", resp, err)
			}
			conn.Close()
			continue
		}
		if err != nil {
			t.Fatalf("slow body: no answer: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != CodeRequestTimeout || !strings.Contains(string(body), "body_min_rate") {
			t.Errorf("slow body: %d %s", resp.StatusCode, body)
		}
		conn.Close()
	}
}

// Connections over max_conns_per_client get a 503 envelope and are closed.
func TestConnectionCapPerClient(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) { c.Limits.MaxConnsPerClient = 2 })
	addr := strings.TrimPrefix(g.base, "http://")
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n", api.PathTools, g.key)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("connection within the cap: %v %v", resp, err)
		}
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "max_conns_per_client") {
		t.Errorf("over the cap: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	c.Close()
	held[0].Close()
	waitFor(t, "a closed connection frees its place", func() bool {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return false
		}
		defer c.Close()
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n", api.PathTools, g.key)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		return err == nil && resp.StatusCode == 200
	})
	held[1].Close()
}

// A key put in the path is neither logged nor echoed by a 404 or 405.
func TestKeyInPathIsRedacted(t *testing.T) {
	t.Parallel()
	g := startGateway(t, nil)
	for _, tc := range []struct{ method, path string }{
		{"GET", api.PathPrefix + "/voice/" + g.key + "/voices"},
		{"DELETE", api.PathPrefix + "/voice/" + g.key + "/voices"},
		{"GET", "/nowhere/" + g.key},
		{"POST", api.PathPrefix + "/" + api.SearchService + "/" + g.key + "/invoke"},
	} {
		_, env, _ := g.call(t, tc.method, tc.path, g.key, nil)
		if strings.Contains(env.Message, g.key) || strings.Contains(env.Message, g.key[5:20]) {
			t.Errorf("%s %s: message echoes the key: %q", tc.method, tc.path, env.Message)
		}
		if !strings.Contains(env.Message, "[redacted]") {
			t.Errorf("%s %s: message %q", tc.method, tc.path, env.Message)
		}
	}
	g.waitLog("[redacted]")
	if strings.Contains(g.logs.String(), g.key[5:20]) {
		t.Errorf("the key reached the log:\n%s", g.logs.String())
	}
}

// A request whose client left is cancelled and logged as 499, not 400.
func TestGoneClientIsCancelledNot400(t *testing.T) {
	t.Parallel()
	g := startGateway(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", g.base+invokePath(api.ToolSearch),
		strings.NewReader(`{"inputs":{"query":"block"}}`))
	req.Header.Set("Authorization", "Bearer "+g.key)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	waitFor(t, "the call runs", func() bool { return g.srv.admitSearch.Running() == 1 })
	cancel()
	<-done
	waitFor(t, "the call's log line", func() bool { return strings.Contains(g.logs.String(), `"status":499`) })
	waitFor(t, "the slot is freed", func() bool { return g.srv.admitSearch.Running() == 0 })
	rows, _ := g.srv.Usage(context.Background(), "local", 10)
	if len(rows) != 1 || rows[0].Status != "error" || rows[0].Credits != 0 || rows[0].Error != "client closed the request" {
		t.Errorf("usage of a cancelled call: %+v", rows)
	}
}

// A key may hold streams_per_key streams at once; the next is refused
// with 429 before the upgrade.
func TestStreamsPerKey(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) { c.Limits.StreamsPerKey = 1 })
	conn, _, err := g.dialWS(t, api.PathTTSStream, http.Header{"Authorization": {"Bearer " + g.key}})
	if err != nil {
		t.Fatalf("first stream refused: %v", err)
	}
	status, env, h := g.call(t, "GET", api.PathTTSStream, g.key, nil)
	wantError(t, status, env, CodeRateLimited, "streams_per_key")
	if h.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	conn.Close()
	waitFor(t, "the stream's end frees its place", func() bool {
		status, _, _ = g.call(t, "GET", api.PathTTSStream, g.key, nil)
		return status == CodeInvalidInput // past the limit: a plain GET is told to upgrade
	})
}

// Past max_streams (and its queue) a stream is refused before the
// upgrade, with 503 and Retry-After in an envelope.
func TestStreamAdmission(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) {
		c.Limits.MaxStreams, c.Limits.QueueLength, c.Limits.QueueWait = 1, 1, config.Duration(time.Millisecond)
	})
	sl, err := g.srv.admitStreams.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	status, env, h := g.call(t, "GET", api.PathSTTStream, g.key, nil)
	wantError(t, status, env, CodeUnavailable, "1 stream calls running")
	if h.Get("Retry-After") != "1" {
		t.Errorf("Retry-After %q", h.Get("Retry-After"))
	}
	sl.Release()
	if status, _, _ := g.call(t, "GET", api.PathSTTStream, g.key, nil); status != CodeInvalidInput {
		t.Errorf("with a free slot, a plain GET is told to upgrade: %d", status)
	}
}

// A call that admission sheds never ran, so it costs its key no rate:
// with a burst of four and no refill, three calls held running or queued
// and one shed still leave a token for the next call once they end.
func TestShedCallGivesItsTokenBack(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) {
		c.Limits.MaxInvoke, c.Limits.QueueLength, c.Limits.QueueWait = 2, 1, config.Duration(time.Hour)
		c.Limits.RatePerSecond, c.Limits.RateBurst = 0.0001, 4
	})
	search := map[string]any{"inputs": map[string]any{"query": "gate"}}
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if status, _, _ := g.call(t, "POST", invokePath(api.ToolSearch), g.key, search); status != 200 {
				t.Errorf("a held call answered %d", status)
			}
		}()
		waitFor(t, "the call is admitted or queued", func() bool {
			return g.srv.admitSearch.Running()+g.srv.admitSearch.Waiting() >= i+1
		})
	}
	status, env, _ := g.call(t, "POST", invokePath(api.ToolSearch), g.key, search)
	wantError(t, status, env, CodeUnavailable, "gateway busy")
	close(g.web.gate)
	wg.Wait()
	if status, env, _ := g.call(t, "POST", invokePath(api.ToolSearch), g.key, search); status != 200 {
		t.Fatalf("the fourth token was spent on the shed call: %d %v", status, env)
	}
	status, env, _ = g.call(t, "POST", invokePath(api.ToolSearch), g.key, search)
	wantError(t, status, env, CodeRateLimited, "rate limit exceeded")
}
