// Package apitest is a scriptable gateway for tests of hark's client: an
// httptest server on 127.0.0.1 speaking the gateway interface over HTTP and
// WebSocket, whose answers a test can replace, one call at a time, with any
// error form the interface allows (error codes, HTTP errors, non-envelope
// bodies, vendor failures, research timeouts, 429s, slow answers, cut
// streams, bad frames). It is not hark's gateway; that lives in gateway/.
package apitest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"hark/api"
)

// Key is the API key a Server accepts unless told otherwise.
const Key = "sk-apitest-0123456789abcdef"

// Server is a scripted gateway. Unscripted calls get plausible answers
// derived from the request (see the default handlers); Script queues
// replies that are used first, in order.
type Server struct {
	*httptest.Server
	// APIKey is the accepted key; "" accepts any request.
	APIKey string

	mu       sync.Mutex
	toolList json.RawMessage
	scripts  map[string][]Reply
	tts      []TTSScript
	stt      []STTScript
	requests []Request
	trace    int
	credits  *Credits
}

// Credits makes every REST answer carry the X-Credits-* headers, as a
// gateway with usage accounting does: a successful call costs Charge,
// added to Used before the answer; a failed one costs nothing. Limit 0
// sends no X-Credits-Limit (no quota).
type Credits struct {
	Used, Limit, Charge int64
}

// SetCredits turns the credits headers on, starting from c.
func (s *Server) SetCredits(c Credits) {
	s.mu.Lock()
	s.credits = &c
	s.mu.Unlock()
}

// creditHeaders charges a call answered with ok and sets the headers.
func (s *Server) creditHeaders(h http.Header, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.credits
	if c == nil {
		return
	}
	var charged int64
	if ok {
		charged = c.Charge
		c.Used += charged
	}
	h.Set(api.HeaderCreditsUsed, strconv.FormatInt(c.Used, 10))
	h.Set(api.HeaderCreditsCharged, strconv.FormatInt(charged, 10))
	if c.Limit > 0 {
		h.Set(api.HeaderCreditsLimit, strconv.FormatInt(c.Limit, 10))
	}
}

// Request is a call the server received. For WebSocket calls Body is the
// first (request or configuration) frame and Audio the binary frames.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
	Audio  [][]byte
	// ClientClosed is set on an STT stream when the client's close frame
	// arrived.
	ClientClosed bool
}

// New starts a server and stops it when the test ends.
func New(t testing.TB) *Server {
	s := &Server{APIKey: Key, scripts: map[string][]Reply{}, toolList: DefaultToolList}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+api.PathTools, s.handleTools)
	mux.HandleFunc("POST "+api.PathPrefix+"/"+api.SearchService+"/{tool}/invoke", s.handleInvoke)
	mux.HandleFunc("GET "+api.PathPrefix+"/voice/{provider}/voices", s.handleVoices)
	mux.HandleFunc("GET "+api.PathPrefix+"/voice/{provider}/tts/inputs", s.handleTTSInputs)
	mux.HandleFunc("POST "+api.PathTTS, s.handleTTS)
	mux.HandleFunc("POST "+api.PathSTT, s.handleSTT)
	mux.HandleFunc("GET "+api.PathTTSStream, s.handleTTSStream)
	mux.HandleFunc("GET "+api.PathSTTStream, s.handleSTTStream)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		s.record(r, body)
		if rep, ok := s.next(r.URL.Path); ok { // a route of its own only as scripted (jobs, watches)
			s.write(w, r, rep)
			return
		}
		s.write(w, r, Reply{Status: http.StatusNotFound, Code: http.StatusNotFound, Message: "no route " + r.Method + " " + r.URL.Path})
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// traceHeader gives a WebSocket handshake its trace_id, as gateways do.
func (s *Server) traceHeader() http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return http.Header{"X-Trace-Id": {s.nextTrace()}}
}

