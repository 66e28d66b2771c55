package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/api/apitest"
	"hark/config"
	"hark/gateway/pgtest"
)

// outputs collects everything the commands printed, to check at the end
// that the key never appeared.
var (
	outputsMu sync.Mutex
	outputs   []string
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	if builtHarkDir != "" {
		os.RemoveAll(builtHarkDir)
	}
	for _, o := range outputs {
		if strings.Contains(o, apitest.Key) || strings.Contains(o, "sk-flag-secret-777777") {
			println("FAIL: an API key appeared in command output:\n" + o)
			code = 1
		}
	}
	os.Exit(code)
}

// hark runs one command line in-process against the loopback gateway s
// (nil: no gateway configured) and returns the exit code and output.
func hark(t *testing.T, s *apitest.Server, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return harkCtx(t, context.Background(), s, stdin, args...)
}

// harkCtx is hark with a context: cancelling it is Ctrl-C.
func harkCtx(t *testing.T, ctx context.Context, s *apitest.Server, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return harkApp(t, ctx, nil, s, stdin, args...)
}

// withEnv is a harkApp hook: these variables (name, value, ...) over the
// run's environment, as t.Setenv would set them for the process.
func withEnv(kv ...string) func(*hooks) {
	return func(h *hooks) {
		env := h.getenv
		h.getenv = func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return env(k)
		}
	}
}

// noGateway is a harkApp hook: no gateway configured, whatever the
// process's environment says, so hark starts its embedded one.
func noGateway(h *hooks) {
	env := h.getenv
	h.getenv = func(k string) string {
		if k == "HARK_BASE_URL" || k == "HARK_API_KEY" {
			return ""
		}
		return env(k)
	}
}

// harkApp is harkCtx with the App's test hooks set by hook (when not nil).
func harkApp(t *testing.T, ctx context.Context, hook func(*hooks), s *apitest.Server, stdin string, args ...string) (int, string, string) {
	t.Helper()
	// The run's own environment, over the process's: tests that set
	// none of their own (t.Setenv) can run in parallel.
	env := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "XDG_DATA_HOME": t.TempDir()}
	for _, k := range []string{"HARK_PROFILE", "HARK_PROVIDER", "HARK_VOICE", "HARK_OUTPUT_DIR", "HARK_DATA_DIR", "HARK_AUDIO_SINK", "HARK_CONFIG"} {
		env[k] = ""
	}
	if s != nil {
		env["HARK_BASE_URL"], env["HARK_API_KEY"] = s.URL, s.APIKey
	}
	var out, errb bytes.Buffer
	a := newApp(strings.NewReader(stdin), &out, &errb)
	a.hooks.getenv = func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	if hook != nil {
		hook(&a.hooks)
	}
	code := a.run(ctx, args)
	outputsMu.Lock()
	outputs = append(outputs, out.String(), errb.String())
	outputsMu.Unlock()
	return code, out.String(), errb.String()
}

