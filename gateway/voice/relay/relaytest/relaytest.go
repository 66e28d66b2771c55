// Package relaytest runs fake speech vendors on 127.0.0.1 for tests: an
// OpenAI-compatible server and ElevenLabs, each speaking its vendor's
// real wire format (chunked pcm and mp3, JSON errors, multipart
// transcription). Their audio is a tone as long as the text would take
// to say, not speech. Tests script failures: a refused key, an unknown
// voice, a 429 with Retry-After, a connection cut mid-stream.
package relaytest

import (
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

//go:embed testdata/tone-24k.mp3
var toneMP3 []byte

// Failure is a refusal the next speech or transcription call gets.
type Failure struct {
	Status     int    // 401, 404, 429, 500 ...
	RetryAfter string // Retry-After's value, when set
	Code       string // the vendor's code or status word; a default per status when empty
	Message    string
}

// Call is one call the server received, as a test checks it.
type Call struct {
	Method, Path, Query string
	KeyValid            bool
	JSON                map[string]any    // a JSON body
	Form                map[string]string // a multipart body's fields
	File                []byte            // a multipart body's file
	FileName            string
}

// Server is a fake vendor.
type Server struct {
	// URL is the base a gateway's configuration names (url = ...).
	URL string
	// Key is the API key it accepts.
	Key string
	// Voices are its voices; for the OpenAI-compatible server nil means
	// it has no voice list (GET /audio/voices answers 404, as OpenAI's).
	Voices []string
	// Transcript is what recognition answers.
	Transcript string

	kind string // "openai" or "elevenlabs"

	mu         sync.Mutex
	calls      []Call
	fail       *Failure
	dropAfter  int
	chunkDelay time.Duration
	firstDelay time.Duration
	firstSent  []time.Time
}

// NewOpenAI starts an OpenAI-compatible speech server with a voice list
// (Kokoro-FastAPI's, GET /audio/voices). Its URL ends in /v1.
func NewOpenAI(t testing.TB) *Server { return newFor(t, KindOpenAI) }

// NewElevenLabs starts a fake ElevenLabs.
func NewElevenLabs(t testing.TB) *Server { return newFor(t, KindElevenLabs) }

// The kinds of fake vendor.
const (
	KindOpenAI     = "openai"
	KindElevenLabs = "elevenlabs"
)

func newFor(t testing.TB, kind string) *Server {
	s, stop, err := Serve(kind)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return s
}

// Serve starts a fake vendor of kind on 127.0.0.1 outside a test (the
// fakevendors command, for scripts/tmux-providers.sh); stop ends it.
func Serve(kind string) (s *Server, stop func(), err error) {
	switch kind {
	case KindOpenAI:
		s = &Server{kind: kind, Key: "sk-test-" + strings.Repeat("k3y", 10),
			Voices: []string{"af_bella", "am_adam", "bf_emma"}, Transcript: "hello from the fake"}
	case KindElevenLabs:
		s = &Server{kind: kind, Key: "xi-" + strings.Repeat("s3cr3t", 6),
			Voices: []string{"21m00Tcm4TlvDq8ikWAM", "pNInz6obpgDQGcFmaJgB"}, Transcript: "hello from the fake"}
	default:
		return nil, nil, fmt.Errorf("relaytest: no fake vendor %q", kind)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	ts.Listener.Close()
	ts.Listener = ln
	ts.Config.ErrorLog = nil
	ts.Start()
	s.URL = ts.URL
	if kind == KindOpenAI {
		s.URL += "/v1"
	}
	return s, ts.Close, nil
}

// FailNext makes the next speech or transcription call fail with f.
func (s *Server) FailNext(f Failure) {
	s.mu.Lock()
	s.fail = &f
	s.mu.Unlock()
}

// DropAfter makes the next speech call cut its connection after n bytes
// of audio.
func (s *Server) DropAfter(n int) {
	s.mu.Lock()
	s.dropAfter = n
	s.mu.Unlock()
}

// Pace sets the wait before the first chunk of audio and between chunks.
func (s *Server) Pace(first, between time.Duration) {
	s.mu.Lock()
	s.firstDelay, s.chunkDelay = first, between
	s.mu.Unlock()
}

// Calls are the calls received so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	c := Call{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}
	switch s.kind {
	case KindOpenAI:
		c.KeyValid = r.Header.Get("Authorization") == "Bearer "+s.Key
	default:
		c.KeyValid = r.Header.Get("xi-api-key") == s.Key
	}
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case mt == "application/json":
		json.NewDecoder(r.Body).Decode(&c.JSON)
	case strings.HasPrefix(mt, "multipart/"):
		c.Form = map[string]string{}
		mr := multipart.NewReader(r.Body, params["boundary"])
		for {
			part, err := mr.NextPart()
			if err != nil {
				break
			}
			b, _ := io.ReadAll(part)
			if part.FileName() != "" {
				c.File, c.FileName = b, part.FileName()
			} else {
				c.Form[part.FormName()] = string(b)
			}
		}
	}
	s.mu.Lock()
	s.calls = append(s.calls, c)
	fail := s.fail
	list := r.Method == http.MethodGet
	if !list {
		s.fail = nil
	}
	s.mu.Unlock()
	if !c.KeyValid {
		s.refuse(w, Failure{Status: http.StatusUnauthorized})
		return
	}
	if fail != nil && !list {
		s.refuse(w, *fail)
		return
	}
	if s.kind == KindOpenAI {
		s.serveOpenAI(w, r, c)
	} else {
		s.serveElevenLabs(w, r, c)
	}
}

