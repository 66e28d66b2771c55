package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/api"
	"hark/api/apitest"
)

func readAll(t *testing.T, s *api.TTSStream) ([]byte, error) {
	t.Helper()
	var got []byte
	for {
		c, err := s.Next()
		if err != nil {
			return got, err
		}
		got = append(got, c...)
	}
}

func TestTTSStreamNormal(t *testing.T) {
	s := apitest.New(t)
	var calls []api.CallInfo
	c := newClient(t, s, func(o *api.Options) { o.OnCall = func(ci api.CallInfo) { calls = append(calls, ci) } })
	st, err := c.TTSStream(context.Background(), api.TTSRequest{Text: "hello there", VoiceCode: "alice", Format: "pcm"}, api.KeepAudio())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := readAll(t, st)
	if err != io.EOF {
		t.Fatalf("end = %v", err)
	}
	want := apitest.Synthesize("hello there")
	if !bytes.Equal(got, want) || !bytes.Equal(st.Received(), want) {
		t.Errorf("got %d bytes, want %d", len(got), len(want))
	}
	if _, err := st.Next(); err != io.EOF {
		t.Errorf("Next after end = %v", err)
	}
	req := s.Last(api.PathTTSStream)
	if req.Header.Get("Authorization") != "Bearer "+apitest.Key {
		t.Errorf("handshake without Bearer header")
	}
	var first api.TTSRequest
	if json.Unmarshal(req.Body, &first); first.Text != "hello there" || first.Provider != api.DefaultProvider {
		t.Errorf("request frame %s", req.Body)
	}
	if len(calls) != 1 || calls[0].Status != 101 || calls[0].Path != api.PathTTSStream {
		t.Errorf("OnCall %+v", calls)
	}
}

func TestTTSStreamAsReader(t *testing.T) {
	s := apitest.New(t)
	c := newClient(t, s)
	st, err := c.TTSStream(context.Background(), api.TTSRequest{Text: "abc", VoiceCode: "alice"}, api.KeepAudio())
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(st)
	if err != nil || !bytes.Equal(got, apitest.Synthesize("abc")) {
		t.Fatalf("ReadAll: %d bytes, %v", len(got), err)
	}
}

func TestTTSStreamFailures(t *testing.T) {
	chunks := [][]byte{{1, 2, 3}, {4, 5}}
	cases := []struct {
		name   string
		script apitest.TTSScript
		want   string
	}{
		{"error frame", apitest.TTSScript{Chunks: chunks, Error: "vendor API request failed: reset"}, "vendor API request failed: reset"},
		{"cut mid-way", apitest.TTSScript{Chunks: chunks, Cut: true}, "before the final frame"},
		{"closed without final frame", apitest.TTSScript{Chunks: chunks, CloseEarly: true}, "closed (code 1000) before the final frame"},
		{"bad frame", apitest.TTSScript{Chunks: chunks, BadFrame: "not json"}, "bad frame"},
		{"wrong frame types", apitest.TTSScript{Chunks: chunks, BadFrame: `{"is_final": "yes"}`}, "is_final"},
		{"stalled", apitest.TTSScript{Chunks: chunks, Stall: true}, "no frame for"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := apitest.New(t)
			c := newClient(t, s, func(o *api.Options) { o.StreamIdleTimeout = 300 * time.Millisecond })
			s.ScriptTTS(tc.script)
			st, err := c.TTSStream(context.Background(), api.TTSRequest{Text: "x", VoiceCode: "a"}, api.KeepAudio())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			got, err := readAll(t, st)
			var se *api.StreamError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if se.TraceID == "" || se.TraceID != st.TraceID() || !strings.Contains(err.Error(), "[trace_id "+se.TraceID+"]") {
				t.Errorf("trace_id missing: %v", err)
			}
			if se.Received != 5 || !bytes.Equal(got, []byte{1, 2, 3, 4, 5}) || !bytes.Equal(st.Received(), got) {
				t.Errorf("kept %d bytes (%v), Received=%d", len(got), got, se.Received)
			}
			if _, err2 := st.Next(); err2 != err {
				t.Errorf("error not sticky: %v", err2)
			}
		})
	}
}

