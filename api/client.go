package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Version is hark's version, sent in the User-Agent.
var Version = "0.1.0"

// Options configures a Client.
type Options struct {
	// BaseURL is the gateway's base address, http or https, e.g.
	// "http://127.0.0.1:8080". Required.
	BaseURL string
	// Fallbacks are other addresses of the same gateway (its other
	// replicas). When the address in use stops answering (no connection,
	// or a connection cut), REST calls move to the next, in turn; the
	// calls that retry (GETs, research, a followed job) reach a live one.
	// Streams keep to BaseURL.
	Fallbacks []string
	// APIKey is sent as "Authorization: Bearer <APIKey>" on every request,
	// WebSocket handshakes included.
	APIKey string
	// KeyFunc, when set, gives the API key instead of APIKey: the client
	// calls it before its first request (and again before each request
	// until it succeeds), so that a slow key source such as a password
	// manager does not hold back whoever made the client. It must be safe
	// for concurrent use and quick once it has answered. Its error comes
	// back from the call as a *KeyError, which is never retried.
	KeyFunc func(ctx context.Context) (string, error)
	// UserAgent defaults to "hark/<Version>".
	UserAgent string
	// HTTPClient is used for REST calls; nil means a client with no
	// overall timeout (each call has its own, see Timeout).
	HTTPClient *http.Client
	// OnCall, when set, is told about every HTTP request and WebSocket
	// handshake: what was called, the trace_id, the status and how long
	// it took. It must be quick and safe for concurrent use.
	OnCall func(CallInfo)
	// OnResult, when set, is given every tool call that succeeded (see
	// Result): a client that keeps what it saw, like hark's library,
	// takes it from here. It runs before Invoke returns, so it must be
	// quick, and safe for concurrent use.
	OnResult func(Result)
	// Retry tunes retries; the zero value means sensible defaults.
	Retry RetryPolicy
	// Timeout bounds one REST attempt other than research (default 5m).
	Timeout time.Duration
	// StreamIdleTimeout bounds the wait for the next WebSocket frame while
	// the client expects one (default 60s): during a TTS stream, and after
	// an STT stream's CloseSend.
	StreamIdleTimeout time.Duration
}

// RetryPolicy bounds the automatic retries. Idempotent GETs (tool list,
// voice list) are retried on network errors, 5xx and 429; vendor_research
// is retried on every error response except those that retrying cannot
// fix (bad input, auth, missing credentials). Other invocations are never
// retried automatically. Waits grow exponentially from BaseDelay up to
// MaxDelay, with jitter, and honour a 429's Retry-After.
type RetryPolicy struct {
	MaxAttempts         int           // attempts of a GET, first included (default 4)
	MaxElapsed          time.Duration // total time budget of a GET's retries (default 30s)
	ResearchMaxAttempts int           // attempts of a research call (default 3)
	ResearchMaxElapsed  time.Duration // total time of a research call, all attempts (default 20m)
	// ResearchTimeout bounds one research attempt (default and minimum 6m:
	// the gateway waits up to 5 minutes for the task).
	ResearchTimeout time.Duration
	BaseDelay       time.Duration // first wait (default 500ms)
	MaxDelay        time.Duration // cap on one wait (default 15s)
}

// MinResearchTimeout is the shortest research attempt timeout the client
// accepts: the gateway may wait 5 minutes, the spec recommends 6.
const MinResearchTimeout = 6 * time.Minute

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 4
	}
	if p.MaxElapsed <= 0 {
		p.MaxElapsed = 30 * time.Second
	}
	if p.ResearchMaxAttempts <= 0 {
		p.ResearchMaxAttempts = 3
	}
	if p.ResearchMaxElapsed <= 0 {
		p.ResearchMaxElapsed = 20 * time.Minute
	}
	if p.ResearchTimeout <= 0 {
		p.ResearchTimeout = MinResearchTimeout
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = 500 * time.Millisecond
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 15 * time.Second
	}
	if p.MaxDelay < p.BaseDelay {
		p.MaxDelay = p.BaseDelay
	}
	return p
}

