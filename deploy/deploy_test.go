package deploy

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"hark/api"
	"hark/gateway/embedded"
)

// The unit parses and names what it runs: systemd-analyze verify, where
// systemd's tools are installed (they are on Debian), on an instance of
// the template; only the binary's path is the test's.
func TestSystemdUnit(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed")
	}
	unit, err := os.ReadFile(filepath.Join("systemd", "hark@.service"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ExecStart=/usr/local/bin/hark serve ", "--listen 127.0.0.1:%i", "--ops-listen 127.0.0.1:1%i", "KillSignal=SIGTERM", "User=hark"} {
		if !strings.Contains(string(unit), want) {
			t.Errorf("the unit lacks %q", want)
		}
	}
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(string(unit), "/usr/local/bin/hark", self, 1)
	if err := os.WriteFile(filepath.Join(dir, "hark@.service"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("hark@.service", filepath.Join(dir, "hark@8801.service")); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", "--man=no", filepath.Join(dir, "hark@8801.service")).CombinedOutput()
	if err != nil || strings.Contains(string(out), "hark@") {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// nginx is Debian's nginx; scripts/setup.sh installs it. Missing, the test
// fails rather than skip: a test that silently does not run proves
// nothing.
func nginx(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/sbin/nginx", "nginx"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	t.Fatal("nginx is not installed: run scripts/setup.sh")
	return ""
}

// selfSigned writes a certificate and key for 127.0.0.1 into dir.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "hark test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile = filepath.Join(dir, "hark.pem"), filepath.Join(dir, "hark.key")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// The shipped nginx configuration, in a real nginx on loopback, in front
// of a real gateway: REST calls and their envelopes pass, a WebSocket TTS
// stream upgrades and streams audio, the gateway's 413 and 401 reach the
// client as the gateway wrote them, and the operator's routes stay
// inside. Only the addresses and the certificate are the test's.
func TestNginxConfig(t *testing.T) {
	bin := nginx(t)
	gw, err := embedded.Start(context.Background(), t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Stop()
	upstream := strings.TrimPrefix(gw.URL, "http://")

	// A prefix nginx's workers may read (t.TempDir's parents are private
	// to the test's user; as root, nginx's workers are another).
	dir, err := os.MkdirTemp("", "hark-nginx-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	certFile, keyFile, pool := selfSigned(t, dir)
	conf, err := os.ReadFile(filepath.Join("nginx", "hark.conf"))
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	body := string(conf)
	servers := regexp.MustCompile(`(?m)^\s*server 127\.0\.0\.1:88\d\d .*\n`)
	if n := len(servers.FindAllString(body, -1)); n != 3 {
		t.Fatalf("the upstream has %d replicas, want the three of docs/deploy.md", n)
	}
	body = servers.ReplaceAllString(body, "")
	body = strings.Replace(body, "keepalive 32;", "server "+upstream+";\n    keepalive 32;", 1)
	for old, repl := range map[string]string{
		"listen 443 ssl;":                        fmt.Sprintf("listen 127.0.0.1:%d ssl;", port),
		"ssl_certificate     /etc/ssl/hark.pem;": "ssl_certificate " + certFile + ";",
		"ssl_certificate_key /etc/ssl/hark.key;": "ssl_certificate_key " + keyFile + ";",
	} {
		if !strings.Contains(body, old) {
			t.Fatalf("the configuration lacks %q", old)
		}
		body = strings.Replace(body, old, repl, 1)
	}
	os.WriteFile(filepath.Join(dir, "hark.conf"), []byte(body), 0o644)
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;"
	}
	main := fmt.Sprintf(`%s
worker_processes 1;
pid %s/nginx.pid;
error_log %s/error.log;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path %[2]s/body;
    proxy_temp_path %[2]s/proxy;
    fastcgi_temp_path %[2]s/fastcgi;
    uwsgi_temp_path %[2]s/uwsgi;
    scgi_temp_path %[2]s/scgi;
    include %[2]s/hark.conf;
}
`, user, dir, dir)
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(main), 0o644)
	if out, err := exec.Command(bin, "-t", "-p", dir, "-c", filepath.Join(dir, "nginx.conf")).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"), "-g", "daemon off;")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt) // fast shutdown of this nginx, by its pid
		cmd.Wait()
	}()
	base := fmt.Sprintf("https://127.0.0.1:%d", port)
	tlsConf := &tls.Config{RootCAs: pool}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConf}, Timeout: 30 * time.Second}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := hc.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx did not proxy /healthz:\n%s", log)
		}
	}
	call := func(method, path, key string, body io.Reader) (int, http.Header, api.Envelope) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, body)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		var env api.Envelope
		json.NewDecoder(resp.Body).Decode(&env)
		return resp.StatusCode, resp.Header, env
	}

	// REST, with the gateway's headers.
	status, h, env := call("GET", api.PathTools, gw.APIKey, nil)
	if status != 200 || env.Code != 200 || h.Get("X-Trace-Id") == "" || h.Get("X-Credits-Used") == "" {
		t.Fatalf("tool list through nginx: %d %+v %v", status, env, h)
	}
	if status, h, env = call("GET", api.PathTools, "hark_wrong", nil); status != 401 || env.Code != 401 || h.Get("WWW-Authenticate") == "" {
		t.Fatalf("a bad key through nginx: %d %+v", status, env)
	}
	// A body over the gateway's bound and under nginx's: the gateway's 413.
	big := strings.NewReader(`{"inputs":{"query":"` + strings.Repeat("x", 17<<20) + `"}}`)
	if status, _, env = call("POST", fmt.Sprintf(api.PathInvokeFmt, api.ToolSearch), gw.APIKey, big); status != 413 || !strings.Contains(env.Message, "request body exceeds") {
		t.Fatalf("a 17 MiB body through nginx: %d %+v", status, env)
	}
	// The operator's routes stay inside.
	for _, p := range []string{"/readyz", "/metrics"} {
		if resp, err := hc.Get(base + p); err != nil || resp.StatusCode != 404 {
			t.Errorf("%s through nginx: %v %v", p, resp.StatusCode, err)
		}
	}

	// A TTS stream: the upgrade passes, audio frames come, then the final.
	var voices []api.Voice
	status, _, env = call("GET", "/v1/openapi/third-party-service/voice/"+api.DefaultProvider+"/voices", gw.APIKey, nil)
	if status != 200 || json.Unmarshal(env.Data, &voices) != nil || len(voices) == 0 {
		t.Fatalf("voices through nginx: %d %s", status, env.Message)
	}
	d := websocket.Dialer{TLSClientConfig: tlsConf, HandshakeTimeout: 10 * time.Second}
	conn, resp, err := d.Dial("wss"+strings.TrimPrefix(base, "https")+api.PathTTSStream, http.Header{"Authorization": {"Bearer " + gw.APIKey}})
	if err != nil {
		t.Fatalf("TTS stream through nginx: %v (%v)", err, resp)
	}
	defer conn.Close()
	if err := conn.WriteJSON(api.TTSRequest{Provider: api.DefaultProvider, Text: "Hello from behind the proxy.", VoiceCode: voices[0].Value}); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	audio := 0
	for {
		mt, data, err := conn.ReadMessage()
		if err != nil {
			t.Fatalf("the stream broke after %d bytes of audio: %v", audio, err)
		}
		if mt == websocket.BinaryMessage {
			audio += len(data)
			continue
		}
		var f api.TTSFinalFrame
		if json.Unmarshal(data, &f) == nil && f.IsFinal {
			if f.Error != "" || audio < 1000 {
				t.Fatalf("final frame %+v after %d bytes of audio", f, audio)
			}
			break
		}
	}
}