func TestTTSStreamRefusedAndCancelled(t *testing.T) {
	s := apitest.New(t)
	c := newClient(t, s)
	s.ScriptTTS(apitest.TTSScript{Refuse: &apitest.Reply{Status: 429, Code: 429, Message: "slow down", Header: map[string]string{"Retry-After": "3"}}})
	_, err := c.TTSStream(context.Background(), api.TTSRequest{Text: "x", VoiceCode: "a"}, api.KeepAudio())
	var e *api.Error
	if !errors.As(err, &e) || !errors.Is(err, api.ErrRateLimited) || e.RetryAfter != 3*time.Second || e.TraceID == "" {
		t.Fatalf("refused: %v", err)
	}
	bad, _ := api.New(api.Options{BaseURL: s.URL, APIKey: "nope-nope-nope"})
	if _, err := bad.TTSStream(context.Background(), api.TTSRequest{Text: "x"}, api.KeepAudio()); !errors.As(err, &e) || !e.Auth() {
		t.Fatalf("bad key: %v", err)
	}
	s.ScriptTTS(apitest.TTSScript{Chunks: [][]byte{{1}}, Stall: true})
	ctx, cancel := context.WithCancel(context.Background())
	st, err := c.TTSStream(ctx, api.TTSRequest{Text: "x", VoiceCode: "a"}, api.KeepAudio())
	if err != nil {
		t.Fatal(err)
	}
	if c, err := st.Next(); err != nil || len(c) != 1 {
		t.Fatal(c, err)
	}
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err = st.Next()
	if !errors.Is(err, context.Canceled) || !bytes.Equal(st.Received(), []byte{1}) {
		t.Errorf("cancel: %v", err)
	}
}

// sttRun writes chunks while reading results concurrently, like a
// microphone would.
func sttRun(t *testing.T, st *api.STTStream, chunks [][]byte) ([]api.STTResultFrame, error) {
	t.Helper()
	var wg sync.WaitGroup
	wg.Add(1)
	var werr error
	go func() {
		defer wg.Done()
		for _, c := range chunks {
			if _, err := st.Write(c); err != nil {
				werr = err
				return
			}
		}
		werr = st.CloseSend()
	}()
	var got []api.STTResultFrame
	for f := range st.Results() {
		got = append(got, f)
	}
	wg.Wait()
	if err := st.Err(); err != nil {
		return got, err
	}
	return got, werr
}

