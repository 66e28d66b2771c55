package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"hark/api"
	"hark/gateway/engine"
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
	key, _ = NewAPIKey()
	ws := LocalWorkspace(HashKey(key))
	db, err := OpenDB(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	srv, err = New(Options{
		Config: &Config{Limits: Limits{RatePerSecond: 1e9, RateBurst: 1e9}, Workspaces: []WorkspaceConfig{ws}},
		DB:     db,
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Engines: Engines{
			Web:   func(string, SearchConfig) (engine.Web, error) { return engine.Web{Search: trivialSearch{}}, nil },
			Voice: func(string, string, VoiceConfig) (engine.VoiceProvider, error) { return testVoice{}, nil },
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

// BenchmarkOpenSTTStreams measures the memory an open, idle STT stream
// holds (configuration sent, waiting for audio). Client and server run in
// this process, so the figure includes the client's side of each
// connection (small buffers, no goroutine): an upper bound for the server.
func BenchmarkOpenSTTStreams(b *testing.B) {
	const streams = 200
	base, key, _ := benchGateway(b)
	u := "ws" + strings.TrimPrefix(base, "http") + api.PathSTTStream
	d := websocket.Dialer{ReadBufferSize: 256, WriteBufferSize: 256}
	hdr := http.Header{"Authorization": {"Bearer " + key}}
	var perStream, goroutines float64
	for range b.N {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		g0 := runtime.NumGoroutine()
		conns := make([]*websocket.Conn, 0, streams)
		for range streams {
			c, _, err := d.Dial(u, hdr)
			if err != nil {
				b.Fatal(err)
			}
			c.WriteJSON(api.STTRequest{Provider: api.DefaultProvider})
			conns = append(conns, c)
		}
		// Wait until every stream is past its configuration frame.
		for range 100 {
			if runtime.NumGoroutine()-g0 >= 3*streams {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perStream = float64(after.HeapInuse+after.StackInuse-before.HeapInuse-before.StackInuse) / streams
		goroutines = float64(runtime.NumGoroutine()-g0) / streams
		for _, c := range conns {
			c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
			c.Close()
		}
	}
	b.ReportMetric(perStream/1024, "KiB/stream")
	b.ReportMetric(goroutines, "goroutines/stream")
}
