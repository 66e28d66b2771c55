package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/temoto/robotstxt"
	"golang.org/x/net/html/charset"

	"hark/api"
	"hark/gateway/engine"
)

// ErrAddressRefused is returned when a URL resolves to a private, loopback,
// link-local or otherwise non-public address and the gateway does not allow
// those. It is checked on the address actually dialled, so a public name
// that resolves to 127.0.0.1 is refused too.
var ErrAddressRefused = errors.New("address is private, loopback or link-local; refused")

// ErrUnreachable is a site that cannot be reached at all: its name does
// not resolve, or its address refuses or drops the connection. It is the
// site's failure (or the network's), never the caller's input.
var ErrUnreachable = errors.New("site cannot be reached")

// fetchedPage is one document the fetcher read.
type fetchedPage struct {
	URL         string // final URL after redirects, canonical
	Requested   string // URL asked for, canonical
	ContentType string // media type without parameters
	Body        []byte
	Header      http.Header
	Fetched     time.Time
	// NotModified: a conditional request (recheck.go) was answered 304;
	// Body is empty.
	NotModified bool
}

// contentKind groups the media types the engines read.
type contentKind int

const (
	kindHTML contentKind = iota
	kindText
	kindMarkdown
	kindXML // only for sitemaps
)

func (p *fetchedPage) kind() contentKind { return kindOf(p.ContentType) }

func kindOf(ct string) contentKind {
	switch ct {
	case "text/html", "application/xhtml+xml":
		return kindHTML
	case "text/markdown", "text/x-markdown":
		return kindMarkdown
	case "application/xml", "text/xml":
		return kindXML
	}
	return kindText
}

// pageTypes are the media types extract, crawl and map accept. "text/*"
// stands for every other text type but XML (reStructuredText, CSV,
// source code), which is read as plain text.
var pageTypes = map[string]bool{
	"text/html": true, "application/xhtml+xml": true,
	"text/plain": true, "text/markdown": true, "text/x-markdown": true, "text/*": true,
}

// accepts reports whether types takes media type ct.
func accepts(types map[string]bool, ct string) bool {
	return types[ct] || types["text/*"] && strings.HasPrefix(ct, "text/") && kindOf(ct) == kindText
}

var sitemapTypes = map[string]bool{
	"application/xml": true, "text/xml": true, "text/plain": true,
}

// fetcher is the HTTP client shared by extract, crawl, map and index. It
// limits concurrency overall and per host, identifies itself, honours
// robots.txt, follows redirects with a loop guard, bounds size and time
// of each page, and refuses non-public addresses unless allowed.
type fetcher struct {
	client      *http.Client
	private     *http.Client // reads private addresses, for a job that carries it (clientFor)
	userAgent   string
	maxBytes    int64
	pageTimeout time.Duration
	global      chan struct{}
	hostConc    int
	hostDelay   time.Duration
	maxDelay    time.Duration

	mu     sync.Mutex
	hosts  map[string]*hostState
	robots map[string]*robotsEntry
}

type hostState struct {
	sem  chan struct{}
	mu   sync.Mutex
	next time.Time // earliest start of the next request
}

type robotsEntry struct {
	once sync.Once
	data *robotstxt.RobotsData
	err  error
	at   time.Time   // when it was read
	done atomic.Bool // at, data and err are set
}

// robotsTTL is how long robots.txt is trusted (RFC 9309 suggests at most
// 24 hours); a long-running gateway reads it again after that.
const robotsTTL = 24 * time.Hour

const maxRedirects = 10

func newFetcher(cfg Config) *fetcher {
	f := &fetcher{
		userAgent:   cfg.UserAgent,
		maxBytes:    cfg.MaxPageBytes,
		pageTimeout: cfg.PageTimeout,
		global:      make(chan struct{}, cfg.Concurrency),
		hostConc:    cfg.HostConcurrency,
		hostDelay:   cfg.HostDelay,
		maxDelay:    cfg.MaxCrawlDelay,
		hosts:       map[string]*hostState{},
		robots:      map[string]*robotsEntry{},
	}
	f.client = f.newClient(cfg, !cfg.AllowPrivate)
	if !cfg.AllowPrivate {
		// For a job submitted where private addresses were allowed
		// (engine.PrivateAllowed): a client of its own, so that no
		// connection it opens is pooled for calls that may not.
		f.private = f.newClient(cfg, false)
	}
	return f
}

