package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/api/apitest"
)

// viewTap records the text of every frame the TUI draws.
type viewTap struct {
	tea.Model
	frames *frames
}

func (v viewTap) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := v.Model.Update(msg)
	return viewTap{m, v.frames}, cmd
}

func (v viewTap) View() tea.View {
	view := v.Model.View()
	if view.Content != "" {
		v.frames.add(ansi.Strip(view.Content))
	}
	return view
}

type frames struct {
	mu   sync.Mutex
	list []string
}

func (f *frames) add(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n := len(f.list); n == 0 || f.list[n-1] != s {
		f.list = append(f.list, s)
	}
}

func (f *frames) all() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.list...)
}

// waitFor polls until ok holds, failing after a long wait (the test is
// about order, never speed).
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); !ok(); {
		if time.Now().After(end) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// runTUIInBackground starts bare hark (the TUI) with no terminal, 80×24,
// in the environment the test set, and returns its frames and a stop
// function that quits it and returns the exit code and stderr.
func runTUIInBackground(t *testing.T) (*frames, func() (int, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	return runTUIWith(t, ctx, cancel, tea.WithoutSignals())
}

// runTUIWith is runTUIInBackground under ctx, which cancel ends.
func runTUIWith(t *testing.T, ctx context.Context, cancel func(), more ...tea.ProgramOption) (*frames, func() (int, string)) {
	t.Helper()
	f := &frames{}
	var errb bytes.Buffer
	a := newApp(strings.NewReader(""), &bytes.Buffer{}, &errb)
	a.hooks.tui = func(m tea.Model) (tea.Model, []tea.ProgramOption) {
		return viewTap{m, f}, append([]tea.ProgramOption{tea.WithInput(nil), tea.WithOutput(&bytes.Buffer{}), tea.WithWindowSize(80, 24)}, more...)
	}
	done := make(chan int, 1)
	go func() { done <- a.run(ctx, nil) }()
	var once sync.Once
	var code int
	// stop quits the TUI; -1 is a TUI that did not exit.
	stop := func() (int, string) {
		once.Do(func() {
			cancel()
			select {
			case code = <-done:
			case <-time.After(20 * time.Second):
				code = -1
			}
			outputsMu.Lock()
			outputs = append(outputs, errb.String())
			for _, fr := range f.all() {
				outputs = append(outputs, fr)
			}
			outputsMu.Unlock()
		})
		return code, errb.String()
	}
	t.Cleanup(func() { stop() })
	return f, stop
}

// gated serves s only once release is closed, counting the requests it
// answered.
func gated(t *testing.T, s *apitest.Server) (url string, release func(), answered *atomic.Int32) {
	t.Helper()
	ch := make(chan struct{})
	answered = &atomic.Int32{}
	g := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-ch:
		case <-r.Context().Done():
			return
		}
		answered.Add(1)
		s.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(g.Close)
	var once sync.Once
	return g.URL, func() { once.Do(func() { close(ch) }) }, answered
}

func isolate(t *testing.T) (dataDir string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	for _, k := range []string{"HARK_PROFILE", "HARK_PROVIDER", "HARK_VOICE", "HARK_OUTPUT_DIR", "HARK_DATA_DIR", "HARK_AUDIO_SINK", "HARK_CONFIG", "HARK_BASE_URL", "HARK_API_KEY"} {
		t.Setenv(k, "")
	}
	t.Setenv("HARK_LOG_LEVEL", "debug")
	t.Setenv("NO_COLOR", "1")
	return filepath.Join(os.Getenv("XDG_DATA_HOME"), "hark")
}

func readLog(dataDir string) string {
	b, _ := os.ReadFile(filepath.Join(dataDir, LogFile))
	return string(b)
}

// phaseRe reads one start-up line of hark.log.
var phaseRe = regexp.MustCompile(`msg=start-up phase="([^"]+)" at_ms=([0-9.]+)`)

// phases are the start-up phases of hark.log, in the order written.
func phases(log string) []string {
	var out []string
	for _, m := range phaseRe.FindAllStringSubmatch(log, -1) {
		out = append(out, m[1])
	}
	return out
}

// inOrder reports whether want appear in got in this order (others may
// come between).
func inOrder(got []string, want ...string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// The TUI draws its first frame (tab bar, status bar saying the tools are
// loading) before the gateway has answered anything; the tools arrive
// later, and every phase reaches hark.log in that order.
func TestFirstFrameBeforeGatewayAnswers(t *testing.T) {
	dataDir := isolate(t)
	s := apitest.New(t)
	url, release, answered := gated(t, s)
	t.Setenv("HARK_BASE_URL", url)
	t.Setenv("HARK_API_KEY", s.APIKey)
	f, stop := runTUIInBackground(t)

	waitFor(t, "the first frame", func() bool { return len(f.all()) > 0 })
	first := f.all()[0]
	if n := answered.Load(); n != 0 {
		t.Fatalf("the gateway answered %d requests before release", n)
	}
	lines := strings.Split(first, "\n")
	if !strings.Contains(lines[0], "1 Search") || !strings.Contains(lines[0], "Library") {
		t.Errorf("first frame has no tab bar:\n%s", first)
	}
	if status := lines[len(lines)-1]; !strings.Contains(status, "loading tools…") {
		t.Errorf("first frame's status bar does not say the tools are loading: %q", status)
	}
	waitFor(t, "the first frame in hark.log", func() bool { return strings.Contains(readLog(dataDir), `phase="first frame"`) })
	if strings.Contains(readLog(dataDir), `phase="tool list loaded"`) {
		t.Fatal("the tool list was loaded before the gateway answered")
	}

	release()
	waitFor(t, "the tool list", func() bool { return strings.Contains(readLog(dataDir), `phase="tool list loaded"`) })
	waitFor(t, "a frame without the loading state", func() bool {
		fs := f.all()
		return !strings.Contains(fs[len(fs)-1], "loading tools…")
	})
	if code, errs := stop(); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got := phases(readLog(dataDir))
	if !inOrder(got, "settings loaded", "first frame", "gateway connected", "tool list loaded") {
		t.Errorf("phases %q", got)
	}
}

// api_key_command runs while the TUI draws: the first frame does not wait
// for it, the key it prints is used, and it shows nowhere.
func TestKeyCommandDoesNotHoldBackFirstFrame(t *testing.T) {
	dataDir := isolate(t)
	s := apitest.New(t)
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	cfg := filepath.Join(dir, "config.toml")
	cmd := fmt.Sprintf("while [ ! -e %s ]; do sleep 0.01; done; echo %s; echo 'pinentry: unlocked' >&2", gate, apitest.Key)
	os.WriteFile(cfg, []byte(fmt.Sprintf("base_url = %q\napi_key_command = %q\n", s.URL, cmd)), 0o600)
	t.Setenv("HARK_CONFIG", cfg)
	f, stop := runTUIInBackground(t)

	waitFor(t, "the first frame", func() bool { return len(f.all()) > 0 })
	if first := f.all()[0]; !strings.Contains(first, "loading tools…") {
		t.Errorf("first frame does not say the tools are loading:\n%s", first)
	}
	if n := s.Count(api.PathTools); n != 0 {
		t.Fatalf("%d tool list requests before the key command ended", n)
	}
	os.WriteFile(gate, nil, 0o600)
	waitFor(t, "the tool list", func() bool { return strings.Contains(readLog(dataDir), `phase="tool list loaded"`) })
	code, errs := stop()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if got := s.Last(api.PathTools).Header.Get("Authorization"); got != "Bearer "+apitest.Key {
		t.Errorf("Authorization = %q", got)
	}
	log := readLog(dataDir)
	if got := phases(log); !inOrder(got, "settings loaded", "first frame", "api key command done", "tool list loaded") {
		t.Errorf("phases %q", got)
	}
	// The command's stderr goes to the log, not over the screen.
	if !strings.Contains(log, "pinentry: unlocked") || strings.Contains(errs, "pinentry") {
		t.Errorf("the key command's stderr: log %q, stderr %q", log, errs)
	}
	if strings.Contains(log, apitest.Key) {
		t.Errorf("the key is in hark.log:\n%s", log)
	}
}

// A key command that fails leaves the settings loaded; the command that
// needed the key fails with exit 2 and a message naming the setting, and
// a command that needs no key (the embedded gateway's) never runs it.
func TestKeyCommandFailureNamesTheSetting(t *testing.T) {
	isolate(t)
	s := apitest.New(t)
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("base_url = %q\napi_key_command = \"touch %s; echo sk-not-shown-12345; exit 3\"\n", s.URL, ran)), 0o600)
	t.Setenv("HARK_CONFIG", cfg)
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"tools"}, strings.NewReader(""), &out, &errb)
	outputsMu.Lock()
	outputs = append(outputs, out.String(), errb.String())
	outputsMu.Unlock()
	if code != exitUsage || !strings.Contains(errb.String(), "api_key_command: failed: exit status 3") || strings.Contains(errb.String(), "sk-not-shown") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
	if s.Count(api.PathTools) != 0 {
		t.Error("a request was sent without the key")
	}
	// hark config runs it, to show whether it works.
	out.Reset()
	code = Run(context.Background(), []string{"config"}, strings.NewReader(""), &out, &errb)
	outputsMu.Lock()
	outputs = append(outputs, out.String())
	outputsMu.Unlock()
	if code != 0 || !strings.Contains(out.String(), "(api_key_command: failed: exit status 3)") || strings.Contains(out.String(), "sk-not-shown") {
		t.Errorf("config: exit %d:\n%s", code, out.String())
	}
	if testing.Short() {
		return
	}
	// The embedded gateway makes its own key: the command is not run.
	t.Setenv("HARK_BASE_URL", "")
	os.WriteFile(cfg, []byte(fmt.Sprintf("api_key_command = \"touch %s; exit 3\"\n", ran)), 0o600)
	os.Remove(ran)
	errb.Reset()
	code = Run(context.Background(), []string{"tools"}, strings.NewReader(""), &out, &errb)
	if _, err := os.Stat(ran); code != 0 || err == nil {
		t.Errorf("embedded: exit %d, key command ran (%v): %s", code, err == nil, errb.String())
	}
}