func TestTools(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	code, out, errs := hark(t, s, "", "tools")
	if code != 0 || !strings.Contains(out, "vendor_research") || !strings.Contains(out, "max_results") || !strings.Contains(out, "range 1..20") {
		t.Fatalf("code %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = hark(t, s, "", "tools", "--json")
	var raw []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &raw) != nil || len(raw) != 5 || raw[0]["slug"] != "vendor_search" {
		t.Fatalf("--json: %d %s", code, out)
	}
}

func TestInvokeTypesInputs(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	code, out, errs := hark(t, s, "", "invoke", "vendor_search", "-i", "query=go lang", "-i", "max_results=3", "-i", "include_answer=true", "--json")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	var body struct{ Inputs map[string]any }
	json.Unmarshal(s.Last(apitest.InvokePath(api.ToolSearch)).Body, &body)
	if body.Inputs["query"] != "go lang" || body.Inputs["max_results"] != float64(3) || body.Inputs["include_answer"] != true {
		t.Errorf("inputs sent: %v", body.Inputs)
	}
	var res api.InvokeResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Tool != api.ToolSearch {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	so, _ := api.DecodeSearch(res.Output)
	if len(so.Results) != 3 || so.Answer == "" {
		t.Errorf("output %+v", so)
	}
	// Arrays: a comma list or JSON; raw JSON with :=.
	code, _, errs = hark(t, s, "", "invoke", "vendor_extract", "-i", "urls=[\"https://a\",\"https://b\"]", "-i", "format:=\"text\"")
	json.Unmarshal(s.Last(apitest.InvokePath(api.ToolExtract)).Body, &body)
	if urls, _ := body.Inputs["urls"].([]any); code != 0 || len(urls) != 2 || body.Inputs["format"] != "text" {
		t.Errorf("extract: %d %v %s", code, body.Inputs, errs)
	}
}

func TestInvokeInputsFromFileAndStdin(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	code, out, errs := hark(t, s, `{"inputs": {"url": "https://site"}}`, "invoke", "vendor_map")
	if code != 0 || !strings.Contains(out, "https://site/a") {
		t.Fatalf("stdin: %d %s %s", code, out, errs)
	}
	f := filepath.Join(t.TempDir(), "in.json")
	os.WriteFile(f, []byte(`{"input": "why is the sky blue", "model": "mini"}`), 0o600)
	code, out, errs = hark(t, s, "", "invoke", "vendor_research", "--file", f)
	if code != 0 || !strings.Contains(out, "# Report") || !strings.Contains(out, "why is the sky blue") || !strings.Contains(out, "Sources") {
		t.Fatalf("file: %d %s %s", code, out, errs)
	}
	// -i overrides the file.
	code, _, _ = hark(t, s, "", "invoke", "vendor_research", "--file", f, "-i", "model=pro")
	var body struct{ Inputs map[string]any }
	json.Unmarshal(s.Last(apitest.InvokePath(api.ToolResearch)).Body, &body)
	if code != 0 || body.Inputs["model"] != "pro" {
		t.Errorf("override: %v", body.Inputs)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"invoke", "vendor_search", "-i", "query=x", "-i", "max_results=many"}, "invalid max_results: must be an integer"},
		{[]string{"invoke", "vendor_search", "-i", "query=x", "-i", "max_results=50"}, "invalid max_results: must be between 1 and 20"},
		{[]string{"invoke", "vendor_search", "-i", "topic=sports", "-i", "query=x"}, "invalid topic: must be one of general, news, finance"},
		{[]string{"invoke", "vendor_search", "-i", "max_results=2"}, "invalid query: is required (give -i query=...)"},
		// Dates are checked before sending, by the rule the TUI's form uses.
		{[]string{"search", "--start-date", "2024-13-01", "foo"}, "invalid start_date: must be a date in the form YYYY-MM-DD"},
		{[]string{"invoke", "vendor_search", "-i", "query=x", "-i", "end_date=yesterday"}, "invalid end_date: must be a date in the form YYYY-MM-DD"},
		{[]string{"invoke", "no_such_tool"}, `tool "no_such_tool": not in the gateway's tool list`},
		{[]string{"invoke", "vendor_search", "-i", "novalue"}, "must be key=value"},
		// What is missing or too much, in words, with the usage line.
		{[]string{"invoke"}, "invoke: missing TOOL\nusage: hark invoke TOOL [flags]"},
		{[]string{"stt", "a.wav", "b.wav"}, "stt: takes only FILE, got 2 arguments (\"a.wav\" \"b.wav\")\nusage: hark stt FILE [flags]"},
		{[]string{"config", "extra"}, "config takes no arguments"},
		{[]string{"search"}, "search: QUERY from stdin is empty"},
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"tools", "--nope"}, "unknown flag"},
		{[]string{"stt", "/nonexistent.wav"}, "no such file"},
		{[]string{"tts", "--format", "ogg", "hi"}, "--format \"ogg\": must be pcm, mp3 or wav"},
		{[]string{"tts", "  "}, "tts: text must not be empty"},
		{[]string{"audition", "--voices", "en"}, "audition: text must not be empty"},
		{[]string{"audition", "--voices", "en", "-"}, "audition: text must not be empty"},
		{[]string{"--audio-sink", "speaker", "config"}, "audio_sink \"speaker\" (from flag)"},
	} {
		code, _, errs := hark(t, s, "", tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: code %d, stderr %q, want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	if n := s.Count(apitest.InvokePath("vendor_search")); n != 0 {
		t.Errorf("%d invalid searches reached the gateway", n)
	}
}

func TestConvenienceCommands(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	code, out, _ := hark(t, s, "", "search", "--max-results", "2", "--answer", "cats", "and", "dogs")
	if code != 0 || !strings.Contains(out, "The answer about cats and dogs") || !strings.Contains(out, "2. Result 2 for cats and dogs") {
		t.Errorf("search: %d\n%s", code, out)
	}
	hark(t, s, "", "search", "--exact", "--favicon", "--image-descriptions", "--start-date", "2024-01-02", "--end-date", "2024-02-03", "q")
	var sent struct{ Inputs map[string]any }
	json.Unmarshal(s.Last(apitest.InvokePath(api.ToolSearch)).Body, &sent)
	for k, want := range map[string]any{"exact_match": true, "include_favicon": true, "include_image_descriptions": true, "start_date": "2024-01-02", "end_date": "2024-02-03", "query": "q"} {
		if sent.Inputs[k] != want {
			t.Errorf("search input %s = %v, want %v", k, sent.Inputs[k], want)
		}
	}
	code, out, errs := hark(t, s, "", "extract", "https://a,https://fail", "https://b")
	if code != 0 || !strings.Contains(out, "== https://a ==") || !strings.Contains(out, "== https://b ==") || !strings.Contains(errs, "extract https://fail failed") {
		t.Errorf("extract: %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = hark(t, s, "", "crawl", "--max-depth", "2", "https://site")
	var body struct{ Inputs map[string]any }
	json.Unmarshal(s.Last(apitest.InvokePath(api.ToolCrawl)).Body, &body)
	if code != 0 || !strings.Contains(out, "page a") || body.Inputs["max_depth"] != float64(2) {
		t.Errorf("crawl: %d %v\n%s", code, body.Inputs, out)
	}
	code, out, _ = hark(t, s, "", "map", "https://site")
	if code != 0 || out != "https://site\nhttps://site/a\nhttps://site/b\n" {
		t.Errorf("map: %d %q", code, out)
	}
	code, out, _ = hark(t, s, "", "research", "--model", "mini", "tides")
	if code != 0 || !strings.HasPrefix(out, "# Report") || !strings.Contains(out, "[Source one](https://example.com/s1)") {
		t.Errorf("research: %d\n%s", code, out)
	}
}

func TestVoicesTTSSTT(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	code, out, _ := hark(t, s, "", "voices")
	if code != 0 || !strings.Contains(out, "alice") || !strings.Contains(out, "LANGUAGE") {
		t.Fatalf("voices: %d %s", code, out)
	}
	code, out, _ = hark(t, s, "", "voices", "--json")
	var vs []api.Voice
	if code != 0 || json.Unmarshal([]byte(out), &vs) != nil || len(vs) != 2 {
		t.Fatalf("voices --json: %d %s", code, out)
	}

	dir := t.TempDir()
	file := filepath.Join(dir, "hi.pcm")
	code, _, errs := hark(t, s, "", "tts", "-o", file, "hello", "world")
	got, _ := os.ReadFile(file)
	if code != 0 || !bytes.Equal(got, apitest.Synthesize("hello world")) || !strings.Contains(errs, "wrote") {
		t.Fatalf("tts -o: %d %d bytes %s", code, len(got), errs)
	}
	var req api.TTSRequest
	json.Unmarshal(s.Last(api.PathTTS).Body, &req)
	if req.VoiceCode != "alice" || req.Provider != api.DefaultProvider {
		t.Errorf("voice not defaulted to the first listed: %+v", req)
	}
	// stdout (not a terminal) receives the audio, as WAV unless a
	// format is given; text from stdin.
	code, out, _ = hark(t, s, "piped text", "tts", "--voice", "bo")
	json.Unmarshal(s.Last(api.PathTTS).Body, &req)
	if code != 0 || len(out) == 0 || req.Format != api.FormatWAV {
		t.Errorf("tts to stdout: %d, %d bytes, format %q", code, len(out), req.Format)
	}
	code, out, _ = hark(t, s, "piped text", "tts", "--voice", "bo", "--format", "pcm")
	if code != 0 || out != string(apitest.Synthesize("piped text")) {
		t.Errorf("tts --format pcm to stdout: %d, %d bytes", code, len(out))
	}
	code, _, errs = hark(t, s, "", "tts", "--stream", "-o", file, "streamed")
	got, _ = os.ReadFile(file)
	if code != 0 || !bytes.Equal(got, apitest.Synthesize("streamed")) {
		t.Errorf("tts --stream: %d %d bytes %s", code, len(got), errs)
	}

	audio := filepath.Join(dir, "a.wav")
	os.WriteFile(audio, make([]byte, 20000), 0o600)
	code, out, errs = hark(t, s, "", "stt", "--language", "en", audio)
	if code != 0 || strings.TrimSpace(out) != apitest.Transcript(20000) {
		t.Errorf("stt: %d %q %s", code, out, errs)
	}
	code, out, errs = hark(t, s, "", "stt", "--stream", "--chunk", "8192", audio)
	if code != 0 || strings.TrimSpace(out) != apitest.Transcript(20000) || strings.Count(errs, "partial") != 3 {
		t.Errorf("stt --stream: %d %q\n%s", code, out, errs)
	}
	if r := s.Last(api.PathSTTStream); len(r.Audio) != 3 || !r.ClientClosed {
		t.Errorf("stream sent %d frames, closed %v", len(r.Audio), r.ClientClosed)
	}
	code, out, _ = hark(t, s, "", "stt", "--stream", "--json", audio)
	if code != 0 || strings.Count(out, "\n") != 4 || !strings.Contains(out, `"is_final":true`) {
		t.Errorf("stt --stream --json: %d %s", code, out)
	}
}

func TestStreamFailureKeepsAudio(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	s.ScriptTTS(apitest.TTSScript{Chunks: [][]byte{{1, 2}, {3}}, Error: "synthesis failed"})
	file := filepath.Join(t.TempDir(), "part.pcm")
	code, _, errs := hark(t, s, "", "tts", "--voice", "alice", "--stream", "-o", file, "x")
	got, _ := os.ReadFile(file)
	if code != exitGateway || !strings.Contains(errs, "synthesis failed") || !bytes.Equal(got, []byte{1, 2, 3}) {
		t.Errorf("code %d, %v, %s", code, got, errs)
	}
}

func TestExitCodes(t *testing.T) {
	p := apitest.InvokePath(api.ToolSearch)
	for _, tc := range []struct {
		name    string
		replies []apitest.Reply
		want    int
		text    string
	}{
		{"credentials", []apitest.Reply{apitest.CredentialsMissing()}, exitAuth, api.MsgCredentialsMissing},
		{"vendor", []apitest.Reply{apitest.VendorStatus("Acme", 503, "down")}, exitGateway, "Acme API returned status code 503: down"},
		{"HTTP error", []apitest.Reply{apitest.RawBody(502, "bad gateway")}, exitGateway, `not the gateway envelope: "bad gateway" (HTTP 502)`},
		{"rate limited", []apitest.Reply{apitest.RateLimited("5")}, exitGateway, "rate limit"},
		{"gateway timeout", []apitest.Reply{apitest.HTTPError(504, "upstream timeout")}, exitTimeout, "upstream timeout"},
		// Input the gateway refuses is a usage error, like input hark
		// refuses itself.
		{"input refused (HTTP 400)", []apitest.Reply{apitest.HTTPError(400, "start_date: must be before end_date")}, exitUsage, "start_date: must be before end_date"},
		{"input refused (code 400)", []apitest.Reply{apitest.Fail(400, "query: must not be empty")}, exitUsage, "query: must not be empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := apitest.New(t)
			s.Script(p, tc.replies...)
			code, _, errs := hark(t, s, "", "search", "q")
			if code != tc.want || !strings.Contains(errs, tc.text) || tc.name != "HTTP error" && !strings.Contains(errs, "trace_id") {
				t.Errorf("code %d want %d; stderr %q", code, tc.want, errs)
			}
		})
	}
	t.Run("research timeout", func(t *testing.T) {
		s := apitest.New(t)
		rp := apitest.InvokePath(api.ToolResearch)
		s.Script(rp, apitest.ResearchTimeout(), apitest.ResearchTimeout(), apitest.ResearchTimeout())
		code, _, errs := hark(t, s, "", "research", "q")
		if code != exitTimeout || strings.Count(errs, "retrying") != 2 {
			t.Errorf("code %d; stderr %q", code, errs)
		}
	})
	t.Run("wrong key", func(t *testing.T) {
		s := apitest.New(t)
		code, _, errs := hark(t, s, "", "--api-key", "sk-flag-secret-777777", "voices")
		if code != exitAuth || !strings.Contains(errs, "trace_id") {
			t.Errorf("code %d; stderr %q", code, errs)
		}
		// A 401 on the tool list stops a tool call there, with the hint,
		// instead of sending the call untyped to be refused again.
		code, _, errs = hark(t, s, "", "--api-key", "sk-flag-secret-777777", "search", "cats")
		if code != exitAuth || strings.Contains(errs, "untyped") || !strings.Contains(errs, "hint: check the API key") || s.Count(apitest.InvokePath(api.ToolSearch)) != 0 {
			t.Errorf("search with a wrong key: code %d, %d invokes; stderr %q", code, s.Count(apitest.InvokePath(api.ToolSearch)), errs)
		}
		if strings.Contains(errs, "sk-flag-secret-777777") {
			t.Error("the key is printed")
		}
		if n := strings.Count(errs, "tool list"); n != 1 {
			t.Errorf("the error names the tool list %d times, want once: %q", n, errs)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		t.Setenv("HARK_BASE_URL", "http://"+closedAddr(t))
		code, _, errs := hark(t, nil, "", "tts", "--voice", "a", "-o", filepath.Join(t.TempDir(), "x"), "hi")
		if code != exitGateway || !strings.Contains(errs, "connection refused") {
			t.Errorf("code %d; stderr %q", code, errs)
		}
	})
}

func TestEmbeddedGatewayIsStopped(t *testing.T) {
	s := apitest.New(t)
	started, stopped := 0, 0
	start := func(ctx context.Context) (string, string, func(), error) {
		started++
		return s.URL, s.APIKey, func() { stopped++ }, nil
	}
	t.Setenv("HARK_BASE_URL", "")
	code, out, errs := harkApp(t, context.Background(), func(h *hooks) { h.startGateway = start }, nil, "", "voices")
	if code != 0 || !strings.Contains(out, "alice") || started != 1 || stopped != 1 {
		t.Errorf("code %d, started %d, stopped %d: %s", code, started, stopped, errs)
	}
}

func TestConfigMasksKey(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	code, out, _ := hark(t, s, "", "config")
	if code != 0 || !strings.Contains(out, "api_key") || !strings.Contains(out, "****"+apitest.Key[len(apitest.Key)-4:]) || !strings.Contains(out, s.URL) {
		t.Errorf("config: %d\n%s", code, out)
	}
	code, out, _ = hark(t, s, "", "--api-key", "sk-flag-secret-777777", "config", "--json")
	var m map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil || m["api_key"] != "****7777" {
		t.Errorf("config --json: %d %s", code, out)
	}
	// A key the gateway echoes back is not printed either.
	s.Script(api.PathTTS, apitest.Fail(400, "key "+apitest.Key+" is not allowed"))
	code, _, errs := hark(t, s, "", "tts", "--voice", "a", "-o", filepath.Join(t.TempDir(), "x"), "hi")
	if code == 0 || !strings.Contains(errs, "****") {
		t.Errorf("echoed key: %d %s", code, errs)
	}
}

func TestCompletion(t *testing.T) {
	t.Parallel()
	for _, sh := range []string{"bash", "zsh", "fish"} {
		code, out, errs := hark(t, nil, "", "completion", sh)
		if code != 0 || !strings.Contains(out, "hark") {
			t.Errorf("%s: %d %s", sh, code, errs)
		}
	}
}

// Completion asks the configured gateway, the embedded one included:
// tool slugs, enum values of flags and of -i inputs, and voices.
func TestCompletionFromTheEmbeddedGateway(t *testing.T) {
	t.Parallel()
	env := withEnv("HARK_BASE_URL", "", "HARK_API_KEY", "")
	if testing.Short() {
		t.Skip("starts the real local engines")
	}
	complete := func(args ...string) []string {
		t.Helper()
		code, out, errs := harkApp(t, context.Background(), env, nil, "", append([]string{"__complete"}, args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errs)
		}
		var words []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if l != "" && !strings.HasPrefix(l, ":") {
				w, _, _ := strings.Cut(l, "\t")
				words = append(words, w)
			}
		}
		return words
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"invoke", ""}, []string{"vendor_search", "vendor_extract", "vendor_crawl", "vendor_map", "vendor_research"}},
		{[]string{"search", "--topic", ""}, []string{"general", "news", "finance"}},
		{[]string{"research", "--model", ""}, []string{"mini", "pro", "auto"}},
		{[]string{"extract", "--format", ""}, []string{"markdown", "text"}},
		{[]string{"invoke", "vendor_search", "-i", "topic="}, []string{"topic=general", "topic=news", "topic=finance"}},
		{[]string{"search", "-i", "time_"}, []string{"time_range="}},
		{[]string{"tts", "--voice", "flite:"}, []string{"flite:kal", "flite:kal16", "flite:awb", "flite:rms", "flite:slt"}},
		{[]string{"tts", "--format", ""}, []string{"pcm", "mp3", "wav"}},
		{[]string{"--audio-sink", ""}, []string{"auto", "device", "file", "null"}},
	} {
		got := complete(tc.args...)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q completes %q, lacking %q", tc.args, got, w)
			}
		}
	}
	// A free-text flag offers nothing rather than something wrong.
	if got := complete("search", "--country", ""); len(got) != 0 {
		t.Errorf("--country completes %q", got)
	}
}

