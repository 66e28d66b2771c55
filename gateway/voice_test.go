package gateway

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"hark/api"
	"hark/gateway/config"
)

func TestVoiceREST(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) { c.Limits.MaxTextChars = 50; c.Limits.MaxAudioBytes = 64000 })
	c := g.client(t, g.key)
	ctx := context.Background()
	voices, err := c.Voices(ctx, api.DefaultProvider)
	if err != nil || len(voices) != 1 || voices[0].Value != "tone" {
		t.Fatalf("voices: %v %+v", err, voices)
	}
	audio, err := c.TTS(ctx, api.TTSRequest{Text: "one two three", VoiceCode: "tone"})
	if err != nil || len(audio.Data) != 3*3200 || audio.Format != "pcm" || audio.SampleRate != 16000 || audio.DurationMs != 300 {
		t.Fatalf("tts: %v %+v", err, audio)
	}
	res, err := c.STT(ctx, api.STTRequest{Language: "en"}, audio.Data)
	if err != nil || res.Text != "heard 9600 bytes" || res.DurationMs != 300 || res.Confidence != 0.9 {
		t.Fatalf("stt: %v %+v", err, res)
	}
	tts := func(key string, body any) (int, api.Envelope) {
		s, env, _ := g.call(t, "POST", api.PathTTS, key, body)
		return s, env
	}
	for _, c := range []struct {
		key    string
		body   string
		status int
		msg    string
	}{
		{g.key, `{"text":"a","voice_code":"tone"}`, 400, "invalid provider: is required"},
		{g.key, `{"provider":"vendor_speech","voice_code":"tone"}`, 400, "invalid text: is required"},
		{g.key, `{"provider":"vendor_speech","text":"a"}`, 400, "invalid voice_code: is required"},
		{g.key, `{"provider":"vendor_speech","text":"a","voice_code":"tone","format":"ogg"}`, 400, "invalid format: must be one of pcm, mp3, wav"},
		{g.key, `{"provider":"vendor_speech","text":"a","voice_code":"tone","sample_rate":"fast"}`, 400, "invalid sample_rate: must be an integer"},
		{g.key, `{"provider":"vendor_speech","text":"` + strings.Repeat("a ", 30) + `","voice_code":"tone"}`, 400, "invalid text: must be at most 50 characters"},
		{g.key, `{"provider":"vendor_speech","text":"a","voice_code":"nope"}`, 400, "invalid voice_code: unknown voice nope"},
		{g.key, `{"provider":"vendor_speech","text":"a FAIL","voice_code":"tone"}`, 502, "Tone API returned status code 500: synthesizer crashed"},
		{g.key, `{"provider":"acme_voice","text":"a","voice_code":"tone"}`, 404, `unknown voice provider "acme_voice"`},
		{g.keys["bare"], `{"provider":"vendor_speech","text":"a","voice_code":"tone"}`, 403, `voice provider "vendor_speech" is not enabled for this workspace`},
		{g.keys["limited"], `{"provider":"vendor_speech","text":"a","voice_code":"tone"}`, 403, `voice provider "vendor_speech" is disabled for this workspace`},
		{g.keys["nocreds"], `{"provider":"vendor_speech","text":"a","voice_code":"tone"}`, 403, `voice provider "vendor_speech" has no credentials configured`},
	} {
		s, env := tts(c.key, c.body)
		if s != c.status || !strings.Contains(env.Message, c.msg) {
			t.Errorf("tts %s: %d %q, want %d %q", truncate(c.body, 50), s, env.Message, c.status, c.msg)
		}
	}
	// Voice list errors name the provider.
	s, env, _ := g.call(t, "GET", "/v1/openapi/third-party-service/voice/acme_voice/voices", g.key, nil)
	wantError(t, s, env, 404, `unknown voice provider "acme_voice"`)
	s, env, _ = g.call(t, "GET", "/v1/openapi/third-party-service/voice/vendor_speech/voices", g.keys["limited"], nil)
	wantError(t, s, env, 403, "disabled")
	// STT errors.
	for _, c := range []struct {
		body   map[string]any
		status int
		msg    string
	}{
		{map[string]any{"provider": "vendor_speech"}, 400, "invalid audio_data: is required"},
		{map[string]any{"audio_data": "AAAA"}, 400, "invalid provider: is required"},
		{map[string]any{"provider": "vendor_speech", "audio_data": "!!!not base64"}, 400, "invalid audio_data: must be base64-encoded"},
		{map[string]any{"provider": "vendor_speech", "audio_data": base64.StdEncoding.EncodeToString(make([]byte, 64001))}, 413, "exceeds 64000 bytes"},
		{map[string]any{"provider": "vendor_speech", "audio_data": base64.StdEncoding.EncodeToString(make([]byte, 9600)), "language": "fail"}, 502, "Tone API request failed: recognizer lost"},
		{map[string]any{"provider": "nope", "audio_data": "AAAA"}, 404, `unknown voice provider "nope"`},
	} {
		s, env, _ := g.call(t, "POST", api.PathSTT, g.key, c.body)
		if s != c.status || !strings.Contains(env.Message, c.msg) {
			t.Errorf("stt %v: %d %q, want %d %q", c.body["language"], s, env.Message, c.status, c.msg)
		}
	}
	// TTS bills 1 credit per started 1000 characters, STT 1 per started minute.
	recs, _ := g.srv.Usage(ctx, "local", 100)
	var tts1, stt1 bool
	for _, r := range recs {
		tts1 = tts1 || (r.Operation == "tts" && r.Status == "ok" && r.Credits == 1)
		stt1 = stt1 || (r.Operation == "stt" && r.Status == "ok" && r.Credits == 1)
	}
	if !tts1 || !stt1 {
		t.Fatalf("usage %+v", recs)
	}
}