// backoff is the wait before retry number attempt (1-based): exponential,
// capped, with jitter in [d/2, d].
func (p RetryPolicy) backoff(attempt int) time.Duration {
	d := p.BaseDelay
	for i := 1; i < attempt && d < p.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, p.MaxDelay)
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

// CallInfo describes one HTTP request or WebSocket handshake.
type CallInfo struct {
	Method  string
	Path    string
	TraceID string
	Status  int
	Latency time.Duration
	Err     error

	// Credits come from the X-Credits-* headers that a gateway sends on
	// the responses of a workspace with usage accounting. HasCredits is
	// true when X-Credits-Used was present and an integer; the other
	// fields are then meaningful: CreditsUsed is what the workspace has
	// used in its current quota period, CreditsLimit its quota (0 when the
	// gateway sent none: no quota), CreditsCharged what this call cost (0
	// when absent).
	CreditsUsed    int64
	CreditsLimit   int64
	CreditsCharged int64
	HasCredits     bool
	// CreditsAt is when the headers arrived, Started when the call
	// began. Calls overlap and are reported when their bodies have been
	// read, so the order reports come in is not the gateway's: a call
	// started after a count arrived was counted after it, while of two
	// that overlapped either may be the later (ui's status bar keeps the
	// larger).
	CreditsAt time.Time
	Started   time.Time
}

// Response headers of the credits a workspace has used (see CallInfo).
const (
	HeaderCreditsUsed    = "X-Credits-Used"
	HeaderCreditsLimit   = "X-Credits-Limit"
	HeaderCreditsCharged = "X-Credits-Charged"
)

// readCredits fills info's credits from a response's headers. A header
// that is absent or not a non-negative integer counts as absent.
func (info *CallInfo) readCredits(h http.Header) {
	used, ok := creditsHeader(h, HeaderCreditsUsed)
	if !ok {
		return
	}
	info.HasCredits = true
	info.CreditsAt = time.Now()
	info.CreditsUsed = used
	info.CreditsLimit, _ = creditsHeader(h, HeaderCreditsLimit)
	info.CreditsCharged, _ = creditsHeader(h, HeaderCreditsCharged)
}

