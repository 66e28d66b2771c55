// Package pgtest starts a throwaway PostgreSQL cluster for a test: Debian's
// PostgreSQL 15 binaries, initdb into a fresh temporary directory, a free
// loopback port, stopped and removed when the test ends. Tests of the team
// gateway run against this real server, never a fake one.
package pgtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// BinDir holds initdb and pg_ctl: Debian's postgresql-15 package, which
// scripts/setup.sh installs.
var BinDir = "/usr/lib/postgresql/15/bin"

// Superuser is the cluster's one role; trust authentication on loopback,
// so URLs carry no password.
const Superuser = "hark"

// Cluster is a running throwaway cluster.
type Cluster struct {
	Port    int
	dir     string
	asUser  []string // runuser argv when we are root
	stopped bool
}

// URL is a postgres:// URL of the cluster's "postgres" database.
func (c *Cluster) URL() string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres?sslmode=disable", Superuser, c.Port)
}

// Start starts a cluster for t and stops and removes it at t's end. The
// binaries missing is a failure, not a skip: CI installs them, and a test
// that silently does not run proves nothing.
func Start(t testing.TB) *Cluster {
	t.Helper()
	c, err := Run()
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("stop PostgreSQL: %v", err)
		}
	})
	return c
}

// Run starts a cluster outside a test (the benchmarks under bench/); the
// caller stops it with Stop, which also removes its directory.
func Run() (*Cluster, error) {
	for _, b := range []string{"initdb", "pg_ctl"} {
		if _, err := os.Stat(filepath.Join(BinDir, b)); err != nil {
			return nil, fmt.Errorf("PostgreSQL 15 is not installed (%s missing): run scripts/setup.sh", filepath.Join(BinDir, b))
		}
	}
	// Not t.TempDir(): its parents are private to the test's user, and
	// PostgreSQL runs as the unprivileged postgres user when we are root.
	dir, err := os.MkdirTemp("", "hark-pg-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir}
	if err := c.start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start() error {
	// initdb and postgres refuse to run as root.
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return fmt.Errorf("running as root, PostgreSQL needs the unprivileged postgres user (%v): run scripts/setup.sh", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(c.dir, uid, gid); err != nil {
			return err
		}
		c.asUser = []string{runuser(), "-u", "postgres", "--"}
	}
	data := filepath.Join(c.dir, "data")
	if err := c.run("initdb", "-D", data, "-A", "trust", "-U", Superuser, "--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
		return err
	}
	logFile := filepath.Join(c.dir, "log")
	// The free port may be taken between our probe and the server's bind;
	// try a few.
	var lastErr error
	for range 3 {
		port, err := freePort()
		if err != nil {
			return err
		}
		opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200", port, c.dir)
		lastErr = c.run("pg_ctl", "-D", data, "-l", logFile, "-o", opts, "-w", "-t", "30", "start")
		if lastErr == nil {
			c.Port = port
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	log, _ := os.ReadFile(logFile)
	return fmt.Errorf("start PostgreSQL: %v\nserver log:\n%s", lastErr, log)
}

// Stop stops the cluster at once and removes its directory. A test may
// stop it early (to see what a gateway does without its database); the
// cleanup's Stop is then a no-op.
func (c *Cluster) Stop() error {
	if c.stopped {
		return nil
	}
	c.stopped = true
	err := c.run("pg_ctl", "-D", filepath.Join(c.dir, "data"), "-m", "immediate", "-w", "stop")
	os.RemoveAll(c.dir)
	return err
}

// Halt stops the server at once, as a crash or a lost network would,
// keeping its data for Resume.
func (c *Cluster) Halt() error {
	return c.run("pg_ctl", "-D", filepath.Join(c.dir, "data"), "-m", "immediate", "-w", "stop")
}

// Resume starts a halted server again on its port.
func (c *Cluster) Resume() error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200", c.Port, c.dir)
	return c.run("pg_ctl", "-D", filepath.Join(c.dir, "data"), "-l", filepath.Join(c.dir, "log"), "-o", opts, "-w", "-t", "30", "start")
}

func (c *Cluster) run(name string, args ...string) error {
	argv := append(append(c.asUser[:len(c.asUser):len(c.asUser)], filepath.Join(BinDir, name)), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v\n%s", name, err, out.Bytes())
	}
	return nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// runuser is util-linux's runuser: from PATH, else where Debian keeps it
// (/usr/sbin, which a root shell's PATH has and a minimal one may not).
func runuser() string {
	if p, err := exec.LookPath("runuser"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/runuser", "/sbin/runuser"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "runuser"
}

// shared is the cluster of a test binary that Main runs: started at the
// first Fresh, stopped when the tests end.
var shared struct {
	mu      sync.Mutex
	cluster *Cluster
	err     error
	n       int
}

// Main runs a package's tests (call it from TestMain) with one cluster
// shared by their Fresh databases, started when the first asks for it and
// stopped at the end. A cluster costs a second or two to start; a
// database in it, tens of milliseconds.
func Main(m *testing.M) {
	code := m.Run()
	StopShared()
	os.Exit(code)
}

// StopShared stops the shared cluster, if Fresh started one: for a
// TestMain that does more than Main.
func StopShared() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if c := shared.cluster; c != nil {
		if err := c.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: stop the shared cluster: %v\n", err)
		}
		shared.cluster = nil
	}
}

// Fresh is a postgres:// URL of a new, empty database of its own in the
// test binary's shared cluster (see Main), dropped when the test ends. A
// test that stops its server takes a cluster of its own (Start).
func Fresh(t testing.TB) string {
	t.Helper()
	shared.mu.Lock()
	if shared.cluster == nil && shared.err == nil {
		shared.cluster, shared.err = Run()
	}
	c, err := shared.cluster, shared.err
	shared.n++
	name := fmt.Sprintf("t%d", shared.n)
	shared.mu.Unlock()
	if err != nil {
		t.Fatalf("%v", err)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.URL())
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, c.URL())
		if err != nil {
			return // the cluster stopped: nothing to drop
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: drop %s: %v", name, err)
		}
	})
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", Superuser, c.Port, name)
}