// A gateway that cannot be reached completes nothing, without retries, and prints
// no error into the line being typed.
func TestCompletionWithoutAGateway(t *testing.T) {
	t.Parallel()
	env := withEnv("HARK_BASE_URL", "http://"+closedAddr(t), "HARK_API_KEY", "sk-test-000000")
	code, out, errs := harkApp(t, context.Background(), env, nil, "", "__complete", "invoke", "")
	if code != 0 || strings.Contains(out, "vendor_") || strings.Contains(out, "error") {
		t.Errorf("exit %d, out %q, err %q", code, out, errs)
	}
}

func TestRenderMarkdown(t *testing.T) {
	t.Parallel()
	out := renderMarkdown("# Report\n\nSome **bold** findings.\n", "dark", 60)
	if !strings.Contains(out, "\x1b[") || !strings.Contains(out, "bold") || strings.Contains(out, "**bold**") {
		t.Errorf("not rendered: %q", out)
	}
	if out := renderMarkdown("# R\n", "no-such-style", 60); !strings.Contains(out, "R") {
		t.Errorf("bad style: %q", out)
	}
	// As the TUI shows it: an escaped ampersand without its backslash.
	if out := ansi.Strip(renderMarkdown("# String and \\&str\n\nBorrow \\&mut.\n", "dark", 60)); !strings.Contains(out, "String and &str") || !strings.Contains(out, "Borrow &mut") {
		t.Errorf("escapes shown: %q", out)
	}
}

