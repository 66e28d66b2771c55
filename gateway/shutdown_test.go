package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/store"
)

func TestShutdownLetsTTSStreamFinish(t *testing.T) {
	t.Parallel()
	g := startGateway(t, nil)
	st, err := g.client(t, g.key).TTSStream(context.Background(), api.TTSRequest{Text: "SLOW SLOW SLOW SLOW", VoiceCode: "tone"}, api.KeepAudio())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Next(); err != nil {
		t.Fatal(err)
	}
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		shut <- g.srv.Shutdown(ctx)
	}()
	if _, err := io.ReadAll(st); err != nil || len(st.Received()) != 4*3200 {
		t.Fatalf("stream during shutdown: %v, %d bytes", err, len(st.Received()))
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := <-g.done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := http.Get(g.base + api.PathTools); err == nil {
		t.Fatal("gateway still accepts connections after Shutdown")
	}
}

func TestShutdownGraceExpiresWithErrorFrame(t *testing.T) {
	t.Parallel()
	g := startGateway(t, nil)
	st, err := g.client(t, g.key).TTSStream(context.Background(), api.TTSRequest{Text: strings.Repeat("SLOW ", 40), VoiceCode: "tone"}, api.KeepAudio())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Next(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := g.srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v", err)
	}
	_, err = io.ReadAll(st)
	var se *api.StreamError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "gateway shutting down") || len(st.Received()) < 3200 {
		t.Fatalf("stream: %v, %d bytes kept", err, len(st.Received()))
	}
}

func TestShutdownEndsSTTStreamWithFinals(t *testing.T) {
	t.Parallel()
	g := startGateway(t, nil)
	st, err := g.client(t, g.key).STTStream(context.Background(), api.STTRequest{Language: "slowfinal"})
	if err != nil {
		t.Fatal(err)
	}
	st.Write(make([]byte, 6400))
	for range 2 {
		if f := <-st.Results(); !f.IsPartial {
			t.Fatalf("want a partial, got %+v", f)
		}
	}
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		shut <- g.srv.Shutdown(ctx)
	}()
	var frames []api.STTResultFrame
	for f := range st.Results() {
		frames = append(frames, f)
	}
	if len(frames) != 2 || frames[0].Text != "heard 6400 bytes" || !frames[0].IsFinal || !strings.Contains(frames[1].Error, "gateway shutting down") {
		t.Fatalf("frames %+v", frames)
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	// New streams are refused while draining.
	if _, err := g.client(t, g.key).STTStream(context.Background(), api.STTRequest{}); err == nil {
		t.Fatal("new stream accepted after shutdown")
	}
}

// A REST call still running when the grace ends gets an envelope saying
// why, not a dropped connection.
func TestShutdownGraceEndsRESTCallWithEnvelope(t *testing.T) {
	t.Parallel()
	g := startGateway(t, nil)
	type answer struct {
		status int
		env    api.Envelope
	}
	got := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("POST", g.base+invokePath(api.ToolResearch), strings.NewReader(`{"inputs":{"input":"forever"}}`))
		req.Header.Set("Authorization", "Bearer "+g.key)
		var a answer
		if resp, err := http.DefaultClient.Do(req); err == nil {
			a.status = resp.StatusCode
			json.NewDecoder(resp.Body).Decode(&a.env)
			resp.Body.Close()
		} else {
			a.env.Message = err.Error()
		}
		got <- a
	}()
	time.Sleep(200 * time.Millisecond) // the call is in the engine
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := g.srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v", err)
	}
	select {
	case a := <-got:
		wantError(t, a.status, a.env, 503, "gateway shutting down")
	case <-time.After(5 * time.Second):
		t.Fatal("the call never ended")
	}
}

// A Shutdown that comes before Serve (hark's Stop right after Start, when
// the serving goroutine has not run yet) keeps Serve from starting: it
// returns at once instead of serving forever with no one to stop it.
func TestShutdownBeforeServe(t *testing.T) {
	t.Parallel()
	db, err := store.OpenDB(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv, err := New(Options{Config: &config.Config{Workspaces: []config.Workspace{config.LocalWorkspace(auth.HashKey("k"))}}, DB: store.FromSQLite(db)})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve after Shutdown: %v", err)
		}
	case <-time.After(10 * time.Second):
		ln.Close()
		t.Fatal("Serve after Shutdown went on serving")
	}
}
