package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"hark/api"
	"hark/api/apitest"
	"hark/audio/wav"
	"hark/library"
)

// Every row of docs/cli.md's exit-code table, from the errors that give
// it. The end-to-end tests (TestExitCodes, TestUsageErrors, the library
// and index tests) run the same rows through commands.
func TestExitCodeTable(t *testing.T) {
	t.Parallel()
	timeout := &net.OpError{Op: "read", Err: timeoutErr{}}
	for _, tc := range []struct {
		row  int
		name string
		err  error
	}{
		{exitOK, "success", nil},
		{exitUsage, "hark's own check", usagef("input max_results: must be between 1 and 20, got 50")},
		{exitUsage, "cobra's flag error", errors.New("unknown flag: --nope")},
		{exitUsage, "input refused, HTTP 400", &api.Error{HTTPStatus: 400, Message: "start_date: bad"}},
		{exitUsage, "input refused, code 422", &api.Error{HTTPStatus: 200, Code: 422, Message: "query: empty"}},
		{exitUsage, "input refused in a stream's error frame", &api.StreamError{Message: "invalid speech_rate: must be -500 to 500"}},
		{exitUsage, "a file or URL named that hark cannot use", targetError{errors.New("index /etc/passwd: not an HTML, markdown or text file")}},
		{exitUsage, "a file that does not exist", fmt.Errorf("stt: %w", &fs.PathError{Op: "open", Path: "/x.wav", Err: fs.ErrNotExist})},
		{exitUsage, "a file that cannot be written", fmt.Errorf("tts: %w", &fs.PathError{Op: "write", Path: "/x.wav", Err: fs.ErrPermission})},
		{exitAuth, "HTTP 401", &api.Error{HTTPStatus: 401, Message: "invalid API key"}},
		{exitAuth, "code 403", &api.Error{HTTPStatus: 200, Code: 403, Message: "forbidden"}},
		{exitAuth, "vendor credentials not configured", &api.Error{HTTPStatus: 200, Code: 500, Message: api.MsgCredentialsMissing}},
		{exitGateway, "vendor failure", &api.Error{HTTPStatus: 200, Code: 502, Message: "Acme API request failed: down"}},
		{exitGateway, "429", &api.Error{HTTPStatus: 429, Message: "slow down"}},
		{exitGateway, "a broken stream", &api.StreamError{Message: "connection broken before the final frame"}},
		{exitGateway, "an unreachable gateway", &net.OpError{Op: "dial", Err: errors.New("connection refused")}},
		{exitGateway, "an answer hark cannot read", fmt.Errorf("voices of x: %w", func() error { _, err := api.DecodeVoices([]byte("42")); return err }())},
		{exitGateway, "a gateway error no other rule names", fromGateway(errors.New("stt stream: the server ended the stream"))},
		{exitGateway, "a site hark index cannot read", upstreamError{errors.New("index http://a/: HTTP status 500")}},
		{exitTimeout, "research wait timeout", fmt.Errorf("invoke: %w", api.ErrResearchTimeout)},
		{exitTimeout, "HTTP 504", &api.Error{HTTPStatus: 504, Message: "upstream timeout"}},
		{exitTimeout, "code 408", &api.Error{HTTPStatus: 200, Code: 408, Message: "timeout"}},
		{exitTimeout, "a call that timed out", fmt.Errorf("invoke: %w", context.DeadlineExceeded)},
		{exitTimeout, "a stream that timed out", &api.StreamError{Message: "no frame for 1m0s", Err: timeout}},
		{exitLibrary, "the library damaged", libraryError{errors.New("library x is damaged")}},
		{exitLibrary, "gateway.db damaged", dataError{errors.New("open gateway database x: not a database")}},
		{exitInterrupted, "Ctrl-C during a call", fmt.Errorf("invoke: %w", context.Canceled)},
		// A stream cut by Ctrl-C is a StreamError wrapping Canceled:
		// it exited 4.
		{exitInterrupted, "Ctrl-C during a stream", &api.StreamError{Message: "cancelled", Err: context.Canceled}},
		{exitInterrupted, "anything after Ctrl-C", interruptedError{errors.New("index: no page could be read")}},
	} {
		if got := exitCode(tc.err); got != tc.row {
			t.Errorf("%s (%v): exit %d, want %d", tc.name, tc.err, got, tc.row)
		}
	}
	// Exit 1 is left for what hark did not expect.
	if got := exitCode(errors.New("something hark never planned for")); got != exitFailure {
		t.Errorf("an unexpected error: exit %d, want %d", got, exitFailure)
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// cancelWhen cancels ctx once ready reports true (or after 10 s, so the
// test ends either way): the command is then interrupted mid-way.
func cancelWhen(ready func() bool) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for deadline := time.Now().Add(10 * time.Second); !ready() && time.Now().Before(deadline) && ctx.Err() == nil; {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond) // let the stream get under way
		cancel()
	}()
	return ctx, cancel
}

