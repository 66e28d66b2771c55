package api

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Sentinel errors for the failures the UI and the command line treat
// differently. errors.Is(err, ErrCredentialsMissing) is true for an *Error
// whose message is the spec's credentials message, and so on.
var (
	ErrCredentialsMissing = errors.New("credentials of the third-party service are not configured")
	ErrResearchTimeout    = errors.New("research task wait timed out")
	ErrRateLimited        = errors.New("rate limited")
	// ErrMalformed is in every error of an answer that does not have the
	// interface's shape (a tool list, voice list or tool output hark
	// cannot read): the gateway's fault, never the caller's.
	ErrMalformed = errors.New("the gateway's answer does not have the interface's shape")
)

// UnreachableHint says what to do when the gateway cannot be reached at
// all: the TUI and the command line give the same hint.
const UnreachableHint = "The gateway is not reachable. Check the base URL (HARK_BASE_URL, or base_url in the config; 'hark config' shows which is used), or run without one to use the embedded gateway."

// ErrUnreachable is in every error of a call that never reached the
// gateway: its name does not resolve, or nothing answers at its address.
// Nothing was done or billed.
var ErrUnreachable = errors.New("the gateway cannot be reached")

// Unreachable reports whether err is a failure to reach the gateway at all.
func Unreachable(err error) bool { return errors.Is(err, ErrUnreachable) }

// unreachable marks a transport error of a call to the gateway as
// ErrUnreachable when it is a failure to connect, its text unchanged.
func unreachable(err error) error {
	var oe *net.OpError
	var de *net.DNSError
	if errors.As(err, &de) || errors.As(err, &oe) && oe.Op == "dial" {
		return unreachableError{err}
	}
	return err
}

type unreachableError struct{ err error }

func (e unreachableError) Error() string   { return e.err.Error() }
func (e unreachableError) Unwrap() []error { return []error{e.err, ErrUnreachable} }

// malformed marks err as ErrMalformed, its text unchanged.
func malformed(err error) error {
	if err == nil {
		return nil
	}
	return malformedError{err}
}

type malformedError struct{ err error }

func (e malformedError) Error() string   { return e.err.Error() }
func (e malformedError) Unwrap() []error { return []error{e.err, ErrMalformed} }

// Error is a failed REST call: a non-200 envelope code, an HTTP error
// status, or a body that is not the envelope. HTTPStatus is the HTTP status
// (0 when no response arrived), Code the envelope code (0 when there was no
// envelope).
type Error struct {
	HTTPStatus int
	Code       int
	Message    string
	TraceID    string
	// RetryAfter is the server's Retry-After on a 429 (0 when absent).
	RetryAfter time.Duration
	// Vendor is set when Message reports an upstream vendor failure.
	Vendor *VendorFailure

	// body is a 2xx body that was not the envelope, for the tool list's
	// tolerant decoder.
	body []byte
}

// VendorFailure is an upstream vendor failure parsed from a message of
// the form "<vendor> API request failed: <detail>" (Status 0) or
// "<vendor> API returned status code <status>: <detail>".
type VendorFailure struct {
	Vendor string
	Status int
	Detail string
}

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" {
		msg = "gateway error"
	}
	var b strings.Builder
	b.WriteString(msg)
	httpErr := e.HTTPStatus != 0 && e.HTTPStatus != 200
	switch {
	case httpErr && e.Code != 0 && e.Code != e.HTTPStatus:
		fmt.Fprintf(&b, " (HTTP %d, code %d)", e.HTTPStatus, e.Code)
	case httpErr:
		fmt.Fprintf(&b, " (HTTP %d)", e.HTTPStatus)
	case e.Code != 0:
		fmt.Fprintf(&b, " (code %d)", e.Code)
	}
	if e.TraceID != "" {
		fmt.Fprintf(&b, " [trace_id %s]", e.TraceID)
	}
	return b.String()
}

// Is makes errors.Is work with the sentinel errors.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrCredentialsMissing:
		return strings.Contains(e.Message, MsgCredentialsMissing)
	case ErrResearchTimeout:
		return strings.Contains(e.Message, MsgResearchWaitTimeout)
	case ErrRateLimited:
		return e.Status(http.StatusTooManyRequests)
	}
	return false
}

// Status reports whether the HTTP status or the envelope code is one of
// codes: a gateway may say it either way.
func (e *Error) Status(codes ...int) bool {
	for _, c := range codes {
		if e.HTTPStatus == c || e.Code == c {
			return true
		}
	}
	return false
}

// Auth reports whether the gateway refused the caller's identity
// (HTTP or envelope 401/403) or the workspace lacks vendor credentials.
func (e *Error) Auth() bool {
	return e.Status(http.StatusUnauthorized, http.StatusForbidden) || errors.Is(e, ErrCredentialsMissing)
}

// Refused reports the gateway refusing the inputs (400 or 422): its
// message names the field and the rule.
func (e *Error) Refused() bool {
	return e.Status(http.StatusBadRequest, http.StatusUnprocessableEntity)
}

// TimedOut reports the gateway, or what it called, running out of time
// (408 or 504).
func (e *Error) TimedOut() bool {
	return e.Status(http.StatusRequestTimeout, http.StatusGatewayTimeout)
}

var (
	vendorStatusRe = regexp.MustCompile(`(?s)^(.*?)\s*API returned status code (\d+):\s*(.*)$`)
	vendorFailedRe = regexp.MustCompile(`(?s)^(.*?)\s*API request failed:\s*(.*)$`)
)

// ParseVendorFailure recognises the two vendor failure forms of the spec,
// whatever the vendor's name. It returns nil for any other message.
func ParseVendorFailure(msg string) *VendorFailure {
	if m := vendorStatusRe.FindStringSubmatch(msg); m != nil {
		st, err := strconv.Atoi(m[2])
		if err == nil {
			return &VendorFailure{Vendor: strings.TrimSpace(m[1]), Status: st, Detail: m[3]}
		}
	}
	if m := vendorFailedRe.FindStringSubmatch(msg); m != nil {
		return &VendorFailure{Vendor: strings.TrimSpace(m[1]), Detail: m[2]}
	}
	return nil
}

// StreamError is a WebSocket stream that ended badly: an error frame from
// the gateway, or a connection that broke or closed without a terminal
// frame. Received counts what arrived before (bytes of audio for TTS,
// result frames for STT); that data is kept by the stream.
type StreamError struct {
	Message  string
	Received int
	Err      error
	// TraceID is the trace_id of the stream's handshake, when the gateway
	// sent one (X-Trace-Id).
	TraceID string
}

func (e *StreamError) Error() string {
	s := e.Message
	if e.Err != nil {
		if s != "" {
			s += ": "
		}
		s += e.Err.Error()
	}
	s = fmt.Sprintf("stream: %s (%d received)", s, e.Received)
	if e.TraceID != "" {
		s += " [trace_id " + e.TraceID + "]"
	}
	return s
}

func (e *StreamError) Unwrap() error { return e.Err }
