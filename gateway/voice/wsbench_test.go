package voice

// The WebSocket benchmark runs the provider behind the real gateway
// (gatewayOn in e2e_test.go).

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"hark/api"
)

// benchWSFirstFrame measures, on the TTS stream, the time from sending the
// request frame to receiving the first binary frame.
func benchWSFirstFrame(b *testing.B, voice string) {
	base, key := gatewayOn(b, provider(b))
	url := "ws" + strings.TrimPrefix(base, "http") + api.PathTTSStream
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
func BenchmarkWSFirstFrameFestivalHTS(b *testing.B) {
	festivalProvider(b)
	benchWSFirstFrame(b, festivalHTS)
}
func BenchmarkWSFirstFrameFestivalKal(b *testing.B) {
	festivalProvider(b)
	benchWSFirstFrame(b, festivalKal)
}