func creditsHeader(h http.Header, name string) (int64, bool) {
	v := strings.TrimSpace(h.Get(name))
	if v == "" {
		return 0, false // most gateways send none: skip ParseInt's error allocation
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// RetryEvent reports a retry about to happen: Attempt is the number of the
// attempt that failed (1 = the first), Wait the pause before the next one,
// Err why.
type RetryEvent struct {
	Attempt int
	Wait    time.Duration
	Err     error
}

type retryObserverKey struct{}

// WithRetryObserver returns a context whose calls report each retry to fn.
func WithRetryObserver(ctx context.Context, fn func(RetryEvent)) context.Context {
	return context.WithValue(ctx, retryObserverKey{}, fn)
}

func retryObserver(ctx context.Context) func(RetryEvent) {
	fn, _ := ctx.Value(retryObserverKey{}).(func(RetryEvent))
	return fn
}

type unkeptKey struct{}

// Unkept returns a context whose successful calls are not given to
// Options.OnResult: a call the client makes for itself (reading a
// result's text again) is not one the user asked for, to keep.
func Unkept(ctx context.Context) context.Context {
	return context.WithValue(ctx, unkeptKey{}, true)
}

// Client talks to a gateway. It is safe for concurrent use.
type Client struct {
	base        *url.URL
	baseStr     string
	bases       []string     // baseStr, then Options.Fallbacks
	cur         atomic.Int32 // the index in bases REST calls go to
	apiKey      string
	keyFunc     func(context.Context) (string, error)
	key         atomic.Pointer[string] // KeyFunc's answer, once it gave one
	ua          string
	hc          *http.Client
	onCall      func(CallInfo)
	onResult    func(Result)
	retry       RetryPolicy
	timeout     time.Duration
	idleTimeout time.Duration
}

// New checks opts and returns a Client.
func New(opts Options) (*Client, error) {
	u, err := checkBaseURL(opts.BaseURL)
	if err != nil {
		return nil, err
	}
	bases := []string{u.String()}
	for _, f := range opts.Fallbacks {
		fu, err := checkBaseURL(f)
		if err != nil {
			return nil, fmt.Errorf("fallback %w", err)
		}
		bases = append(bases, fu.String())
	}
	if strings.ContainsAny(opts.APIKey, "\r\n") {
		return nil, errors.New("API key: must not contain line breaks")
	}
	retry := opts.Retry.withDefaults()
	if retry.ResearchTimeout < MinResearchTimeout {
		return nil, fmt.Errorf("retry research timeout %v: must be at least %v", retry.ResearchTimeout, MinResearchTimeout)
	}
	c := &Client{
		base:        u,
		baseStr:     u.String(),
		bases:       bases,
		apiKey:      opts.APIKey,
		keyFunc:     opts.KeyFunc,
		ua:          opts.UserAgent,
		hc:          opts.HTTPClient,
		onCall:      opts.OnCall,
		onResult:    opts.OnResult,
		retry:       retry,
		timeout:     opts.Timeout,
		idleTimeout: opts.StreamIdleTimeout,
	}
	if c.ua == "" {
		c.ua = "hark/" + Version
	}
	if c.hc == nil {
		c.hc = &http.Client{}
	}
	if c.timeout <= 0 {
		c.timeout = 5 * time.Minute
	}
	if c.idleTimeout <= 0 {
		c.idleTimeout = 60 * time.Second
	}
	return c, nil
}

// checkBaseURL reads a gateway's address; its errors never echo a query,
// where a key would hide.
func checkBaseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, errors.New("base URL: must not be empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("base URL %q: not a valid URL", raw)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("base URL %q: scheme must be http or https", raw)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("base URL %q: must name a host", raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("base URL: must not carry credentials; set the API key instead")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		// Not echoed: a query is where a key would hide.
		return nil, fmt.Errorf("base URL %s://%s: must not have a query or fragment", u.Scheme, u.Host)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// BaseURL is the gateway's base address, without a trailing slash.
func (c *Client) BaseURL() string { return c.baseStr }

// maxBody bounds a REST response body (TTS audio arrives base64 in it).
const maxBody = 256 << 20

// call is one REST request/response.
type call struct {
	method string
	path   string
	body   []byte  // nil for GET
	trace  *string // when set, receives the trace_id of the last attempt
}

// do performs one attempt and returns the envelope's data.
func (c *Client) do(ctx context.Context, cl call, timeout time.Duration) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	info := CallInfo{Method: cl.method, Path: cl.path, Started: start}
	data, err := c.roundTrip(ctx, cl, &info)
	info.Latency = time.Since(start)
	info.Err = err
	if cl.trace != nil {
		*cl.trace = info.TraceID
	}
	if c.onCall != nil {
		c.onCall(info)
	}
	return data, err
}

func (c *Client) roundTrip(ctx context.Context, cl call, info *CallInfo) (json.RawMessage, error) {
	if err := c.resolveKey(ctx); err != nil {
		return nil, err
	}
	var body io.Reader
	if cl.body != nil {
		body = bytes.NewReader(cl.body)
	}
	at := c.cur.Load()
	req, err := http.NewRequestWithContext(ctx, cl.method, c.bases[at]+cl.path, body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", cl.method, cl.path, err)
	}
	c.setHeaders(req.Header)
	if cl.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() == nil && len(c.bases) > 1 {
			// This address does not answer: the next call tries the
			// next (unless another call moved on already).
			c.cur.CompareAndSwap(at, (at+1)%int32(len(c.bases)))
		}
		return nil, c.transportError(cl, err)
	}
	defer resp.Body.Close()
	info.Status = resp.StatusCode
	info.readCredits(resp.Header)
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, c.transportError(cl, err)
	}
	if len(raw) > maxBody {
		return nil, &Error{HTTPStatus: resp.StatusCode, Message: fmt.Sprintf("%s %s: response body larger than %d bytes", cl.method, cl.path, maxBody)}
	}
	data, err := c.parseEnvelope(resp, raw)
	if e, ok := err.(*Error); ok {
		info.TraceID = e.TraceID
	} else if err == nil {
		info.TraceID = traceFrom(raw, resp.Header)
	}
	return data, err
}

