package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"hark/api/apitest"
	"hark/library"
)

// harkData runs hark against s (nil: none) with dataDir as the data
// directory, kept across calls.
func harkData(t *testing.T, s *apitest.Server, dataDir, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return hark(t, s, stdin, append([]string{"--data-dir", dataDir}, args...)...)
}

// harkDataWith is harkData with harkApp's hook.
func harkDataWith(t *testing.T, hook func(*hooks), s *apitest.Server, dataDir, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return harkApp(t, context.Background(), hook, s, stdin, append([]string{"--data-dir", dataDir}, args...)...)
}

// What a remote gateway answers is kept, and every library command works
// on it without calling the gateway again.
func TestLibraryCommands(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	data := t.TempDir()
	for _, args := range [][]string{
		{"search", "zebra", "crossings"},
		{"research", "how do okapis hide"},
		{"extract", "https://docs.example/okapi"},
		{"crawl", "https://site.example"},
		{"map", "https://site.example"},
	} {
		if code, _, errs := harkData(t, s, data, "", args...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, errs)
		}
	}
	calls := len(s.Requests())

	code, out, errs := harkData(t, s, data, "", "library", "list", "--json")
	var items []library.Item
	if code != 0 || json.Unmarshal([]byte(out), &items) != nil || len(items) != 5 {
		t.Fatalf("list: %d %s %s", code, out, errs)
	}
	if items[0].Kind != library.KindMap || items[4].Kind != library.KindSearch || items[4].Title != "zebra crossings" {
		t.Errorf("newest first: %+v", items)
	}
	for _, it := range items {
		if !strings.HasPrefix(it.Gateway, s.URL) || it.TraceID == "" {
			t.Errorf("item %d: gateway %q trace %q", it.ID, it.Gateway, it.TraceID)
		}
	}
	research := items[3]
	if research.Kind != library.KindResearch {
		t.Fatalf("items: %+v", items)
	}
	id := func(it library.Item) string { return strconv.FormatInt(it.ID, 10) }

	code, out, _ = harkData(t, s, data, "", "library", "list", "--kind", "page")
	if code != 0 || !strings.Contains(out, "https://docs.example/okapi") || strings.Contains(out, "zebra") {
		t.Errorf("list --kind page: %d\n%s", code, out)
	}
	code, out, _ = harkData(t, s, data, "", "library", "list", "--limit", "2")
	if code != 0 || strings.Count(out, "\n") != 3 {
		t.Errorf("list --limit 2: %d\n%s", code, out)
	}
	code, out, _ = harkData(t, s, data, "", "library", "search", "okapis")
	if code != 0 || !strings.Contains(out, "how do okapis hide") || strings.Contains(out, "zebra") {
		t.Errorf("search: %d\n%s", code, out)
	}
	code, out, _ = harkData(t, s, data, "", "library", "show", id(research))
	if code != 0 || !strings.Contains(out, "Findings about how do okapis hide.") || !strings.Contains(out, "1. [Source one](https://example.com/s1)") {
		t.Errorf("show: %d\n%s", code, out)
	}
	code, out, _ = harkData(t, s, data, "", "--json", "library", "show", id(research))
	var shown map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &shown) != nil || shown["output"].(map[string]any)["request_id"] != "req-1" {
		t.Errorf("show --json: %d\n%s", code, out)
	}
	dir := t.TempDir()
	for file, want := range map[string]string{"r.md": "# Report", "r.bib": "@misc{example-source,", "r.json": `"type": "webpage"`} {
		code, _, errs := harkData(t, s, data, "", "library", "export", id(research), "-o", filepath.Join(dir, file))
		b, _ := os.ReadFile(filepath.Join(dir, file))
		if code != 0 || !strings.Contains(string(b), want) {
			t.Errorf("export %s: %d %s\n%s", file, code, errs, b)
		}
	}
	code, _, errs = harkData(t, s, data, "", "library", "export", id(items[1]), "-o", filepath.Join(dir, "crawl"))
	if _, err := os.Stat(filepath.Join(dir, "crawl", "index.md")); code != 0 || err != nil {
		t.Errorf("export crawl: %d %s %v", code, errs, err)
	}
	// Unknown and bad IDs, a bad kind, an existing file: exit 2, clearly.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"library", "show", "999"}, "no item 999"},
		{[]string{"library", "rm", "999"}, "no item 999"},
		{[]string{"library", "show", "abc"}, `ID "abc": must be a whole number`},
		{[]string{"library", "list", "--kind", "video"}, `--kind "video": must be one of research, search, page, crawl, map`},
		{[]string{"library", "export", id(research), "-o", filepath.Join(dir, "nowhere", "r.md")}, "the folder " + filepath.Join(dir, "nowhere") + " does not exist"},
		{[]string{"library", "export", id(items[1]), "-o", filepath.Join(dir, "crawl")}, "the folder exists and is not empty"},
		{[]string{"library", "export", id(items[1]), "-o", "-", "--format", "folder"}, "cannot go to stdout"},
		{[]string{"library", "rm", id(research), "999"}, "no item 999 (hark library list shows the IDs); nothing was removed"},
		{[]string{"library", "export", id(research)}, "want -o FILE"},
		{[]string{"library", "rm"}, "want ID... or --all"},
		{[]string{"library"}, "want list, search, show, rm or export"},
		{[]string{"library", "search", "?!", "…"}, "library search: query: has no words: a search matches words (letters or digits)"},
		{[]string{"notes", "list", "…"}, "notes list: query: has no words"},
	} {
		code, _, errs := harkData(t, s, data, "", tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: %d %q, want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	// rm with an unknown ID removed nothing: the report is still there.
	if code, _, errs := harkData(t, s, data, "", "library", "show", id(research)); code != 0 {
		t.Errorf("rm %s 999 removed %s: %d %s", id(research), id(research), code, errs)
	}
	code, out, _ = harkData(t, s, data, "", "library", "rm", id(research))
	if code != 0 || !strings.Contains(out, "removed 1 item") {
		t.Errorf("rm: %d %s", code, out)
	}
	code, out, _ = harkData(t, s, data, "", "library", "rm", "--all")
	if code != 0 || !strings.Contains(out, "removed 4 items") {
		t.Errorf("rm --all: %d %s", code, out)
	}
	if n := len(s.Requests()); n != calls {
		t.Errorf("library commands called the gateway %d times", n-calls)
	}
}

// library = false (or HARK_LIBRARY=0) keeps nothing; a damaged library
// is reported (exit 6 for library commands, a warning for the rest) and
// left as it is.
func TestLibraryOffAndDamaged(t *testing.T) {
	s := apitest.New(t)
	data := t.TempDir()
	t.Setenv("HARK_LIBRARY", "0")
	if code, _, _ := harkData(t, s, data, "", "search", "zebra"); code != 0 {
		t.Fatal("search failed")
	}
	if _, err := os.Stat(filepath.Join(data, library.File)); err == nil {
		t.Error("HARK_LIBRARY=0 still made a library")
	}
	t.Setenv("HARK_LIBRARY", "")

	junk := []byte(strings.Repeat("garbage ", 1000))
	os.WriteFile(filepath.Join(data, library.File), junk, 0o600)
	code, out, errs := harkData(t, s, data, "", "search", "zebra")
	if code != 0 || !strings.Contains(out, "Result 1 for zebra") || !strings.Contains(errs, "warning: results are not kept: library") || !strings.Contains(errs, "damaged") {
		t.Errorf("search with a damaged library: %d\n%s\n%s", code, out, errs)
	}
	code, _, errs = harkData(t, s, data, "", "library", "list")
	if code != exitLibrary || !strings.Contains(errs, "damaged") || !strings.Contains(errs, filepath.Join(data, library.File)) {
		t.Errorf("list with a damaged library: %d %s", code, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(data, library.File)); string(b) != string(junk) {
		t.Error("the damaged library was changed")
	}
}

// Scripts: the query from stdin, research -o FILE, --jsonl.
func TestScripting(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	data := t.TempDir()
	code, out, errs := harkData(t, s, data, "zebra  crossings\n", "search", "-")
	if code != 0 || !strings.Contains(out, "Result 1 for zebra crossings") {
		t.Errorf("search -: %d %s %s", code, out, errs)
	}
	code, out, errs = harkData(t, s, data, "how do okapis hide?", "research")
	if code != 0 || !strings.Contains(out, "Findings about how do okapis hide?") {
		t.Errorf("research from stdin: %d %s %s", code, out, errs)
	}
	file := filepath.Join(t.TempDir(), "report.md")
	code, out, errs = harkData(t, s, data, "", "research", "-o", file, "why", "stripes")
	b, _ := os.ReadFile(file)
	if code != 0 || out != "" || !strings.Contains(errs, "wrote "+file) ||
		!strings.Contains(string(b), "# Report\n\n> why stripes\n") || !strings.Contains(string(b), "1. [Source one](https://example.com/s1)") {
		t.Errorf("research -o: %d out %q err %q\n%s", code, out, errs, b)
	}
	code, out, errs = harkData(t, s, data, "", "search", "--jsonl", "--max-results", "3", "zebra")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 {
		t.Fatalf("search --jsonl: %d %q %s", code, out, errs)
	}
	for i, l := range lines {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil || r["url"] != "https://example.com/"+strconv.Itoa(i+1) {
			t.Errorf("line %d: %q %v", i, l, err)
		}
	}
	code, out, _ = harkData(t, s, data, "", "extract", "--jsonl", "https://a.example/ok", "https://a.example/fail")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 2 || !strings.Contains(lines[1], `"error":"fetch failed"`) {
		t.Errorf("extract --jsonl: %d %q", code, out)
	}
	code, out, _ = harkData(t, s, data, "", "crawl", "--jsonl", "https://site.example")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 2 {
		t.Errorf("crawl --jsonl: %d %q", code, out)
	}
	code, _, errs = harkData(t, s, data, "  \n", "research", "-")
	if code != exitUsage || !strings.Contains(errs, "research: QUESTION from stdin is empty") {
		t.Errorf("empty stdin: %d %s", code, errs)
	}
}

// search --dictate FILE: the query is what the recogniser hears, through
// the embedded gateway's real engines (flite speaks, pocketsphinx hears).
func TestSearchDictate(t *testing.T) {
	t.Parallel()
	env := withEnv("HARK_BASE_URL", "", "HARK_API_KEY", "")
	if testing.Short() {
		t.Skip("runs flite and pocketsphinx")
	}
	data := t.TempDir()
	wav := filepath.Join(t.TempDir(), "query.wav")
	if code, _, errs := harkDataWith(t, env, nil, data, "", "tts", "--voice", "flite:slt", "-o", wav, "the quick brown fox jumps over the lazy dog"); code != 0 {
		t.Fatalf("tts: %d %s", code, errs)
	}
	code, out, errs := harkDataWith(t, env, nil, data, "", "search", "--dictate", wav)
	if code != 0 || !strings.Contains(errs, `heard "the quick brown fox`) {
		t.Fatalf("search --dictate: %d\n%s\n%s", code, out, errs)
	}
	// The search that ran is kept with the words heard as its query.
	_, out, _ = harkDataWith(t, env, nil, data, "", "library", "list", "--kind", "search", "--json")
	var items []library.Item
	if json.Unmarshal([]byte(out), &items) != nil || len(items) != 1 || !strings.HasPrefix(items[0].Title, "the quick brown fox") {
		t.Errorf("kept: %s", out)
	}
	code, _, errs = harkDataWith(t, env, nil, data, "", "search", "--dictate", wav, "and", "words")
	if code != exitUsage || !strings.Contains(errs, "give QUERY or --dictate FILE, not both") {
		t.Errorf("both: %d %s", code, errs)
	}
	code, _, errs = harkDataWith(t, env, nil, data, "", "search", "--dictate", filepath.Join(data, "nope.wav"))
	if code != exitUsage || !strings.Contains(errs, "nope.wav") {
		t.Errorf("missing file: %d %s", code, errs)
	}
}

// hark audition: one text, several voices, through the embedded
// gateway's real engines; played in turn (file sink here: the stderr
// says so) or written as one WAV per voice with a manifest. With the
// audio off (null sink) it refuses, rather than print timings of takes
// no one heard (issue 43).
func TestAudition(t *testing.T) {
	t.Parallel()
	env := withEnv("HARK_BASE_URL", "", "HARK_API_KEY", "", "HARK_AUDIO_SINK", "file")
	if testing.Short() {
		t.Skip("runs flite and espeak-ng")
	}
	data := t.TempDir()
	code, out, errs := harkDataWith(t, env, nil, data, "", "audition", "--voices", "flite:slt,espeak:en-us,flite:rms", "--rate", "20", "Hello from three voices.")
	// Three lines as they play, then the table: a head and a row each.
	if code != 0 || strings.Count(out, "\n") != 7 || !strings.HasPrefix(out, "1/3 flite:slt") || !strings.Contains(out, "3/3 flite:rms") ||
		!strings.Contains(errs, "Audio goes to WAV files (audio sink file), so nothing is heard. The audition was saved to ") {
		t.Fatalf("play: %d\n%s\n%s", code, out, errs)
	}
	off := withEnv("HARK_BASE_URL", "", "HARK_API_KEY", "", "HARK_AUDIO_SINK", "null")
	code, out, errs = harkDataWith(t, off, nil, data, "", "audition", "--voices", "flite:slt", "Hello.")
	if code != exitUsage || out != "" || !strings.Contains(errs, "audio output is off (audio sink null)") || !strings.Contains(errs, "-o DIR") {
		t.Errorf("audition with the audio off: %d %q %q", code, out, errs)
	}
	dir := filepath.Join(t.TempDir(), "takes")
	code, out, errs = harkDataWith(t, env, nil, data, "", "--json", "audition", "--voices", "flite:slt,espeak:en-us", "-o", dir, "Hello from two voices.")
	var m auditionManifest
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil {
		t.Fatalf("-o --json: %d\n%s\n%s", code, out, errs)
	}
	if m.Text != "Hello from two voices." || len(m.Voices) != 2 || m.Voices[1].Voice != "espeak:en-us" || m.Voices[0].File != "01-flite_slt.wav" {
		t.Fatalf("manifest: %+v", m)
	}
	for _, v := range m.Voices {
		b, err := os.ReadFile(filepath.Join(dir, v.File))
		if err != nil || v.Duration < 0.5 || v.FirstAudio <= 0 || wavSeconds(b) != v.Duration {
			t.Errorf("take %+v: %v", v, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "manifest.json")); err != nil || !strings.Contains(string(b), `"02-espeak_en-us.wav"`) {
		t.Errorf("manifest.json: %v\n%s", err, b)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"audition", "--voices", "flite:slt,nope:x", "hi"}, `--voices: "nope:x" is not a voice`},
		{[]string{"audition", "hi"}, "--voices must name at least one voice"},
		{[]string{"audition", "--voices", "flite:slt", "-o", dir, "hi"}, "exists and is not empty"},
		{[]string{"audition", "--voices", "flite:slt", "--rate", "500", "hi"}, "speech_rate"},
		// The -o rule: the folder named is made, not its parents.
		{[]string{"audition", "--voices", "flite:slt", "-o", filepath.Join(dir, "no", "takes"), "hi"}, "the folder " + filepath.Join(dir, "no") + " does not exist"},
	} {
		code, _, errs := harkDataWith(t, env, nil, data, "", tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: %d %q, want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// hark read: a document spoken sentence by sentence through the embedded
// gateway; the WAV it writes is heard back by the recogniser.
func TestRead(t *testing.T) {
	t.Parallel()
	env := withEnv("HARK_BASE_URL", "", "HARK_API_KEY", "", "HARK_AUDIO_SINK", "null")
	if testing.Short() {
		t.Skip("runs flite and pocketsphinx")
	}
	data, dir := t.TempDir(), t.TempDir()
	doc := filepath.Join(dir, "doc.md")
	os.WriteFile(doc, []byte("# Foxes\n\nThe quick brown fox jumps over the lazy dog.\n\n```\nrm -rf /\n```\n"), 0o644)
	wav := filepath.Join(dir, "read.wav")
	code, out, errs := harkDataWith(t, env, nil, data, "", "--voice", "flite:slt", "read", doc, "-o", wav)
	if code != 0 || out != "Foxes.\nThe quick brown fox jumps over the lazy dog.\nA code block of 1 line.\n" || !strings.Contains(errs, "wrote 3 sentences") {
		t.Fatalf("read -o: %d\n%q\n%s", code, out, errs)
	}
	code, out, errs = harkDataWith(t, env, nil, data, "", "stt", wav)
	if code != 0 || !strings.Contains(out, "quick brown fox") {
		t.Errorf("the reading heard back: %d %q %s", code, out, errs)
	}
	// -o - writes the WAV to stdout, the sentences to stderr.
	code, out, errs = harkDataWith(t, env, nil, data, "", "--voice", "flite:slt", "read", doc, "-o", "-")
	if code != 0 || !strings.HasPrefix(out, "RIFF") || !strings.Contains(errs, "The quick brown fox") {
		t.Errorf("read -o -: %d, stdout starts %q, stderr %q", code, out[:min(4, len(out))], errs)
	}
	// Played (file sink), from stdin; with the audio off (null sink),
	// refused: nothing would be heard (issue 43).
	file := withEnv("HARK_BASE_URL", "", "HARK_API_KEY", "", "HARK_AUDIO_SINK", "file")
	code, out, errs = harkDataWith(t, file, nil, data, "One sentence. Two sentences.", "--voice", "flite:slt", "read", "-")
	if code != 0 || out != "One sentence.\nTwo sentences.\n" || !strings.Contains(errs, "Audio goes to WAV files (audio sink file), so nothing is heard. The audio: the reading was saved to ") ||
		strings.Contains(errs, "no sound device") {
		t.Errorf("read -: %d %q %q", code, out, errs)
	}
	code, out, errs = harkDataWith(t, env, nil, data, "One sentence.", "--voice", "flite:slt", "read", "-")
	if code != exitUsage || out != "" || !strings.Contains(errs, "audio output is off (audio sink null)") {
		t.Errorf("read with the audio off: %d %q %q", code, out, errs)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"read", "999"}, "no library item 999"},
		{[]string{"read", filepath.Join(dir, "nope.md")}, "no such file, and not a library ID"},
		{[]string{"read", doc, "-o", filepath.Join(dir, "no", "read.wav")}, "the folder " + filepath.Join(dir, "no") + " does not exist"},
	} {
		code, _, errs := harkDataWith(t, env, nil, data, "", tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: %d %q, want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// --json on every library command: search, rm and export print what a
// script needs (list and show are checked in TestLibraryCommands).
func TestLibraryJSON(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	data := t.TempDir()
	for _, args := range [][]string{{"search", "zebra", "crossings"}, {"research", "how do okapis hide"}, {"map", "https://site.example"}} {
		if code, _, errs := harkData(t, s, data, "", args...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, errs)
		}
	}
	code, out, errs := harkData(t, s, data, "", "--json", "library", "search", "okapis")
	var hits []library.Item
	if code != 0 || json.Unmarshal([]byte(out), &hits) != nil || len(hits) != 1 || hits[0].Kind != library.KindResearch || hits[0].Snippet == "" || hits[0].TraceID == "" {
		t.Fatalf("search --json: %d %q %s", code, out, errs)
	}
	code, out, _ = harkData(t, s, data, "", "--json", "library", "search", "nothing-matches-this")
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("search --json with no hit: %d %q, want []", code, out)
	}
	report := strconv.FormatInt(hits[0].ID, 10)

	file := filepath.Join(t.TempDir(), "r.bib")
	code, out, _ = harkData(t, s, data, "", "--json", "library", "export", report, "-o", file)
	var exported struct {
		ID     int64
		Path   string
		Format string
	}
	if code != 0 || json.Unmarshal([]byte(out), &exported) != nil || exported.ID != hits[0].ID || exported.Path != file || exported.Format != library.FormatBibTeX {
		t.Errorf("export --json: %d %q", code, out)
	}
	// -o - puts the item on stdout, and the summary on stderr.
	code, out, errs = harkData(t, s, data, "", "--json", "library", "export", report, "-o", "-")
	if code != 0 || !strings.HasPrefix(out, "# Report") || !strings.Contains(errs, `"format": "markdown"`) {
		t.Errorf("export -o - --json: %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error(`export -o - made a file named "-"`)
	}

	code, out, _ = harkData(t, s, data, "", "--json", "library", "rm", report, report)
	var removed struct {
		Removed int
		IDs     []int64
	}
	if code != 0 || json.Unmarshal([]byte(out), &removed) != nil || removed.Removed != 1 || len(removed.IDs) != 1 || removed.IDs[0] != hits[0].ID {
		t.Errorf("rm --json: %d %q", code, out)
	}
	code, out, _ = harkData(t, s, data, "", "--json", "library", "rm", "--all")
	if code != 0 || json.Unmarshal([]byte(out), &removed) != nil || removed.Removed != 2 {
		t.Errorf("rm --all --json: %d %q", code, out)
	}
}

// One -o rule for every command: -o FILE replaces FILE; -o - is stdout;
// a parent folder that does not exist is exit 2, naming it, and nothing
// is made; a crawl's folder is made alone.
func TestOutputRule(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	data, dir := t.TempDir(), t.TempDir()
	missing := filepath.Join(dir, "no", "such")
	for _, tc := range []struct {
		name string
		args func(out string) []string
		want string // in the file written
	}{
		{"research", func(out string) []string { return []string{"research", "-o", out, "why stripes"} }, "# Report"},
		// (apitest's audio is the same bytes whatever the format asked.)
		{"tts", func(out string) []string { return []string{"tts", "--voice", "alice", "-o", out, "hello"} }, string(apitest.Synthesize("hello")[:8])},
		{"library export", func(out string) []string { return []string{"library", "export", "1", "-o", out} }, "# Report"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, tc.name+".out")
			os.WriteFile(file, []byte("an older file"), 0o600)
			code, _, errs := harkData(t, s, data, "", tc.args(file)...)
			b, _ := os.ReadFile(file)
			if code != 0 || !strings.HasPrefix(string(b), tc.want) {
				t.Errorf("-o over an existing file: %d %q; the file starts %q", code, errs, b[:min(len(b), 20)])
			}
			if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
				t.Errorf("the replaced file's mode went from 0600 to %v", st.Mode().Perm())
			}
			code, out, errs := harkData(t, s, data, "", tc.args("-")...)
			if code != 0 || !strings.HasPrefix(out, tc.want) {
				t.Errorf("-o -: %d, stdout starts %q; %s", code, out[:min(len(out), 20)], errs)
			}
			calls := len(s.Requests())
			code, _, errs = harkData(t, s, data, "", tc.args(filepath.Join(missing, "x.md"))...)
			if code != exitUsage || !strings.Contains(errs, "the folder "+missing+" does not exist") {
				t.Errorf("-o in a missing folder: %d %q, want 2 naming %s", code, errs, missing)
			}
			if n := len(s.Requests()) - calls; n > 1 {
				t.Errorf("-o in a missing folder: %d gateway calls, want at most the tool list's", n)
			}
			if _, err := os.Stat(filepath.Join(dir, "no")); err == nil {
				t.Errorf("-o in a missing folder made %s", filepath.Join(dir, "no"))
			}
			if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) != 0 {
				t.Errorf("temporary files left: %v", m)
			}
		})
	}
	// A crawl exported as a folder: the folder alone is made.
	if code, _, errs := harkData(t, s, data, "", "crawl", "https://site.example"); code != 0 {
		t.Fatalf("crawl: %d %s", code, errs)
	}
	_, out, _ := harkData(t, s, data, "", "--json", "library", "list", "--kind", "crawl")
	var crawls []library.Item
	if json.Unmarshal([]byte(out), &crawls) != nil || len(crawls) != 1 {
		t.Fatalf("crawls: %s", out)
	}
	crawl := strconv.FormatInt(crawls[0].ID, 10)
	code, _, errs := harkData(t, s, data, "", "library", "export", crawl, "-o", filepath.Join(missing, "pages"))
	if code != exitUsage || !strings.Contains(errs, "the folder "+missing+" does not exist") {
		t.Errorf("crawl to a folder in a missing folder: %d %q", code, errs)
	}
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	code, _, errs = harkData(t, s, data, "", "library", "export", crawl, "-o", empty)
	if _, err := os.Stat(filepath.Join(empty, "index.md")); code != 0 || err != nil {
		t.Errorf("crawl to an empty folder: %d %q %v", code, errs, err)
	}
}
