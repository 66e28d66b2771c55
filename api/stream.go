package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// maxFrame bounds one WebSocket message from the gateway.
const maxFrame = 16 << 20

// dial opens a WebSocket to path with the Bearer header on the handshake.
// A refused handshake becomes an *Error, parsed from the envelope when the
// gateway sent one.
func (c *Client) dial(ctx context.Context, path string) (*websocket.Conn, string, error) {
	u := *c.base
	switch u.Scheme {
	case "https":
		u.Scheme = "wss"
	default:
		u.Scheme = "ws"
	}
	u.Path += path
	if err := c.resolveKey(ctx); err != nil {
		return nil, "", err
	}
	h := http.Header{}
	c.setHeaders(h)
	h.Del("Accept")
	d := websocket.Dialer{
		Proxy:            http.ProxyFromEnvironment,
		HandshakeTimeout: 30 * time.Second,
	}
	if tr, ok := c.hc.Transport.(*http.Transport); ok && tr != nil {
		d.TLSClientConfig = tr.TLSClientConfig
		d.NetDialContext = tr.DialContext
	}
	start := time.Now()
	conn, resp, err := d.DialContext(ctx, u.String(), h)
	info := CallInfo{Method: http.MethodGet, Path: path, Latency: time.Since(start), Started: start}
	if resp != nil {
		info.Status = resp.StatusCode
		info.TraceID = traceFrom(nil, resp.Header)
		info.readCredits(resp.Header)
	}
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			_, perr := c.parseEnvelope(resp, raw)
			var e *Error
			if errors.As(perr, &e) {
				if e.HTTPStatus != 0 && e.HTTPStatus < 300 {
					e.Message = "websocket handshake refused: " + e.Message
				}
				info.TraceID = e.TraceID
				err = e
			} else {
				err = &Error{HTTPStatus: resp.StatusCode, Message: fmt.Sprintf("websocket handshake refused with HTTP %d", resp.StatusCode)}
			}
		} else {
			err = fmt.Errorf("websocket %s: %w", path, unreachable(err))
		}
		info.Err = err
		if c.onCall != nil {
			c.onCall(info)
		}
		return nil, "", err
	}
	if c.onCall != nil {
		c.onCall(info)
	}
	conn.SetReadLimit(maxFrame)
	return conn, info.TraceID, nil
}

// watch closes conn when ctx ends; the returned stop ends the watch.
func watch(ctx context.Context, conn *websocket.Conn) (stop func()) {
	done := make(chan struct{})
	var once sync.Once
	go func() {
		select {
		case <-ctx.Done():
			conn.Close()
		case <-done:
		}
	}()
	return func() { once.Do(func() { close(done) }) }
}

// TTSStream is a streaming synthesis. Next returns audio chunks as they
// arrive (or Read reads them as one stream: use one or the other). With
// the KeepAudio option everything received stays available from
// Received, also after an error; without it a chunk is the caller's alone
// once returned.
type TTSStream struct {
	conn     *websocket.Conn
	ctx      context.Context
	stop     func()
	idle     time.Duration
	scrub    func(string) string
	trace    string
	keep     bool
	rmu      sync.Mutex // serialises Next and Read
	mu       sync.Mutex // guards received, total, err
	received []byte     // every chunk, when kept
	total    int        // bytes of audio received
	unread   []byte     // what Read has pulled but not returned yet (Read's own)
	err      error      // sticky end: io.EOF or a *StreamError
	credits  int64      // the final frame's credits
}

// TTSStreamOption changes how a TTS stream is read.
type TTSStreamOption func(*TTSStream)

// KeepAudio keeps every chunk received, for Received: a caller that saves
// or replays the take asks for it; one that writes chunks as they come
// does not pay for a second copy.
func KeepAudio() TTSStreamOption { return func(s *TTSStream) { s.keep = true } }

