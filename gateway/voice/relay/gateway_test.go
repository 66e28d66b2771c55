package relay

// The providers behind the real gateway, as a client meets them.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"hark/api"
	"hark/gateway"
	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/engine"
	"hark/gateway/store"
	"hark/gateway/voice"
	"hark/gateway/voice/relay/relaytest"
)

// lockedBuffer is a log both the gateway and the test touch.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// relayGateway is a gateway whose workspace has openai_speech and
// elevenlabs at the fakes (elevenlabs without a key when noElevenKey),
// and vendor_speech with no engine in this test; its log goes to log.
type relayGateway struct {
	base, key string
	oai, xi   *relaytest.Server
	log       *lockedBuffer
}

func startRelayGateway(tb testing.TB, noElevenKey bool) *relayGateway {
	tb.Helper()
	g := &relayGateway{oai: relaytest.NewOpenAI(tb), xi: relaytest.NewElevenLabs(tb), log: &lockedBuffer{}}
	key, err := auth.NewAPIKey()
	if err != nil {
		tb.Fatal(err)
	}
	g.key = key
	ws := config.LocalWorkspace(auth.HashKey(key))
	ws.Voice[config.ProviderOpenAI] = config.Voice{Enabled: true, URL: g.oai.URL, APIKey: g.oai.Key}
	xi := config.Voice{Enabled: true, URL: g.xi.URL, APIKey: g.xi.Key}
	if noElevenKey {
		xi.APIKey = ""
	}
	ws.Voice[config.ProviderElevenLabs] = xi
	db, err := store.OpenDB(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	srv, err := gateway.New(gateway.Options{
		Config: &config.Config{Limits: config.Limits{RatePerSecond: 1e9, RateBurst: 1e9}, Workspaces: []config.Workspace{ws}},
		DB:     store.FromSQLite(db),
		Logger: slog.New(slog.NewJSONHandler(g.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Engines: gateway.Engines{Voice: func(_, provider string, c config.Voice) (engine.VoiceProvider, error) {
			if c.EngineOf(provider) == config.BackendLocal {
				return nil, nil
			}
			return New(Config{Engine: c.EngineOf(provider), URL: c.URL, APIKey: c.APIKey, Lame: voice.FindLame()})
		}},
	})
	if err != nil {
		tb.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	tb.Cleanup(ts.Close)
	g.base = ts.URL
	return g
}

func (g *relayGateway) client(tb testing.TB) *api.Client {
	c, err := api.New(api.Options{BaseURL: g.base, APIKey: g.key})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// noKeys fails the test when any vendor key shows in s.
func (g *relayGateway) noKeys(t *testing.T, what, s string) {
	t.Helper()
	for _, k := range []string{g.oai.Key, g.xi.Key} {
		if strings.Contains(s, k) || strings.Contains(s, k[len(k)-6:]) {
			t.Fatalf("%s shows a vendor key: %s", what, s)
		}
	}
}

func TestGatewaySaysWhichProvidersAreEnabled(t *testing.T) {
	g := startRelayGateway(t, true)
	ps, err := g.client(t).VoiceProviders(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]api.VoiceProviderStatus{}
	for _, p := range ps {
		got[p.Provider] = p
	}
	if p := got["openai_speech"]; !p.Enabled || p.Engine != "openai" {
		t.Fatalf("openai_speech: %+v", p)
	}
	if p := got["elevenlabs"]; p.Enabled || !strings.Contains(p.Reason, "no credentials") {
		t.Fatalf("elevenlabs without a key: %+v", p)
	}
	if p := got["vendor_speech"]; p.Enabled || p.Engine != "local" {
		t.Fatalf("vendor_speech with no engine: %+v", p)
	}
}

func TestGatewayRelaysTheVendorsSpeechAndErrors(t *testing.T) {
	g := startRelayGateway(t, false)
	c := g.client(t)
	ctx := context.Background()
	vs, err := c.Voices(ctx, "elevenlabs")
	if err != nil || len(vs) != 2 || vs[0].Gender != "female" {
		t.Fatalf("voices %+v, %v", vs, err)
	}
	a, err := c.TTS(ctx, api.TTSRequest{Provider: "openai_speech", Text: "Hello through the gateway.", VoiceCode: "af_bella", Format: api.FormatWAV})
	if err != nil {
		t.Fatal(err)
	}
	if a.SampleRate != 24000 || a.DurationMs < 1500 || !bytes.HasPrefix(a.Data, []byte("RIFF")) {
		t.Fatalf("audio %s %d Hz %d ms", a.Format, a.SampleRate, a.DurationMs)
	}
	st, err := c.STT(ctx, api.STTRequest{Provider: "elevenlabs", SampleRate: 16000}, make([]byte, 3200))
	if err != nil || st.Text != "hello from the fake" {
		t.Fatalf("stt %+v, %v", st, err)
	}

	// The vendor's rate limit reaches the client as a 429 with its wait.
	g.oai.FailNext(relaytest.Failure{Status: 429, RetryAfter: "7"})
	body, _ := json.Marshal(api.TTSRequest{Provider: "openai_speech", Text: "Hi.", VoiceCode: "af_bella"})
	req, _ := http.NewRequest(http.MethodPost, g.base+api.PathTTS, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+g.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" || !strings.Contains(string(raw), "OpenAI API returned status code 429") {
		t.Fatalf("429 relayed as %d (Retry-After %q): %s", resp.StatusCode, resp.Header.Get("Retry-After"), raw)
	}

	// A refused key: a 502 naming the vendor, and the key nowhere.
	g.xi.FailNext(relaytest.Failure{Status: 401})
	_, err = c.TTS(ctx, api.TTSRequest{Provider: "elevenlabs", Text: "Hi.", VoiceCode: vs[0].Value})
	var ae *api.Error
	if !errors.As(err, &ae) || ae.HTTPStatus != 502 || !strings.Contains(ae.Message, "ElevenLabs API returned status code 401") {
		t.Fatalf("bad key: %v", err)
	}
	g.noKeys(t, "the error", err.Error())
	g.oai.FailNext(relaytest.Failure{Status: 401})
	_, err = c.TTS(ctx, api.TTSRequest{Provider: "openai_speech", Text: "Hi.", VoiceCode: "af_bella"})
	if err == nil {
		t.Fatal("a refused key passed")
	}
	g.noKeys(t, "the error", err.Error())

	// An unknown voice is the request's mistake: 400 naming voice_code.
	_, err = c.TTS(ctx, api.TTSRequest{Provider: "elevenlabs", Text: "Hi.", VoiceCode: "nobody"})
	if !errors.As(err, &ae) || ae.HTTPStatus != 400 || !strings.Contains(ae.Message, "voice_code") {
		t.Fatalf("unknown voice: %v", err)
	}
	g.noKeys(t, "the log", g.log.String())
}

func TestGatewayStreamRelaysChunksAndKeepsWhatArrivedBeforeADrop(t *testing.T) {
	g := startRelayGateway(t, false)
	g.xi.Pace(0, 20*time.Millisecond)
	url := "ws" + strings.TrimPrefix(g.base, "http") + api.PathTTSStream
	hdr := http.Header{"Authorization": {"Bearer " + g.key}}
	run := func(req api.TTSRequest) (frames int, audio int, final api.TTSFinalFrame, firstAt, lastAt time.Time) {
		conn, _, err := websocket.DefaultDialer.Dial(url, hdr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		if err := conn.WriteJSON(req); err != nil {
			t.Fatal(err)
		}
		for {
			mt, data, err := conn.ReadMessage()
			if err != nil {
				t.Fatal(err)
			}
			if mt == websocket.BinaryMessage {
				if frames == 0 {
					firstAt = time.Now()
				}
				lastAt = time.Now()
				frames++
				audio += len(data)
				continue
			}
			final, err = api.DecodeTTSFrame(data)
			if err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	text := "A line long enough to arrive in a good many chunks, one after another."
	frames, audio, final, first, last := run(api.TTSRequest{Provider: "elevenlabs", Text: text, VoiceCode: "21m00Tcm4TlvDq8ikWAM"})
	if !final.IsFinal || final.Error != "" || frames < 5 || audio != int(relaytest.Seconds(text)*24000)*2 || last.Sub(first) < 100*time.Millisecond {
		t.Fatalf("%d frames, %d bytes over %v; final %+v", frames, audio, last.Sub(first), final)
	}
	g.xi.DropAfter(20000)
	frames, audio, final, _, _ = run(api.TTSRequest{Provider: "elevenlabs", Text: text, VoiceCode: "21m00Tcm4TlvDq8ikWAM"})
	if frames == 0 || audio < 16000 || !strings.Contains(final.Error, "broke off") {
		t.Fatalf("dropped: %d frames, %d bytes; final %+v", frames, audio, final)
	}
	g.noKeys(t, "the log", g.log.String())
}

// firstFrameOverhead runs n TTS streams through the gateway to the fake
// OpenAI-compatible server and returns, for each, the time from the
// fake's first audio chunk leaving to the gateway's first binary frame
// arriving.
func firstFrameOverhead(tb testing.TB, g *relayGateway, n int) []time.Duration {
	url := "ws" + strings.TrimPrefix(g.base, "http") + api.PathTTSStream
	hdr := http.Header{"Authorization": {"Bearer " + g.key}}
	req := api.TTSRequest{Provider: "openai_speech", Text: "Hello, this is a short sentence.", VoiceCode: "af_bella"}
	var out []time.Duration
	for i := 0; i < n; i++ {
		conn, _, err := websocket.DefaultDialer.Dial(url, hdr)
		if err != nil {
			tb.Fatal(err)
		}
		if err := conn.WriteJSON(req); err != nil {
			tb.Fatal(err)
		}
		var first time.Time
		for {
			mt, data, err := conn.ReadMessage()
			if err != nil {
				tb.Fatal(err)
			}
			if mt == websocket.BinaryMessage && first.IsZero() {
				first = time.Now()
			}
			if mt == websocket.TextMessage {
				if !strings.Contains(string(data), `"is_final":true`) || strings.Contains(string(data), "error") {
					tb.Fatalf("terminal frame %s", data)
				}
				break
			}
		}
		conn.Close()
		sent := g.oai.FirstSent()
		out = append(out, first.Sub(sent[len(sent)-1]))
	}
	return out
}

func percentile(d []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, (len(s)*p+99)/100-1)]
}

// TestGatewayFirstFrameFollowsTheVendorsFirstByte holds the relay to the
// issue's 20 ms at the median (loosely, under a loaded CI: the
// benchmark records the figure).
func TestGatewayFirstFrameFollowsTheVendorsFirstByte(t *testing.T) {
	g := startRelayGateway(t, false)
	g.oai.Pace(0, 15*time.Millisecond) // the rest of the audio comes later: only the first chunk can be in the first frame
	lat := firstFrameOverhead(t, g, 7)
	if p50 := percentile(lat, 50); p50 > 60*time.Millisecond {
		t.Fatalf("first frame %v after the vendor's first byte (median of %v)", p50, lat)
	}
}

// BenchmarkGatewayFirstFrameOverhead: the time from the fake vendor's
// first audio chunk to the gateway's first binary frame on the TTS
// stream (issue 40: within 20 ms).
func BenchmarkGatewayFirstFrameOverhead(b *testing.B) {
	g := startRelayGateway(b, false)
	b.ResetTimer()
	lat := firstFrameOverhead(b, g, b.N)
	b.StopTimer()
	b.ReportMetric(float64(percentile(lat, 50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(lat, 95).Microseconds())/1000, "p95-ms")
}

// The STT stream through a vendor: the audio sent in pieces reaches the
// vendor as one file at the stream's end, and its text comes back as
// the final result.
func TestGatewaySTTStreamThroughTheVendor(t *testing.T) {
	g := startRelayGateway(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := g.client(t).STTStream(ctx, api.STTRequest{Provider: "openai_speech", SampleRate: 16000, Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	piece := make([]byte, 3200) // 100 ms
	for range 10 {
		if _, err := s.Write(piece); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CloseSend(); err != nil {
		t.Fatal(err)
	}
	var finals []api.STTResultFrame
	for f := range s.Results() {
		if f.IsFinal {
			finals = append(finals, f)
		}
	}
	if err := s.Err(); err != nil || len(finals) != 1 || finals[0].Text != "hello from the fake" {
		t.Fatalf("finals %+v, err %v", finals, err)
	}
	calls := g.oai.Calls()
	c := calls[len(calls)-1]
	if c.Path != "/v1/audio/transcriptions" || len(c.File) != 44+32000 || c.Form["language"] != "en" {
		t.Fatalf("the vendor got %s with %d bytes, %v", c.Path, len(c.File), c.Form)
	}
}