// Ctrl-C on a stream exits 130, not 4: the cut stream's error is a
// StreamError, which was matched first.
func TestInterruptedStreamsExit130(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	s.ScriptTTS(apitest.TTSScript{Chunks: [][]byte{{1, 2}, {3, 4}}, Stall: true})
	ctx, cancel := cancelWhen(func() bool { return s.Count(api.PathTTSStream) > 0 })
	defer cancel()
	file := filepath.Join(t.TempDir(), "x.wav")
	code, _, errs := harkCtx(t, ctx, s, "", "tts", "--voice", "alice", "--stream", "-o", file, "a long text")
	if code != exitInterrupted {
		t.Errorf("tts --stream interrupted: exit %d, want 130; stderr %q", code, errs)
	}

	s.ScriptSTT(apitest.STTScript{NoCloseReply: true})
	ctx, cancel = cancelWhen(func() bool { return s.Count(api.PathSTTStream) > 0 })
	defer cancel()
	audio := filepath.Join(t.TempDir(), "long.wav")
	os.WriteFile(audio, make([]byte, 40000), 0o600)
	code, _, errs = harkCtx(t, ctx, s, "", "stt", "--stream", audio)
	if code != exitInterrupted {
		t.Errorf("stt --stream interrupted: exit %d, want 130; stderr %q", code, errs)
	}
}

// hark index: a file that is not a page is the caller's mistake (2); a
// site that cannot be reached is the far side's (4). Both exited 1.
func TestIndexExitCodes(t *testing.T) {
	data := t.TempDir()
	notAPage := filepath.Join(t.TempDir(), "passwd")
	os.WriteFile(notAPage, []byte("root:x:0:0:root:/root:/bin/bash\n"), 0o644)
	code, _, errs := hark(t, nil, "", "--data-dir", data, "index", notAPage)
	// The command line was right: no "Run 'hark --help'" after it.
	if code != exitUsage || !strings.Contains(errs, "not an HTML, markdown or text file") || strings.Contains(errs, "0 pages indexed") || strings.Contains(errs, "--help") {
		t.Errorf("index of a file that is not a page: %d %q, want 2", code, errs)
	}
	code, _, errs = hark(t, nil, "", "--data-dir", data, "index", "ftp://example.com/")
	if code != exitUsage {
		t.Errorf("index ftp://: %d %q, want 2", code, errs)
	}
	closed := closedAddr(t)
	code, _, errs = hark(t, nil, "", "--data-dir", data, "index", "--allow-private", "http://"+closed+"/")
	if code != exitGateway || !strings.Contains(errs, "connection refused") {
		t.Errorf("index of a site that refuses connections: %d %q, want 4", code, errs)
	}
	t.Setenv("HARK_ALLOW_PRIVATE", "")
	code, _, errs = hark(t, nil, "", "--data-dir", data, "index", "http://"+closed+"/")
	if code != exitUsage || !strings.Contains(errs, "--allow-private") {
		t.Errorf("index of loopback without --allow-private: %d %q, want 2 with the hint", code, errs)
	}
}

// extract: every URL failed is exit 4, in every output form; some
// failed is 0, with the failures on stderr.
func TestExtractFailures(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	for _, form := range [][]string{nil, {"--json"}, {"--jsonl"}} {
		args := append(append([]string{"extract"}, form...), "https://a.example/fail")
		code, _, errs := hark(t, s, "", args...)
		if code != exitGateway || !strings.Contains(errs, "extract: the URL could not be read") {
			t.Errorf("%v: %d %q, want 4", args, code, errs)
		}
	}
	code, _, errs := hark(t, s, "", "extract", "https://a.example/fail", "https://b.example/fail")
	if code != exitGateway || !strings.Contains(errs, "none of the 2 URLs could be read") || !strings.Contains(errs, "extract https://b.example/fail failed: fetch failed") {
		t.Errorf("two failed: %d %q, want 4 naming each", code, errs)
	}
	code, out, errs := hark(t, s, "", "extract", "https://a.example/ok", "https://b.example/fail")
	if code != exitOK || !strings.Contains(out, "== https://a.example/ok ==") || !strings.Contains(errs, "extract https://b.example/fail failed") {
		t.Errorf("one of two failed: %d %q %q, want 0 with the failure on stderr", code, out, errs)
	}
}

// closedAddr returns a loopback address where nothing listens, and keeps
// it so for the test's life: the port is bound by a socket that never
// listens, so connecting is refused, and no other listener (an embedded
// gateway another command started) can be given the same port meanwhile.
// A port merely freed by Close can be handed out again at once, and the
// "unreachable" gateway then answered 401.
func closedAddr(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
}

