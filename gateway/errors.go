package gateway

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"hark/api"
	"hark/gateway/engine"
)

// Envelope codes. The envelope code always equals the HTTP status; the
// table in docs/gateway.md says when each is used.
const (
	CodeInvalidInput   = http.StatusBadRequest            // 400: a field breaks a rule, or the body is not JSON
	CodeUnauthorized   = http.StatusUnauthorized          // 401: API key missing or invalid
	CodeQuotaExhausted = http.StatusPaymentRequired       // 402: workspace credit quota used up
	CodeForbidden      = http.StatusForbidden             // 403: credentials missing, provider disabled/unconfigured
	CodeNotFound       = http.StatusNotFound              // 404: unknown route, tool or voice provider
	CodeRequestTimeout = http.StatusRequestTimeout        // 408: body slower than body_min_rate
	CodeTooLarge       = http.StatusRequestEntityTooLarge // 413: body or audio over its limit
	CodeRateLimited    = http.StatusTooManyRequests       // 429: per-key rate limit; see Retry-After
	CodeVendorFailed   = http.StatusBadGateway            // 502: upstream vendor failure (engine.VendorError)
	CodeUnavailable    = http.StatusServiceUnavailable    // 503: no engine for the tool, or shutting down
	CodeTimeout        = http.StatusGatewayTimeout        // 504: upstream timeout, research wait
)

// httpError is a failure the gateway itself decides, with its status.
type httpError struct {
	status     int
	msg        string
	retryAfter time.Duration
}

func (e *httpError) Error() string { return e.msg }

// quotaError is a call the workspace's credit quota cannot cover.
type quotaError struct {
	workspace   string
	used, quota int64
	cost        int64
	period      string
}

func (e *quotaError) Error() string {
	return fmt.Sprintf("credit quota exhausted for workspace %q: %d of %d credits used this %s; this call costs %d",
		e.workspace, e.used, e.quota, e.period, e.cost)
}

// statusClientGone labels, in the log and the usage history, a request
// whose client left before its answer; it never goes on the wire.
const statusClientGone = 499

var errShuttingDown = &httpError{status: CodeUnavailable, msg: "gateway shutting down"}

// classify maps any error of a handler or engine to its status and
// message. It is the one place errors become responses, for REST
// envelopes and WebSocket error frames alike.
func (s *Server) classify(err error) (status int, msg string) {
	var (
		he *httpError
		ie *engine.InputError
		ve *engine.VendorError
		qe *quotaError
		mb *http.MaxBytesError
		fb *frameTooBigError
	)
	switch {
	case errors.As(err, &he):
		status, msg = he.status, he.msg
	case errors.As(err, &ie):
		status, msg = CodeInvalidInput, ie.Error()
	case errors.Is(err, engine.ErrCredentialsMissing):
		status, msg = CodeForbidden, api.MsgCredentialsMissing
	case errors.As(err, &ve):
		status, msg = CodeVendorFailed, ve.Error()
	case errors.As(err, &qe):
		status, msg = CodeQuotaExhausted, qe.Error()
	case errors.As(err, &mb):
		status, msg = CodeTooLarge, fmt.Sprintf("request body exceeds %d bytes", mb.Limit)
	case errors.As(err, &fb):
		status, msg = CodeTooLarge, fb.Error()
	case errors.Is(err, engine.ErrUnavailable):
		status, msg = CodeUnavailable, err.Error()
	case errors.Is(err, context.DeadlineExceeded):
		status, msg = CodeTimeout, "upstream call timed out"
	case errors.Is(err, context.Canceled) && s.baseCtx.Err() != nil:
		status, msg = CodeUnavailable, errShuttingDown.msg
	case errors.Is(err, context.Canceled):
		status, msg = statusClientGone, "client closed the request"
	default:
		status, msg = http.StatusInternalServerError, err.Error()
	}
	return status, s.scrub(msg)
}

// writeError answers err as an envelope.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := s.classify(err)
	var he *httpError
	if errors.As(err, &he) && he.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((he.retryAfter+time.Second-1)/time.Second)))
	}
	if status == CodeUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="hark"`)
	}
	rs := stateOf(r)
	if rs != nil {
		rs.errMsg = msg
	}
	writeEnvelope(w, r, status, msg, nil)
	if rs != nil && status == statusClientGone {
		rs.status = statusClientGone // the log says why, not the 400 nobody read
	}
}

// writeData answers data as a successful envelope.
func (s *Server) writeData(w http.ResponseWriter, r *http.Request, data any) {
	raw, err := json.Marshal(data)
	if err != nil {
		s.writeError(w, r, fmt.Errorf("encode response: %w", err))
		return
	}
	writeEnvelope(w, r, api.CodeOK, api.MsgSuccess, raw)
}

func writeEnvelope(w http.ResponseWriter, r *http.Request, status int, msg string, data json.RawMessage) {
	env := api.Envelope{Code: status, Message: msg, Data: data, TraceID: traceID(r)}
	b, err := json.Marshal(env)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(api.Envelope{Code: status, Message: "encode response: " + err.Error(), TraceID: env.TraceID})
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	if status == statusClientGone {
		status = http.StatusBadRequest // 499 is only a log label; the client has gone
	}
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func constantTimeEqual(a, b []byte) bool { return subtle.ConstantTimeCompare(a, b) == 1 }
