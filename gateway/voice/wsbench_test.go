//go:build wsbench

// The WebSocket benchmark runs the provider behind the real gateway, so it
// depends on package gateway's API; the build tag keeps this package's
// tests independent of it. Run with -tags wsbench.
package voice

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"hark/api"
	"hark/gateway"
	"hark/gateway/engine"
)

func wsGateway(b *testing.B) (url, key string) {
	l := provider(b)
	key, _ = gateway.NewAPIKey()
	db, err := gateway.OpenDB(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	srv, err := gateway.New(gateway.Options{
		Config: &gateway.Config{Limits: gateway.Limits{RatePerSecond: 1e9, RateBurst: 1e9},
			Workspaces: []gateway.WorkspaceConfig{gateway.LocalWorkspace(gateway.HashKey(key))}},
		DB:     db,
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Engines: gateway.Engines{
			Voice: func(string, string, gateway.VoiceConfig) (engine.VoiceProvider, error) { return l, nil },
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	b.Cleanup(ts.Close)
	return "ws" + strings.TrimPrefix(ts.URL, "http") + api.PathTTSStream, key
}

// benchWSFirstFrame measures, on the TTS stream, the time from sending the
// request frame to receiving the first binary frame.
func benchWSFirstFrame(b *testing.B, voice string) {
	url, key := wsGateway(b)
	hdr := http.Header{"Authorization": {"Bearer " + key}}
	req := api.TTSRequest{Provider: api.DefaultProvider, Text: "Hello, this is a short sentence.", VoiceCode: voice}
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		conn, _, err := websocket.DefaultDialer.Dial(url, hdr)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := conn.WriteJSON(req); err != nil {
			b.Fatal(err)
		}
		var first time.Duration
		for {
			mt, data, err := conn.ReadMessage()
			if err != nil {
				b.Fatal(err)
			}
			if mt == websocket.BinaryMessage && first == 0 {
				first = time.Since(start)
			}
			if mt == websocket.TextMessage {
				if !strings.Contains(string(data), `"is_final":true`) || strings.Contains(string(data), "error") {
					b.Fatalf("terminal frame %s", data)
				}
				break
			}
		}
		conn.Close()
		lat = append(lat, first)
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(lat, 50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(lat, 95).Microseconds())/1000, "p95-ms")
}

func BenchmarkWSFirstFrameEspeak(b *testing.B) { benchWSFirstFrame(b, "espeak:en-us") }
func BenchmarkWSFirstFrameFlite(b *testing.B)  { benchWSFirstFrame(b, "flite:slt") }
