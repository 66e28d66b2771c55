package gateway

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"

	"hark/gateway/engine"
	"hark/gateway/limits"
)

// What the gateway learns about a request as it passes the middleware,
// read by the handlers, the response writers and the log.

// TraceHeader carries the trace_id on every response, WebSocket handshakes
// included.
const TraceHeader = "X-Trace-Id"

// requestState is what the middleware learns about a request; the logger
// reads it when the request ends.
type requestState struct {
	traceID   string
	workspace *workspace
	keyID     string // short, for logs and usage history
	keyHash   string // full hex SHA-256: the rate limiter's bucket
	status    int
	errMsg    string
	charged   int64 // credits this call cost: X-Credits-Charged
	// quotaUsed, when set, is the count a refused reservation read from
	// the database: the 402's message says it, and X-Credits-Used says
	// the same.
	quotaUsed *int64
	body      *limits.SlowBody
	// call is the checked call of a route that checks before admission
	// (*invokeCall, *ttsCall, *sttCall).
	call  any
	route string // the route's pattern, for the metrics
}

type stateKey struct{}

func stateOf(r *http.Request) *requestState {
	rs, _ := r.Context().Value(stateKey{}).(*requestState)
	return rs
}

// keyHashOf is the hex SHA-256 of the request's API key, once
// authenticated: what the rate limit and the stream cap count by.
func keyHashOf(r *http.Request) string {
	if rs := stateOf(r); rs != nil {
		return rs.keyHash
	}
	return ""
}

// rateOf is the request's key and its workspace's rate limit, once
// authenticated.
func (s *Server) rateOf(r *http.Request) (string, limits.Rate) {
	rs := stateOf(r)
	if rs == nil || rs.keyHash == "" || rs.workspace == nil {
		return "", limits.Rate{}
	}
	return rs.keyHash, *rs.workspace.rate.Load()
}

func traceID(r *http.Request) string {
	if rs := stateOf(r); rs != nil {
		return rs.traceID
	}
	return ""
}

func newTraceID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// decodeBody reads a JSON object body within the body limit. Unknown
// fields are ignored; a field of the wrong type is a 400 naming it.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	r.Body = http.MaxBytesReader(w, r.Body, s.limits.MaxBodyBytes)
	dec := json.NewDecoder(r.Body)
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return &httpError{status: CodeInvalidInput, msg: "invalid JSON body: more than one JSON value"}
	}
	return nil
}

// jsonError turns a decoding error into an input error naming the field.
func jsonError(err error) error {
	var (
		te *json.UnmarshalTypeError
		se *json.SyntaxError
		mb *http.MaxBytesError
		he *httpError
		le *limits.Error
	)
	switch {
	case errors.As(err, &mb), errors.As(err, &he), errors.As(err, &le):
		return err
	case errors.As(err, &te) && te.Field != "":
		return &engine.InputError{Field: te.Field, Rule: "must be " + jsonTypeName(te.Type)}
	case errors.As(err, &te):
		return &httpError{status: CodeInvalidInput, msg: "invalid JSON body: want a JSON object"}
	case errors.Is(err, io.EOF):
		return &httpError{status: CodeInvalidInput, msg: "request body is empty: want a JSON object"}
	case errors.As(err, &se):
		return &httpError{status: CodeInvalidInput, msg: fmt.Sprintf("invalid JSON body at byte %d: %v", se.Offset, se)}
	}
	return &httpError{status: CodeInvalidInput, msg: "invalid JSON body: " + err.Error()}
}

func jsonTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Map, reflect.Struct:
		return "a JSON object"
	case reflect.Slice:
		return "an array"
	}
	return "of type " + t.String()
}

func decodeInputs(raw json.RawMessage) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, &engine.InputError{Field: "inputs", Rule: "is required (a JSON object of the tool's fields)"}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, &engine.InputError{Field: "inputs", Rule: "must be a JSON object"}
	}
	return m, nil
}
