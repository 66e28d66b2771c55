package audio

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// ttsServer streams a WAV the way the gateway's TTS WebSocket does (binary
// frames, then a final JSON frame), but dies after `frames` frames when die
// is set: the TCP connection just closes.
func ttsServer(t *testing.T, wav []byte, frameSize, frames int, die bool) *httptest.Server {
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		if _, _, err := c.ReadMessage(); err != nil { // the request frame
			return
		}
		for i := 0; i < frames && i*frameSize < len(wav); i++ {
			c.WriteMessage(websocket.BinaryMessage, wav[i*frameSize:min((i+1)*frameSize, len(wav))])
			time.Sleep(5 * time.Millisecond)
		}
		if die {
			c.UnderlyingConn().Close()
			return
		}
		c.WriteMessage(websocket.TextMessage, []byte(`{"is_final":true}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// streamTTS is what a client does: every binary frame goes to Write; the
// final frame ends the input; a broken connection ends it with the error.
func streamTTS(t *testing.T, url string, p *Playback) {
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(url, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.WriteMessage(websocket.TextMessage, []byte(`{"provider":"vendor_speech","text":"hi","voice_code":"v","format":"wav"}`))
	for {
		kind, data, err := c.ReadMessage()
		if err != nil {
			p.CloseWithError(err)
			return
		}
		if kind == websocket.BinaryMessage {
			p.Write(data)
			continue
		}
		var final struct {
			IsFinal bool   `json:"is_final"`
			Error   string `json:"error"`
		}
		json.Unmarshal(data, &final)
		if final.IsFinal {
			p.CloseWrite()
			return
		}
	}
}

func TestServerDiesMidStream(t *testing.T) {
	want := testSignal(16000, 9) // 1 s at 16 kHz
	wav := append(streamedWAVHeader(16000, 0xFFFFFFFF), s16Bytes(want)...)
	const frameSize, frames = 3001, 4 // odd size: the cut lands mid-sample
	arrived := (frames*frameSize - 44) / 2

	t.Run("device keeps playing what arrived", func(t *testing.T) {
		rec := newRecordingSink()
		p, _ := rec.output().Play("wav", 0)
		streamTTS(t, ttsServer(t, wav, frameSize, frames, true).URL, p)
		waitDone(t, p, 5*time.Second)
		equalSamples(t, rec.samples(), want[:arrived])
		if err := p.Err(); err == nil || !strings.Contains(err.Error(), "input ended early") {
			t.Errorf("Err = %v, want the connection error", err)
		}
	})
	t.Run("file keeps what arrived", func(t *testing.T) {
		out, _ := Open(Options{Sink: "file", Dir: t.TempDir()})
		p, _ := out.Play("wav", 0)
		streamTTS(t, ttsServer(t, wav, frameSize, frames, true).URL, p)
		waitDone(t, p, 5*time.Second)
		pcm, _, err := DecodeToPCM("wav", readFile(t, p.SavedTo()), 0)
		if err != nil || !bytes.Equal(pcm, s16Bytes(want[:arrived])) {
			t.Errorf("saved %d bytes (err %v), want the %d that arrived", len(pcm), err, arrived*2)
		}
	})
	t.Run("a normal end has no error", func(t *testing.T) {
		out, _ := Open(Options{Sink: "file", Dir: t.TempDir()})
		p, _ := out.Play("wav", 0)
		streamTTS(t, ttsServer(t, wav, frameSize, 1000, false).URL, p)
		waitDone(t, p, 5*time.Second)
		if p.Err() != nil {
			t.Fatal(p.Err())
		}
		if fi, err := os.Stat(p.SavedTo()); err != nil || fi.Size() != int64(len(wav)) {
			t.Errorf("saved file: %v, size %v, want %d", err, fi, len(wav))
		}
	})
}
