package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	"hark/api"
	"hark/gateway/engine"
	"hark/gateway/limits"
	"hark/gateway/usage"
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
		qe *usage.QuotaError
		le *limits.Error
		mb *http.MaxBytesError
		fb *frameTooBigError
	)
	switch {
	case errors.As(err, &he):
		status, msg = he.status, he.msg
	case errors.As(err, &le):
		status, msg = le.Status, le.Msg
	case errors.As(err, &ie):
		status, msg = CodeInvalidInput, ie.Error()
	case errors.Is(err, engine.ErrCredentialsMissing):
		status, msg = CodeForbidden, api.MsgCredentialsMissing
	case errors.As(err, &ve) && ve.RateLimited():
		status, msg = CodeRateLimited, ve.Error()
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
	return status, s.redact.Scrub(msg)
}

// maxEcho is the most of a path segment a message echoes: long enough to
// hold any key whole, so that the redactor can recognise and redact it.
const maxEcho = 200

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// frameTooBigError is a client message over max_frame_bytes.
type frameTooBigError struct{ limit int64 }

func (e *frameTooBigError) Error() string {
	return fmt.Sprintf("a WebSocket message exceeds %d bytes (max_frame_bytes); send audio in smaller fragments", e.limit)
}
