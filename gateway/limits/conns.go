package limits

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Connections are the one thing a client holds before any request is
// read, so their limits wrap the listener rather than a handler:
//
//   - a cap on every open connection at once, below the process's
//     descriptor limit, so that a flood of connections cannot take the
//     descriptors the database and the engines need;
//   - a cap per client address, so that one client cannot take the
//     whole of that;
//   - a short idle timeout for a connection that has not authenticated,
//     and, at the cap, such a connection idle for a while makes room for
//     a new one before any is refused.
//
// A connection refused at accept gets a 503 envelope and is closed.

// ConnLimits are a listener's connection caps. Zero fields are off.
type ConnLimits struct {
	// Max is every connection open at once (FDHeadroom sizes it from the
	// descriptor limit).
	Max int
	// PerClient is the connections of one client address.
	PerClient int
	// UnauthIdle is how long a connection may wait for its next request
	// while none of its requests has authenticated.
	UnauthIdle time.Duration
	// MaxHeaderBytes is the http.Server's: the 431 answer names it.
	MaxHeaderBytes int
}

// evictAfter is how long a connection must have been idle and
// unauthenticated before a new connection at the cap may close it: long
// enough that a client which has just connected gets to send its request.
const evictAfter = time.Second

// maxRefusing bounds the refusals being written at once; past it a
// connection over a cap is closed without an answer, so that refusing
// itself cannot take the descriptors it protects.
const maxRefusing = 64

// FDLimit is the process's limit of open descriptors (RLIMIT_NOFILE's
// soft limit; Go raises it to the hard limit at start), or 0 when it
// cannot be read or is unlimited.
func FDLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == 0 || rl.Cur > 1<<30 {
		return 0
	}
	return int(rl.Cur)
}

// FDHeadroom is the descriptors kept from connections for the rest of
// the process, of a descriptor limit: the database's connections (three
// files each for SQLite: the database, its WAL and its shared memory),
// the engines' processes and pipes, the fetcher's and crawler's own
// connections, logs and listeners. A quarter of the limit, and at least
// 128 and dbConns×3+64.
func FDHeadroom(limit, dbConns int) int {
	return max(limit/4, 128, 3*dbConns+64)
}

// Listener is a listener under ConnLimits. Give ConnState and
// ConnContext to the http.Server that serves it.
type Listener struct {
	net.Listener
	lim ConnLimits

	mu       sync.Mutex
	open     int
	byHost   map[string]int
	idle     map[*Conn]time.Time // unauthenticated and waiting for a request, since
	refusing int
}

// Listen caps ln's connections.
func Listen(ln net.Listener, lim ConnLimits) *Listener {
	return &Listener{Listener: ln, lim: lim, byHost: map[string]int{}, idle: map[*Conn]time.Time{}}
}

// Open is the number of connections open now.
func (l *Listener) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		host := clientHost(c.RemoteAddr())
		now := time.Now()
		l.mu.Lock()
		var refusal string
		var evict *Conn
		switch {
		case l.lim.PerClient > 0 && l.byHost[host] >= l.lim.PerClient:
			refusal = fmt.Sprintf("too many connections from your address: %d at most (max_conns_per_client); retry after 1 s", l.lim.PerClient)
		case l.lim.Max > 0 && l.open >= l.lim.Max:
			if evict = l.oldestIdleLocked(now); evict == nil {
				refusal = fmt.Sprintf("gateway at its connection limit: %d open at most (max_conns); retry after 1 s", l.lim.Max)
			} else {
				delete(l.idle, evict) // it is closed below; this one takes its place
			}
		}
		if refusal != "" {
			answer := l.refusing < maxRefusing
			if answer {
				l.refusing++
			}
			l.mu.Unlock()
			if !answer {
				c.Close()
				continue
			}
			go func() {
				refuseConn(c, refusal)
				l.mu.Lock()
				l.refusing--
				l.mu.Unlock()
			}()
			continue
		}
		l.open++
		l.byHost[host]++
		cc := &Conn{Conn: c, l: l, host: host, unauthIdle: l.lim.UnauthIdle}
		l.idle[cc] = now // no request yet
		l.mu.Unlock()
		if evict != nil {
			evict.Close()
		}
		return cc, nil
	}
}

// oldestIdleLocked is the connection idle and unauthenticated longest,
// for at least evictAfter, or nil.
func (l *Listener) oldestIdleLocked(now time.Time) *Conn {
	var oldest *Conn
	var since time.Time
	for c, t := range l.idle {
		if now.Sub(t) >= evictAfter && (oldest == nil || t.Before(since)) {
			oldest, since = c, t
		}
	}
	return oldest
}

func (l *Listener) release(c *Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.idle, c)
	l.open--
	if l.byHost[c.host]--; l.byHost[c.host] <= 0 {
		delete(l.byHost, c.host)
	}
}

