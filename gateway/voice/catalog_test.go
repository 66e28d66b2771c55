package voice

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"hark/api"
	"hark/gateway/engine"
)

// fakeEspeak is an espeak-ng that only lists voices, logging each run to
// runs; it fails while the file broken exists.
func fakeEspeak(t *testing.T) (path, runs, broken string) {
	t.Helper()
	dir := t.TempDir()
	path, runs, broken = filepath.Join(dir, "espeak-ng"), filepath.Join(dir, "runs"), filepath.Join(dir, "broken")
	script := `#!/bin/sh
echo "$1" >> ` + runs + `
if [ -e ` + broken + ` ]; then echo "espeak-ng: no data" >&2; exit 1; fi
echo "Pty Language       Age/Gender VoiceName          File                 Other Languages"
case "$1" in
--voices=variant) echo " 5  variant         --/F      Alicia             !v/Alicia";;
--voices) echo " 5  en-us           --/M      English_(America)  gmw/en-US";;
esac
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, runs, broken
}

func runsOf(t *testing.T, runs string) []string {
	t.Helper()
	b, err := os.ReadFile(runs)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// New starts no process: the voices are listed on first use, once for
// concurrent callers, and the start-up trace hears of it.
func TestCatalogListedOnFirstUse(t *testing.T) {
	espeak, runs, _ := fakeEspeak(t)
	var mu sync.Mutex
	var events []string
	l, err := New(Config{EspeakPath: espeak, FlitePath: filepath.Join(t.TempDir(), "no-flite"), FestivalPath: "/nonexistent/festival", WarmAfter: WarmOnDemand,
		Trace: func(e string) { mu.Lock(); events = append(events, e); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if r := runsOf(t, runs); len(r) != 0 {
		t.Fatalf("New ran espeak-ng: %v", r)
	}
	// A request refused for its own input lists nothing either.
	if _, err := l.Synthesize(context.Background(), api.TTSRequest{Text: " ", VoiceCode: "espeak:en-us"}, &countingSink{}); err == nil {
		t.Fatal("empty text accepted")
	}
	if r := runsOf(t, runs); len(r) != 0 {
		t.Fatalf("a refused request ran espeak-ng: %v", r)
	}
	var wg sync.WaitGroup
	lists := make([][]api.Voice, 4)
	for i := range lists {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lists[i], _ = l.Voices(context.Background())
		}()
	}
	wg.Wait()
	for _, vs := range lists {
		if len(vs) != 2 || vs[0].Value != "espeak:en-us" || vs[1].Value != "espeak:en-us+Alicia" {
			t.Fatalf("voices %+v", lists)
		}
	}
	if r := runsOf(t, runs); strings.Join(r, " ") != "--voices --voices=variant" {
		t.Errorf("espeak-ng runs %v, want one listing of languages and one of variants", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(events, ",") != "voice catalogue listed" {
		t.Errorf("trace %q", events)
	}
}

// An engine that cannot list its voices fails the call that needed them
// with ErrUnavailable and the engine's words; the next call tries again.
func TestCatalogFailureReportedOnUse(t *testing.T) {
	espeak, runs, broken := fakeEspeak(t)
	os.WriteFile(broken, nil, 0o600)
	var events []string
	l, err := New(Config{EspeakPath: espeak, FlitePath: filepath.Join(t.TempDir(), "no-flite"), FestivalPath: "/nonexistent/festival", WarmAfter: WarmOnDemand,
		Trace: func(e string) { events = append(events, e) }})
	if err != nil {
		t.Fatalf("New fails before any voice is asked for: %v", err)
	}
	defer l.Close()
	_, err = l.Synthesize(context.Background(), api.TTSRequest{Text: "hello", VoiceCode: "espeak:en-us"}, &countingSink{})
	if !errors.Is(err, engine.ErrUnavailable) || !strings.Contains(err.Error(), "no data") {
		t.Fatalf("Synthesize with a broken espeak-ng: %v", err)
	}
	if _, err := l.Voices(context.Background()); !errors.Is(err, engine.ErrUnavailable) {
		t.Fatalf("Voices with a broken espeak-ng: %v", err)
	}
	os.Remove(broken)
	if vs, err := l.Voices(context.Background()); err != nil || len(vs) != 2 {
		t.Fatalf("after the engine was mended: %v %v", vs, err)
	}
	if n := len(runsOf(t, runs)); n != 4 {
		t.Errorf("%d espeak-ng runs, want 2 failed listings and 2 good", n)
	}
	if strings.Join(events, ",") != "voice catalogue failed,voice catalogue failed,voice catalogue listed" {
		t.Errorf("trace %q", events)
	}
	if _, err := New(Config{EspeakPath: "/nonexistent/espeak-ng", FlitePath: "/nonexistent/flite", FestivalPath: "/nonexistent/festival"}); err == nil || !strings.Contains(err.Error(), "neither espeak-ng, flite nor festival is installed") {
		t.Errorf("New with no engine: %v", err)
	}
}
