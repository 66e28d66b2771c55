package gateway

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/config"
)

// rawGet sends a GET on c (with key, if any) and reads the answer.
func rawGet(c net.Conn, path, key string) (*http.Response, string, error) {
	auth := ""
	if key != "" {
		auth = "Authorization: Bearer " + key + "\r\n"
	}
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n%s\r\n", path, auth)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return nil, "", err
	}
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body), nil
}

// closedByServer reports whether the server has closed c: a read ends
// with EOF (or a reset) before the deadline.
func closedByServer(c net.Conn, within time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(within))
	_, err := c.Read(make([]byte, 1))
	ne, ok := err.(net.Error)
	return err != nil && !(ok && ne.Timeout())
}

// A connection none of whose requests authenticated is closed after
// unauth_idle_timeout; one that sent a valid key keeps idle_timeout.
func TestUnauthenticatedConnectionIdlesOutSoon(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) {
		c.Limits.UnauthIdleTimeout = config.Duration(300 * time.Millisecond)
	})
	addr := strings.TrimPrefix(g.base, "http://")
	anon, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	keyed, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer keyed.Close()
	if resp, _, err := rawGet(anon, api.PathTools, ""); err != nil || resp.StatusCode != 401 {
		t.Fatalf("without a key: %v %v", resp, err)
	}
	if resp, _, err := rawGet(keyed, api.PathTools, g.key); err != nil || resp.StatusCode != 200 {
		t.Fatalf("with a key: %v %v", resp, err)
	}
	if !closedByServer(anon, 5*time.Second) {
		t.Error("the unauthenticated connection was kept past unauth_idle_timeout")
	}
	if closedByServer(keyed, time.Second) {
		t.Fatal("the authenticated connection was closed with the unauthenticated one")
	}
	if resp, _, err := rawGet(keyed, api.PathTools, g.key); err != nil || resp.StatusCode != 200 {
		t.Errorf("the authenticated connection, reused: %v %v", resp, err)
	}
}

// Request headers over max_header_bytes are answered 431 with an
// envelope naming the limit; headers within it are served.
func TestHeadersOverTheLimitAre431(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) { c.Limits.MaxHeaderBytes = 8 << 10 })
	addr := strings.TrimPrefix(g.base, "http://")
	send := func(headers int) (*http.Response, string) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var b strings.Builder
		fmt.Fprintf(&b, "GET %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n", api.PathTools, g.key)
		for i := range headers {
			fmt.Fprintf(&b, "X-Filler-%d: %s\r\n", i, strings.Repeat("a", 64))
		}
		b.WriteString("\r\n")
		go io.WriteString(c, b.String()) // the server may answer before it reads it all
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%d headers: %v", headers, err)
		}
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	if resp, body := send(20); resp.StatusCode != 200 {
		t.Errorf("20 headers (1.6 KB): %d %s", resp.StatusCode, body)
	}
	for _, n := range []int{200, 10000} { // 16 KB and 800 KB
		resp, body := send(n)
		if resp.StatusCode != 431 || !strings.Contains(body, `"code":431`) || !strings.Contains(body, "max_header_bytes") ||
			!strings.Contains(body, "8192") || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" {
			t.Errorf("%d headers: %d %q %s", n, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
}

// fdChildEnv marks the child process of TestConnectionsCappedBelowTheDescriptorLimit.
const fdChildEnv = "HARK_GATEWAY_FD_CHILD"

// fdChildLimit is the child's descriptor limit.
const fdChildLimit = 256

// A gateway whose process may open 256 descriptors meets 300 idle
// connections from three addresses: it accepts up to its cap (the limit
// less the headroom for the database and engines), answers the rest
// with a 503 envelope at accept, never runs out of descriptors, and
// serves a client with a key once the idle, unauthenticated connections
// have waited a second (the oldest makes room). The gateway runs in a
// child process with RLIMIT_NOFILE lowered.
func TestConnectionsCappedBelowTheDescriptorLimit(t *testing.T) {
	if os.Getenv(fdChildEnv) != "" {
		fdChild(t)
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestConnectionsCappedBelowTheDescriptorLimit$", "-test.v")
	cmd.Env = append(os.Environ(), fdChildEnv+"=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	sc := bufio.NewScanner(stdout)
	var base, key string
	maxConns := 0
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 4 && f[0] == "fd-child" {
			base, key = f[1], f[2]
			maxConns, _ = strconv.Atoi(f[3])
			break
		}
	}
	if base == "" {
		t.Fatalf("the child gateway did not start:\n%s", stderr.String())
	}
	if maxConns <= 0 || maxConns >= fdChildLimit {
		t.Fatalf("max conns %d with a descriptor limit of %d", maxConns, fdChildLimit)
	}
	addr := strings.TrimPrefix(base, "http://")
	_, port, _ := net.SplitHostPort(addr)

	var mu sync.Mutex
	var held []net.Conn
	refused, dropped, failed := 0, 0, 0
	var wg sync.WaitGroup
	for i := range 300 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+i%3))}, Timeout: 5 * time.Second}
			c, err := d.Dial("tcp", "127.0.0.1:"+port)
			if err != nil {
				mu.Lock()
				failed++
				mu.Unlock()
				return
			}
			c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				body, _ := io.ReadAll(resp.Body)
				if resp.StatusCode == 503 && resp.Header.Get("Retry-After") != "" && strings.Contains(string(body), "max_conns") {
					refused++
				} else {
					t.Errorf("an idle connection was answered %d %s", resp.StatusCode, body)
				}
				c.Close()
				return
			}
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				held = append(held, c) // accepted: held open, idle
				return
			}
			dropped++ // refused while 64 other refusals were being written
			c.Close()
		}()
	}
	wg.Wait()
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	t.Logf("300 idle connections: %d held, %d refused with 503, %d closed unanswered; cap %d", len(held), refused, dropped, maxConns)
	if len(held) > maxConns || refused == 0 || failed > 0 {
		t.Errorf("300 idle connections: %d held, %d refused with 503, %d closed unanswered, %d failed to connect; cap %d",
			len(held), refused, dropped, failed, maxConns)
	}
	// The idle connections have waited a second: a client with a key
	// takes the place of the oldest.
	time.Sleep(1100 * time.Millisecond)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if resp, body, err := rawGet(c, api.PathTools, key); err != nil || resp.StatusCode != 200 {
		t.Errorf("a client with a key, at the cap: %v %v %s", resp, err, body)
	}
	stdin.Close()
	cmd.Wait()
	if strings.Contains(stderr.String(), "too many open files") {
		t.Errorf("the gateway ran out of descriptors:\n%s", stderr.String())
	}
}

// fdChild lowers its descriptor limit, serves a gateway, prints its
// address, key and connection cap, and serves until stdin closes; then
// it prints the gateway's log on stderr.
func fdChild(t *testing.T) {
	lim := syscall.Rlimit{Cur: fdChildLimit, Max: fdChildLimit}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	g := startGateway(t, nil)
	fmt.Printf("fd-child %s %s %d\n", g.base, g.key, g.srv.MaxConns())
	io.Copy(io.Discard, os.Stdin)
	fmt.Fprintln(os.Stderr, g.logs.String())
}