// dialWS opens a stream with raw gorilla, for handshake details.
func (g *testGW) dialWS(t *testing.T, path string, hdr http.Header) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	u := "ws" + strings.TrimPrefix(g.base, "http") + path
	d := websocket.Dialer{HandshakeTimeout: 5 * time.Second}
	return d.Dial(u, hdr)
}

func TestStreamAuth(t *testing.T) {
	t.Parallel()
	g := startGateway(t, nil)
	// Subprotocol auth: the echoed protocol is the safe one, never the key.
	conn, resp, err := g.dialWS(t, api.PathTTSStream, http.Header{"Sec-WebSocket-Protocol": {Subprotocol + ", " + BearerProtocolPrefix + g.key}})
	if err != nil {
		t.Fatal(err)
	}
	if conn.Subprotocol() != Subprotocol || strings.Contains(resp.Header.Get("Sec-WebSocket-Protocol"), g.key) || resp.Header.Get(TraceHeader) == "" {
		t.Fatalf("subprotocol %q, header %q", conn.Subprotocol(), resp.Header.Get("Sec-WebSocket-Protocol"))
	}
	conn.WriteJSON(api.TTSRequest{Provider: api.DefaultProvider, Text: "hi", VoiceCode: "tone"})
	mt, data, err := conn.ReadMessage()
	if err != nil || mt != websocket.BinaryMessage || len(data) != 3200 {
		t.Fatalf("first frame: %v %d %d", err, mt, len(data))
	}
	conn.Close()
	// The bearer offer alone also works; nothing is echoed.
	conn, _, err = g.dialWS(t, api.PathSTTStream, http.Header{"Sec-WebSocket-Protocol": {BearerProtocolPrefix + g.key}})
	if err != nil || conn.Subprotocol() != "" {
		t.Fatalf("bearer only: %v", err)
	}
	conn.Close()
	for name, c := range map[string]struct {
		path string
		hdr  http.Header
		msg  string
	}{
		"none":         {api.PathTTSStream, nil, "missing API key"},
		"bad protocol": {api.PathSTTStream, http.Header{"Sec-WebSocket-Protocol": {BearerProtocolPrefix + "hark_wrong"}}, "invalid API key"},
		"bad header":   {api.PathSTTStream, http.Header{"Authorization": {"Bearer hark_wrong"}}, "invalid API key"},
		"query":        {api.PathTTSStream + "?api_key=" + g.key, nil, "never accepted in the query string"},
	} {
		_, resp, err := g.dialWS(t, c.path, c.hdr)
		if err == nil || resp == nil || resp.StatusCode != 401 {
			t.Fatalf("%s: %v %v", name, err, resp)
		}
		raw, _ := io.ReadAll(resp.Body)
		var env api.Envelope
		if json.Unmarshal(raw, &env) != nil || env.Code != 401 || !strings.Contains(env.Message, c.msg) || env.TraceID == "" {
			t.Fatalf("%s: %s", name, raw)
		}
	}
	// A plain GET on a stream path asks for the upgrade.
	s, env, _ := g.call(t, "GET", api.PathSTTStream, g.key, nil)
	wantError(t, s, env, 400, "needs a WebSocket upgrade")
	// The client's handshake error carries the envelope.
	_, err = g.client(t, "hark_wrong").TTSStream(context.Background(), api.TTSRequest{Text: "a", VoiceCode: "tone"}, api.KeepAudio())
	var ae *api.Error
	if !errors.As(err, &ae) || ae.HTTPStatus != 401 {
		t.Fatalf("client: %v", err)
	}
}