// ConnState is the http.Server's hook: it starts an idle connection's
// short timeout when none of its requests has authenticated, and stops
// it when the next request begins.
func (l *Listener) ConnState(nc net.Conn, st http.ConnState) {
	c, ok := nc.(*Conn)
	if !ok || st == http.StateNew { // idle since Accept
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.idleTimer != nil {
		c.idleTimer.Stop()
		c.idleTimer = nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case st == http.StateIdle && !c.authed:
		l.idle[c] = time.Now()
		if c.unauthIdle > 0 {
			c.idleTimer = time.AfterFunc(c.unauthIdle, func() { c.Close() })
		}
	default:
		delete(l.idle, c)
	}
}

type connKey struct{}

// ConnContext is the http.Server's hook that lets a request's handlers
// reach its connection (Authenticated).
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if cc, ok := c.(*Conn); ok {
		return context.WithValue(ctx, connKey{}, cc)
	}
	return ctx
}

// Authenticated marks the connection of a request as one that sent a
// valid key: it keeps the ordinary idle timeout from then on.
func Authenticated(ctx context.Context) {
	if c, ok := ctx.Value(connKey{}).(*Conn); ok {
		c.mu.Lock()
		c.authed = true
		c.mu.Unlock()
	}
}

func clientHost(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// refuseConn answers a connection over a cap with a 503 envelope.
func refuseConn(c net.Conn, msg string) {
	defer c.Close()
	writeRaw(c, "503 Service Unavailable", "Retry-After: 1\r\n", 503, msg)
}

// writeRaw writes a whole response with an envelope body on a connection
// that net/http does not serve (or no longer does).
func writeRaw(w io.Writer, status, headers string, code int, msg string) {
	body := fmt.Sprintf(`{"code":%d,"message":%s,"data":null,"trace_id":""}`+"\n", code, strconv.Quote(msg))
	if c, ok := w.(net.Conn); ok {
		c.SetWriteDeadline(time.Now().Add(time.Second))
	}
	io.WriteString(w, "HTTP/1.1 "+status+"\r\nContent-Type: application/json; charset=utf-8\r\n"+headers+
		"Connection: close\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
}

// Conn is a connection of a Listener: it gives its place back once, when
// closed, and words net/http's own answer to headers over the limit.
type Conn struct {
	net.Conn
	l          *Listener
	host       string
	once       sync.Once
	unauthIdle time.Duration

	mu        sync.Mutex
	authed    bool
	idleTimer *time.Timer
}

func (c *Conn) Close() error {
	c.once.Do(func() {
		c.mu.Lock()
		if c.idleTimer != nil {
			c.idleTimer.Stop()
		}
		c.mu.Unlock()
		c.l.release(c)
	})
	return c.Conn.Close()
}

// headersTooLarge is what net/http writes, in one piece, to a connection
// whose request headers exceed http.Server.MaxHeaderBytes.
const headersTooLarge = "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large"

// Write passes writes through, except net/http's plain-text 431, which it
// answers as every other refusal is: an envelope naming the limit.
func (c *Conn) Write(p []byte) (int, error) {
	if c.l.lim.MaxHeaderBytes > 0 && len(p) == len(headersTooLarge) && string(p) == headersTooLarge {
		writeRaw(c.Conn, "431 Request Header Fields Too Large", "", 431, fmt.Sprintf(
			"request headers exceed %d bytes (max_header_bytes)", c.l.lim.MaxHeaderBytes))
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// SlowBody ends a request body that arrives slower than the limits allow:
// the whole body gets grace plus one second per rate bytes read, so a
// client dribbling a byte every few seconds is cut off within grace
// instead of holding its connection. A read past the deadline fails with
// an *Error of 408.
type SlowBody struct {
	io.ReadCloser
	rc    *http.ResponseController
	start time.Time
	grace time.Duration
	rate  int64
	n     int64
	done  bool
}

// NewSlowBody wraps r's body, to be read within grace plus a second per
// rate bytes; w is r's response, whose connection's deadline it sets.
func NewSlowBody(w http.ResponseWriter, r *http.Request, grace time.Duration, rate int64) *SlowBody {
	return &SlowBody{ReadCloser: r.Body, rc: http.NewResponseController(w), start: time.Now(), grace: grace, rate: rate}
}

// Drain reads and drops what is left of the body, at most limit bytes,
// and reports whether it ended.
func (b *SlowBody) Drain(limit int64) bool {
	if b.done {
		return true
	}
	_, err := io.CopyN(io.Discard, b, limit+1)
	return b.done && err == io.EOF
}

func (b *SlowBody) Read(p []byte) (int, error) {
	if b.done {
		return b.ReadCloser.Read(p)
	}
	deadline := b.start.Add(b.grace + time.Duration(b.n*int64(time.Second)/b.rate))
	b.rc.SetReadDeadline(deadline)
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	if err == io.EOF {
		b.done = true
		b.rc.SetReadDeadline(time.Time{}) // the connection reads the next request freely
	}
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return n, &Error{Status: http.StatusRequestTimeout, Limit: "slow_body", Msg: fmt.Sprintf(
			"request body too slow: %d bytes in %s; a body gets %s plus a second per %d bytes (body_timeout, body_min_rate)",
			b.n, time.Since(b.start).Round(time.Millisecond), b.grace, b.rate)}
	}
	return n, err
}