// runOnce runs one command line as Run does, without the client's
// retries (an unreachable gateway would otherwise cost seconds a
// command), and returns the exit code.
func runOnce(ctx context.Context, args []string) (int, string) {
	var out, errb bytes.Buffer
	a := &App{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, begun: time.Now(), lastPhase: time.Now(),
		retry: api.RetryPolicy{MaxAttempts: 1, ResearchMaxAttempts: 1}}
	defer a.close()
	root := newRootCmd(a)
	root.SetArgs(args)
	root.SetIn(a.stdin)
	root.SetOut(&out)
	root.SetErr(&errb)
	err := root.ExecuteContext(ctx)
	if err != nil {
		errb.WriteString("hark: " + errorText(err))
	}
	return exitCode(err), errb.String()
}

// sweepArgs lists every command hark has, as a command line that gets it
// past its own checks to the gateway, a site or a file (some twice: a
// stream, --jsonl, -o). A command missing here fails the test: add it.
func sweepArgs(dir, site string) map[string][]string {
	wavFile, doc := filepath.Join(dir, "in.wav"), filepath.Join(dir, "doc.md")
	return map[string][]string{
		"tools":                 {"tools"},
		"invoke":                {"invoke", "vendor_search", "-i", "query=x"},
		"search":                {"search", "zebra"},
		"search --jsonl":        {"search", "--jsonl", "zebra"},
		"search --dictate":      {"search", "--dictate", wavFile},
		"extract":               {"extract", "https://a.example/"},
		"crawl":                 {"crawl", "https://a.example/"},
		"map":                   {"map", "https://a.example/"},
		"research":              {"research", "why"},
		"research -o":           {"research", "-o", filepath.Join(dir, "r.md"), "why"},
		"voices":                {"voices"},
		"tts":                   {"tts", "-o", filepath.Join(dir, "x.wav"), "hello"},
		"tts --stream":          {"tts", "--stream", "--voice", "alice", "-o", filepath.Join(dir, "y.wav"), "hello"},
		"stt":                   {"stt", wavFile},
		"stt --stream":          {"stt", "--stream", wavFile},
		"audition":              {"audition", "--voices", "alice", "hello"},
		"demo":                  {"demo", filepath.Join(dir, "deck.toml"), "-o", filepath.Join(dir, "deck.wav")},
		"read":                  {"read", doc},
		"config":                {"config"},
		"serve":                 {"serve", "--listen", "127.0.0.1:notaport", "--config", filepath.Join(dir, "gateway.toml")},
		"serve keys add":        {"serve", "keys", "add", "--workspace", "local", "--config", filepath.Join(dir, "gateway.toml")},
		"serve keys list":       {"serve", "keys", "list", "--config", filepath.Join(dir, "gateway.toml")},
		"serve keys revoke":     {"serve", "keys", "revoke", "0123abcd", "--config", filepath.Join(dir, "gateway.toml")},
		"serve keys rotate":     {"serve", "keys", "rotate", "0123abcd", "--config", filepath.Join(dir, "gateway.toml")},
		"serve workspaces add":  {"serve", "workspaces", "add", "team", "--config", filepath.Join(dir, "gateway.toml")},
		"serve workspaces set":  {"serve", "workspaces", "set", "team", "--quota", "5", "--config", filepath.Join(dir, "gateway.toml")},
		"serve workspaces rm":   {"serve", "workspaces", "rm", "team", "--config", filepath.Join(dir, "gateway.toml")},
		"serve workspaces list": {"serve", "workspaces", "list", "--config", filepath.Join(dir, "gateway.toml")},
		"serve usage":           {"serve", "usage", "--config", filepath.Join(dir, "gateway.toml")},
		"index":                 {"index", "--allow-private", site},
		"library":               {"library"},
		"library list":          {"library", "list"},
		"library search":        {"library", "search", "zebra"},
		"library show":          {"library", "show", "1"},
		"library rm":            {"library", "rm", "1"},
		"library export":        {"library", "export", "1", "-o", filepath.Join(dir, "x.md")},
		"research verify":       {"research", "verify", "1"},
		"notes":                 {"notes"},
		"notes list":            {"notes", "list"},
		"notes add":             {"notes", "add", "1", "--quote", "x"},
		"notes rm":              {"notes", "rm", "1"},
		"notes export":          {"notes", "export", "--to", "zotero"},
		"watch":                 {"watch"},
		"watch add":             {"watch", "add", "https://a.example/"},
		"watch list":            {"watch", "list"},
		"watch rm":              {"watch", "rm", "0123456789abcdef"},
		"watch check":           {"watch", "check"},
		"watch diff":            {"watch", "diff", "0123456789abcdef"},
		"research --detach":     {"research", "--detach", "why"},
		"crawl --detach":        {"crawl", "--detach", "https://a.example/"},
		"jobs":                  {"jobs"},
		"jobs attach":           {"jobs", "attach", "0c5f3e1a-0000-4000-8000-000000000001"},
		"jobs cancel":           {"jobs", "cancel", "0c5f3e1a-0000-4000-8000-000000000001"},
	}
}

