package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"hark/api"
	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/engine"
	"hark/gateway/store"
)

// Benchmarks of the gateway's own overhead: a trivial engine behind it,
// real HTTP over loopback with keep-alive, JSON logging to io.Discard.
//
//	go test -run '^$' -bench . -benchtime 3s ./gateway/

// trivialSearch answers at once, so the figures are the gateway's.
type trivialSearch struct{}

func (trivialSearch) Search(_ context.Context, in api.SearchInput) (*api.SearchOutput, error) {
	return &api.SearchOutput{Query: in.Query, Results: []api.SearchResult{{Title: "t", URL: "https://a.test", Content: "c", Score: 1}}}, nil
}

func benchGateway(b *testing.B) (base, key string, srv *Server) {
	b.Helper()
	key, _ = auth.NewAPIKey()
	ws := config.LocalWorkspace(auth.HashKey(key))
	db, err := store.OpenDB(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	srv, err = New(Options{
		Config: &config.Config{Limits: config.Limits{RatePerSecond: 1e9, RateBurst: 1e9}, Workspaces: []config.Workspace{ws}},
		DB:     store.FromSQLite(db),
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Engines: Engines{
			Web:   func(string, config.Search) (engine.Web, error) { return engine.Web{Search: trivialSearch{}}, nil },
			Voice: func(string, string, config.Voice) (engine.VoiceProvider, error) { return testVoice{}, nil },
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve(ln)
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return "http://" + ln.Addr().String(), key, srv
}

// benchRequests runs req in parallel and reports req/s and latency
// percentiles.
func benchRequests(b *testing.B, do func(c *http.Client) error) {
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	c := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	var mu sync.Mutex
	var all []time.Duration
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var lat []time.Duration
		for pb.Next() {
			t0 := time.Now()
			if err := do(c); err != nil {
				b.Error(err)
				return
			}
			lat = append(lat, time.Since(t0))
		}
		mu.Lock()
		all = append(all, lat...)
		mu.Unlock()
	})
	el := time.Since(start)
	b.StopTimer()
	slices.Sort(all)
	if len(all) == 0 {
		return
	}
	pct := func(p float64) float64 { return float64(all[int(p*float64(len(all)-1))].Microseconds()) }
	b.ReportMetric(float64(len(all))/el.Seconds(), "req/s")
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}

func send(c *http.Client, req *http.Request) error {
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != 200 {
		return &httpError{status: resp.StatusCode, msg: "unexpected status"}
	}
	return nil
}

func BenchmarkToolList(b *testing.B) {
	base, key, _ := benchGateway(b)
	benchRequests(b, func(c *http.Client) error {
		req, _ := http.NewRequest("GET", base+api.PathTools, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		return send(c, req)
	})
}

func BenchmarkInvokeSearch(b *testing.B) {
	base, key, _ := benchGateway(b)
	body, _ := json.Marshal(map[string]any{"inputs": map[string]any{"query": "hark benchmark", "max_results": 3}})
	benchRequests(b, func(c *http.Client) error {
		req, _ := http.NewRequest("POST", base+invokePath(api.ToolSearch), bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		return send(c, req)
	})
}

// BenchmarkOpenSTTStreams measures the memory the gateway holds per open,
// idle STT stream (configuration sent, waiting for audio). The clients run
// in a child process (this test binary, see TestStreamClientHelper), so
// the figure is the server's alone.
func BenchmarkOpenSTTStreams(b *testing.B) {
	const streams = 200
	base, key, _ := benchGateway(b)
	var perStream, goroutines float64
	baseline := runtime.NumGoroutine()
	for range b.N {
		// Let the previous round's streams end first.
		for i := 0; i < 500 && runtime.NumGoroutine() > baseline; i++ {
			time.Sleep(10 * time.Millisecond)
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		g0 := runtime.NumGoroutine()
		cmd := exec.Command(os.Args[0], "-test.run=^TestStreamClientHelper$")
		cmd.Env = append(os.Environ(), "HARK_STREAM_CLIENT_URL="+base, "HARK_STREAM_CLIENT_KEY="+key,
			"HARK_STREAM_CLIENT_N="+strconv.Itoa(streams))
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "ready") {
			b.Fatalf("client helper: %q %v", line, err)
		}
		// Wait until every stream is past its configuration frame.
		for range 1000 {
			if runtime.NumGoroutine()-g0 >= 2*streams {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perStream = float64(after.HeapInuse+after.StackInuse-before.HeapInuse-before.StackInuse) / streams
		goroutines = float64(runtime.NumGoroutine()-g0) / streams
		stdin.Close()
		cmd.Wait()
	}
	b.ReportMetric(perStream/1024, "KiB/stream")
	b.ReportMetric(goroutines, "goroutines/stream")
}

// TestStreamClientHelper is the benchmark's client process: it opens N STT
// streams, sends their configuration, says "ready", and holds them until
// stdin closes. It does nothing in a normal test run.
func TestStreamClientHelper(t *testing.T) {
	t.Parallel()
	base := os.Getenv("HARK_STREAM_CLIENT_URL")
	if base == "" {
		t.Skip("only run by BenchmarkOpenSTTStreams")
	}
	n, _ := strconv.Atoi(os.Getenv("HARK_STREAM_CLIENT_N"))
	u := "ws" + strings.TrimPrefix(base, "http") + api.PathSTTStream
	hdr := http.Header{"Authorization": {"Bearer " + os.Getenv("HARK_STREAM_CLIENT_KEY")}}
	var conns []*websocket.Conn
	for range n {
		c, _, err := websocket.DefaultDialer.Dial(u, hdr)
		if err != nil {
			t.Fatal(err)
		}
		c.WriteJSON(api.STTRequest{Provider: api.DefaultProvider})
		conns = append(conns, c)
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	for _, c := range conns {
		c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		c.Close()
	}
}