func TestSTTStreamFinalAfterClose(t *testing.T) {
	s := apitest.New(t)
	c := newClient(t, s)
	st, err := c.STTStream(context.Background(), api.STTRequest{Language: "en", SampleRate: 16000, AudioData: "must-not-be-sent"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	chunks := [][]byte{make([]byte, 100), make([]byte, 200), make([]byte, 300)}
	got, err := sttRun(t, st, chunks)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("frames = %+v", got)
	}
	for i, f := range got {
		if f.Sequence != i+1 {
			t.Errorf("frame %d has sequence %d", i, f.Sequence)
		}
	}
	last := got[3]
	if !last.IsFinal || last.Text != apitest.Transcript(600) || !got[0].IsPartial {
		t.Errorf("frames = %+v", got)
	}
	req := s.Last(api.PathSTTStream)
	if !req.ClientClosed || len(req.Audio) != 3 || len(req.Audio[2]) != 300 {
		t.Errorf("server saw %d frames, closed=%v", len(req.Audio), req.ClientClosed)
	}
	var cfg map[string]any
	json.Unmarshal(req.Body, &cfg)
	if _, ok := cfg["audio_data"]; ok || cfg["language"] != "en" || cfg["provider"] != api.DefaultProvider {
		t.Errorf("config frame = %s", req.Body)
	}
	if _, err := st.Write([]byte{1}); err == nil {
		t.Error("write after CloseSend accepted")
	}
}

func TestSTTStreamFailures(t *testing.T) {
	final := api.STTResultFrame{Sequence: 9, Text: "done", IsFinal: true}
	cases := []struct {
		name       string
		script     apitest.STTScript
		want       string
		wantFrames int
	}{
		{"error frame", apitest.STTScript{AfterClose: []any{api.STTResultFrame{Sequence: 3, IsFinal: true, Error: "recognizer failed"}}}, "recognizer failed", 3},
		{"bad frame", apitest.STTScript{AfterClose: []any{"{nope"}}, "bad frame", 2},
		{"binary frame", apitest.STTScript{AfterClose: []any{[]byte{1}}}, "unexpected binary frame", 2},
		{"cut after close", apitest.STTScript{AfterClose: []any{final}, CutAfterClose: true}, "connection broken", 3},
		{"cut mid-way", apitest.STTScript{CutAfterChunks: 1}, "", 0},
		{"no close reply", apitest.STTScript{AfterClose: []any{final}, NoCloseReply: true}, "no answer for", 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := apitest.New(t)
			c := newClient(t, s, func(o *api.Options) { o.StreamIdleTimeout = 300 * time.Millisecond })
			s.ScriptSTT(tc.script)
			st, err := c.STTStream(context.Background(), api.STTRequest{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			got, err := sttRun(t, st, [][]byte{{1, 2}, {3, 4}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if tc.name != "cut mid-way" && len(got) != tc.wantFrames {
				t.Errorf("kept %d frames, want %d: %+v", len(got), tc.wantFrames, got)
			}
		})
	}
}

func TestSTTStreamAbortAndCancel(t *testing.T) {
	s := apitest.New(t)
	c := newClient(t, s)
	st, err := c.STTStream(context.Background(), api.STTRequest{})
	if err != nil {
		t.Fatal(err)
	}
	st.Write([]byte{1})
	done := make(chan struct{})
	go func() { st.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hung")
	}
	for range st.Results() {
	}
	ctx, cancel := context.WithCancel(context.Background())
	st, err = c.STTStream(ctx, api.STTRequest{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	for range st.Results() {
	}
	if !errors.Is(st.Err(), context.Canceled) {
		t.Errorf("Err after cancel = %v", st.Err())
	}
	s.ScriptSTT(apitest.STTScript{Refuse: &apitest.Reply{Status: 200, Code: 500, Message: api.MsgCredentialsMissing}})
	if _, err := c.STTStream(context.Background(), api.STTRequest{}); !errors.Is(err, api.ErrCredentialsMissing) {
		t.Errorf("refused: %v", err)
	}
}

// Without KeepAudio the stream keeps nothing: Read still yields every
// byte in order, and a failure still counts what arrived.
func TestTTSStreamKeepsNothingUnlessAsked(t *testing.T) {
	s := apitest.New(t)
	c := newClient(t, s)
	st, err := c.TTSStream(context.Background(), api.TTSRequest{Text: "hello there", VoiceCode: "alice", Format: "pcm"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := io.ReadAll(st)
	if err != nil || !bytes.Equal(got, apitest.Synthesize("hello there")) {
		t.Fatalf("read %d bytes, %v", len(got), err)
	}
	if st.Received() != nil {
		t.Errorf("kept %d bytes unasked", len(st.Received()))
	}
	s.ScriptTTS(apitest.TTSScript{Chunks: [][]byte{{1, 2, 3}}, Error: "engine died"})
	st2, err := c.TTSStream(context.Background(), api.TTSRequest{Text: "x", VoiceCode: "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	_, err = io.ReadAll(st2)
	var se *api.StreamError
	if !errors.As(err, &se) || se.Received != 3 || st2.Received() != nil {
		t.Errorf("failure: %v", err)
	}
}
