package gateway

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"hark/api"
	"hark/gateway/config"
)

// readSTTFrames reads result frames until the close, returning them and
// the close code.
func readSTTFrames(t *testing.T, conn *websocket.Conn) ([]api.STTResultFrame, int) {
	t.Helper()
	var frames []api.STTResultFrame
	for {
		mt, data, err := conn.ReadMessage()
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return frames, ce.Code
		}
		if err != nil {
			t.Fatalf("read: %v (frames %+v)", err, frames)
		}
		var f api.STTResultFrame
		if mt != websocket.TextMessage || json.Unmarshal(data, &f) != nil {
			t.Fatalf("frame type %d: %q", mt, data)
		}
		frames = append(frames, f)
	}
}

// Clients that send what the protocol does not expect get an error frame
// naming the rule, keep the results of the audio sent before it, and a
// close code that says why.
func TestStreamsRefuseBadClientFrames(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) { c.Limits.MaxFrameBytes = 8000; c.Limits.MaxStreamTextChars = 20 })
	auth := http.Header{"Authorization": {"Bearer " + g.key}}
	sttOpen := func(cfg string) *websocket.Conn {
		t.Helper()
		conn, _, err := g.dialWS(t, api.PathSTTStream, auth)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		conn.WriteMessage(websocket.TextMessage, []byte(cfg))
		return conn
	}
	const cfg = `{"provider":"vendor_speech"}`

	for name, c := range map[string]struct {
		then      func(*websocket.Conn)
		lastFinal string // text of the final before the error frame
		errMsg    string
		closeCode int
	}{
		"text frame where audio is expected": {
			then: func(conn *websocket.Conn) {
				conn.WriteMessage(websocket.BinaryMessage, make([]byte, 3200))
				conn.WriteMessage(websocket.TextMessage, []byte(`{"audio_data":"AAAA"}`))
				conn.WriteMessage(websocket.BinaryMessage, make([]byte, 3200)) // after the end: not heard
			},
			lastFinal: "heard 3200 bytes", errMsg: "a text frame arrived where audio was expected", closeCode: websocket.ClosePolicyViolation,
		},
		"message over max_frame_bytes": {
			then: func(conn *websocket.Conn) {
				conn.WriteMessage(websocket.BinaryMessage, make([]byte, 6400))
				conn.WriteMessage(websocket.BinaryMessage, make([]byte, 100000))
			},
			lastFinal: "heard 6400 bytes", errMsg: "a WebSocket message exceeds 8000 bytes", closeCode: websocket.CloseMessageTooBig,
		},
	} {
		conn := sttOpen(cfg)
		c.then(conn)
		frames, code := readSTTFrames(t, conn)
		n := len(frames)
		if code != c.closeCode || n < 2 || frames[n-2].Text != c.lastFinal || !frames[n-2].IsFinal ||
			!frames[n-1].IsFinal || !strings.Contains(frames[n-1].Error, c.errMsg) {
			t.Fatalf("%s: close %d, frames %+v", name, code, frames)
		}
	}

	// Garbage as the configuration frame.
	for name, first := range map[string]struct {
		mt   int
		data string
		msg  string
		code int
	}{
		"not JSON":  {websocket.TextMessage, "\x00\xffgarbage", "invalid JSON body", websocket.ClosePolicyViolation},
		"binary":    {websocket.BinaryMessage, "RIFF....WAVE", "the first frame must be a JSON text frame", websocket.ClosePolicyViolation},
		"JSON list": {websocket.TextMessage, `[1,2]`, "invalid JSON body", websocket.ClosePolicyViolation},
		"too big":   {websocket.TextMessage, `{"provider":"` + strings.Repeat("x", 9000) + `"}`, "exceeds 8000 bytes", websocket.CloseMessageTooBig},
		"long text": {websocket.TextMessage, `{"provider":"vendor_speech","voice_code":"tone","text":"` + strings.Repeat("é", 21) + `"}`,
			"invalid text: must be at most 20 characters, got 21", websocket.ClosePolicyViolation},
	} {
		for _, path := range []string{api.PathSTTStream, api.PathTTSStream} {
			if name == "long text" && path == api.PathSTTStream {
				continue
			}
			conn, _, err := g.dialWS(t, path, auth)
			if err != nil {
				t.Fatal(err)
			}
			conn.WriteMessage(first.mt, []byte(first.data))
			var f struct {
				IsFinal bool   `json:"is_final"`
				Error   string `json:"error"`
			}
			if err := conn.ReadJSON(&f); err != nil || !f.IsFinal || !strings.Contains(f.Error, first.msg) {
				t.Fatalf("%s %s: %v %+v", path, name, err, f)
			}
			if _, _, err := conn.ReadMessage(); !websocket.IsCloseError(err, first.code) {
				t.Fatalf("%s %s: close %v, want %d", path, name, err, first.code)
			}
			conn.Close()
		}
	}

	// A TTS client that sends frames after its request (even oversized
	// ones) does not disturb the synthesis.
	conn, _, err := g.dialWS(t, api.PathTTSStream, auth)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.WriteJSON(api.TTSRequest{Provider: api.DefaultProvider, Text: "SLOW SLOW", VoiceCode: "tone"})
	conn.WriteMessage(websocket.BinaryMessage, make([]byte, 50000))
	conn.WriteMessage(websocket.TextMessage, []byte("garbage"))
	var audio int
	for {
		mt, data, err := conn.ReadMessage()
		if err != nil {
			t.Fatalf("tts after extra frames: %v (%d bytes)", err, audio)
		}
		if mt == websocket.BinaryMessage {
			audio += len(data)
			continue
		}
		var f api.TTSFinalFrame
		if json.Unmarshal(data, &f) != nil || !f.IsFinal || f.Error != "" || audio != 6400 {
			t.Fatalf("tts final %q after %d bytes", data, audio)
		}
		break
	}
	if _, _, err := conn.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
		t.Fatalf("tts close: %v", err)
	}
}