func (s *Server) serveOpenAI(w http.ResponseWriter, r *http.Request, c Call) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/audio/voices":
		if s.Voices == nil {
			http.Error(w, `{"detail":"Not Found"}`, http.StatusNotFound)
			return
		}
		writeJSON(w, map[string]any{"voices": s.Voices})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/audio/speech":
		text, _ := c.JSON["input"].(string)
		voice, _ := c.JSON["voice"].(string)
		if !s.known(voice) {
			s.refuse(w, Failure{Status: http.StatusBadRequest, Code: "invalid_value", Message: "Voice '" + voice + "' not found"})
			return
		}
		switch c.JSON["response_format"] {
		case "pcm":
			s.stream(w, "audio/pcm", tonePCM(text, 24000))
		case "mp3", nil:
			s.stream(w, "audio/mpeg", mp3For(text))
		default:
			s.refuse(w, Failure{Status: http.StatusBadRequest, Message: "unsupported response_format"})
		}
	case r.Method == http.MethodPost && r.URL.Path == "/v1/audio/transcriptions":
		if len(c.File) == 0 || c.Form["model"] == "" {
			s.refuse(w, Failure{Status: http.StatusBadRequest, Message: "file and model are required"})
			return
		}
		writeJSON(w, map[string]any{"text": s.Transcript})
	default:
		http.Error(w, `{"detail":"Not Found"}`, http.StatusNotFound)
	}
}

