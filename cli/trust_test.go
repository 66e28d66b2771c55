package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hark/api"
	"hark/api/apitest"
	"hark/library"
)

// What hark says about itself on the command line (issue 43): an
// unreachable gateway gets the TUI's hint, unknown IDs exit alike, Ctrl-C
// says it was interrupted, help says what this gateway's search does,
// and output takes one rule in every command.

// With the gateway down, a command says it cannot be reached, with the
// hint the TUI gives, and nothing about an untyped tool list.
func TestUnreachableGatewayHasTheHint(t *testing.T) {
	t.Parallel()
	base := "http://" + closedAddr(t)
	for _, args := range [][]string{{"search", "memcheck"}, {"research", "why"}, {"jobs"}, {"tts", "-o", filepath.Join(t.TempDir(), "x.wav"), "hi"}} {
		code, _, errs := harkApp(t, t.Context(), withEnv("HARK_BASE_URL", base, "HARK_API_KEY", "sk-test-000000"), nil, "", args...)
		if code != exitGateway || !strings.Contains(errs, "the gateway at "+base+" cannot be reached: connection refused") ||
			!strings.Contains(errs, "hint: "+api.UnreachableHint) || strings.Contains(errs, "untyped") || strings.Contains(errs, "dial tcp") {
			t.Errorf("%v: %d %q", args, code, errs)
		}
	}
}

// An ID hark does not know exits 2, whether a library item's or a
// job's, naming where the IDs are listed and without a usage line (the
// command line was right).
func TestUnknownIDsExitAlike(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"library", "show", "999"}, "no item 999 (hark library list shows the IDs)"},
		{[]string{"research", "verify", "999"}, "no item 999"},
		{[]string{"jobs", "attach", "0c5f3e1a-1111-4222-8333-444455556666"}, "no job 0c5f3e1a-1111-4222-8333-444455556666 in this workspace (hark jobs lists the IDs)"},
		{[]string{"jobs", "cancel", "0c5f3e1a-1111-4222-8333-444455556666"}, "hark jobs lists the IDs"},
	} {
		code, _, errs := harkDataWith(t, noGateway, nil, data, "", tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) || strings.Contains(errs, "--help") {
			t.Errorf("%v: %d %q", tc.args, code, errs)
		}
	}
}

// Ctrl-C says "interrupted", never "context canceled", and exits 130.
func TestInterruptSaysSo(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	s.ScriptTTS(apitest.TTSScript{Chunks: [][]byte{{1, 2}, {3, 4}}, Stall: true})
	ctx, cancel := cancelWhen(func() bool { return s.Count(api.PathTTSStream) > 0 })
	defer cancel()
	code, _, errs := harkCtx(t, ctx, s, "One sentence. Two sentences.", "--voice", "v1", "read", "-o", filepath.Join(t.TempDir(), "r.wav"), "-")
	if code != exitInterrupted || errs != "hark: interrupted\n" && !strings.HasSuffix(errs, "\nhark: interrupted\n") || strings.Contains(errs, "context canceled") {
		t.Errorf("read interrupted: %d %q", code, errs)
	}
}

// search --help says what this gateway's search does: the embedded one
// searches the pages hark indexed and quotes its answer; a vendor's
// gateway describes its own (the tool list's words).
func TestSearchHelpSaysWhatThisGatewayDoes(t *testing.T) {
	t.Parallel()
	code, out, _ := harkApp(t, t.Context(), noGateway, nil, "", "search", "--help")
	out = strings.Join(strings.Fields(out), " ") // help is wrapped at 80 columns
	if code != 0 || !strings.Contains(out, "pages this gateway has indexed") || !strings.Contains(out, "quoted from the best results") ||
		strings.Contains(out, "AI-generated") || strings.Contains(out, "Search the web") {
		t.Errorf("embedded: %d\n%s", code, out)
	}
	code, out, _ = hark(t, apitest.New(t), "", "search", "--help")
	out = strings.Join(strings.Fields(out), " ")
	if code != 0 || !strings.Contains(out, "Keyword web search") || !strings.Contains(out, "AI-generated answer") {
		t.Errorf("a vendor's gateway: %d\n%s", code, out)
	}
}

