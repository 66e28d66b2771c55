package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hark/api"
	"hark/api/apitest"
	"hark/audio/wav"
)

func loopbackSite(t *testing.T) string {
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>Rivet works</title></head><body><main><h1>Rivets</h1><p>We make rivets for bridges and for boats, in steel and in copper.</p></main></body></html>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// One rule for local and unreachable addresses in extract, crawl, map and
// index: a private address is refused with exit 2 and the --allow-private
// hint everywhere, which extract, crawl and map accept as index does; a
// refused connection is the site's failure (exit 4), never "invalid url
// … (HTTP 400)".
func TestOneRuleForLocalAddresses(t *testing.T) {
	t.Parallel()
	site := loopbackSite(t)
	for _, args := range [][]string{{"extract", site + "/"}, {"crawl", site + "/"}, {"map", site + "/"}, {"index", site + "/"}} {
		code, _, errs := hark(t, nil, "", args...)
		if code != exitUsage || !strings.Contains(errs, "hint: --allow-private") || strings.Contains(errs, "Run 'hark") {
			t.Errorf("%v: code %d, stderr %q; want 2 with the --allow-private hint", args, code, errs)
		}
	}
	for _, args := range [][]string{{"extract", "--allow-private", site + "/"}, {"crawl", "--allow-private", site + "/"}, {"map", "--allow-private", site + "/"}} {
		code, out, errs := hark(t, nil, "", args...)
		if code != 0 || !strings.Contains(out, site) {
			t.Errorf("%v: code %d, %q %q", args, code, out, errs)
		}
	}
	for _, args := range [][]string{{"extract", "--allow-private", "http://127.0.0.1:1/"}, {"crawl", "--allow-private", "http://127.0.0.1:1/"}, {"map", "--allow-private", "http://127.0.0.1:1/"}, {"index", "--allow-private", "http://127.0.0.1:1/"}} {
		code, _, errs := hark(t, nil, "", args...)
		if code != exitGateway || !strings.Contains(errs, "connection refused by 127.0.0.1:1") || strings.Contains(errs, "HTTP 400") || strings.Contains(errs, "invalid url") {
			t.Errorf("%v: code %d, stderr %q; want 4 saying the connection was refused", args, code, errs)
		}
	}
}

// -o works for search, extract, crawl and map as the README's rule says;
// a usage error names the subcommand's help.
func TestOutputFileAndSubcommandHelp(t *testing.T) {
	t.Parallel()
	site := loopbackSite(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "page.md")
	code, stdout, errs := hark(t, nil, "", "extract", "--allow-private", "-o", out, site+"/")
	b, _ := os.ReadFile(out)
	if code != 0 || stdout != "" || !strings.Contains(string(b), "We make rivets") {
		t.Fatalf("extract -o: code %d, stdout %q, stderr %q, file %q", code, stdout, errs, b)
	}
	for _, cmd := range []string{"search", "crawl", "map"} {
		code, _, errs := hark(t, nil, "", cmd, "-o", filepath.Join(dir, "missing", "x"), "x")
		if code != exitUsage || !strings.Contains(errs, "does not exist") {
			t.Errorf("%s -o into a missing folder: code %d, %q", cmd, code, errs)
		}
	}
	code, _, errs = hark(t, nil, "", "extract", "--bogus", "x")
	if code != exitUsage || !strings.Contains(errs, "Run 'hark extract --help' for usage.") {
		t.Errorf("a bad flag of extract: %d %q", code, errs)
	}
}

// A search on an empty local index says how to fill it, as the TUI and
// research do.
func TestSearchOnAnEmptyIndexSuggestsIndex(t *testing.T) {
	t.Parallel()
	code, out, errs := hark(t, nil, "", "search", "rivets")
	if code != 0 || !strings.Contains(out, "no results") || !strings.Contains(errs, "hark index URL|SITEMAP|DIR") {
		t.Errorf("search on an empty index: %d %q %q", code, out, errs)
	}
}

// Raw PCM without a rate is refused naming the flag, --sample-rate, not
// the wire's field.
func TestSTTRawPCMNamesTheFlag(t *testing.T) {
	t.Parallel()
	code, _, errs := hark(t, nil, strings.Repeat("\x01\x00", 8000), "stt", "-")
	if code != exitUsage || !strings.Contains(errs, "needs --sample-rate HZ") {
		t.Errorf("stt - on raw pcm: %d %q", code, errs)
	}
}

// --output-dir is where reports and exports go too, not audio alone.
func TestOutputDirHelpSaysWhatGoesThere(t *testing.T) {
	t.Parallel()
	_, out, _ := hark(t, nil, "", "--help")
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "where saved audio, reports and exports are written") { // wrapped at 80 columns
		t.Errorf("--output-dir's help:\n%s", out)
	}
}

// hark read asks for a batch of sentences per call, not one per sentence
// (a call costs a credit at least): the first alone, then the rest.
func TestReadBatchesSentences(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	head := wav.Header(apitest.SampleRate, wav.StreamSize)
	whole := append(append([]byte{}, head...), apitest.Synthesize("a tone")...)
	for range 4 {
		s.ScriptTTS(apitest.TTSScript{Chunks: [][]byte{whole}})
	}
	text := "One okapi. Two okapis. Three okapis. Four okapis. Five okapis. Six okapis."
	code, out, errs := hark(t, s, text, "--voice", "v1", "read", "-o", filepath.Join(t.TempDir(), "r.wav"), "-")
	if code != 0 || strings.Count(out, "okapi") != 6 {
		t.Fatalf("read -o: %d %q %q", code, out, errs)
	}
	if n := s.Count(api.PathTTSStream); n != 2 {
		t.Errorf("six sentences took %d TTS calls, want 2", n)
	}
	code, out, errs = hark(t, s, text, "--voice", "v1", "--audio-sink", "file", "read", "-")
	if code != 0 || out != "One okapi.\nTwo okapis.\nThree okapis.\nFour okapis.\nFive okapis.\nSix okapis.\n" {
		t.Fatalf("read played: %d %q %q", code, out, errs)
	}
	if n := s.Count(api.PathTTSStream); n != 4 {
		t.Errorf("played, six sentences took %d TTS calls, want 2 more", n-2)
	}
}