// InvokePath is the invoke path of tool; VoicesPath the voice list of
// provider.
func InvokePath(tool string) string     { return fmt.Sprintf(api.PathInvokeFmt, tool) }
func VoicesPath(provider string) string { return fmt.Sprintf(api.PathVoicesFmt, provider) }
func (s *Server) SetToolList(data string) {
	s.mu.Lock()
	s.toolList = json.RawMessage(data)
	s.mu.Unlock()
}
func (s *Server) nextTrace() string         { s.trace++; return fmt.Sprintf("trace-%04d", s.trace) }
func (s *Server) ScriptTTS(sc ...TTSScript) { s.mu.Lock(); s.tts = append(s.tts, sc...); s.mu.Unlock() }
func (s *Server) ScriptSTT(sc ...STTScript) { s.mu.Lock(); s.stt = append(s.stt, sc...); s.mu.Unlock() }

// Script queues replies for the REST path (e.g. api.PathTools,
// InvokePath(api.ToolSearch), api.PathTTS).
func (s *Server) Script(path string, replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts[path] = append(s.scripts[path], replies...)
}

func (s *Server) next(path string) (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.scripts[path]
	if len(q) == 0 {
		return Reply{}, false
	}
	s.scripts[path] = q[1:]
	return q[0], true
}

// Requests returns the calls received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Count is how many calls reached path.
func (s *Server) Count(path string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Path == path {
			n++
		}
	}
	return n
}

// Last is the last call to path (zero Request if none).
func (s *Server) Last(path string) Request {
	rs := s.Requests()
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].Path == path {
			return rs[i]
		}
	}
	return Request{}
}

func (s *Server) record(r *http.Request, body []byte) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	return len(s.requests) - 1
}

func (s *Server) update(i int, f func(*Request)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.requests[i])
}

// Reply is one scripted REST answer.
type Reply struct {
	Status  int    // HTTP status; 0 means 200
	Code    int    // envelope code; 0 means 200
	Message string // envelope message; "" means success (or the status text)
	Data    any    // envelope data (json.RawMessage is sent as is)
	TraceID string // "" means a generated one
	// Raw, when not nil, is the whole body, sent instead of an envelope.
	Raw    []byte
	Header map[string]string
	// Delay holds the answer back (the client may give up first).
	Delay time.Duration
	// Drop closes the connection without answering.
	Drop bool
}

// OK answers data in a success envelope.
func OK(data any) Reply { return Reply{Data: data} }

// Fail answers HTTP 200 with an envelope holding code and message.
func Fail(code int, message string) Reply { return Reply{Code: code, Message: message} }

// HTTPError answers HTTP status with a matching envelope.
func HTTPError(status int, message string) Reply {
	return Reply{Status: status, Code: status, Message: message}
}

// RawBody answers HTTP status with body, not an envelope.
func RawBody(status int, body string) Reply { return Reply{Status: status, Raw: []byte(body)} }

// CredentialsMissing is the spec's missing-credentials failure.
func CredentialsMissing() Reply {
	return Fail(http.StatusInternalServerError, api.MsgCredentialsMissing)
}

// VendorRequestFailed is "<vendor> API request failed: <detail>".
func VendorRequestFailed(vendor, detail string) Reply {
	return Fail(http.StatusBadGateway, vendor+" API request failed: "+detail)
}

// VendorStatus is "<vendor> API returned status code <status>: <detail>".
func VendorStatus(vendor string, status int, detail string) Reply {
	return Fail(http.StatusBadGateway, fmt.Sprintf("%s API returned status code %d: %s", vendor, status, detail))
}

// ResearchTimeout is the spec's research wait timeout.
func ResearchTimeout() Reply { return Fail(http.StatusGatewayTimeout, api.MsgResearchWaitTimeout) }

// RateLimited answers HTTP 429 with Retry-After (seconds or a date; ""
// omits it).
func RateLimited(retryAfter string) Reply {
	r := HTTPError(http.StatusTooManyRequests, "rate limit exceeded")
	if retryAfter != "" {
		r.Header = map[string]string{"Retry-After": retryAfter}
	}
	return r
}

// Slow delays r by d.
func Slow(d time.Duration, r Reply) Reply { r.Delay = d; return r }

// Drop closes the connection without an answer.
func Drop() Reply { return Reply{Drop: true} }

func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.APIKey == "" || r.Header.Get("Authorization") == "Bearer "+s.APIKey {
		return true
	}
	s.write(w, r, Reply{Status: http.StatusUnauthorized, Code: http.StatusUnauthorized, Message: "invalid or missing API key"})
	return false
}