// KeyError is a failure to obtain the API key from Options.KeyFunc. Its
// message is KeyFunc's, which must name where the key comes from and
// never the key.
type KeyError struct{ Err error }

func (e *KeyError) Error() string { return e.Err.Error() }
func (e *KeyError) Unwrap() error { return e.Err }

// resolveKey asks KeyFunc for the key until it has one.
func (c *Client) resolveKey(ctx context.Context) error {
	if c.keyFunc == nil || c.key.Load() != nil {
		return nil
	}
	k, err := c.keyFunc(ctx)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return err // the caller stopped waiting: not the key's fault
		}
		return &KeyError{Err: err}
	}
	if strings.ContainsAny(k, "\r\n") {
		return &KeyError{Err: errors.New("API key: must not contain line breaks")}
	}
	c.key.Store(&k)
	return nil
}

// currentKey is the key to send: KeyFunc's once known, else APIKey.
func (c *Client) currentKey() string {
	if k := c.key.Load(); k != nil {
		return *k
	}
	return c.apiKey
}

func (c *Client) setHeaders(h http.Header) {
	if k := c.currentKey(); k != "" {
		h.Set("Authorization", "Bearer "+k)
	}
	h.Set("User-Agent", c.ua)
	h.Set("Accept", "application/json")
}