// One rule for output: --json is the data, --jsonl a result per line,
// and -o FILE writes what would be printed, in that form, in every
// command that has output (research --json -o wrote markdown; map and
// research refused --jsonl).
func TestOneOutputRule(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	dir := t.TempDir()
	for _, cmd := range [][]string{{"search", "zebra"}, {"extract", "https://example.com/a"}, {"crawl", "https://example.com"},
		{"map", "https://example.com"}, {"research", "why", "stripes"}} {
		name := cmd[0]
		file := filepath.Join(dir, name+".json")
		code, out, errs := hark(t, s, "", append([]string{"--json", "-o", file}, cmd...)...)
		b, _ := os.ReadFile(file)
		var res api.InvokeResult
		if code != 0 || out != "" || json.Unmarshal(b, &res) != nil || res.Tool != "vendor_"+name || !strings.Contains(errs, "wrote "+file) {
			t.Errorf("%s --json -o: %d %q %q\n%.200s", name, code, out, errs, b)
		}
		code, out, errs = hark(t, s, "", append(cmd, "--jsonl")...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		for _, l := range lines {
			if !json.Valid([]byte(l)) {
				code = -1
			}
		}
		if code != 0 || len(lines) == 0 {
			t.Errorf("%s --jsonl: %d %q %q", name, code, out, errs)
		}
		if name == "map" && len(lines) < 2 {
			t.Errorf("map --jsonl is not a URL per line: %q", out)
		}
		file = filepath.Join(dir, name+".jsonl")
		code, out, _ = hark(t, s, "", append(cmd, "--jsonl", "-o", file)...)
		b, _ = os.ReadFile(file)
		if code != 0 || out != "" || !json.Valid([]byte(strings.SplitN(string(b), "\n", 2)[0])) {
			t.Errorf("%s --jsonl -o: %d %q\n%.200s", name, code, out, b)
		}
	}
	// Without --json, -o writes what would be printed: the report as
	// markdown.
	file := filepath.Join(dir, "r.md")
	code, _, errs := hark(t, s, "", "research", "-o", file, "why", "stripes")
	if b, _ := os.ReadFile(file); code != 0 || !strings.HasPrefix(string(b), "# Report") {
		t.Errorf("research -o: %d %q\n%s", code, errs, b)
	}
}

// hark index with a remote gateway configured does not silently fill the
// local index that gateway never reads: it refuses, saying where that
// gateway's index is; --local fills the local one on purpose.
func TestIndexWithARemoteGatewaySaysWhichIndex(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	docs := t.TempDir()
	os.WriteFile(filepath.Join(docs, "a.md"), []byte("# Okapi\n\nThe okapi is a giraffid of the Congo rainforest.\n"), 0o644)
	data := t.TempDir()
	code, out, errs := harkData(t, s, data, "", "index", docs)
	if code != exitUsage || out != "" || !strings.Contains(errs, "does not read this machine's index") || !strings.Contains(errs, "--database") {
		t.Errorf("index with a remote gateway: %d %q %q", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(data, "gateway.db")); err == nil {
		t.Error("the refused index run made a local index")
	}
	code, out, errs = harkData(t, s, data, "", "index", "--local", docs)
	if code != 0 || !strings.Contains(out, "Indexed 1 page") {
		t.Errorf("index --local: %d %q %q", code, out, errs)
	}
}

// extract --format text keeps each page under its title, not its URL:
// the hark gateway sends the title with the page.
func TestTextPagesKeepTheirTitle(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><head><title>Okapi facts</title></head><body><h1>Okapi facts</h1><p>The okapi is a giraffid "+
			"mammal of the Congo rainforest, with stripes like a zebra on its legs, and shy.</p></body></html>")
	}))
	defer site.Close()
	data := t.TempDir()
	code, out, errs := harkDataWith(t, noGateway, nil, data, "", "extract", "--allow-private", "--format", "text", site.URL+"/okapi.html")
	if code != 0 || strings.Contains(out, "# ") {
		t.Fatalf("extract --format text: %d %q %q", code, out, errs)
	}
	code, out, _ = harkDataWith(t, noGateway, nil, data, "", "library", "list", "--json")
	var items []library.Item
	if code != 0 || json.Unmarshal([]byte(out), &items) != nil || len(items) != 1 || items[0].Title != "Okapi facts" {
		t.Errorf("kept: %d %s", code, out)
	}
}