// newClient is an HTTP client whose dialler refuses private addresses
// when guard is set.
func (f *fetcher) newClient(cfg Config, guard bool) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if guard {
		dialer.Control = refusePrivate
	}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would hide the dialled address from the guard
		DialContext:           dialer.DialContext,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   cfg.HostConcurrency * 2,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: cfg.PageTimeout,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{Transport: tr, CheckRedirect: f.checkRedirect}
}

// clientFor is the client of a request under ctx: the one that reads
// private addresses for a job that carries their reading.
func (f *fetcher) clientFor(ctx context.Context) *http.Client {
	if f.private != nil && engine.PrivateAllowed(ctx) {
		return f.private
	}
	return f.client
}

// checkRedirect adds robots.txt to the loop guard: a redirect may not lead
// where the crawler would not go directly. robots.txt itself is exempt (its
// own fetch would wait on itself).
func (f *fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if err := checkRedirect(req, via); err != nil {
		return err
	}
	if req.URL.Path == "/robots.txt" {
		return nil
	}
	ok, _, err := f.allowed(req.Context(), req.URL)
	if err != nil {
		return err
	}
	if !ok {
		return failf("redirect to %s, which robots.txt disallows", canonicalURL(req.URL))
	}
	return nil
}

// refusePrivate runs after name resolution, on the address about to be
// dialled, so DNS tricks cannot reach internal services.
func refusePrivate(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%s: %w", address, ErrAddressRefused)
	}
	if !publicAddr(ip) {
		return fmt.Errorf("%s: %w", ip, ErrAddressRefused)
	}
	return nil
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

func publicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsGlobalUnicast() && !ip.IsPrivate() && !ip.IsLoopback() &&
		!ip.IsLinkLocalUnicast() && !cgnat.Contains(ip)
}

func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("more than %d redirects", maxRedirects)
	}
	target := canonicalURL(req.URL)
	for _, v := range via {
		if canonicalURL(v.URL) == target {
			return fmt.Errorf("redirect loop at %s", target)
		}
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("redirect to unsupported scheme %q", req.URL.Scheme)
	}
	return nil
}

func (f *fetcher) host(h string) *hostState {
	f.mu.Lock()
	defer f.mu.Unlock()
	hs := f.hosts[h]
	if hs == nil {
		hs = &hostState{sem: make(chan struct{}, f.hostConc)}
		f.hosts[h] = hs
	}
	return hs
}

// acquire waits for a global slot and a slot on host, and for the host's
// politeness delay (the larger of the configured delay and robots.txt's
// Crawl-delay, capped). release must be called when the request ends.
func (f *fetcher) acquire(ctx context.Context, host string, delay time.Duration) (release func(), err error) {
	select {
	case f.global <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	hs := f.host(host)
	select {
	case hs.sem <- struct{}{}:
	case <-ctx.Done():
		<-f.global
		return nil, ctx.Err()
	}
	release = func() { <-hs.sem; <-f.global }
	if delay > 0 {
		hs.mu.Lock()
		now := time.Now()
		start := hs.next
		if start.Before(now) {
			start = now
		}
		hs.next = start.Add(delay)
		hs.mu.Unlock()
		if wait := time.Until(start); wait > 0 {
			t := time.NewTimer(wait)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				release()
				return nil, ctx.Err()
			}
		}
	}
	return release, nil
}