// The image's build steps are the README's (set up, then go install .),
// so that what the README promises is what the image runs; it serves
// with the operator's routes beside. The image itself is not built here:
// no container engine runs in CI.
func TestDockerfileBuildsAsTheREADME(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	first := regexp.MustCompile("(?s)```sh\n([^\n]*)\n").FindSubmatch(readme)
	install := regexp.MustCompile("To have a `hark` command, `(go install [^`]*)` after the\\s+set-up").FindSubmatch(readme)
	if first == nil || install == nil {
		t.Fatal("the README no longer says how hark is set up and installed; update this test with it")
	}
	setup, _, _ := strings.Cut(string(first[1]), "&&")
	want := []string{strings.TrimSpace(setup), string(install[1])}
	docker, err := os.ReadFile(filepath.Join("..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, l := range strings.Split(string(docker), "\n") {
		if cmd, ok := strings.CutPrefix(l, "RUN "); ok {
			runs = append(runs, strings.TrimSpace(cmd))
		}
	}
	if len(runs) < 2 || runs[0] != want[0] || runs[1] != want[1] {
		t.Fatalf("the Dockerfile's first steps %q, want the README's %q", runs, want)
	}
	for _, w := range []string{`"hark", "serve"`, `"--ops-listen", "0.0.0.0:9464"`, "EXPOSE 8787 9464", "USER hark", "STOPSIGNAL SIGTERM"} {
		if !strings.Contains(string(docker), w) {
			t.Errorf("the Dockerfile lacks %s", w)
		}
	}
}