// TTSStream opens the TTS stream and sends req as the first frame.
func (c *Client) TTSStream(ctx context.Context, req TTSRequest, opts ...TTSStreamOption) (*TTSStream, error) {
	if req.Provider == "" {
		req.Provider = DefaultProvider
	}
	conn, trace, err := c.dial(ctx, PathTTSStream)
	if err != nil {
		return nil, fmt.Errorf("tts stream: %w", err)
	}
	s := &TTSStream{conn: conn, ctx: ctx, idle: c.idleTimeout, scrub: c.scrub, trace: trace}
	for _, o := range opts {
		o(s)
	}
	s.stop = watch(ctx, conn)
	b, _ := json.Marshal(req)
	if err := conn.WriteMessage(websocket.TextMessage, b); err != nil {
		s.Close()
		return nil, fmt.Errorf("tts stream: sending request: %w", err)
	}
	return s, nil
}

// Next returns the next audio chunk. It returns io.EOF after the terminal
// frame {is_final: true}, and a *StreamError when the terminal frame holds
// an error, a frame is malformed, or the connection ends without a
// terminal frame.
func (s *TTSStream) Next() ([]byte, error) {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	s.mu.Lock()
	err := s.err
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	for {
		s.conn.SetReadDeadline(time.Now().Add(s.idle))
		typ, msg, err := s.conn.ReadMessage()
		if err != nil {
			return nil, s.end(s.brokenErr(err))
		}
		switch typ {
		case websocket.BinaryMessage:
			if len(msg) == 0 {
				continue
			}
			s.mu.Lock()
			s.total += len(msg)
			if s.keep {
				s.received = append(s.received, msg...)
			}
			s.mu.Unlock()
			return msg, nil
		case websocket.TextMessage:
			f, err := DecodeTTSFrame(msg)
			if err != nil {
				return nil, s.end(&StreamError{Message: "bad frame from gateway", Received: s.size(), Err: err})
			}
			if f.Error != "" {
				return nil, s.end(&StreamError{Message: s.scrub(f.Error), Received: s.size()})
			}
			if f.IsFinal {
				s.mu.Lock()
				s.credits = f.Credits
				s.mu.Unlock()
				return nil, s.end(io.EOF)
			}
			// A non-terminal text frame without an error carries
			// nothing hark needs; skip it.
		}
	}
}

func (s *TTSStream) brokenErr(err error) error {
	n := s.size()
	if s.ctx.Err() != nil {
		return &StreamError{Message: "cancelled", Received: n, Err: s.ctx.Err()}
	}
	var ce *websocket.CloseError
	if errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure {
		return &StreamError{Message: fmt.Sprintf("connection closed (code %d) before the final frame", ce.Code), Received: n, Err: err}
	}
	if isTimeout(err) {
		return &StreamError{Message: fmt.Sprintf("no frame for %v", s.idle), Received: n, Err: err}
	}
	return &StreamError{Message: "connection broken before the final frame", Received: n, Err: err}
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

func (s *TTSStream) size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

func (s *TTSStream) end(err error) error {
	var se *StreamError
	if errors.As(err, &se) {
		se.TraceID = s.trace
	}
	s.mu.Lock()
	s.err = err
	s.mu.Unlock()
	s.stop()
	if err == io.EOF {
		// Say goodbye politely; the server closes after the final frame.
		_ = s.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	}
	s.conn.Close()
	return err
}

// Read makes the stream an io.Reader of the audio.
func (s *TTSStream) Read(p []byte) (int, error) {
	for len(s.unread) == 0 {
		chunk, err := s.Next()
		if err != nil {
			return 0, err
		}
		s.unread = chunk
	}
	n := copy(p, s.unread)
	s.unread = s.unread[n:]
	return n, nil
}

// Credits is what the stream cost, as its final frame said (hark's
// gateway says; 0 before the end or from a gateway that does not).
func (s *TTSStream) Credits() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.credits
}