// With the embedded gateway, the engines' first use is a phase of its own:
// listing voices lists the voice catalogue, a search opens the web index.
func TestEngineFirstUseLogged(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded gateway")
	}
	dataDir := isolate(t)
	var out, errb bytes.Buffer
	if code := Run(context.Background(), []string{"tools"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("tools: exit %d: %s", code, errb.String())
	}
	log := readLog(dataDir)
	if got := phases(log); !inOrder(got, "settings loaded", "embedded gateway listening") || strings.Contains(log, "voice catalogue") || strings.Contains(log, "web engine opened") {
		t.Errorf("hark tools: phases %q; the engines must not start for the tool list", got)
	}
	if code := Run(context.Background(), []string{"search", "tides"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("search: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(readLog(dataDir), `phase="web engine opened"`) {
		t.Errorf("hark search: no web engine phase:\n%s", readLog(dataDir))
	}
	_, errE := exec.LookPath("espeak-ng")
	_, errF := exec.LookPath("flite")
	if errE != nil && errF != nil {
		t.Skip("no TTS engine installed")
	}
	if code := Run(context.Background(), []string{"voices"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("voices: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(readLog(dataDir), `phase="voice catalogue listed"`) {
		t.Errorf("hark voices: no voice catalogue phase:\n%s", readLog(dataDir))
	}
}

// SIGTERM ends the TUI, as main turns it into the end of Run's context.
// Bubble Tea's own signal handler used to race that: having taken the
// signal, it blocked sending a quit message no one read any more, and
// hark never exited (about one SIGTERM in three on a pty).
func TestTUIExitsOnSIGTERM(t *testing.T) {
	isolate(t)
	s := apitest.New(t)
	t.Setenv("HARK_BASE_URL", s.URL)
	t.Setenv("HARK_API_KEY", s.APIKey)
	for i := range 10 {
		ctx, stopSignals := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		f, stop := runTUIWith(t, ctx, stopSignals)
		waitFor(t, "the first frame", func() bool { return len(f.all()) > 0 })
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		// The signal arrives asynchronously: stop listening only once it
		// has (with no listener left, SIGTERM would end the test binary).
		<-ctx.Done()
		code, errs := stop()
		if code == -1 {
			t.Fatalf("run %d: the TUI did not exit after SIGTERM", i)
		}
		if code != 0 {
			t.Fatalf("run %d: exit %d after SIGTERM: %s", i, code, errs)
		}
	}
}