func TestTTSStream(t *testing.T) {
	t.Parallel()
	g := startGateway(t, nil)
	c := g.client(t, g.key)
	ctx := context.Background()
	st, err := c.TTSStream(ctx, api.TTSRequest{Text: "one two three four", VoiceCode: "tone", Format: "pcm"}, api.KeepAudio())
	if err != nil {
		t.Fatal(err)
	}
	var chunks int
	for {
		b, err := st.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != 3200 {
			t.Fatalf("chunk of %d bytes", len(b))
		}
		chunks++
	}
	if chunks != 4 || len(st.Received()) != 12800 {
		t.Fatalf("%d chunks, %d bytes", chunks, len(st.Received()))
	}
	st.Close()

	// Mid-stream failure: the audio already sent stays, then the error frame.
	st, err = c.TTSStream(ctx, api.TTSRequest{Text: "one two FAIL", VoiceCode: "tone"}, api.KeepAudio())
	if err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(st)
	var se *api.StreamError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "Tone API returned status code 500") || len(all) != 6400 {
		t.Fatalf("mid-stream error: %v, %d bytes", err, len(all))
	}
	st.Close()

	// Protocol errors end with a terminal error frame, then a close.
	for name, c := range map[string]struct {
		first any
		msg   string
		code  int
	}{
		"binary first": {[]byte{1, 2, 3}, "the first frame must be a JSON text frame", websocket.ClosePolicyViolation},
		"bad json":     {"{not json", "invalid JSON body", websocket.ClosePolicyViolation},
		"no text":      {`{"provider":"vendor_speech","voice_code":"tone"}`, "invalid text: is required", websocket.ClosePolicyViolation},
		"bad provider": {`{"provider":"acme","text":"a","voice_code":"tone"}`, `unknown voice provider "acme"`, websocket.ClosePolicyViolation},
		"bad voice":    {`{"provider":"vendor_speech","text":"a","voice_code":"zzz"}`, "invalid voice_code", websocket.ClosePolicyViolation},
	} {
		conn, _, err := g.dialWS(t, api.PathTTSStream, http.Header{"Authorization": {"Bearer " + g.key}})
		if err != nil {
			t.Fatal(err)
		}
		switch f := c.first.(type) {
		case []byte:
			conn.WriteMessage(websocket.BinaryMessage, f)
		case string:
			conn.WriteMessage(websocket.TextMessage, []byte(f))
		}
		var final api.TTSFinalFrame
		if err := conn.ReadJSON(&final); err != nil || !final.IsFinal || !strings.Contains(final.Error, c.msg) {
			t.Fatalf("%s: %v %+v", name, err, final)
		}
		_, _, err = conn.ReadMessage()
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != c.code {
			t.Fatalf("%s: close %v", name, err)
		}
		conn.Close()
	}
}