// TraceID is the trace_id the gateway gave the handshake ("" if none).
func (s *TTSStream) TraceID() string { return s.trace }

// Received returns all audio received so far; nil unless the stream was
// opened with KeepAudio.
func (s *TTSStream) Received() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.received)
}

// Close ends the stream early (or releases it after the end). A Next
// blocked in another goroutine returns a *StreamError.
func (s *TTSStream) Close() error {
	s.stop()
	s.conn.Close()
	return nil
}

// DecodeTTSFrame decodes a TTS stream text frame; it must be a JSON object.
func DecodeTTSFrame(b []byte) (TTSFinalFrame, error) { return decodeFrame[TTSFinalFrame](b) }

// decodeFrame decodes a text frame that must be a JSON object.
func decodeFrame[F any](b []byte) (F, error) {
	var f F
	t := bytes.TrimSpace(b)
	if len(t) == 0 || t[0] != '{' {
		return f, fmt.Errorf("text frame is not a JSON object: %s", snippet(b))
	}
	if err := json.Unmarshal(t, &f); err != nil {
		return f, describeJSONError(err)
	}
	return f, nil
}

// DecodeSTTFrame decodes an STT stream result frame; it must be a JSON
// object.
func DecodeSTTFrame(b []byte) (STTResultFrame, error) { return decodeFrame[STTResultFrame](b) }

// STTStream is a streaming recognition: write audio with Write while
// reading results from Results, then CloseSend and drain Results.
type STTStream struct {
	conn    *websocket.Conn
	ctx     context.Context
	stop    func()
	idle    time.Duration
	scrub   func(string) string
	trace   string
	results chan STTResultFrame
	done    chan struct{} // closed when the reader ends
	abort   chan struct{}

	wmu      sync.Mutex
	sendDone bool

	mu        sync.Mutex
	closeSent time.Time // zero until CloseSend
	err       error
	aborted   bool
	frames    int
}

// STTStream opens the STT stream and sends req (without audio_data) as the
// configuration frame.
func (c *Client) STTStream(ctx context.Context, req STTRequest) (*STTStream, error) {
	if req.Provider == "" {
		req.Provider = DefaultProvider
	}
	req.AudioData = ""
	conn, trace, err := c.dial(ctx, PathSTTStream)
	if err != nil {
		return nil, fmt.Errorf("stt stream: %w", err)
	}
	s := &STTStream{
		conn: conn, ctx: ctx, idle: c.idleTimeout, scrub: c.scrub, trace: trace,
		results: make(chan STTResultFrame, 64),
		done:    make(chan struct{}),
		abort:   make(chan struct{}),
	}
	s.stop = watch(ctx, conn)
	b, _ := json.Marshal(req)
	if err := conn.WriteMessage(websocket.TextMessage, b); err != nil {
		s.stop()
		conn.Close()
		return nil, fmt.Errorf("stt stream: sending configuration: %w", err)
	}
	// The server's close frame ends the stream; we have sent ours already
	// (CloseSend) or answer it now.
	conn.SetCloseHandler(func(code int, text string) error {
		_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, ""), time.Now().Add(time.Second))
		return nil
	})
	go s.read()
	return s, nil
}

func (s *STTStream) read() {
	defer close(s.done)
	defer close(s.results)
	defer s.stop()
	defer s.conn.Close()
	for {
		s.mu.Lock()
		sent := !s.closeSent.IsZero()
		s.mu.Unlock()
		if sent {
			s.conn.SetReadDeadline(time.Now().Add(s.idle))
		}
		typ, msg, err := s.conn.ReadMessage()
		if err != nil {
			s.finish(err)
			return
		}
		if typ != websocket.TextMessage {
			s.setErr(&StreamError{Message: "bad frame from gateway: unexpected binary frame", Received: s.count()})
			return
		}
		f, err := DecodeSTTFrame(msg)
		if err != nil {
			s.setErr(&StreamError{Message: "bad frame from gateway", Received: s.count(), Err: err})
			return
		}
		if f.Error != "" {
			f.Error = s.scrub(f.Error)
			s.setErr(&StreamError{Message: f.Error, Received: s.count()})
		}
		select {
		case s.results <- f:
			s.mu.Lock()
			s.frames++
			s.mu.Unlock()
		case <-s.abort:
			return
		}
	}
}