// TestEmbeddedGatewayEndToEnd runs the commands against hark's own
// embedded gateway (real engines over real loopback HTTP and WebSocket),
// when this build has one.
func TestEmbeddedGatewayEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real local engines")
	}
	t.Parallel()
	local := func(stdin string, args ...string) (int, string, string) {
		return harkApp(t, context.Background(), noGateway, nil, stdin, args...)
	}
	code, out, errs := local("", "tools")
	if code != 0 || !strings.Contains(out, "vendor_search") {
		t.Fatalf("tools: %d %s", code, errs)
	}
	// Input the embedded gateway refuses exits 2, like hark's own checks.
	code, _, errs = local("", "extract", "notaurl")
	if code != exitUsage || !strings.Contains(errs, "urls") {
		t.Errorf("extract notaurl: code %d, stderr %q; want 2 naming urls", code, errs)
	}
	code, _, errs = local("", "search", "--start-date", "2024-13-01", "foo")
	if code != exitUsage || !strings.Contains(errs, "start_date") {
		t.Errorf("search --start-date 2024-13-01: code %d, stderr %q; want 2 naming start_date", code, errs)
	}
	code, out, errs = local("", "voices", "--json")
	var vs []api.Voice
	if code != 0 || json.Unmarshal([]byte(out), &vs) != nil || len(vs) == 0 {
		t.Fatalf("voices: %d %s", code, errs)
	}
	wav := filepath.Join(t.TempDir(), "hello.wav")
	code, _, errs = local("", "tts", "--format", "wav", "-o", wav, "hello")
	if st, err := os.Stat(wav); code != 0 || err != nil || st.Size() < 1000 {
		t.Fatalf("tts: %d %s", code, errs)
	}
	code, out, errs = local("", "stt", "--json", wav)
	var r api.STTResponse
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.DurationMs <= 0 {
		t.Fatalf("stt: %d %s %s", code, out, errs)
	}
	code, _, errs = local("", "stt", "--stream", wav)
	if code != 0 {
		t.Fatalf("stt --stream: %d %s", code, errs)
	}

	// hark tts TEXT | hark stt -: a pipe gets WAV, which stt reads
	// without being told the rate; streamed or not.
	for _, stream := range []string{"", "--stream"} {
		args := []string{"tts", "--voice", "flite:slt", "hello world"}
		if stream != "" {
			args = append(args, stream)
		}
		code, piped, errs := local("", args...)
		if code != 0 || !strings.HasPrefix(piped, "RIFF") {
			t.Fatalf("tts %s to a pipe: %d, starts %q: %s", stream, code, piped[:min(len(piped), 4)], errs)
		}
		code, out, errs = local(piped, "stt", "--json", "-")
		var heard api.STTResponse
		if code != 0 || json.Unmarshal([]byte(out), &heard) != nil || heard.DurationMs < 500 || !strings.Contains(strings.ToLower(heard.Text), "hello") {
			t.Fatalf("stt - of the piped %s tts: %d %s %s", stream, code, out, errs)
		}
	}

	// A streamed WAV saved to a file gets its true sizes: the stream's
	// header carried placeholders, which made players read hours of audio.
	streamed := filepath.Join(t.TempDir(), "streamed.wav")
	code, _, errs = local("", "tts", "--stream", "--format", "wav", "-o", streamed, "hello there")
	b, err := os.ReadFile(streamed)
	if code != 0 || err != nil || len(b) < 1000 {
		t.Fatalf("tts --stream wav: %d %v %s", code, err, errs)
	}
	if riff := binary.LittleEndian.Uint32(b[4:8]); int(riff) != len(b)-8 {
		t.Errorf("streamed wav: RIFF size %d, file %d bytes", riff, len(b))
	}
	if at := bytes.Index(b, []byte("data")); at < 0 || int(binary.LittleEndian.Uint32(b[at+4:])) != len(b)-at-8 {
		t.Errorf("streamed wav: data size does not match the file")
	}
}