// robotsFor returns the robots.txt rules of u's origin, fetched once per
// origin. An unreachable or 4xx robots.txt allows everything; a 5xx one
// disallows everything (robotstxt's reading of the RFC 9309 rules).
func (f *fetcher) robotsFor(ctx context.Context, u *url.URL) (*robotstxt.RobotsData, error) {
	origin := u.Scheme + "://" + u.Host
	key := origin
	if f.clientFor(ctx) != f.client {
		// Read by the client that reads private addresses: the strict
		// client's refusal, cached, must not stand for it.
		key += " private"
	}
	f.mu.Lock()
	ent := f.robots[key]
	if ent == nil || ent.done.Load() && time.Since(ent.at) > robotsTTL {
		if len(f.robots) >= 50000 {
			clear(f.robots) // bound memory; entries are re-read on demand
		}
		ent = &robotsEntry{}
		f.robots[key] = ent
	}
	f.mu.Unlock()
	ent.once.Do(func() {
		defer func() { ent.at = time.Now(); ent.done.Store(true) }()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), f.pageTimeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, origin+"/robots.txt", nil)
		if err != nil {
			ent.err = err
			return
		}
		req.Header.Set("User-Agent", f.userAgent)
		resp, err := f.clientFor(ctx).Do(req)
		if err != nil {
			if errors.Is(err, ErrAddressRefused) {
				ent.err = err
				return
			}
			ent.data, _ = robotstxt.FromStatusAndBytes(http.StatusNotFound, nil)
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512<<10))
		ent.data, err = robotstxt.FromStatusAndBytes(resp.StatusCode, body)
		if err != nil {
			ent.data, _ = robotstxt.FromStatusAndBytes(http.StatusNotFound, nil)
		}
	})
	return ent.data, ent.err
}

// robotsAgent is the product token matched against robots.txt groups.
func (f *fetcher) robotsAgent() string {
	ua := f.userAgent
	if i := strings.IndexAny(ua, "/ "); i > 0 {
		ua = ua[:i]
	}
	return ua
}

// allowed reports whether robots.txt lets the crawler fetch u, and the
// Crawl-delay to keep between requests to its host.
func (f *fetcher) allowed(ctx context.Context, u *url.URL) (bool, time.Duration, error) {
	rd, err := f.robotsFor(ctx, u)
	if err != nil {
		return false, 0, err
	}
	g := rd.FindGroup(f.robotsAgent())
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	delay := f.hostDelay
	if g.CrawlDelay > delay {
		delay = min(g.CrawlDelay, f.maxDelay)
	}
	return g.Test(path), delay, nil
}

// fetchError is a failure to read one page; its text is what users see in
// failed_results.
type fetchError struct {
	msg string
	err error // the cause, when callers may test for it (ErrAddressRefused)
	// retryAfter is how long the site asked to be left alone (a 429 or
	// 503 with Retry-After); engine.RetryAfter reads it.
	retryAfter time.Duration
}

func (e *fetchError) Error() string             { return e.msg }
func (e *fetchError) Unwrap() error             { return e.err }
func (e *fetchError) RetryAfter() time.Duration { return e.retryAfter }

func failf(format string, a ...any) error { return &fetchError{msg: fmt.Sprintf(format, a...)} }

// fetch reads one page. types lists the accepted media types; others fail.
func (f *fetcher) fetch(ctx context.Context, raw string, types map[string]bool) (*fetchedPage, error) {
	return f.fetchIf(ctx, raw, types, nil)
}

// fetchIf is fetch with the request headers cond (If-None-Match,
// If-Modified-Since): a 304 comes back as a page marked NotModified.
func (f *fetcher) fetchIf(ctx context.Context, raw string, types map[string]bool, cond http.Header) (*fetchedPage, error) {
	u, err := parseHTTPURL(raw)
	if err != nil {
		return nil, err
	}
	ok, delay, err := f.allowed(ctx, u)
	if err != nil {
		return nil, f.describe(err)
	}
	if !ok {
		return nil, failf("disallowed by robots.txt")
	}
	release, err := f.acquire(ctx, u.Host, delay)
	if err != nil {
		return nil, err
	}
	defer release()

	ctx, cancel := context.WithTimeout(ctx, f.pageTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, failf("bad URL: %v", err)
	}
	req.Header.Set("User-Agent", f.userAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,application/xml;q=0.5")
	for k, v := range cond {
		req.Header[k] = v
	}
	resp, err := f.clientFor(ctx).Do(req)
	if err != nil {
		return nil, f.describe(err)
	}
	defer resp.Body.Close()
	if cond != nil && resp.StatusCode == http.StatusNotModified {
		return &fetchedPage{URL: canonicalURL(resp.Request.URL), Requested: canonicalURL(u), Header: resp.Header, Fetched: time.Now().UTC(), NotModified: true}, nil
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, statusError(resp)
	}
	if resp.ContentLength > f.maxBytes {
		return nil, failf("page is %d bytes, over the limit of %d", resp.ContentLength, f.maxBytes)
	}
	ct := mediaType(resp.Header.Get("Content-Type"))
	if ct != "" && !accepts(types, ct) {
		return nil, failf("unsupported content type %s", ct)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.maxBytes+1))
	if err != nil {
		return nil, f.describe(err)
	}
	if int64(len(body)) > f.maxBytes {
		return nil, failf("page is over the limit of %d bytes", f.maxBytes)
	}
	if ct == "" {
		ct = mediaType(http.DetectContentType(body))
		if !accepts(types, ct) {
			return nil, failf("unsupported content type %s", ct)
		}
	}
	if kindOf(ct) != kindXML {
		body = toUTF8(body, resp.Header.Get("Content-Type"))
	}
	return &fetchedPage{
		URL:         canonicalURL(resp.Request.URL),
		Requested:   canonicalURL(u),
		ContentType: ct,
		Body:        body,
		Header:      resp.Header,
		Fetched:     time.Now().UTC(),
	}, nil
}