func (s *STTStream) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.frames
}

// setErr keeps the first error.
func (s *STTStream) setErr(err error) {
	var se *StreamError
	if errors.As(err, &se) {
		se.TraceID = s.trace
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

// finish classifies the end of the connection.
func (s *STTStream) finish(err error) {
	s.mu.Lock()
	aborted := s.aborted
	s.mu.Unlock()
	if aborted {
		return
	}
	if s.ctx.Err() != nil {
		s.setErr(&StreamError{Message: "cancelled", Received: s.count(), Err: s.ctx.Err()})
		return
	}
	var ce *websocket.CloseError
	if errors.As(err, &ce) && (ce.Code == websocket.CloseNormalClosure || ce.Code == websocket.CloseNoStatusReceived || ce.Code == websocket.CloseGoingAway) {
		return // the server completed the close handshake
	}
	if errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure {
		msg := fmt.Sprintf("connection closed with code %d", ce.Code)
		if ce.Text != "" {
			msg += ": " + s.scrub(ce.Text)
		}
		s.setErr(&StreamError{Message: msg, Received: s.count()})
		return
	}
	if isTimeout(err) {
		s.setErr(&StreamError{Message: fmt.Sprintf("no answer for %v after the end of audio", s.idle), Received: s.count(), Err: err})
		return
	}
	s.setErr(&StreamError{Message: "connection broken before the server closed the stream", Received: s.count(), Err: err})
}

// Write sends p as one binary audio frame. It is safe to call while
// Results is being read.
func (s *STTStream) Write(p []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.sendDone {
		return 0, errors.New("stt stream: write after CloseSend")
	}
	select {
	case <-s.done:
		if err := s.Err(); err != nil {
			return 0, err
		}
		return 0, errors.New("stt stream: the server ended the stream")
	default:
	}
	if len(p) == 0 {
		return 0, nil
	}
	s.conn.SetWriteDeadline(time.Now().Add(s.idle))
	if err := s.conn.WriteMessage(websocket.BinaryMessage, p); err != nil {
		return 0, fmt.Errorf("stt stream: sending audio: %w", err)
	}
	return len(p), nil
}

// CloseSend ends the audio: it sends a WebSocket close frame. The final
// results still arrive on Results until the server completes the close
// handshake.
func (s *STTStream) CloseSend() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.sendDone {
		return nil
	}
	s.sendDone = true
	s.mu.Lock()
	s.closeSent = time.Now()
	s.mu.Unlock()
	// Wake a read blocked without a deadline so it picks up the idle bound.
	s.conn.SetReadDeadline(time.Now().Add(s.idle))
	err := s.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(5*time.Second))
	if err != nil && !errors.Is(err, websocket.ErrCloseSent) {
		return fmt.Errorf("stt stream: sending close: %w", err)
	}
	return nil
}

// TraceID is the trace_id the gateway gave the handshake ("" if none).
func (s *STTStream) TraceID() string { return s.trace }

// Results delivers every result frame, in order, and is closed at the end.
func (s *STTStream) Results() <-chan STTResultFrame { return s.results }

// Err is the stream's error once Results is closed: the first error frame,
// a bad frame, or a connection that broke; nil after a clean end.
func (s *STTStream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close aborts the stream.
func (s *STTStream) Close() error {
	s.mu.Lock()
	if !s.aborted {
		s.aborted = true
		close(s.abort)
	}
	s.mu.Unlock()
	s.conn.Close()
	<-s.done
	return nil
}