func TestProfileFromConfigFile(t *testing.T) {
	s := apitest.New(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "hark.toml")
	os.WriteFile(cfg, []byte(`
[profiles.lab]
base_url = "`+s.URL+`"
api_key_command = "echo `+apitest.Key+`"
voice = "bo"
`), 0o600)
	t.Setenv("HARK_CONFIG", cfg)
	var out, errb bytes.Buffer
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HARK_BASE_URL", "")
	t.Setenv("HARK_API_KEY", "")
	code := Run(context.Background(), []string{"-p", "lab", "tts", "-o", filepath.Join(dir, "x.pcm"), "hi"}, strings.NewReader(""), &out, &errb)
	outputs = append(outputs, out.String(), errb.String())
	var req api.TTSRequest
	json.Unmarshal(s.Last(api.PathTTS).Body, &req)
	if code != 0 || req.VoiceCode != "bo" {
		t.Fatalf("code %d, voice %q: %s", code, req.VoiceCode, errb.String())
	}
	out.Reset()
	code = Run(context.Background(), []string{"-p", "lab", "config"}, strings.NewReader(""), &out, &errb)
	outputs = append(outputs, out.String(), errb.String())
	if code != 0 || !strings.Contains(out.String(), "api_key_command (profile lab)") || !strings.Contains(out.String(), cfg) {
		t.Errorf("config: %d\n%s", code, out.String())
	}
	code = Run(context.Background(), []string{"-p", "nope", "config"}, strings.NewReader(""), &out, &errb)
	if code != exitUsage || !strings.Contains(errb.String(), `profile "nope": not found`) {
		t.Errorf("unknown profile: %d %s", code, errb.String())
	}
}