// transportError wraps a failure before any response, keeping ctx errors
// recognisable with errors.Is.
func (c *Client) transportError(cl call, err error) error {
	return fmt.Errorf("%s %s: %w", cl.method, cl.path, unreachable(unwrapURLError(err)))
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func traceFrom(raw []byte, h http.Header) string {
	var t struct {
		TraceID string `json:"trace_id"`
	}
	if json.Unmarshal(raw, &t) == nil && t.TraceID != "" {
		return t.TraceID
	}
	for _, k := range []string{"X-Trace-Id", "Trace-Id", "X-Request-Id"} {
		if v := h.Get(k); v != "" {
			return v
		}
	}
	return ""
}

// envelopeShape is the envelope with presence detection on code.
type envelopeShape struct {
	Code    *int            `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
	TraceID string          `json:"trace_id"`
}

// DecodeEnvelope parses a REST response body. ok is false when the body is
// not the gateway envelope (not a JSON object with an integer code).
func DecodeEnvelope(raw []byte) (env Envelope, ok bool) {
	var s envelopeShape
	if err := json.Unmarshal(raw, &s); err != nil || s.Code == nil {
		return Envelope{}, false
	}
	return Envelope{Code: *s.Code, Message: s.Message, Data: s.Data, TraceID: s.TraceID}, true
}

// parseEnvelope turns a response into data or an *Error.
func (c *Client) parseEnvelope(resp *http.Response, raw []byte) (json.RawMessage, error) {
	env, ok := DecodeEnvelope(raw)
	status := resp.StatusCode
	if !ok {
		e := &Error{HTTPStatus: status, TraceID: traceFrom(nil, resp.Header)}
		if status < 200 || status > 299 {
			e.Message = "response is not the gateway envelope: " + snippet(raw)
		} else {
			e.Message = "response is not the gateway envelope (want a JSON object with code, message, data, trace_id): " + snippet(raw)
			e.body = raw
		}
		c.finishError(e, resp)
		return nil, e
	}
	if status < 200 || status > 299 || env.Code != CodeOK {
		e := &Error{HTTPStatus: status, Code: env.Code, Message: env.Message, TraceID: env.TraceID}
		if e.Message == "" {
			e.Message = fmt.Sprintf("gateway answered code %d", env.Code)
		}
		c.finishError(e, resp)
		return nil, e
	}
	return env.Data, nil
}

func (c *Client) finishError(e *Error, resp *http.Response) {
	e.Message = c.scrub(e.Message)
	e.Vendor = ParseVendorFailure(e.Message)
	// Retry-After is meaningful on 429 and 503; honour it wherever sent.
	e.RetryAfter = ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
}

// scrub removes the API key from text that came from the network, in case
// a gateway echoes it.
func (c *Client) scrub(s string) string {
	if k := c.currentKey(); len(k) >= 4 {
		s = strings.ReplaceAll(s, k, "****")
	}
	return s
}

func snippet(raw []byte) string {
	s := strings.TrimSpace(string(raw))
	s = strings.ToValidUTF8(s, "?")
	if len(s) == 0 {
		return "(empty body)"
	}
	const n = 200
	if len(s) > n {
		s = s[:n] + "..."
	}
	return strconv.Quote(s)
}

// ParseRetryAfter reads a Retry-After header: delta-seconds (at most a
// day) or an HTTP date, as a wait from now; 0 if absent, bad or past.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(min(n, 86400)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// Retryable reports whether a GET that failed with err is worth asking
// again (the gateway unreachable, a 5xx, a 429): what a follower of a job
// does while a replica restarts, or another takes the job over.
func Retryable(err error) bool { return retryableGET(err) }

// retryableGET reports whether an idempotent GET should be tried again.
func retryableGET(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var e *Error
	if errors.As(err, &e) {
		if errors.Is(e, ErrCredentialsMissing) {
			return false
		}
		return e.Status(http.StatusTooManyRequests) || e.HTTPStatus >= http.StatusInternalServerError || e.Code >= http.StatusInternalServerError
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || isConnError(err)
}

func isConnError(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe)
}

// retryableResearch reports whether a research error is worth retrying:
// everything except input, auth and credential errors and cancellation.
func retryableResearch(parent context.Context, err error) bool {
	if parent.Err() != nil || errors.Is(err, context.Canceled) || errors.As(err, new(*KeyError)) {
		return false
	}
	var e *Error
	if errors.As(err, &e) {
		if errors.Is(e, ErrCredentialsMissing) || e.Auth() {
			return false
		}
		// A 4xx other than rate limiting or a timeout is the request's
		// fault: trying it again gives the same answer.
		for _, c := range []int{e.HTTPStatus, e.Code} {
			if c >= http.StatusBadRequest && c < http.StatusInternalServerError && c != http.StatusTooManyRequests && c != http.StatusRequestTimeout {
				return false
			}
		}
		return true
	}
	return true // network errors and attempt timeouts
}

// withRetries runs attempt until it succeeds, maxAttempts is reached, the
// time budget would be exceeded, or ctx ends.
func (c *Client) withRetries(ctx context.Context, maxAttempts int, budget time.Duration, retryable func(error) bool, attempt func() (json.RawMessage, error)) (json.RawMessage, error) {
	start := time.Now()
	obs := retryObserver(ctx)
	for n := 1; ; n++ {
		data, err := attempt()
		if err == nil || n >= maxAttempts || !retryable(err) {
			return data, err
		}
		wait := c.retry.backoff(n)
		var e *Error
		if errors.As(err, &e) && e.RetryAfter > wait {
			wait = e.RetryAfter
		}
		if time.Since(start)+wait > budget {
			return nil, err
		}
		if obs != nil {
			obs(RetryEvent{Attempt: n, Wait: wait, Err: err})
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%w (while waiting to retry after: %v)", ctx.Err(), err)
		case <-t.C:
		}
	}
}

func (c *Client) get(ctx context.Context, path string) (json.RawMessage, error) {
	cl := call{method: http.MethodGet, path: path}
	return c.withRetries(ctx, c.retry.MaxAttempts, c.retry.MaxElapsed, retryableGET, func() (json.RawMessage, error) {
		return c.do(ctx, cl, c.timeout)
	})
}

func (c *Client) post(ctx context.Context, path string, body any) (json.RawMessage, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("POST %s: encoding request: %w", path, err)
	}
	return c.do(ctx, call{method: http.MethodPost, path: path, body: b}, c.timeout)
}

// Tools fetches the live tool list.
func (c *Client) Tools(ctx context.Context) ([]Tool, error) {
	cl := call{method: http.MethodGet, path: PathTools}
	data, err := c.withRetries(ctx, c.retry.MaxAttempts, c.retry.MaxElapsed, retryableGET, func() (json.RawMessage, error) {
		return c.do(ctx, cl, c.timeout)
	})
	var e *Error
	if errors.As(err, &e) && e.body != nil {
		// The spec does not show the tool list's shape: accept a list
		// served without the envelope too.
		if tools, derr := DecodeToolList(e.body); derr == nil {
			return tools, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("tool list: %w", err)
	}
	tools, err := DecodeToolList(data)
	if err != nil {
		return nil, fmt.Errorf("tool list: %w", err)
	}
	return tools, nil
}

// validSlug guards path segments built from caller input.
func validSlug(field, s string) error {
	if s == "" {
		return fmt.Errorf("%s: must not be empty", field)
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return fmt.Errorf("%s %q: may hold only letters, digits, '_', '-' and '.'", field, s)
		}
	}
	return nil
}

// Invoke calls any tool by slug. vendor_research gets a timeout of at
// least 6 minutes per attempt and is retried on error responses (see
// RetryPolicy), each retry reported to WithRetryObserver's function.
// Other tools are called once.
func (c *Client) Invoke(ctx context.Context, tool string, inputs map[string]any) (*InvokeResult, error) {
	if err := validSlug("tool", tool); err != nil {
		return nil, err
	}
	if inputs == nil {
		inputs = map[string]any{}
	}
	body, err := json.Marshal(InvokeRequest{Inputs: inputs})
	if err != nil {
		return nil, fmt.Errorf("invoke %s: inputs: %w", tool, err)
	}
	var trace string
	cl := call{method: http.MethodPost, path: fmt.Sprintf(PathInvokeFmt, tool), body: body, trace: &trace}
	var data json.RawMessage
	if tool == ToolResearch {
		data, err = c.withRetries(ctx, c.retry.ResearchMaxAttempts, c.retry.ResearchMaxElapsed,
			func(err error) bool { return retryableResearch(ctx, err) },
			func() (json.RawMessage, error) {
				data, err := c.do(ctx, cl, c.retry.ResearchTimeout)
				if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
					err = fmt.Errorf("no answer within %v: %w", c.retry.ResearchTimeout, ErrResearchTimeout)
				}
				return data, err
			})
	} else {
		data, err = c.do(ctx, cl, c.timeout)
	}
	if err != nil {
		return nil, fmt.Errorf("invoke %s: %w", tool, err)
	}
	var res InvokeResult
	if err := json.Unmarshal(data, &res); err != nil || res.Output == nil {
		return nil, &Error{HTTPStatus: 200, Code: CodeOK, Message: fmt.Sprintf("invoke %s: data is not {service, tool, output}: %s", tool, snippet(data))}
	}
	if c.onResult != nil && ctx.Value(unkeptKey{}) == nil {
		c.onResult(Result{Tool: tool, Inputs: inputs, Output: res.Output, TraceID: trace, Gateway: c.baseStr})
	}
	return &res, nil
}

// Result is a tool call that succeeded, as Options.OnResult sees it.
type Result struct {
	Tool    string
	Inputs  map[string]any // as sent
	Output  json.RawMessage
	TraceID string
	Gateway string // the base URL called
}

func toInputs(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

func invokeTyped[O any](c *Client, ctx context.Context, tool string, in any, decode func(json.RawMessage) (*O, error)) (*O, error) {
	m, err := toInputs(in)
	if err != nil {
		return nil, fmt.Errorf("%s: inputs: %w", tool, err)
	}
	res, err := c.Invoke(ctx, tool, m)
	if err != nil {
		return nil, err
	}
	out, err := decode(res.Output)
	if err != nil {
		return nil, fmt.Errorf("%s: output: %w", tool, err)
	}
	return out, nil
}

// Search invokes vendor_search.
func (c *Client) Search(ctx context.Context, in SearchInput) (*SearchOutput, error) {
	return invokeTyped(c, ctx, ToolSearch, in, DecodeSearch)
}

// Extract invokes vendor_extract.
func (c *Client) Extract(ctx context.Context, in ExtractInput) (*ExtractOutput, error) {
	return invokeTyped(c, ctx, ToolExtract, in, DecodeExtract)
}

// Crawl invokes vendor_crawl.
func (c *Client) Crawl(ctx context.Context, in CrawlInput) (*CrawlOutput, error) {
	return invokeTyped(c, ctx, ToolCrawl, in, DecodeCrawl)
}

// Map invokes vendor_map.
func (c *Client) Map(ctx context.Context, in MapInput) (*MapOutput, error) {
	return invokeTyped(c, ctx, ToolMap, in, DecodeMap)
}

// Research invokes vendor_research with the research rules of Invoke.
func (c *Client) Research(ctx context.Context, in ResearchInput) (*ResearchOutput, error) {
	return invokeTyped(c, ctx, ToolResearch, in, DecodeResearch)
}

// Voices lists a provider's voices ("" means DefaultProvider).
func (c *Client) Voices(ctx context.Context, provider string) ([]Voice, error) {
	if provider == "" {
		provider = DefaultProvider
	}
	if err := validSlug("provider", provider); err != nil {
		return nil, err
	}
	data, err := c.get(ctx, fmt.Sprintf(PathVoicesFmt, url.PathEscape(provider)))
	if err != nil {
		return nil, fmt.Errorf("voices of %s: %w", provider, err)
	}
	voices, err := DecodeVoices(data)
	if err != nil {
		return nil, fmt.Errorf("voices of %s: %w", provider, err)
	}
	return voices, nil
}

// VoiceProviders lists the voice providers the gateway knows and whether
// this key's workspace may use each. A gateway without the endpoint
// (not hark's) gives the one provider every gateway has.
func (c *Client) VoiceProviders(ctx context.Context) ([]VoiceProviderStatus, error) {
	data, err := c.get(ctx, PathVoiceProviders)
	var ae *Error
	if errors.As(err, &ae) && ae.HTTPStatus == http.StatusNotFound {
		return []VoiceProviderStatus{{Provider: DefaultProvider, Enabled: true}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("voice providers: %w", err)
	}
	var out []VoiceProviderStatus
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("voice providers: %w", err)
	}
	return out, nil
}

// Audio is synthesized speech, decoded from base64.
type Audio struct {
	Data       []byte
	Format     string
	SampleRate int
	DurationMs int
}

// TTS synthesizes speech over REST.
func (c *Client) TTS(ctx context.Context, req TTSRequest) (*Audio, error) {
	if req.Provider == "" {
		req.Provider = DefaultProvider
	}
	data, err := c.post(ctx, PathTTS, req)
	if err != nil {
		return nil, fmt.Errorf("tts: %w", err)
	}
	var r TTSResponse
	if err := decodeObject(data, &r); err != nil {
		return nil, &Error{HTTPStatus: 200, Code: CodeOK, Message: "tts: data is not a TTS response: " + err.Error()}
	}
	if r.AudioData == "" {
		return nil, &Error{HTTPStatus: 200, Code: CodeOK, Message: "tts: audio_data: missing or empty in the gateway's answer"}
	}
	audio, err := base64.StdEncoding.DecodeString(r.AudioData)
	if err != nil {
		return nil, &Error{HTTPStatus: 200, Code: CodeOK, Message: "tts: audio_data: not valid base64"}
	}
	return &Audio{Data: audio, Format: r.Format, SampleRate: r.SampleRate, DurationMs: r.DurationMs}, nil
}

// STT recognizes speech over REST; audio is sent base64-encoded.
func (c *Client) STT(ctx context.Context, req STTRequest, audio []byte) (*STTResponse, error) {
	if req.Provider == "" {
		req.Provider = DefaultProvider
	}
	if len(audio) == 0 {
		return nil, errors.New("stt: audio: must not be empty")
	}
	req.AudioData = base64.StdEncoding.EncodeToString(audio)
	data, err := c.post(ctx, PathSTT, req)
	if err != nil {
		return nil, fmt.Errorf("stt: %w", err)
	}
	var r STTResponse
	if err := decodeObject(data, &r); err != nil {
		return nil, &Error{HTTPStatus: 200, Code: CodeOK, Message: "stt: data is not an STT response: " + err.Error()}
	}
	return &r, nil
}

// decodeObject decodes data that must be a JSON object (not null, not
// missing) into v, naming the field whose value has the wrong type.
func decodeObject(data json.RawMessage, v any) error {
	t := bytes.TrimSpace(data)
	if len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("want a JSON object, got %s", snippet(data))
	}
	if err := json.Unmarshal(t, v); err != nil {
		return describeJSONError(err)
	}
	return nil
}
