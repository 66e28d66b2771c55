package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"hark/api"
	"hark/gateway/engine"
	"hark/gateway/usage"
)

// The two WebSocket streams. Both follow the spec's frame protocols: a
// JSON text frame with the request first, then binary audio (server to
// client for TTS, client to server for STT), JSON text frames for results
// and terminal errors, and a close handshake at the end.

const (
	frameWriteTimeout = 10 * time.Second
	closeWait         = 2 * time.Second // for the peer's close reply
)

// wsStream serialises writes to one connection.
type wsStream struct {
	conn *websocket.Conn
	mu   sync.Mutex
}

func (c *wsStream) writeJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conn.SetWriteDeadline(time.Now().Add(frameWriteTimeout))
	return c.conn.WriteMessage(websocket.TextMessage, b)
}

func (c *wsStream) writeBinary(p []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conn.SetWriteDeadline(time.Now().Add(frameWriteTimeout))
	return c.conn.WriteMessage(websocket.BinaryMessage, p)
}

func (c *wsStream) writeClose(code int, reason string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(reason) > 120 { // a close reason must fit in a control frame
		reason = reason[:120]
	}
	return c.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
}

// closeCode is the WebSocket close code for an error's HTTP status.
func closeCode(status int) int {
	switch {
	case status == CodeTooLarge:
		return websocket.CloseMessageTooBig
	case status == CodeUnavailable:
		return websocket.CloseGoingAway
	case status >= 400 && status < 500:
		return websocket.ClosePolicyViolation
	}
	return websocket.CloseInternalServerErr
}

// upgrade refuses a stream while draining, and upgrades. Auth is done by
// the middleware, and the request counted as active, so Shutdown waits for
// the stream.
func (s *Server) upgrade(w http.ResponseWriter, r *http.Request) (*wsStream, bool) {
	if !websocket.IsWebSocketUpgrade(r) {
		s.writeError(w, r, &httpError{status: CodeInvalidInput, msg: "this endpoint needs a WebSocket upgrade (Connection: Upgrade, Upgrade: websocket)"})
		return nil, false
	}
	if s.isDraining() { // a stream started now could not finish
		s.writeError(w, r, errShuttingDown)
		return nil, false
	}
	hdr := http.Header{TraceHeader: {traceID(r)}}
	s.setCreditHeaders(hdr, stateOf(r), false) // a stream's cost is known only at its end
	conn, err := s.upgrader.Upgrade(w, r, hdr)
	if err != nil {
		return nil, false // the upgrader answered with an envelope
	}
	// A message over max_frame_bytes is refused by readFrame, which reads
	// only its first bytes and discards the rest unbuffered, so the stream
	// can still answer. Only a message no stream could hold is cut off by
	// the WebSocket layer (close 1009 at once).
	conn.SetReadLimit(max(s.limits.MaxFrameBytes, s.limits.MaxStreamAudioBytes))
	return &wsStream{conn: conn}, true
}

// readFrame reads one client message of at most limit bytes. Of a bigger
// one only limit+1 bytes are read before it reports frameTooBigError; the
// next read discards the rest.
func (c *wsStream) readFrame(limit int64) (int, []byte, error) {
	mt, r, err := c.conn.NextReader()
	if err != nil {
		return mt, nil, err
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return mt, nil, err
	}
	if int64(len(data)) > limit {
		return mt, nil, &frameTooBigError{limit: limit}
	}
	return mt, data, nil
}

// discardFrames reads and drops client messages, holding none in memory,
// until the connection fails or closes; it returns that error.
func (c *wsStream) discardFrames() error {
	for {
		_, r, err := c.conn.NextReader()
		if err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			return err
		}
	}
}

// readRequestFrame reads the first frame: JSON text holding the request.
func (s *Server) readRequestFrame(st *wsStream, v any, what string) error {
	st.conn.SetReadDeadline(time.Now().Add(time.Duration(s.limits.StreamIdleTimeout)))
	mt, data, err := st.readFrame(s.limits.MaxFrameBytes)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &httpError{status: CodeInvalidInput, msg: fmt.Sprintf(
			"no %s frame within %s (stream_idle_timeout)", what, time.Duration(s.limits.StreamIdleTimeout))}
	}
	if err != nil {
		return err
	}
	st.conn.SetReadDeadline(time.Time{})
	if mt != websocket.TextMessage {
		return &engine.InputError{Field: "frame", Rule: "the first frame must be a JSON text frame holding the " + what}
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	return nil
}