func TestTTSStreamJSONAndEmptyFailure(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	file := filepath.Join(t.TempDir(), "s.pcm")
	code, out, errs := hark(t, s, "", "--json", "tts", "--voice", "alice", "--stream", "-o", file, "hello")
	var m map[string]any
	st, err := os.Stat(file)
	if code != 0 || err != nil || json.Unmarshal([]byte(out), &m) != nil || m["bytes"] != float64(st.Size()) || m["format"] != "pcm" || m["trace_id"] == "" {
		t.Errorf("--json --stream: %d %q %q", code, out, errs)
	}
	// A stream that fails before any audio leaves no empty file behind.
	s.ScriptTTS(apitest.TTSScript{Chunks: [][]byte{}, Error: "no voice"})
	empty := filepath.Join(t.TempDir(), "e.pcm")
	code, _, errs = hark(t, s, "", "tts", "--voice", "alice", "--stream", "-o", empty, "x")
	if _, err := os.Stat(empty); code != exitGateway || !strings.Contains(errs, "no voice") || err == nil {
		t.Errorf("failed stream: code %d, stat %v, %s", code, err, errs)
	}
	if matches, _ := filepath.Glob(filepath.Join(filepath.Dir(empty), ".*")); len(matches) != 0 {
		t.Errorf("temporary files left: %v", matches)
	}
}