func (s *Server) serveElevenLabs(w http.ResponseWriter, r *http.Request, c Call) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/voices":
		var vs []map[string]any
		for i, v := range s.Voices {
			gender := []string{"female", "male"}[i%2]
			vs = append(vs, map[string]any{"voice_id": v, "name": []string{"Rachel", "Adam", "Bella"}[i%3],
				"category": "premade", "labels": map[string]string{"accent": "american", "gender": gender, "use_case": "narration"},
				"verified_languages": []map[string]string{{"language": "en", "accent": "american", "locale": "en-US"}}})
		}
		writeJSON(w, map[string]any{"voices": vs})
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1/text-to-speech/") && strings.HasSuffix(r.URL.Path, "/stream"):
		voice := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v1/text-to-speech/"), "/stream")
		if !s.known(voice) {
			s.refuse(w, Failure{Status: http.StatusNotFound, Code: "voice_not_found", Message: "A voice with the voice_id " + voice + " was not found."})
			return
		}
		text, _ := c.JSON["text"].(string)
		format := r.URL.Query().Get("output_format")
		switch {
		case strings.HasPrefix(format, "pcm_"):
			var rate int
			for _, ch := range strings.TrimPrefix(format, "pcm_") {
				rate = rate*10 + int(ch-'0')
			}
			s.stream(w, "audio/pcm", tonePCM(text, rate))
		case strings.HasPrefix(format, "mp3_"), format == "":
			s.stream(w, "audio/mpeg", mp3For(text))
		default:
			s.refuse(w, Failure{Status: http.StatusBadRequest, Code: "invalid_output_format", Message: "output_format " + format + " is not supported"})
		}
	case r.Method == http.MethodPost && r.URL.Path == "/v1/speech-to-text":
		if len(c.File) == 0 || c.Form["model_id"] == "" {
			s.refuse(w, Failure{Status: http.StatusUnprocessableEntity, Message: "file and model_id are required"})
			return
		}
		writeJSON(w, map[string]any{"language_code": "en", "language_probability": 0.98, "text": s.Transcript, "words": []any{}})
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"detail":"Not Found"}`))
	}
}

func (s *Server) known(voice string) bool {
	for _, v := range s.Voices {
		if v == voice {
			return true
		}
	}
	return voice != "" && s.Voices == nil
}

// stream sends audio in chunks as a vendor does: no Content-Length,
// each chunk flushed, paced as set; a scripted drop cuts the connection.
func (s *Server) stream(w http.ResponseWriter, contentType string, audio []byte) {
	s.mu.Lock()
	drop, first, between := s.dropAfter, s.firstDelay, s.chunkDelay
	s.dropAfter = 0
	s.mu.Unlock()
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	fl := w.(http.Flusher)
	fl.Flush()
	time.Sleep(first)
	const chunk = 4096
	sent := 0
	for off := 0; off < len(audio); off += chunk {
		if off > 0 {
			time.Sleep(between)
		}
		b := audio[off:min(off+chunk, len(audio))]
		if drop > 0 && sent+len(b) >= drop {
			w.Write(b[:drop-sent])
			fl.Flush()
			panic(http.ErrAbortHandler) // the connection closes, the chunked body unfinished
		}
		w.Write(b)
		fl.Flush()
		if sent == 0 {
			s.mu.Lock()
			s.firstSent = append(s.firstSent, time.Now())
			s.mu.Unlock()
		}
		sent += len(b)
	}
}

// FirstSent are the times each speech call's first chunk of audio was
// flushed, for a test that times what follows it.
func (s *Server) FirstSent() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.firstSent...)
}

// refuse writes the vendor's error body for f.
func (s *Server) refuse(w http.ResponseWriter, f Failure) {
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.Status)
	if s.kind == KindOpenAI {
		code, msg := f.Code, f.Message
		if f.Status == http.StatusUnauthorized && msg == "" {
			// OpenAI echoes part of the key it was given.
			code, msg = "invalid_api_key", "Incorrect API key provided: "+s.Key[:6]+"****"+s.Key[len(s.Key)-4:]+". You can find your API key at https://platform.openai.com/account/api-keys."
		}
		if f.Status == http.StatusTooManyRequests && code == "" {
			code, msg = "rate_limit_exceeded", "Rate limit reached for requests per min. Please try again in 7s."
		}
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": code}})
		return
	}
	code, msg := f.Code, f.Message
	switch {
	case f.Status == http.StatusUnauthorized && code == "":
		code, msg = "invalid_api_key", "Invalid API key"
	case f.Status == http.StatusTooManyRequests && code == "":
		code, msg = "too_many_concurrent_requests", "Too many concurrent requests for your subscription."
	}
	json.NewEncoder(w).Encode(map[string]any{"detail": map[string]any{"status": code, "message": msg}})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// Seconds is how long the fakes speak text: 60 ms a character, at least
// 0.3 s, at most 8 s.
func Seconds(text string) float64 {
	return min(8, max(0.3, 0.06*float64(len([]rune(text)))))
}

// tonePCM is a 440 Hz tone of Seconds(text), s16le mono at rate.
func tonePCM(text string, rate int) []byte {
	n := int(Seconds(text) * float64(rate))
	out := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		v := int16(8000 * math.Sin(2*math.Pi*440*float64(i)/float64(rate)))
		binary.LittleEndian.PutUint16(out[2*i:], uint16(v))
	}
	return out
}

// mp3For is the tone's mp3 (24 kHz), repeated to about Seconds(text).
func mp3For(text string) []byte {
	const toneSeconds = 0.552 // testdata/tone-24k.mp3 lasts 552 ms
	var out []byte
	for i := 0; float64(i)*toneSeconds < Seconds(text); i++ {
		out = append(out, toneMP3...)
	}
	return out
}