// isConnGone reports an error that means the peer is gone or closed, so
// no frame can be sent.
func isConnGone(err error) bool {
	var ce *websocket.CloseError
	var ne net.Error
	return errors.As(err, &ce) || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, io.ErrUnexpectedEOF) || (errors.As(err, &ne) && !ne.Timeout())
}

func (s *Server) handleTTSStream(w http.ResponseWriter, r *http.Request) {
	st, ok := s.upgrade(w, r)
	if !ok {
		return
	}
	defer st.conn.Close()
	open := s.metrics.streams.WithLabelValues("tts")
	open.Inc()
	defer open.Dec()
	rs := stateOf(r)

	// fail ends the stream with a terminal error frame and a close.
	fail := func(err error) {
		status, msg := s.classify(err)
		rs.errMsg = msg
		st.writeJSON(api.TTSFinalFrame{IsFinal: true, Error: msg})
		st.writeClose(closeCode(status), "")
	}

	var req api.TTSRequest
	p, id, err := s.openStream(r, st, &req, "TTS request", "tts_stream", func() (string, int64, error) {
		return req.Provider, usage.TTSCost(req.Text), validateTTS(&req, s.limits.MaxStreamTextChars, "")
	})
	if err != nil {
		s.refuseStream(st, rs, err, fail)
		return
	}
	cost := usage.TTSCost(req.Text)
	start := time.Now()

	// The client may close or vanish mid-stream: that cancels synthesis.
	ctx, cancel := context.WithTimeout(r.Context(), time.Duration(s.limits.UpstreamTimeout))
	defer cancel()
	ctx = engine.WithTurns(ctx, s.ttsTurns.Turn) // each sentence takes its turn of the CPU
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		st.discardFrames()
		cancel()
	}()

	sink := &frameSink{st: st, ctx: ctx}
	_, err = p.Synthesize(ctx, req, sink)
	s.metrics.engineTime("tts_stream", start)
	credits := cost
	switch {
	case err == nil:
		if err = st.writeJSON(api.TTSFinalFrame{IsFinal: true, Credits: cost}); err == nil {
			st.writeClose(websocket.CloseNormalClosure, "")
		}
	case isConnGone(err) || (ctx.Err() != nil && r.Context().Err() == nil && !errors.Is(ctx.Err(), context.DeadlineExceeded)):
		rs.errMsg = "client left mid-stream"
	case r.Context().Err() != nil:
		fail(fmt.Errorf("%w: synthesis interrupted after %d bytes", errShuttingDown, sink.n))
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		fail(&httpError{status: CodeTimeout, msg: fmt.Sprintf("tts timed out after %s", time.Duration(s.limits.UpstreamTimeout))})
	default:
		fail(err)
	}
	if err != nil && sink.n == 0 {
		credits = 0 // nothing was delivered
	}
	s.settle(rs, id, credits, err, time.Since(start))
	s.awaitClose(st, readerDone)
}

// openStream reads a stream's first frame into req, checks it (check
// returns the provider named, the credits to reserve and the rule broken),
// resolves the provider and reserves the credits.
func (s *Server) openStream(r *http.Request, st *wsStream, req any, what, op string, check func() (string, int64, error)) (engine.VoiceProvider, *usage.Reservation, error) {
	if err := s.readRequestFrame(st, req, what); err != nil {
		return nil, nil, err
	}
	provider, cost, err := check()
	if err != nil {
		return nil, nil, err
	}
	rs := stateOf(r)
	p, err := rs.workspace.provider(provider, s.known)
	if err != nil {
		return nil, nil, err
	}
	res, err := s.meter.Reserve(r.Context(), rs.workspace.account, rs.keyID, rs.traceID, op, cost)
	return p, res, err
}

// refuseStream ends a stream that could not start: with fail's error
// frame, or quietly when the client has already gone.
func (s *Server) refuseStream(st *wsStream, rs *requestState, err error, fail func(error)) {
	if isConnGone(err) {
		rs.errMsg = "client left before the first frame"
		st.writeClose(websocket.CloseNormalClosure, "")
		return
	}
	s.metrics.refusal(err)
	fail(err)
	s.awaitClose(st, nil)
}