// statusError is a page answered with an error status. A 429 or 503
// that says when to come back (Retry-After, in seconds or as a date)
// carries the wait, and says it.
func statusError(resp *http.Response) error {
	e := &fetchError{msg: fmt.Sprintf("HTTP status %d", resp.StatusCode)}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		if d := api.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); d > 0 {
			e.retryAfter = d
			e.msg += fmt.Sprintf(" (the site asks to retry after %s)", d.Round(time.Second))
		}
	}
	return e
}

// describe turns transport errors into short reasons without Go's
// "Get \"...\":" prefix.
func (f *fetcher) describe(err error) error {
	var fe *fetchError
	switch {
	case errors.As(err, &fe):
		return fe
	case errors.Is(err, ErrAddressRefused):
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Err != nil {
			err = oe.Err // "dial tcp a:p: a: refused" says the address twice
		}
		return &fetchError{msg: unwrapURLError(err).Error(), err: ErrAddressRefused}
	case errors.Is(err, context.DeadlineExceeded):
		return failf("timed out after %s", f.pageTimeout)
	case errors.Is(err, context.Canceled):
		return err
	}
	if msg := unreachable(err); msg != "" {
		return &fetchError{msg: msg, err: ErrUnreachable}
	}
	return failf("%v", unwrapURLError(err))
}

// unreachable words a failure to reach a site at all, "" for any other
// error: "cannot resolve host docs.example: no such host", never naming
// the resolver the gateway asked (an internal address), and "connection
// refused by 127.0.0.1:8080" rather than Go's "dial tcp …: connect: …".
func unreachable(err error) string {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		why := dns.Err
		if dns.IsNotFound {
			why = "no such host"
		} else if dns.IsTimeout {
			why = "the lookup timed out"
		}
		return fmt.Sprintf("cannot resolve host %s: %s", dns.Name, why)
	}
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "dial" {
		return ""
	}
	addr := ""
	if oe.Addr != nil {
		addr = oe.Addr.String()
	}
	var errno syscall.Errno
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused by " + addr
	case errors.As(err, &errno):
		return fmt.Sprintf("cannot connect to %s: %v", addr, errno)
	}
	return ""
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func mediaType(v string) string {
	if v == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(v)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(strings.Split(v, ";")[0]))
	}
	return mt
}

// toUTF8 decodes a page in another charset (from the Content-Type header,
// a BOM or a <meta charset>) to UTF-8, as the parsers expect.
func toUTF8(body []byte, contentType string) []byte {
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if name == "utf-8" || enc == nil {
		return body
	}
	// DetermineEncoding looks at the first 1,024 bytes only, and when they
	// are plain ASCII with no charset anywhere it guesses windows-1252, so
	// a UTF-8 page's later accents came out as mojibake. A body that is
	// valid UTF-8 as a whole, and was not labelled otherwise by its
	// header or byte-order mark, is UTF-8.
	if !certain && utf8.Valid(body) {
		return body
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return body
	}
	return out
}