func TestInvokeChecksNonStringEnums(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	s.SetToolList(`{"tools": [{"name": "dice", "parameters": {"type": "object", "required": ["sides"],
		"properties": {"sides": {"type": "integer", "enum": [4, 6, 20]}}}}]}`)
	code, _, errs := hark(t, s, "", "invoke", "dice", "-i", "sides=7")
	if code != exitUsage || !strings.Contains(errs, "invalid sides: must be one of 4, 6, 20") || s.Count(apitest.InvokePath("dice")) != 0 {
		t.Errorf("sides=7: code %d, %s", code, errs)
	}
	code, _, errs = hark(t, s, "", "invoke", "dice", "-i", "sides=20")
	var body struct{ Inputs map[string]any }
	json.Unmarshal(s.Last(apitest.InvokePath("dice")).Body, &body)
	if code != exitUsage || body.Inputs["sides"] != float64(20) {
		// apitest knows no tool "dice": the call reaches it and is refused
		// there (400), which is the caller's mistake too.
		t.Errorf("sides=20: code %d, sent %v, %s", code, body.Inputs, errs)
	}
}

// TestEmbeddedGatewayReportsCredits checks the whole chain the status bar
// relies on: hark's own gateway sends X-Credits-* and the client's OnCall
// sees them.
func TestEmbeddedGatewayReportsCredits(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real local engines")
	}
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	ctx := context.Background()
	app := &App{cfg: &config.Config{DataDir: t.TempDir()}}
	defer app.close()
	base, key, stop, err := app.runEmbedded(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var mu sync.Mutex
	var calls []api.CallInfo
	cl, err := api.New(api.Options{BaseURL: base, APIKey: key, OnCall: func(ci api.CallInfo) { mu.Lock(); calls = append(calls, ci); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := cl.Search(ctx, api.SearchInput{Query: "credits"}); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 2 {
		t.Fatalf("calls: %+v", calls)
	}
	a, b := calls[0], calls[1]
	if !a.HasCredits || !b.HasCredits || b.CreditsCharged <= 0 || b.CreditsUsed != a.CreditsUsed+b.CreditsCharged {
		t.Errorf("credits not reported or not adding up: %+v then %+v", a, b)
	}
}

func TestVoiceExtraReachesTheProvider(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	file := filepath.Join(t.TempDir(), "x.pcm")
	code, _, errs := hark(t, s, "", "tts", "--voice", "alice", "--extra", `{"emotion": "calm"}`, "-o", file, "hi")
	var tts api.TTSRequest
	json.Unmarshal(s.Last(api.PathTTS).Body, &tts)
	if code != 0 || tts.Extra["emotion"] != "calm" {
		t.Errorf("tts --extra: %d %+v %s", code, tts, errs)
	}
	code, _, errs = hark(t, s, "", "tts", "--voice", "alice", "--extra", `{"emotion": "calm"}`, "--stream", "-o", file, "hi")
	json.Unmarshal(s.Last(api.PathTTSStream).Body, &tts)
	if code != 0 || tts.Extra["emotion"] != "calm" {
		t.Errorf("tts --stream --extra: %d %+v %s", code, tts, errs)
	}
	audio := filepath.Join(t.TempDir(), "a.pcm")
	os.WriteFile(audio, make([]byte, 1000), 0o600)
	for _, args := range [][]string{{"stt", "--extra", `{"hotwords": ["hark"]}`, audio}, {"stt", "--stream", "--extra", `{"hotwords": ["hark"]}`, audio}} {
		code, _, errs = hark(t, s, "", args...)
		path := api.PathSTT
		if args[1] == "--stream" {
			path = api.PathSTTStream
		}
		var stt api.STTRequest
		json.Unmarshal(s.Last(path).Body, &stt)
		if hw, _ := stt.Extra["hotwords"].([]any); code != 0 || len(hw) != 1 {
			t.Errorf("%v: %d %+v %s", args, code, stt, errs)
		}
	}
	code, _, errs = hark(t, s, "", "tts", "--voice", "alice", "--extra", `[1]`, "-o", file, "hi")
	if code != exitUsage || !strings.Contains(errs, "--extra: must be a JSON object") {
		t.Errorf("bad --extra: %d %s", code, errs)
	}
}

func TestOversizedInputIsRefusedNotCut(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	big := strings.Repeat("a", maxTTSText+1)
	code, _, errs := hark(t, s, big, "tts", "--voice", "alice", "-o", filepath.Join(t.TempDir(), "x"))
	if code != exitUsage || !strings.Contains(errs, "tts: text from stdin: larger than the limit of 1048576 bytes") || s.Count(api.PathTTS) != 0 {
		t.Errorf("oversized tts text: %d %s", code, errs)
	}
	// Exactly the limit is fine (a short scripted answer: apitest would
	// synthesize 20 ms per character).
	s.Script(api.PathTTS, apitest.OK(api.TTSResponse{AudioData: "AAAA", Format: "pcm"}))
	code, _, errs = hark(t, s, big[1:], "tts", "--voice", "alice", "-o", filepath.Join(t.TempDir(), "x"))
	if code != 0 {
		t.Errorf("tts text at the limit: %d %s", code, errs)
	}
}

// TestTTSFormatFollowsFileName: without --format, -o hello.wav asks the
// gateway for wav (raw pcm in a .wav file could not be played or
// recognised); an explicit --format wins.
func TestTTSFormatFollowsFileName(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", filepath.Join(dir, "a.wav")}, api.FormatWAV},
		{[]string{"-o", filepath.Join(dir, "b.MP3")}, api.FormatMP3},
		{[]string{"-o", filepath.Join(dir, "c.raw")}, api.FormatPCM},
		// A file whose name says no format gets WAV, which says its
		// own rate: never headerless samples.
		{[]string{"-o", filepath.Join(dir, "d.audio")}, api.FormatWAV},
		{[]string{"--format", "pcm", "-o", filepath.Join(dir, "e.wav")}, api.FormatPCM},
	} {
		args := append([]string{"tts", "--voice", "alice"}, tc.args...)
		if code, _, errs := hark(t, s, "", append(args, "hello")...); code != 0 {
			t.Fatalf("%v: %d %s", tc.args, code, errs)
		}
		var req api.TTSRequest
		json.Unmarshal(s.Last(api.PathTTS).Body, &req)
		if req.Format != tc.want {
			t.Errorf("%v: asked for format %q, want %q", tc.args, req.Format, tc.want)
		}
	}
}

// At a terminal, with no -o and no --format, tts writes a file in the
// output directory: WAV, like every other file it writes (it wrote
// headerless .pcm there, which no player opens).
func TestTTSFileDefaultsToWAV(t *testing.T) {
	t.Parallel()
	for out, want := range map[string]string{"": api.FormatWAV, "speech": api.FormatWAV, "x.pcm": api.FormatPCM, "x.mp3": api.FormatMP3} {
		if got := ttsFormat(out); got != want {
			t.Errorf("ttsFormat(%q) = %q, want %q", out, got, want)
		}
	}
}

// hark config says where each value comes from once, in plain words.
func TestConfigWording(t *testing.T) {
	t.Setenv("HARK_BASE_URL", "")
	t.Setenv("HARK_API_KEY", "")
	code, out, errs := hark(t, nil, "", "config")
	if code != 0 {
		t.Fatalf("config: %d %s", code, errs)
	}
	for _, want := range []string{"(embedded gateway)", "(chosen by your locale)"} {
		if !strings.Contains(out, want) {
			t.Errorf("config lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "(default (") {
		t.Errorf("config doubles its parentheses:\n%s", out)
	}
	// At a terminal (here /dev/null, a character device like one), no
	// query is a usage error that says how to give one.
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	var stdout, stderr bytes.Buffer
	code = Run(context.Background(), []string{"search"}, devnull, &stdout, &stderr)
	if errs := stderr.String(); code != exitUsage || strings.Contains(errs, "hark: hark ") || !strings.Contains(errs, "hark: search: missing QUERY (or - to read it from stdin)") {
		t.Errorf("search without a query: %d %q", code, errs)
	}
}

// The research wait note comes only when the wait is noticeable.
func TestNoteIfSlow(t *testing.T) {
	t.Parallel()
	var quick bytes.Buffer
	stop := noteIfSlow(time.Second, &quick, "still waiting")
	stop()
	stop()
	if quick.Len() != 0 {
		t.Errorf("a call that returned at once printed %q", quick.String())
	}
	slow := &lockedBuffer{}
	stop = noteIfSlow(10*time.Millisecond, slow, "still waiting")
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(slow.String(), "still waiting") && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	if !strings.Contains(slow.String(), "still waiting") {
		t.Error("a slow call printed no note")
	}
}