// awaitClose gives the client a moment to answer our close frame, then
// drops the connection. readerDone, when set, is the reader goroutine that
// will see the client's close; otherwise the close is read here.
func (s *Server) awaitClose(st *wsStream, readerDone chan struct{}) {
	if readerDone == nil {
		readerDone = make(chan struct{})
		go func() {
			defer close(readerDone)
			st.conn.SetReadDeadline(time.Now().Add(closeWait))
			st.discardFrames()
		}()
	}
	select {
	case <-readerDone:
	case <-time.After(closeWait):
	}
	st.conn.Close()
	<-readerDone
}

// frameSink sends each fragment of synthesized audio as one binary frame.
type frameSink struct {
	st  *wsStream
	ctx context.Context // a cancelled stream refuses more audio
	n   int
}

func (f *frameSink) Write(p []byte) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if err := f.st.writeBinary(p); err != nil {
		return 0, err
	}
	f.n += len(p)
	return len(p), nil
}

// sttEnd records why the audio input ended when the client did not end it.
type sttEnd struct {
	once   sync.Once
	mu     sync.Mutex // the reader may end the input as recognition returns
	reason string     // "" when the client closed: a normal end
	code   int
}

// get is the reason and close code the input ended with, so far.
func (e *sttEnd) get() (reason string, code int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.reason, e.code
}

