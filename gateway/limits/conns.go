package limits

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// ClientListener caps the open connections of each client address: the
// one limit that acts before any request is read, so it wraps the
// listener rather than a handler. A connection over the cap gets a 503
// envelope and is closed, so one client cannot hold every descriptor.
func ClientListener(ln net.Listener, max int) net.Listener {
	return &clientListener{Listener: ln, max: max, open: map[string]int{}}
}

type clientListener struct {
	net.Listener
	max int

	mu   sync.Mutex
	open map[string]int
}

func (l *clientListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		host := clientHost(c.RemoteAddr())
		l.mu.Lock()
		over := l.open[host] >= l.max
		if !over {
			l.open[host]++
		}
		l.mu.Unlock()
		if over {
			go refuseConn(c, l.max)
			continue
		}
		return &clientConn{Conn: c, release: func() { l.release(host) }}, nil
	}
}

func (l *clientListener) release(host string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[host]--; l.open[host] <= 0 {
		delete(l.open, host)
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

// refuseConn answers a connection over the cap with a 503 envelope.
func refuseConn(c net.Conn, max int) {
	defer c.Close()
	body := fmt.Sprintf(`{"code":503,"message":"too many connections from your address: %d at most (max_conns_per_client); retry after 1 s","data":null,"trace_id":""}`+"\n", max)
	c.SetWriteDeadline(time.Now().Add(time.Second))
	io.WriteString(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: "+
		strconv.Itoa(len(body))+"\r\n\r\n"+body)
}

// clientConn gives its slot back once, when closed.
type clientConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *clientConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
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