// serve answers a REST call: the next scripted reply, else def().
func (s *Server) serve(w http.ResponseWriter, r *http.Request, body []byte, def func() Reply) {
	s.record(r, body)
	if !s.authorized(w, r) {
		return
	}
	rep, ok := s.next(r.URL.Path)
	if !ok {
		rep = def()
	}
	s.write(w, r, rep)
}

func (s *Server) write(w http.ResponseWriter, r *http.Request, rep Reply) {
	if rep.Delay > 0 {
		select {
		case <-time.After(rep.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if rep.Drop {
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	}
	status := rep.Status
	if status == 0 {
		status = 200
	}
	s.creditHeaders(w.Header(), rep.Raw == nil && status == 200 && (rep.Code == 0 || rep.Code == 200))
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	if rep.Raw != nil {
		w.WriteHeader(status)
		w.Write(rep.Raw)
		return
	}
	s.mu.Lock()
	trace := rep.TraceID
	if trace == "" {
		trace = s.nextTrace()
	}
	s.mu.Unlock()
	code := rep.Code
	if code == 0 {
		code = 200
	}
	msg := rep.Message
	if msg == "" {
		msg = api.MsgSuccess
		if code != 200 {
			msg = http.StatusText(code)
		}
	}
	var data json.RawMessage
	switch d := rep.Data.(type) {
	case nil:
	case json.RawMessage:
		data = d
	default:
		b, err := json.Marshal(d)
		if err != nil {
			panic(err)
		}
		data = b
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Trace-Id", trace)
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(api.Envelope{Code: code, Message: msg, Data: data, TraceID: trace})
}

func (s *Server) handleTools(w http.ResponseWriter, r *http.Request) {
	s.serve(w, r, nil, func() Reply {
		s.mu.Lock()
		defer s.mu.Unlock()
		return OK(s.toolList)
	})
}

func readBody(r *http.Request) []byte {
	b, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	return b
}

func (s *Server) handleInvoke(w http.ResponseWriter, r *http.Request) {
	body := readBody(r)
	tool := r.PathValue("tool")
	s.serve(w, r, body, func() Reply {
		var req api.InvokeRequest
		if err := json.Unmarshal(body, &req); err != nil || req.Inputs == nil {
			return HTTPError(http.StatusBadRequest, "body: must be a JSON object with inputs")
		}
		out, err := defaultOutput(tool, req.Inputs)
		if err != nil {
			return Fail(http.StatusBadRequest, err.Error())
		}
		return OK(api.InvokeResult{Service: api.SearchService, Tool: tool, Output: out})
	})
}

// defaultOutput answers a tool call from its inputs.
func defaultOutput(tool string, in map[string]any) (json.RawMessage, error) {
	str := func(k string) string { s, _ := in[k].(string); return s }
	var out any
	switch tool {
	case api.ToolSearch:
		q := str("query")
		if q == "" {
			return nil, fmt.Errorf("query: required")
		}
		n := 2
		if f, ok := in["max_results"].(float64); ok {
			n = int(f)
		}
		res := make([]api.SearchResult, 0, n)
		for i := 1; i <= n; i++ {
			res = append(res, api.SearchResult{Title: fmt.Sprintf("Result %d for %s", i, q), URL: fmt.Sprintf("https://example.com/%d", i), Content: "About " + q, Score: 1 / float64(i)})
		}
		o := api.SearchOutput{Query: q, Results: res, ResponseTime: 0.01}
		if b, _ := in["include_answer"].(bool); b {
			o.Answer = "The answer about " + q
		}
		out = o
	case api.ToolExtract:
		b, _ := json.Marshal(in["urls"])
		var urls api.URLList
		if err := json.Unmarshal(b, &urls); err != nil || len(urls) == 0 {
			return nil, fmt.Errorf("urls: required")
		}
		o := api.ExtractOutput{ResponseTime: 0.01, FailedResults: []api.FailedExtract{}}
		for _, u := range urls {
			if strings.Contains(u, "fail") {
				o.FailedResults = append(o.FailedResults, api.FailedExtract{URL: u, Error: "fetch failed"})
				continue
			}
			o.Results = append(o.Results, api.PageContent{URL: u, RawContent: "# Page " + u})
		}
		out = o
	case api.ToolCrawl:
		u := str("url")
		if u == "" {
			return nil, fmt.Errorf("url: required")
		}
		out = api.CrawlOutput{BaseURL: u, Results: []api.PageContent{{URL: u, RawContent: "home"}, {URL: u + "/a", RawContent: "page a"}}, ResponseTime: 0.01}
	case api.ToolMap:
		u := str("url")
		if u == "" {
			return nil, fmt.Errorf("url: required")
		}
		out = api.MapOutput{BaseURL: u, Results: []api.MapLink{{URL: u}, {URL: u + "/a"}, {URL: u + "/b"}}, ResponseTime: 0.01}
	case api.ToolResearch:
		q := str("input")
		if q == "" {
			return nil, fmt.Errorf("input: required")
		}
		out = api.ResearchOutput{RequestID: "req-1", Status: api.ResearchCompleted, Content: "# Report\n\nFindings about " + q + ".",
			Sources: []api.ResearchSource{{Title: "Source one", URL: "https://example.com/s1"}}}
	default:
		return nil, fmt.Errorf("tool %q: unknown", tool)
	}
	b, err := json.Marshal(out)
	return b, err
}

// DefaultVoices is the voice list of unscripted calls.
var DefaultVoices = []api.Voice{
	{Name: "Alice", Value: "alice", Language: "en", Scene: "general"},
	{Name: "Bo", Value: "bo", Language: "zh", Scene: "news"},
}

func (s *Server) handleVoices(w http.ResponseWriter, r *http.Request) {
	p := r.PathValue("provider")
	s.serve(w, r, nil, func() Reply {
		if p != api.DefaultProvider {
			return Fail(http.StatusBadRequest, fmt.Sprintf("provider %q: not enabled for this workspace", p))
		}
		return OK(DefaultVoices)
	})
}

// handleTTSInputs serves the local provider's TTS inputs (the fixture
// gateway/voice writes) for the default provider.
func (s *Server) handleTTSInputs(w http.ResponseWriter, r *http.Request) {
	p := r.PathValue("provider")
	s.serve(w, r, nil, func() Reply {
		if p != api.DefaultProvider {
			return Fail(http.StatusBadRequest, fmt.Sprintf("provider %q: not enabled for this workspace", p))
		}
		return OK(DefaultTTSInputs)
	})
}

// TTSInputsPath is the TTS-inputs path of provider.
func TTSInputsPath(provider string) string { return fmt.Sprintf(api.PathTTSInputsFmt, provider) }

// SampleRate is the rate of the default synthesized audio.
const SampleRate = 8000

// Synthesize makes deterministic audio for text: 16-bit mono PCM at
// SampleRate, 20 ms of tone per character.
func Synthesize(text string) []byte {
	n := len([]rune(text)) * SampleRate / 50
	b := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		v := int16(8000 * math.Sin(2*math.Pi*440*float64(i)/SampleRate))
		b[2*i] = byte(v)
		b[2*i+1] = byte(uint16(v) >> 8)
	}
	return b
}

func (s *Server) handleTTS(w http.ResponseWriter, r *http.Request) {
	body := readBody(r)
	s.serve(w, r, body, func() Reply {
		var req api.TTSRequest
		if err := json.Unmarshal(body, &req); err != nil {
			return HTTPError(http.StatusBadRequest, "body: must be a TTS request")
		}
		if req.Text == "" || req.VoiceCode == "" {
			return Fail(http.StatusBadRequest, "text and voice_code: required")
		}
		audio := Synthesize(req.Text)
		return OK(api.TTSResponse{AudioData: base64.StdEncoding.EncodeToString(audio), Format: api.FormatPCM, SampleRate: SampleRate, DurationMs: len(audio) / 2 * 1000 / SampleRate})
	})
}

func (s *Server) handleSTT(w http.ResponseWriter, r *http.Request) {
	body := readBody(r)
	s.serve(w, r, body, func() Reply {
		var req api.STTRequest
		if err := json.Unmarshal(body, &req); err != nil {
			return HTTPError(http.StatusBadRequest, "body: must be an STT request")
		}
		audio, err := base64.StdEncoding.DecodeString(req.AudioData)
		if err != nil || len(audio) == 0 {
			return Fail(http.StatusBadRequest, "audio_data: must be non-empty base64")
		}
		return OK(api.STTResponse{Text: Transcript(len(audio)), Confidence: 0.9, DurationMs: len(audio) / 2 * 1000 / SampleRate})
	})
}

// Transcript is the default recognition of n bytes of audio.
func Transcript(n int) string { return fmt.Sprintf("heard %d bytes", n) }

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// TTSScript scripts one TTS stream. The zero value sends Synthesize(text)
// in four chunks and a normal terminal frame.
type TTSScript struct {
	// Refuse answers the handshake with this reply instead of upgrading.
	Refuse *Reply
	// Chunks are the binary frames; nil means the default audio.
	Chunks [][]byte
	// Delay is the pause before each chunk.
	Delay time.Duration
	// Error ends the stream with {is_final: true, error: Error}.
	Error string
	// BadFrame is sent as a text frame after the chunks, instead of the
	// terminal frame.
	BadFrame string
	// Cut drops the TCP connection after the chunks, with no terminal
	// frame and no close frame. CloseEarly sends a normal close frame
	// instead of the terminal frame.
	Cut, CloseEarly bool
	// Stall stops sending after the chunks and waits for the client.
	Stall bool
}

func (s *Server) nextTTS() TTSScript {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.tts) == 0 {
		return TTSScript{}
	}
	sc := s.tts[0]
	s.tts = s.tts[1:]
	return sc
}

// accept answers an authorized stream handshake: refused when the script
// says so, else upgraded (nil conn when refused).
func (s *Server) accept(w http.ResponseWriter, r *http.Request, refuse *Reply) *websocket.Conn {
	if refuse != nil {
		s.write(w, r, *refuse)
		return nil
	}
	conn, err := upgrader.Upgrade(w, r, s.traceHeader())
	if err != nil {
		return nil
	}
	return conn
}

func (s *Server) handleTTSStream(w http.ResponseWriter, r *http.Request) {
	idx := s.record(r, nil)
	if !s.authorized(w, r) {
		return
	}
	sc := s.nextTTS()
	conn := s.accept(w, r, sc.Refuse)
	if conn == nil {
		return
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, first, err := conn.ReadMessage()
	if err != nil {
		return
	}
	s.update(idx, func(q *Request) { q.Body = first })
	var req api.TTSRequest
	if err := json.Unmarshal(first, &req); err != nil || req.Text == "" {
		writeJSONFrame(conn, api.TTSFinalFrame{IsFinal: true, Error: "request frame: must be a TTS request with text"})
		closeNormally(conn)
		return
	}
	chunks := sc.Chunks
	if chunks == nil {
		audio := Synthesize(req.Text)
		step := (len(audio) + 3) / 4
		for i := 0; i < len(audio); i += step {
			chunks = append(chunks, audio[i:min(i+step, len(audio))])
		}
	}
	for _, c := range chunks {
		if sc.Delay > 0 {
			time.Sleep(sc.Delay)
		}
		if err := conn.WriteMessage(websocket.BinaryMessage, c); err != nil {
			return
		}
	}
	switch {
	case sc.Cut:
		conn.UnderlyingConn().Close()
	case sc.Stall:
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		for {
			if _, _, err := conn.ReadMessage(); err != nil {
				return
			}
		}
	case sc.CloseEarly:
		closeNormally(conn)
	case sc.BadFrame != "":
		conn.WriteMessage(websocket.TextMessage, []byte(sc.BadFrame))
		closeNormally(conn)
	case sc.Error != "":
		writeJSONFrame(conn, api.TTSFinalFrame{IsFinal: true, Error: sc.Error})
		closeNormally(conn)
	default:
		writeJSONFrame(conn, api.TTSFinalFrame{IsFinal: true})
		closeNormally(conn)
	}
}

func writeJSONFrame(conn *websocket.Conn, v any) error {
	b, _ := json.Marshal(v)
	return conn.WriteMessage(websocket.TextMessage, b)
}

// closeNormally sends a close frame and waits briefly for the answer.
func closeNormally(conn *websocket.Conn) {
	conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	for {
		if _, _, err := conn.ReadMessage(); err != nil {
			return
		}
	}
}

// STTScript scripts one STT stream. The zero value answers each audio
// frame with a partial result and, after the client's close frame, sends
// a final result with the total and completes the close handshake.
type STTScript struct {
	Refuse *Reply
	// PerChunk, when set, gives the frames sent after audio frame n
	// (1-based); nil means one partial frame each.
	PerChunk func(n int, chunk []byte) []any
	// AfterClose are the frames sent after the client's close frame; nil
	// means one final result. Elements are api.STTResultFrame, a string
	// (sent as a raw text frame) or []byte (a binary frame).
	AfterClose []any
	// CutAfterClose drops the connection instead of closing it properly.
	CutAfterClose bool
	// CutAfterChunks drops the connection after this many audio frames.
	CutAfterChunks int
	// NoCloseReply never answers the client's close frame.
	NoCloseReply bool
	// Delay is the pause before the frames sent after close.
	Delay time.Duration
}

func (s *Server) nextSTT() STTScript {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.stt) == 0 {
		return STTScript{}
	}
	sc := s.stt[0]
	s.stt = s.stt[1:]
	return sc
}

func sendAny(conn *websocket.Conn, f any) error {
	switch f := f.(type) {
	case string:
		return conn.WriteMessage(websocket.TextMessage, []byte(f))
	case []byte:
		return conn.WriteMessage(websocket.BinaryMessage, f)
	default:
		return writeJSONFrame(conn, f)
	}
}

func (s *Server) handleSTTStream(w http.ResponseWriter, r *http.Request) {
	idx := s.record(r, nil)
	if !s.authorized(w, r) {
		return
	}
	sc := s.nextSTT()
	conn := s.accept(w, r, sc.Refuse)
	if conn == nil {
		return
	}
	defer conn.Close()
	// Do not answer the client's close frame at once: the final results
	// go out first, then our close completes the handshake.
	conn.SetCloseHandler(func(int, string) error { return nil })
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, first, err := conn.ReadMessage()
	if err != nil {
		return
	}
	s.update(idx, func(q *Request) { q.Body = first })
	var cfg map[string]any
	if err := json.Unmarshal(first, &cfg); err != nil {
		writeJSONFrame(conn, api.STTResultFrame{IsFinal: true, Error: "configuration frame: must be a JSON object"})
		closeNormally(conn)
		return
	}
	if _, ok := cfg["audio_data"]; ok {
		writeJSONFrame(conn, api.STTResultFrame{IsFinal: true, Error: "configuration frame: must not hold audio_data"})
		closeNormally(conn)
		return
	}
	seq, total, n := 0, 0, 0
	for {
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		typ, msg, err := conn.ReadMessage()
		if err != nil {
			if _, ok := err.(*websocket.CloseError); !ok {
				return
			}
			s.update(idx, func(q *Request) { q.ClientClosed = true })
			break
		}
		if typ != websocket.BinaryMessage {
			continue
		}
		n++
		total += len(msg)
		s.update(idx, func(q *Request) { q.Audio = append(q.Audio, append([]byte(nil), msg...)) })
		if sc.CutAfterChunks > 0 && n >= sc.CutAfterChunks {
			conn.UnderlyingConn().Close()
			return
		}
		frames := []any{api.STTResultFrame{Sequence: seq + 1, Text: Transcript(total), IsPartial: true}}
		if sc.PerChunk != nil {
			frames = sc.PerChunk(n, msg)
		}
		for _, f := range frames {
			seq++
			if err := sendAny(conn, f); err != nil {
				return
			}
		}
	}
	if sc.Delay > 0 {
		time.Sleep(sc.Delay)
	}
	after := sc.AfterClose
	if after == nil {
		after = []any{api.STTResultFrame{Sequence: seq + 1, Text: Transcript(total), IsFinal: true, Confidence: 0.9}}
	}
	for _, f := range after {
		if err := sendAny(conn, f); err != nil {
			return
		}
	}
	switch {
	case sc.CutAfterClose:
		conn.UnderlyingConn().Close()
	case sc.NoCloseReply:
		time.Sleep(30 * time.Second)
	default:
		conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	}
}