func (s *Server) handleSTTStream(w http.ResponseWriter, r *http.Request) {
	st, ok := s.upgrade(w, r)
	if !ok {
		return
	}
	defer st.conn.Close()
	open := s.metrics.streams.WithLabelValues("stt")
	open.Inc()
	defer open.Dec()
	rs := stateOf(r)
	// The client's close frame means end of audio: do not answer it until
	// the final results are out.
	closedByClient := make(chan struct{})
	var closeOnce sync.Once
	st.conn.SetCloseHandler(func(int, string) error {
		closeOnce.Do(func() { close(closedByClient) })
		return nil
	})

	seq := 0
	fail := func(err error) {
		status, msg := s.classify(err)
		rs.errMsg = msg
		seq++
		st.writeJSON(api.STTResultFrame{Sequence: seq, IsFinal: true, Error: msg})
		st.writeClose(closeCode(status), "")
	}

	var cfg api.STTRequest
	p, id, err := s.openStream(r, st, &cfg, "STT configuration", "stt_stream", func() (string, int64, error) {
		return cfg.Provider, 1, validateSTTConfig(&cfg)
	})
	if err != nil {
		s.refuseStream(st, rs, err, fail)
		return
	}
	start := time.Now()

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	pr, pw := io.Pipe()
	var end sttEnd
	var finishTimer *time.Timer
	var timerMu sync.Mutex
	// endInput ends the audio: recognition finishes what arrived, within
	// the upstream timeout.
	endInput := func(reason string, code int) {
		end.once.Do(func() {
			end.mu.Lock()
			end.reason, end.code = reason, code
			end.mu.Unlock()
			pw.Close()
			timerMu.Lock()
			finishTimer = time.AfterFunc(time.Duration(s.limits.UpstreamTimeout), cancel)
			timerMu.Unlock()
		})
	}
	defer func() {
		timerMu.Lock()
		if finishTimer != nil {
			finishTimer.Stop()
		}
		timerMu.Unlock()
	}()

	idle := time.Duration(s.limits.StreamIdleTimeout)
	var clientGone bool
	var goneMu sync.Mutex
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		var received int64
		for {
			st.conn.SetReadDeadline(time.Now().Add(idle))
			mt, data, err := st.readFrame(s.limits.MaxFrameBytes)
			var tooBig *frameTooBigError
			if errors.As(err, &tooBig) {
				endInput(fmt.Sprintf("%s: recognition ended with the audio before it", tooBig), websocket.CloseMessageTooBig)
				continue // the next read discards the rest; keep reading until the client closes
			}
			if err != nil {
				var ce *websocket.CloseError
				var ne net.Error
				switch {
				case errors.As(err, &ce):
					endInput("", 0)
				case errors.As(err, &ne) && ne.Timeout():
					endInput(fmt.Sprintf("no audio for %s: recognition ended with the audio received", idle), websocket.ClosePolicyViolation)
				default:
					goneMu.Lock()
					clientGone = true
					goneMu.Unlock()
					pw.CloseWithError(errors.New("client connection lost"))
					cancel()
				}
				return
			}
			if mt != websocket.BinaryMessage {
				// Audio is binary; a text frame here is most likely audio
				// sent as base64 or JSON, which would be silently lost.
				endInput("a text frame arrived where audio was expected: send audio as binary frames; recognition ended with the audio before it", websocket.ClosePolicyViolation)
				continue
			}
			received += int64(len(data))
			if received > s.limits.MaxStreamAudioBytes {
				endInput(fmt.Sprintf("audio exceeds %d bytes per stream: recognition ended with the first %d bytes",
					s.limits.MaxStreamAudioBytes, received-int64(len(data))), websocket.CloseMessageTooBig)
				continue // keep reading until the client closes
			}
			pw.Write(data) // fails harmlessly once the input has ended
		}
	}()
	stopDrainWatch := context.AfterFunc(s.drainCtx, func() {
		endInput("gateway shutting down: recognition ended with the audio received", websocket.CloseGoingAway)
		st.conn.SetReadDeadline(time.Now()) // stop the reader
	})
	defer stopDrainWatch()

	var durationMs int
	sentFinal := false
	recognizeStart := time.Now()
	defer s.metrics.engineTime("stt_stream", recognizeStart)
	// Each piece of audio takes its turn of the CPU; a recogniser is
	// waited for up to stream_idle_timeout, the silence a stream is
	// allowed (the client is told its place meanwhile).
	rctx := engine.WithTurns(engine.WithQueueWait(ctx, idle), s.sttTurns.Turn)
	err = p.Recognize(rctx, cfg, pr, func(t engine.Transcript) error {
		durationMs = max(durationMs, t.DurationMs)
		seq++
		f := api.STTResultFrame{Sequence: seq, Text: t.Text, IsFinal: t.Final, IsPartial: t.Partial && !t.Final, Queued: t.Queued}
		if t.Final {
			f.Confidence = t.Confidence
			sentFinal = true
		}
		return st.writeJSON(f)
	})
	pr.CloseWithError(io.ErrClosedPipe) // unblock the reader's pending write
	goneMu.Lock()
	gone := clientGone
	goneMu.Unlock()
	endReason, endCode := end.get()
	switch {
	case gone || isConnGone(err):
		rs.errMsg = "client left mid-stream"
		if err == nil {
			err = errors.New(rs.errMsg)
		}
	case err != nil && r.Context().Err() != nil:
		fail(fmt.Errorf("%w: recognition interrupted", errShuttingDown))
	case err != nil && endReason != "" && isInputError(err):
		// The audio ended at a limit before any could be heard (an
		// oversized first frame): the limit is the error, not "no audio".
		rs.errMsg = endReason
		seq++
		st.writeJSON(api.STTResultFrame{Sequence: seq, IsFinal: true, Error: endReason})
		st.writeClose(endCode, "")
	case err != nil && ctx.Err() != nil:
		fail(&httpError{status: CodeTimeout, msg: fmt.Sprintf("stt did not finish within %s after the end of audio", time.Duration(s.limits.UpstreamTimeout))})
	case err != nil:
		fail(err)
	default:
		if !sentFinal {
			seq++
			st.writeJSON(api.STTResultFrame{Sequence: seq, IsFinal: true})
		}
		if endReason != "" {
			rs.errMsg = endReason
			seq++
			st.writeJSON(api.STTResultFrame{Sequence: seq, IsFinal: true, Error: endReason})
			st.writeClose(endCode, "")
		} else {
			st.writeClose(websocket.CloseNormalClosure, "")
		}
	}
	credits := int64(0)
	if durationMs > 0 && !errors.Is(err, engine.ErrUnavailable) {
		// A stream the gateway could not serve (no recogniser came free
		// in time) is not charged, whatever it heard first.
		credits = usage.STTCost(durationMs)
	}
	s.settle(rs, id, credits, err, time.Since(start))
	select {
	case <-closedByClient:
		st.conn.Close()
		<-readerDone
	default:
		s.awaitClose(st, readerDone)
	}
}

func isInputError(err error) bool {
	var ie *engine.InputError
	return errors.As(err, &ie)
}
