package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/api"
	"hark/config"
	"hark/gateway/auth"
	gwconfig "hark/gateway/config"
	"hark/gateway/embedded"
)

// lockedBuffer is written by a running command while the test reads it.
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

// TestEmbeddedGateway starts the embedded gateway with the local engines
// and talks to it over loopback like any client.
func TestEmbeddedGateway(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	app := &App{cfg: &config.Config{DataDir: dir}}
	defer app.close()
	base, key, stop, err := app.runEmbedded(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasPrefix(key, "hark_") {
		t.Fatalf("base %q", base)
	}
	c, err := api.New(api.Options{BaseURL: base, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tools, err := c.Tools(ctx)
	if err != nil || len(tools) != 5 {
		t.Fatalf("tools: %v %d", err, len(tools))
	}
	if _, err := c.Search(ctx, api.SearchInput{Query: "anything"}); err != nil {
		t.Fatalf("search on the local engine: %v", err)
	}
	if voices, err := c.Voices(ctx, api.DefaultProvider); err != nil || len(voices) == 0 {
		t.Fatalf("voices: %v", err)
	}
	bad, _ := api.New(api.Options{BaseURL: base, APIKey: "hark_wrong"})
	if _, err := bad.Tools(ctx); err == nil {
		t.Fatal("the embedded gateway accepted a wrong key")
	}
	stop()
	if _, err := c.Tools(ctx); err == nil {
		t.Fatal("gateway still answers after stop")
	}
	if st, err := os.Stat(filepath.Join(dir, "gateway.db")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("gateway.db: %v %v", st, err)
	}
	logb, _ := os.ReadFile(filepath.Join(dir, embedded.LogFile))
	if !strings.Contains(string(logb), `"trace_id"`) || strings.Contains(string(logb), key) {
		t.Fatalf("log: %s", logb)
	}
}

// served is a `hark serve` running in the test: its output, its exit
// code on done once cancel stops it, and the base URL it printed.
type served struct {
	out, errb lockedBuffer
	cancel    context.CancelFunc
	done      chan int
	base      string
}

// startServe runs `hark serve` on a loopback port with args (a --config
// file is made on a first run), and waits for the line naming its URL.
func startServe(t *testing.T, args ...string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{cancel: cancel, done: make(chan int, 1)}
	go func() {
		s.done <- Run(ctx, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...), strings.NewReader(""), &s.out, &s.errb)
	}()
	baseRe := regexp.MustCompile(`HARK_BASE_URL=(http://127\.0\.0\.1:\d+)`)
	for range 200 {
		if m := baseRe.FindStringSubmatch(s.out.String()); m != nil {
			s.base = m[1]
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	t.Fatalf("no listen line:\n%s\n%s", s.out.String(), s.errb.String())
	return nil
}

// TestServe runs `hark serve` on a first run: it creates the config,
// shows the key once, listens, and shuts down on cancel.
func TestServe(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("HARK_BASE_URL", "")
	cfgPath := filepath.Join(t.TempDir(), "gw", "gateway.toml")
	s := startServe(t, "--config", cfgPath, "--data-dir", t.TempDir())
	defer s.cancel()
	out, errb, cancel, done := &s.out, &s.errb, s.cancel, s.done
	key := regexp.MustCompile(`hark_[0-9a-f]{64}`).FindString(out.String())
	raw, _ := os.ReadFile(cfgPath)
	if key == "" || strings.Contains(string(raw), key) {
		t.Fatalf("first run key display / config:\n%s", out.String())
	}
	c, _ := api.New(api.Options{BaseURL: s.base, APIKey: key})
	if _, err := c.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	tStop := time.Now()
	cancel()
	select {
	case code := <-done:
		t.Logf("serve stopped in %v", time.Since(tStop))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	if strings.Contains(errb.String(), key) {
		t.Fatal("the key reached the log")
	}
	if strings.Count(out.String(), key) != 1 {
		t.Fatal("the key must be shown exactly once")
	}
}

// TestEmbeddedVoiceRoundTrip synthesizes with the local voice engine over
// the TTS stream and recognizes the audio over the STT stream, through the
// embedded gateway: the close frame ends the audio and the finals arrive
// before the close handshake.
func TestEmbeddedVoiceRoundTrip(t *testing.T) {
	t.Parallel()
	app := &App{cfg: &config.Config{DataDir: t.TempDir()}}
	defer app.close()
	base, key, stop, err := app.runEmbedded(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c, _ := api.New(api.Options{BaseURL: base, APIKey: key})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	voices, err := c.Voices(ctx, api.DefaultProvider)
	if err != nil || len(voices) == 0 {
		t.Fatalf("voices: %v", err)
	}
	voiceCode := voices[0].Value
	for _, v := range voices {
		if strings.HasPrefix(v.Language, "en") {
			voiceCode = v.Value
			break
		}
	}
	tts, err := c.TTSStream(ctx, api.TTSRequest{Text: "hello world, this is a test", VoiceCode: voiceCode, Format: api.FormatWAV, SampleRate: 16000})
	if err != nil {
		t.Fatal(err)
	}
	audio, err := io.ReadAll(tts)
	tts.Close()
	if err != nil || len(audio) < 1000 {
		t.Fatalf("tts stream: %v, %d bytes", err, len(audio))
	}
	stt, err := c.STTStream(ctx, api.STTRequest{Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(audio); i += 3200 {
		if _, err := stt.Write(audio[i:min(i+3200, len(audio))]); err != nil {
			t.Fatal(err)
		}
	}
	stt.CloseSend()
	var final *api.STTResultFrame
	for f := range stt.Results() {
		if f.IsFinal {
			f := f
			final = &f
		}
	}
	if err := stt.Err(); err != nil || final == nil {
		t.Fatalf("stt stream: %v, final %+v", err, final)
	}
	t.Logf("recognized %q", final.Text)
}

func TestServeNewKey(t *testing.T) {
	t.Parallel()
	var out, errb lockedBuffer
	code := Run(context.Background(), []string{"serve", "--new-key"}, strings.NewReader(""), &out, &errb)
	key := regexp.MustCompile(`hark_[0-9a-f]{64}`).FindString(out.String())
	if code != 0 || key == "" || !strings.Contains(out.String(), `"`+auth.HashKey(key)+`"`) {
		t.Fatalf("exit %d:\n%s%s", code, out.String(), errb.String())
	}
}

// TestEmbeddedAllowPrivate: the embedded gateway refuses loopback pages by
// default and reads them when the allow_private setting is on.
func TestEmbeddedAllowPrivate(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<html><head><title>Intranet</title></head><body><article><h1>Intranet</h1>"+
			"<p>The quarterly reading list lives on the intranet documentation server for the whole team.</p></article></body></html>")
	}))
	defer site.Close()
	ctx := context.Background()
	for _, allow := range []bool{false, true} {
		app := &App{cfg: &config.Config{DataDir: t.TempDir(), AllowPrivate: allow}}
		defer app.close()
		base, key, stop, err := app.runEmbedded(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c, err := api.New(api.Options{BaseURL: base, APIKey: key})
		if err != nil {
			t.Fatal(err)
		}
		out, err := c.Extract(ctx, api.ExtractInput{URLs: api.URLList{site.URL + "/"}})
		stop()
		if err != nil {
			t.Fatalf("allow_private=%v: %v", allow, err)
		}
		read := len(out.Results) == 1 && strings.Contains(out.Results[0].RawContent, "quarterly reading list")
		if read != allow {
			t.Errorf("allow_private=%v: results %+v failed %+v", allow, out.Results, out.FailedResults)
		}
		if !allow && (len(out.FailedResults) != 1 || !strings.Contains(out.FailedResults[0].Error, "private")) {
			t.Errorf("refusal does not say why: %+v", out.FailedResults)
		}
	}
}

// serve's limit flags override gateway.toml; a negative one is a usage
// error naming the flag.
func TestServeLimitFlags(t *testing.T) {
	t.Parallel()
	l := gwconfig.Limits{MaxInvoke: 3, StreamsPerKey: 2}
	if err := (serveLimits{maxInvoke: 7, recognisers: 1}).apply(&l); err != nil {
		t.Fatal(err)
	}
	if l.MaxInvoke != 7 || l.STTRecognisers != 1 || l.StreamsPerKey != 2 {
		t.Errorf("limits %+v", l)
	}
	err := (serveLimits{queue: -1}).apply(&l)
	if err == nil || !strings.Contains(err.Error(), "--queue") {
		t.Errorf("negative --queue: %v", err)
	}
}