// gatewayCommands talk to the gateway: when it fails, they exit 4.
var gatewayCommands = []string{"tools", "invoke", "search", "search --jsonl", "search --dictate", "extract", "crawl", "map",
	"research", "research -o", "research --detach", "crawl --detach", "watch add", "watch list", "watch rm", "watch check", "watch diff", "jobs", "jobs attach", "jobs cancel", "voices", "tts", "tts --stream", "stt", "stt --stream", "audition", "demo", "read"}

// No command path exits 1 for a known kind of failure: a gateway that
// cannot be reached, that answers with something that is not the
// gateway's, or with data of the wrong shape, a site that cannot be
// read, a damaged library or index, Ctrl-C. Exit 1 is left for bugs.
func TestNoCommandExitsOne(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command several times")
	}
	// Every command of the tree is in the sweep.
	sweep := sweepArgs("", "")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasParent() && c.RunE != nil {
			path := strings.TrimPrefix(c.CommandPath(), "hark ")
			if _, ok := sweep[path]; !ok {
				t.Errorf("command %q is not in sweepArgs: add it", path)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(&App{}))
	names := make([]string, 0, len(sweep))
	for name := range sweep {
		names = append(names, name)
	}
	slices.Sort(names)

	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html>a captive portal, not a gateway</html>")
	}))
	defer garbage.Close()
	wrongShape := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"code": 200, "message": "ok", "data": 42, "trace_id": "t-1"}`)
	}))
	defer wrongShape.Close()
	unreachable := "http://" + closedAddr(t)

	interrupted, cancel := context.WithCancel(context.Background())
	cancel()
	for _, sc := range []struct {
		name, base string
		ctx        context.Context
		damaged    bool
		want       int // for gatewayCommands; 0: any code but 1
	}{
		{"unreachable gateway", unreachable, context.Background(), false, exitGateway},
		{"not a gateway", garbage.URL, context.Background(), false, exitGateway},
		{"data of the wrong shape", wrongShape.URL, context.Background(), false, exitGateway},
		{"damaged library and index", unreachable, context.Background(), true, 0},
		// The embedded gateway cannot open a damaged gateway.db: exit 6
		// for every command that calls it, as for index and serve.
		{"damaged index, embedded gateway", "", context.Background(), true, exitLibrary},
		{"Ctrl-C", unreachable, interrupted, false, exitInterrupted},
	} {
		t.Run(sc.name, func(t *testing.T) {
			dir, data := t.TempDir(), t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			t.Setenv("XDG_DATA_HOME", t.TempDir())
			t.Setenv("HARK_BASE_URL", sc.base)
			t.Setenv("HARK_API_KEY", "sk-test-000000")
			t.Setenv("HARK_AUDIO_SINK", "null")
			t.Setenv("HARK_VOICE", "")
			os.WriteFile(filepath.Join(dir, "in.wav"), append(wav.Header(16000, 3200), make([]byte, 3200)...), 0o644)
			os.WriteFile(filepath.Join(dir, "doc.md"), []byte("# Doc\n\nOne sentence to read.\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "deck.toml"), []byte("voice = \"alice\"\n[[line]]\ntext = \"Hello.\"\n"), 0o644)
			if sc.damaged {
				for _, f := range []string{library.File, "gateway.db"} {
					os.WriteFile(filepath.Join(data, f), bytes.Repeat([]byte("not a database "), 500), 0o600)
				}
			}
			sweep := sweepArgs(dir, "http://"+closedAddr(t)+"/")
			for _, name := range names {
				line := append([]string{"--data-dir", data}, sweep[name]...)
				code, errs := runOnce(sc.ctx, line)
				switch {
				case code == exitFailure:
					t.Errorf("hark %s: exit 1 (kept for bugs); stderr %q", strings.Join(line[2:], " "), errs)
				case sc.want != 0 && slices.Contains(gatewayCommands, name) && code != sc.want:
					t.Errorf("hark %s: exit %d, want %d; stderr %q", strings.Join(line[2:], " "), code, sc.want, errs)
				case !slices.Contains([]int{exitOK, exitUsage, exitAuth, exitGateway, exitTimeout, exitLibrary, exitInterrupted}, code):
					t.Errorf("hark %s: exit %d, not in the table", strings.Join(line[2:], " "), code)
				}
			}
		})
	}
}
