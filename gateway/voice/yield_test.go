package voice

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"hark/api"
	"hark/gateway/engine"
)

// Two recognitions whose clients send slowly hold both decoders; a third,
// whose audio is all there, still runs at once: a recognition whose audio
// has paused gives its decoder to the one waiting, and takes one again
// when its audio comes. Without that, the third waits for DecoderWait
// (here a minute) and fails busy.
func TestSlowStreamsGiveTheirDecodersToAWaitingOne(t *testing.T) {
	shared := provider(t)
	l, err := New(Config{Decoders: 2, WarmAfter: -1, DecoderWait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// Load both decoders first, so that each slow recognition takes one
	// without waiting (a wait would already make the other yield).
	d1, err := l.pool.get(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := l.pool.get(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	l.pool.put(d1, false)
	l.pool.put(d2, false)
	clip, _, _ := synth(t, shared, api.TTSRequest{Text: "Open the window and let the fresh air in.", VoiceCode: "flite:slt", Format: api.FormatPCM, SampleRate: 16000})

	type slow struct {
		w      *io.PipeWriter
		done   chan error
		finals []string
	}
	var slows []*slow
	for range 2 {
		pr, pw := io.Pipe()
		s := &slow{w: pw, done: make(chan error, 1)}
		go func() {
			s.done <- l.Recognize(context.Background(), api.STTRequest{SampleRate: 16000}, pr, func(tr engine.Transcript) error {
				if tr.Final {
					s.finals = append(s.finals, tr.Text)
				}
				return nil
			})
		}()
		pw.Write(clip[:len(clip)/2]) // the first half, then nothing for a while
		slows = append(slows, s)
	}
	inUse := func() int {
		l.pool.mu.Lock()
		defer l.pool.mu.Unlock()
		return l.pool.loaded - len(l.pool.free)
	}
	for deadline := time.Now().Add(30 * time.Second); inUse() < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the slow recognitions never took both decoders (%d in use)", inUse())
		}
	}

	var finals []string
	queued := 0
	err = l.Recognize(context.Background(), api.STTRequest{SampleRate: 16000}, bytes.NewReader(clip), func(tr engine.Transcript) error {
		if tr.Queued > 0 {
			queued = tr.Queued
		}
		if tr.Final {
			finals = append(finals, tr.Text)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("the waiting recognition: %v", err)
	}
	if got := strings.Join(finals, " "); !strings.Contains(got, "window") {
		t.Errorf("the waiting recognition heard %q", got)
	}
	if queued != 1 {
		t.Errorf("the waiting recognition was told its place %d, want 1", queued)
	}
	// The slow ones take a decoder again for the rest of their audio.
	for i, s := range slows {
		s.w.Write(clip[len(clip)/2:])
		s.w.Close()
		if err := <-s.done; err != nil {
			t.Errorf("slow recognition %d: %v", i, err)
		}
		if got := strings.Join(s.finals, " "); !strings.Contains(got, "air") {
			t.Errorf("slow recognition %d heard %q", i, got)
		}
	}
}

// An STT stream whose first audio frame is over max_frame_bytes ends with
// the message-size error and close 1009, as docs/gateway.md promises, not
// with "no audio received".
func TestOversizedFirstAudioFrame(t *testing.T) {
	l := provider(t)
	base, key := gatewayOn(t, l)
	conn := dialStream(t, base, key, api.PathSTTStream)
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	if err := conn.WriteJSON(api.STTRequest{Provider: api.DefaultProvider, SampleRate: 16000}); err != nil {
		t.Fatal(err)
	}
	if err := conn.WriteMessage(websocket.BinaryMessage, make([]byte, 1<<20+2)); err != nil {
		t.Fatal(err)
	}
	var last api.STTResultFrame
	for {
		mt, data, err := conn.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != websocket.CloseMessageTooBig {
				t.Fatalf("close: %v, want 1009", err)
			}
			break
		}
		if mt == websocket.TextMessage {
			json.Unmarshal(data, &last)
		}
	}
	if !last.IsFinal || !strings.Contains(last.Error, "exceeds 1048576 bytes (max_frame_bytes)") {
		t.Errorf("last frame %+v, want the message-size error", last)
	}
}

// When every decoder is decoding, recognitions queue, more of them than
// there are decoders, each for as long as its own deadline allows
// (engine.WithQueueWait): told their places, served in turn, and one
// whose wait runs out is refused as unavailable (503).
func TestDecoderQueueWaitsItsOwnDeadline(t *testing.T) {
	provider(t)
	l, err := New(Config{Decoders: 1, WarmAfter: -1, DecoderWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d, err := l.pool.get(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	patient := engine.WithQueueWait(context.Background(), time.Minute)
	type got struct {
		place int
		err   error
	}
	results := make(chan got, 3)
	for i := range 3 {
		go func() {
			var place int
			d2, err := l.pool.get(patient, func(n int) error { place = n; return nil })
			if err == nil {
				time.Sleep(20 * time.Millisecond)
				l.pool.put(d2, false)
			}
			results <- got{place, err}
		}()
		for int(l.pool.waiting.Load()) != i+1 {
			time.Sleep(time.Millisecond)
		}
	}
	// A fourth whose deadline is short is refused when it runs out, not
	// at once and not after the patient ones' minute.
	start := time.Now()
	_, err = l.pool.get(engine.WithQueueWait(context.Background(), 150*time.Millisecond), nil)
	if !errors.Is(err, engine.ErrUnavailable) || !strings.Contains(err.Error(), "stayed busy for 150ms") {
		t.Fatalf("a waiter with a short deadline: %v, want busy", err)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("refused after %s, before its deadline", d)
	}
	l.pool.put(d, false)
	places := map[int]bool{}
	for range 3 {
		r := <-results
		if r.err != nil {
			t.Errorf("a patient waiter: %v", r.err)
		}
		places[r.place] = true
	}
	if !places[1] || !places[2] || !places[3] {
		t.Errorf("places told: %v, want 1, 2 and 3", places)
	}
}

// A client that pauses in the middle of an utterance while another
// recognition waits keeps its decoder: the utterance comes back whole,
// as one final result, and the waiting recognition is served after it.
func TestShortPauseMidUtteranceKeepsTheDecoder(t *testing.T) {
	shared := provider(t)
	l, err := New(Config{Decoders: 1, WarmAfter: -1, DecoderWait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	clip, _, _ := synth(t, shared, api.TTSRequest{Text: "hello world this is a test", VoiceCode: "flite:slt", Format: api.FormatPCM, SampleRate: 16000})
	half := len(clip) / 2 &^ 1
	pr, pw := io.Pipe()
	var finals []string
	done := make(chan error, 1)
	go func() {
		done <- l.Recognize(context.Background(), api.STTRequest{SampleRate: 16000}, pr, func(tr engine.Transcript) error {
			if tr.Final && tr.Text != "" {
				finals = append(finals, tr.Text)
			}
			return nil
		})
	}()
	for off := 0; off < half; off += 3200 { // to mid-utterance, at real-time pace
		pw.Write(clip[off:min(off+3200, half)])
		time.Sleep(100 * time.Millisecond)
	}
	for inUse := 0; inUse < 1; time.Sleep(10 * time.Millisecond) {
		l.pool.mu.Lock()
		inUse = l.pool.loaded - len(l.pool.free)
		l.pool.mu.Unlock()
	}
	waited := make(chan error, 1)
	go func() {
		d, err := l.pool.get(context.Background(), nil)
		if err == nil {
			l.pool.put(d, false)
		}
		waited <- err
	}()
	for l.pool.waiting.Load() != 1 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(700 * time.Millisecond) // a short pause, over three yield ticks long
	select {
	case err := <-waited:
		t.Fatalf("the decoder was handed away mid-utterance (%v)", err)
	default:
	}
	pw.Write(clip[half:])
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := <-waited; err != nil {
		t.Errorf("the waiting recognition: %v", err)
	}
	if len(finals) != 1 || !strings.Contains(finals[0], "hello") || !strings.Contains(finals[0], "test") {
		t.Errorf("finals %q, want the utterance whole", finals)
	}
}
