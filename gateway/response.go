package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"hark/api"
	"hark/gateway/engine"
	"hark/gateway/limits"
	"hark/gateway/usage"
)

// Response writing: every REST answer is an envelope, data or error.

// writeError answers err as an envelope.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	s.metrics.refusal(err)
	status, msg := s.classify(err)
	var he *httpError
	var le *limits.Error
	var qe *usage.QuotaError
	var ve *engine.VendorError
	switch {
	case errors.As(err, &he) && he.retryAfter > 0:
		w.Header().Set("Retry-After", retryAfter(he.retryAfter))
	case errors.As(err, &le) && le.RetryAfter > 0:
		w.Header().Set("Retry-After", retryAfter(le.RetryAfter))
	case errors.As(err, &qe) && qe.ResetIn > 0:
		w.Header().Set("Retry-After", retryAfter(qe.ResetIn))
	case errors.As(err, &ve) && ve.RetryAfter > 0:
		w.Header().Set("Retry-After", retryAfter(ve.RetryAfter))
	}
	if rs := stateOf(r); rs != nil && qe != nil {
		rs.quotaUsed = &qe.Used
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

// retryAfter is a Retry-After header's value: whole seconds, rounded up.
func retryAfter(d time.Duration) string {
	return strconv.Itoa(int((d + time.Second - 1) / time.Second))
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