func TestSTTStream(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) { c.Limits.MaxStreamAudioBytes = 20000 })
	c := g.client(t, g.key)
	ctx := context.Background()
	run := func(cfg api.STTRequest, audio []byte) ([]api.STTResultFrame, error) {
		st, err := c.STTStream(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var frames []api.STTResultFrame
		done := make(chan struct{})
		go func() {
			for f := range st.Results() {
				frames = append(frames, f)
			}
			close(done)
		}()
		for i := 0; i < len(audio); i += 1000 {
			if _, err := st.Write(audio[i:min(i+1000, len(audio))]); err != nil {
				break
			}
		}
		st.CloseSend()
		<-done
		return frames, st.Err()
	}
	// Normal end: partials while audio arrives, the final only after the
	// client's close, then the close handshake completes cleanly.
	frames, err := run(api.STTRequest{Language: "en", SampleRate: 16000}, make([]byte, 9600))
	if err != nil {
		t.Fatal(err)
	}
	last := frames[len(frames)-1]
	if len(frames) != 4 || !last.IsFinal || last.Text != "heard 9600 bytes" || last.Confidence != 0.9 || last.Sequence != 4 {
		t.Fatalf("frames %+v", frames)
	}
	for i, f := range frames[:3] {
		if !f.IsPartial || f.IsFinal || f.Sequence != i+1 {
			t.Fatalf("partial %+v", f)
		}
	}
	// Recognition fails mid-stream: results so far, then an error frame.
	frames, err = run(api.STTRequest{Language: "fail"}, make([]byte, 9600))
	var se *api.StreamError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "Tone API request failed: recognizer lost") {
		t.Fatalf("err %v frames %+v", err, frames)
	}
	if n := len(frames); n < 2 || frames[n-1].Error == "" || !frames[n-1].IsFinal || frames[0].Text != "3200" {
		t.Fatalf("frames %+v", frames)
	}
	// Over the audio limit: what arrived is recognized, then an error frame.
	frames, err = run(api.STTRequest{}, make([]byte, 30000))
	n := len(frames)
	if !errors.As(err, &se) || n < 2 || frames[n-2].Text != "heard 20000 bytes" || !strings.Contains(frames[n-1].Error, "audio exceeds 20000 bytes") {
		t.Fatalf("limit: %v %+v", err, frames)
	}
	// Bad configuration frames.
	for name, c := range map[string]struct{ cfg, msg string }{
		"no provider": {`{"language":"en"}`, "invalid provider: is required"},
		"audio_data":  {`{"provider":"vendor_speech","audio_data":"AAAA"}`, "invalid audio_data: must not be sent"},
		"disabled":    {`{"provider":"other"}`, `unknown voice provider "other"`},
	} {
		conn, _, err := g.dialWS(t, api.PathSTTStream, http.Header{"Authorization": {"Bearer " + g.key}})
		if err != nil {
			t.Fatal(err)
		}
		conn.WriteMessage(websocket.TextMessage, []byte(c.cfg))
		var f api.STTResultFrame
		if err := conn.ReadJSON(&f); err != nil || !f.IsFinal || !strings.Contains(f.Error, c.msg) {
			t.Fatalf("%s: %v %+v", name, err, f)
		}
		if _, _, err := conn.ReadMessage(); !websocket.IsCloseError(err, websocket.ClosePolicyViolation) {
			t.Fatalf("%s: %v", name, err)
		}
		conn.Close()
	}
	// Silence (no audio at all) still gets a final frame before the close.
	frames, err = run(api.STTRequest{}, nil)
	if err != nil || len(frames) != 1 || !frames[0].IsFinal || frames[0].Text != "heard 0 bytes" {
		t.Fatalf("silence: %v %+v", err, frames)
	}
}

func TestSTTStreamIdleTimeout(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) { c.Limits.StreamIdleTimeout = config.Duration(300 * time.Millisecond) })
	conn, _, err := g.dialWS(t, api.PathSTTStream, http.Header{"Authorization": {"Bearer " + g.key}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.WriteJSON(api.STTRequest{Provider: api.DefaultProvider})
	conn.WriteMessage(websocket.BinaryMessage, make([]byte, 3200))
	var frames []api.STTResultFrame
	for {
		var f api.STTResultFrame
		if err := conn.ReadJSON(&f); err != nil {
			if !websocket.IsCloseError(err, websocket.ClosePolicyViolation) {
				t.Fatalf("close: %v", err)
			}
			break
		}
		frames = append(frames, f)
	}
	n := len(frames)
	if n != 3 || frames[1].Text != "heard 3200 bytes" || !strings.Contains(frames[2].Error, "no audio for 300ms") {
		t.Fatalf("frames %+v", frames)
	}
	// A client that never sends its first frame is told so.
	for _, c := range []struct{ path, what string }{{api.PathSTTStream, "STT configuration"}, {api.PathTTSStream, "TTS request"}} {
		conn, _, err := g.dialWS(t, c.path, http.Header{"Authorization": {"Bearer " + g.key}})
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			IsFinal bool   `json:"is_final"`
			Error   string `json:"error"`
		}
		if err := conn.ReadJSON(&f); err != nil || !f.IsFinal || f.Error != "no "+c.what+" frame within 300ms (stream_idle_timeout)" {
			t.Fatalf("%s: %v %+v", c.path, err, f)
		}
		if _, _, err := conn.ReadMessage(); !websocket.IsCloseError(err, websocket.ClosePolicyViolation) {
			t.Fatalf("%s: close %v", c.path, err)
		}
		conn.Close()
	}
}
