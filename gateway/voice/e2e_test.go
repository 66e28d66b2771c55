package voice

// End-to-end tests: the provider behind the real gateway, over real HTTP and
// WebSocket on 127.0.0.1, as hark's embedded gateway runs it.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"hark/api"
	"hark/audio/wav"
	"hark/gateway"
	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/engine"
	"hark/gateway/store"
)

// gatewayOn serves l as vendor_speech from a real gateway on 127.0.0.1 and
// returns its base URL and an API key.
func gatewayOn(tb testing.TB, l *Local) (base, key string) {
	tb.Helper()
	key, err := auth.NewAPIKey()
	if err != nil {
		tb.Fatal(err)
	}
	db, err := store.OpenDB(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	srv, err := gateway.New(gateway.Options{
		Config: &config.Config{Limits: config.Limits{RatePerSecond: 1e9, RateBurst: 1e9},
			Workspaces: []config.Workspace{config.LocalWorkspace(auth.HashKey(key))}},
		DB:     store.FromSQLite(db),
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Engines: gateway.Engines{
			Voice: func(string, string, config.Voice) (engine.VoiceProvider, error) { return l, nil },
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	tb.Cleanup(ts.Close)
	return ts.URL, key
}

func dialStream(t *testing.T, base, key, path string) *websocket.Conn {
	t.Helper()
	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+path, http.Header{"Authorization": {"Bearer " + key}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// ttsFrames runs one TTS stream to its terminal frame and returns the
// binary frames and the terminal frame.
func ttsFrames(t *testing.T, base, key string, req api.TTSRequest) ([][]byte, api.TTSFinalFrame) {
	t.Helper()
	conn := dialStream(t, base, key, api.PathTTSStream)
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	if err := conn.WriteJSON(req); err != nil {
		t.Fatal(err)
	}
	var frames [][]byte
	for {
		mt, data, err := conn.ReadMessage()
		if err != nil {
			t.Fatalf("after %d frames: %v", len(frames), err)
		}
		if mt == websocket.BinaryMessage {
			frames = append(frames, data)
			continue
		}
		final, err := api.DecodeTTSFrame(data)
		if err != nil {
			t.Fatalf("text frame %q: %v", data, err)
		}
		conn.Close() // the stream counts against the key's open streams until then
		return frames, final
	}
}

func newClient(t *testing.T, base, key string) *api.Client {
	t.Helper()
	c, err := api.New(api.Options{BaseURL: base, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGatewayTTSStreamFrames checks what a client of the TTS stream gets:
// for wav the header opens the first frame and no other; for pcm only
// samples; in both the same samples as REST, whose duration_ms they match.
func TestGatewayTTSStreamFrames(t *testing.T) {
	l := provider(t)
	base, key := gatewayOn(t, l)
	c := newClient(t, base, key)
	text := "First sentence here. A second one follows. And a third."
	cases := []struct {
		voice string
		rate  int
	}{{"espeak:en-us", 0}, {"espeak:en-us", 48000}, {"flite:slt", 0}, {"flite:slt", 11025}}
	if _, err := exec.LookPath("festival"); err == nil {
		festivalProvider(t)
		cases = append(cases, []struct {
			voice string
			rate  int
		}{{festivalHTS, 0}, {festivalKal, 22050}}...)
	}
	for _, tc := range cases {
		voice, rate := tc.voice, tc.rate
		req := api.TTSRequest{Provider: api.DefaultProvider, Text: text, VoiceCode: voice, SampleRate: rate, Format: api.FormatPCM}
		rest, err := c.TTS(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if want := int(math.Round(float64(len(rest.Data)/2) * 1000 / float64(rest.SampleRate))); rest.DurationMs != want {
			t.Errorf("%s %d Hz: REST duration_ms %d, its %d samples say %d", voice, rate, rest.DurationMs, len(rest.Data)/2, want)
		}
		frames, final := ttsFrames(t, base, key, req)
		if !final.IsFinal || final.Error != "" {
			t.Fatalf("terminal frame %+v", final)
		}
		if len(frames) < 3 {
			t.Errorf("%s pcm: %d frames for three sentences", voice, len(frames))
		}
		pcm := bytes.Join(frames, nil)
		if bytes.HasPrefix(pcm, []byte("RIFF")) || !bytes.Equal(pcm, rest.Data) {
			t.Errorf("%s %d Hz: streamed pcm (%d bytes, % x...) differs from REST (%d bytes)", voice, rate, len(pcm), pcm[:8], len(rest.Data))
		}

		req.Format = api.FormatWAV
		frames, final = ttsFrames(t, base, key, req)
		if !final.IsFinal || final.Error != "" {
			t.Fatalf("terminal frame %+v", final)
		}
		if len(frames[0]) <= 44 || string(frames[0][:4]) != "RIFF" || string(frames[0][8:12]) != "WAVE" || string(frames[0][36:40]) != "data" {
			t.Fatalf("%s wav: first frame does not open with a WAV header and samples: % x", voice, frames[0][:min(44, len(frames[0]))])
		}
		wantRate := rest.SampleRate
		if got := binary.LittleEndian.Uint32(frames[0][24:]); int(got) != wantRate {
			t.Errorf("%s wav: header rate %d, want %d", voice, got, wantRate)
		}
		for i, f := range frames[1:] {
			if bytes.HasPrefix(f, []byte("RIFF")) {
				t.Errorf("%s wav: frame %d holds another header", voice, i+2)
			}
		}
		if wav := bytes.Join(frames, nil); !bytes.Equal(wav[44:], rest.Data) {
			t.Errorf("%s wav: %d sample bytes streamed, REST pcm has %d", voice, len(wav)-44, len(rest.Data))
		}
	}
}

// TestGatewayTTSDurations checks duration_ms over REST for every format at
// several rates against the audio itself: samples for pcm and wav, and for
// mp3 the decoded length less lame's delay and padding.
func TestGatewayTTSDurations(t *testing.T) {
	l := provider(t)
	base, key := gatewayOn(t, l)
	c := newClient(t, base, key)
	for _, rate := range []int{8000, 16000, 22050, 44100} {
		req := api.TTSRequest{Provider: api.DefaultProvider, Text: "Count the samples of this sentence.", VoiceCode: "espeak:en-gb", SampleRate: rate}
		req.Format = api.FormatWAV
		got, err := c.TTS(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		f, err := wav.ReadHeader(bytes.NewReader(got.Data))
		if err != nil || f.Rate != rate {
			t.Fatalf("%d Hz wav: header %+v %v", rate, f, err)
		}
		samples := (len(got.Data) - 44) / 2
		if want := int(math.Round(float64(samples) * 1000 / float64(rate))); got.DurationMs != want || got.SampleRate != rate {
			t.Errorf("%d Hz wav: duration_ms %d at %d Hz, %d samples say %d", rate, got.DurationMs, got.SampleRate, samples, want)
		}
		req.Format = api.FormatMP3
		mp3, err := c.TTS(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if mp3.DurationMs != got.DurationMs {
			t.Errorf("%d Hz: mp3 duration_ms %d, wav %d", rate, mp3.DurationMs, got.DurationMs)
		}
		decoded := decodeMP3(t, mp3.Data)
		// lame puts its encoder delay (576 samples) in front, which its
		// decoder keeps once it has dropped its own (529), and pads the end
		// to a whole frame (576 or 1152 samples). Fewer would mean audio lost.
		frame := 1152
		if rate < 32000 {
			frame = 576
		}
		if extra := decoded - samples; extra < 576 || extra > 576+2*frame {
			t.Errorf("%d Hz mp3: decodes to %d samples, %d more than the %d of duration_ms", rate, decoded, extra, samples)
		}
	}
}

// decodeMP3 returns the number of samples lame decodes from mp3.
func decodeMP3(t *testing.T, mp3 []byte) int {
	t.Helper()
	cmd := exec.Command("lame", "--quiet", "--mp3input", "--decode", "-", "-")
	cmd.Stdin = bytes.NewReader(mp3)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("lame --decode: %v", err)
	}
	f, err := wav.ReadHeader(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	return (len(out) - 44) / 2 / f.Channels
}

// engineChildren lists the engine processes (and zombies) whose parent is
// this test process, as "pid name state".
func engineChildren(t *testing.T) []string {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	me := strconv.Itoa(os.Getpid())
	var out []string
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // it ended
		}
		// pid (comm) state ppid ...
		s := string(b)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open {
			continue
		}
		rest := strings.Fields(s[close+1:])
		if len(rest) < 2 || rest[1] != me {
			continue
		}
		switch name := s[open+1 : close]; name {
		case "espeak-ng", "flite", "lame", "opusdec":
			out = append(out, strings.TrimSpace(s[:open])+" "+name+" "+rest[0])
		}
	}
	return out
}

// waitNoChildren waits up to 5 s for the engine processes to be gone.
func waitNoChildren(t *testing.T, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := engineChildren(t)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: engine processes left behind: %v", what, left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestGatewayCancelledStreamsKillEngines leaves TTS and STT streams
// mid-way, as a client that vanishes does, and checks with the process
// table that every engine process has been killed and reaped.
func TestGatewayCancelledStreamsKillEngines(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to look for engine processes in")
	}
	l := provider(t)
	base, key := gatewayOn(t, l)
	waitNoChildren(t, "before the test")
	long := strings.Repeat("This long text keeps the engine busy for a good while. ", 60)
	for _, voice := range []string{"espeak:en-us", "flite:slt"} {
		conn := dialStream(t, base, key, api.PathTTSStream)
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		if err := conn.WriteJSON(api.TTSRequest{Provider: api.DefaultProvider, Text: long, VoiceCode: voice, Format: api.FormatMP3}); err != nil {
			t.Fatal(err)
		}
		if mt, _, err := conn.ReadMessage(); err != nil || mt != websocket.BinaryMessage {
			t.Fatalf("%s: first frame %d %v", voice, mt, err)
		}
		if running := engineChildren(t); len(running) == 0 {
			t.Fatalf("%s: no engine process while streaming; the check below would prove nothing", voice)
		}
		conn.Close() // vanish without a close frame
		start := time.Now()
		waitNoChildren(t, voice+" TTS stream left mid-way")
		t.Logf("%s: engines gone %v after the client left", voice, time.Since(start))
	}

	// STT: Ogg Opus through opusdec, the client gone after part of it.
	spoken := strings.Join(roundTripSentences, " ")
	wav, _, _ := synth(t, l, api.TTSRequest{Text: spoken, VoiceCode: "flite:slt", Format: api.FormatWAV, SampleRate: 48000})
	enc := exec.Command("opusenc", "--quiet", "-", "-")
	enc.Stdin = bytes.NewReader(wav)
	opus, err := enc.Output()
	if err != nil {
		t.Fatalf("opusenc: %v", err)
	}
	conn := dialStream(t, base, key, api.PathSTTStream)
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	if err := conn.WriteJSON(api.STTRequest{Provider: api.DefaultProvider, Language: "en"}); err != nil {
		t.Fatal(err)
	}
	if err := conn.WriteMessage(websocket.BinaryMessage, opus[:len(opus)/2]); err != nil {
		t.Fatal(err)
	}
	if _, data, err := conn.ReadMessage(); err != nil {
		t.Fatalf("no partial result: %v", err)
	} else if fr, _ := api.DecodeSTTFrame(data); fr.Error != "" || !fr.IsPartial {
		t.Fatalf("first result %+v, want a partial", fr)
	}
	if running := engineChildren(t); len(running) == 0 {
		t.Fatal("no opusdec while the Ogg Opus stream is open")
	}
	conn.Close()
	start := time.Now()
	waitNoChildren(t, "STT stream left mid-way")
	t.Logf("opusdec gone %v after the client left", time.Since(start))

	// The decoder that stream used went back to the pool in working order.
	final, _ := recognize(t, l, api.STTRequest{}, wav)
	if w := wer(spoken, final.Text); w > 0.34 {
		t.Errorf("after the abandoned stream: %q, WER %.2f", final.Text, w)
	}
}

// TestGatewaySTT recognises, through the gateway, the formats a user
// sends, REST and stream, and checks the errors a user sees.
func TestGatewaySTT(t *testing.T) {
	l := provider(t)
	base, key := gatewayOn(t, l)
	c := newClient(t, base, key)
	ctx := context.Background()
	const text = "Please call me back tomorrow morning."
	tts, err := c.TTS(ctx, api.TTSRequest{Provider: api.DefaultProvider, Text: text, VoiceCode: "flite:slt", Format: api.FormatWAV, SampleRate: 48000})
	if err != nil {
		t.Fatal(err)
	}
	enc := exec.Command("opusenc", "--quiet", "-", "-")
	enc.Stdin = bytes.NewReader(tts.Data)
	opus, err := enc.Output()
	if err != nil {
		t.Fatalf("opusenc: %v", err)
	}
	for name, audio := range map[string][]byte{"wav": tts.Data, "opus": opus} {
		res, err := c.STT(ctx, api.STTRequest{Provider: api.DefaultProvider, Language: "en-US"}, audio)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if w := wer(text, res.Text); w > 0.34 || res.Confidence <= 0 || res.Confidence > 1 || res.DurationMs < tts.DurationMs-5 || res.DurationMs > tts.DurationMs+30 {
			t.Errorf("%s REST: %+v (WER %.2f), TTS said %d ms", name, res, w, tts.DurationMs)
		}

		conn := dialStream(t, base, key, api.PathSTTStream)
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		conn.WriteJSON(api.STTRequest{Provider: api.DefaultProvider})
		for chunk := range slices.Chunk(audio, 4000) {
			if err := conn.WriteMessage(websocket.BinaryMessage, chunk); err != nil {
				t.Fatal(err)
			}
		}
		conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
		var frames []api.STTResultFrame
		for {
			_, data, err := conn.ReadMessage()
			if err != nil {
				break
			}
			fr, err := api.DecodeSTTFrame(data)
			if err != nil {
				t.Fatal(err)
			}
			frames = append(frames, fr)
		}
		if len(frames) < 2 {
			t.Fatalf("%s stream: %d frames", name, len(frames))
		}
		last := frames[len(frames)-1]
		if !last.IsFinal || last.Error != "" || wer(text, last.Text) > 0.34 {
			t.Errorf("%s stream: final %+v", name, last)
		}
		for i, fr := range frames {
			if fr.Sequence != i+1 && fr.Sequence != i {
				t.Errorf("%s stream: frame %d has sequence %d", name, i, fr.Sequence)
			}
			if i > 0 && fr.Sequence <= frames[i-1].Sequence {
				t.Errorf("%s stream: sequence %d after %d", name, fr.Sequence, frames[i-1].Sequence)
			}
		}
	}

	for _, tc := range []struct {
		name  string
		req   api.STTRequest
		audio []byte
		want  []string
	}{
		{"garbage", api.STTRequest{}, bytes.Repeat([]byte{0x13, 0x37, 0x42}, 3000), []string{"audio_data", "format not recognised", "sample_rate"}},
		{"header only", api.STTRequest{}, wav.Header(16000, 0), []string{"audio_data", "no audio samples"}},
		{"language", api.STTRequest{Language: "de"}, tts.Data, []string{"language", `"de" is not supported`, "English"}},
		{"pcm rate", api.STTRequest{SampleRate: 100}, tts.Data[44:], []string{"sample_rate", "4000..192000"}},
	} {
		_, err := c.STT(ctx, tc.req, tc.audio)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %v, want it to say %q", tc.name, err, w)
			}
		}
	}
}

// TestGatewayEngineFailsMidway: espeak-ng dies in the second sentence. The client keeps the first sentence's frames, then gets a
// terminal frame whose error names the sentence and the engine's message,
// then the close.
func TestGatewayEngineFailsMidway(t *testing.T) {
	l := failingEspeak(t)
	base, key := gatewayOn(t, l)
	conn := dialStream(t, base, key, api.PathTTSStream)
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	conn.WriteJSON(api.TTSRequest{Provider: api.DefaultProvider, Text: "The first sentence is fine. Then boom.", VoiceCode: "espeak:en-us", Format: api.FormatWAV})
	audio := 0
	for {
		mt, data, err := conn.ReadMessage()
		if err != nil {
			t.Fatalf("no terminal frame after %d bytes: %v", audio, err)
		}
		if mt == websocket.BinaryMessage {
			audio += len(data)
			continue
		}
		final, err := api.DecodeTTSFrame(data)
		if err != nil || !final.IsFinal || !strings.Contains(final.Error, "sentence 2 of 2") || !strings.Contains(final.Error, "exploded") {
			t.Fatalf("terminal frame %s (%v), want is_final with the error of sentence 2", data, err)
		}
		break
	}
	if audio < 20000 {
		t.Errorf("%d bytes of the first sentence arrived before the error", audio)
	}
	var ce *websocket.CloseError
	if _, _, err := conn.ReadMessage(); !errors.As(err, &ce) {
		t.Errorf("after the terminal frame: %v, want a close", err)
	}
}

// TestGatewayConcurrentStreams runs TTS and STT streams side by side
// through the gateway, more STT streams than decoders; each gets its own
// right result.
func TestGatewayConcurrentStreams(t *testing.T) {
	l := provider(t)
	base, key := gatewayOn(t, l)
	var audios [][]byte
	for _, s := range roundTripSentences {
		a, _, _ := synth(t, l, api.TTSRequest{Text: s, VoiceCode: "flite:slt", Format: api.FormatWAV})
		audios = append(audios, a)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 3 {
		wg.Go(func() {
			conn := dialStream(t, base, key, api.PathSTTStream)
			conn.SetReadDeadline(time.Now().Add(60 * time.Second))
			conn.WriteJSON(api.STTRequest{Provider: api.DefaultProvider})
			for chunk := range slices.Chunk(audios[i], 3200) {
				conn.WriteMessage(websocket.BinaryMessage, chunk)
			}
			conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
			var final api.STTResultFrame
			for {
				_, data, err := conn.ReadMessage()
				if err != nil {
					break
				}
				if fr, _ := api.DecodeSTTFrame(data); fr.IsFinal || fr.Error != "" {
					final = fr
				}
			}
			if !final.IsFinal || final.Error != "" || wer(roundTripSentences[i], final.Text) > 0.34 {
				errs <- fmt.Errorf("STT stream %d: final %+v for %q", i, final, roundTripSentences[i])
			}
		})
	}
	for i, voice := range []string{"espeak:en-us", "flite:slt", "espeak:en-gb+f3"} {
		wg.Go(func() {
			req := api.TTSRequest{Provider: api.DefaultProvider, Text: roundTripSentences[i], VoiceCode: voice}
			c, err := api.New(api.Options{BaseURL: base, APIKey: key})
			if err != nil {
				errs <- err
				return
			}
			rest, err := c.TTS(context.Background(), req)
			if err != nil {
				errs <- err
				return
			}
			s, err := c.TTSStream(context.Background(), req)
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			streamed, err := io.ReadAll(s)
			if err != nil || !bytes.Equal(streamed, rest.Data) {
				errs <- fmt.Errorf("TTS stream %s: %d bytes (%v), REST gave %d", voice, len(streamed), err, len(rest.Data))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestGatewaySTTStreamError: audio that turns out not to be audio gets a
// frame whose error names the field and the rule.
func TestGatewaySTTStreamError(t *testing.T) {
	l := provider(t)
	base, key := gatewayOn(t, l)
	for _, tc := range []struct {
		cfg   api.STTRequest
		audio []byte
		want  string
	}{
		{api.STTRequest{Provider: api.DefaultProvider}, bytes.Repeat([]byte("not audio "), 500), "audio_data: format not recognised"},
		{api.STTRequest{Provider: api.DefaultProvider, Language: "fr"}, wav.Header(16000, 0), `language: "fr" is not supported`},
	} {
		conn := dialStream(t, base, key, api.PathSTTStream)
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		conn.WriteJSON(tc.cfg)
		conn.WriteMessage(websocket.BinaryMessage, tc.audio)
		conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
		var last api.STTResultFrame
		frames := 0
		for {
			_, data, err := conn.ReadMessage()
			if err != nil {
				break
			}
			frames++
			if last, err = api.DecodeSTTFrame(data); err != nil {
				t.Fatalf("frame %q: %v", data, err)
			}
		}
		if frames == 0 || !strings.Contains(last.Error, tc.want) {
			t.Errorf("%d frames, the last %+v; want its error to say %q", frames, last, tc.want)
		}
	}
}

// TestGatewaySTTStreamBadAudioWhileOpen: audio that is not audio gets its
// error at once, while the client still holds the stream open. (mp3
// garbage after an ID3 tag is the exception, see docs/voice.md: the mp3 decoder
// reads to the end looking for a frame.)
func TestGatewaySTTStreamBadAudioWhileOpen(t *testing.T) {
	l := provider(t)
	base, key := gatewayOn(t, l)
	for name, audio := range map[string][]byte{
		"no header": bytes.Repeat([]byte("not audio "), 100),
		"ogg":       append([]byte("OggS\x00\x02"), bytes.Repeat([]byte("OpusHead junk"), 5000)...),
	} {
		conn := dialStream(t, base, key, api.PathSTTStream)
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		conn.WriteJSON(api.STTRequest{Provider: api.DefaultProvider})
		conn.WriteMessage(websocket.BinaryMessage, audio)
		_, data, err := conn.ReadMessage()
		if err != nil {
			t.Fatalf("%s: no error frame while the stream is open: %v", name, err)
		}
		if fr, _ := api.DecodeSTTFrame(data); !strings.Contains(fr.Error, "audio_data") || !strings.Contains(fr.Error, "not recognised") && !strings.Contains(fr.Error, "not an Opus header") {
			t.Errorf("%s: frame %s, want an audio_data error", name, data)
		}
	}
}
