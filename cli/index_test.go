package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hark/api"
	"hark/config"
	"hark/gateway/embedded"
)

// hark index fills the index the embedded gateway's search then reads.
func TestIndexThenSearch(t *testing.T) {
	docs := t.TempDir()
	os.WriteFile(filepath.Join(docs, "tuning.md"), []byte("# Flux capacitor tuning\n\nSet the flux capacitor to 1.21 gigawatts before travelling.\n"), 0o644)
	os.WriteFile(filepath.Join(docs, "other.html"), []byte("<html><head><title>Gardening</title></head><body><p>Tomatoes need sun.</p></body></html>"), 0o644)
	data := t.TempDir()

	code, out, errs := hark(t, nil, "", "--data-dir", data, "index", docs)
	if code != 0 || !strings.Contains(out, "Indexed 2 pages") || !strings.Contains(out, "now holds 2 pages") {
		t.Fatalf("index: %d %q %q", code, out, errs)
	}
	code, out, errs = hark(t, nil, "", "--data-dir", data, "--json", "search", "flux capacitor")
	if code != 0 || !strings.Contains(out, "tuning.md") || strings.Contains(out, "other.html") {
		t.Fatalf("search after index: %d %q %q", code, out, errs)
	}
	code, _, errs = hark(t, nil, "", "--data-dir", data, "index")
	if code != exitUsage || !strings.Contains(errs, "URL|SITEMAP|DIR") {
		t.Errorf("no target: %d %q", code, errs)
	}
	code, _, errs = hark(t, nil, "", "--data-dir", data, "index", "--depth", "9", docs)
	if code != exitUsage || !strings.Contains(errs, "--depth must be 1 to 5") {
		t.Errorf("bad depth: %d %q", code, errs)
	}
	t.Setenv("HARK_ALLOW_PRIVATE", "")
	code, _, errs = hark(t, nil, "", "--data-dir", data, "index", "http://127.0.0.1:9/")
	if code == 0 || !strings.Contains(errs, "address is private, loopback or link-local; refused") || !strings.Contains(errs, "--allow-private") {
		t.Errorf("loopback without --allow-private: %d %q", code, errs)
	}
	code, _, errs = hark(t, nil, "", "--data-dir", data, "index", filepath.Join(docs, "missing"))
	if code != exitUsage || !strings.Contains(errs, "no such file or directory") {
		t.Errorf("missing target: %d %q", code, errs)
	}
}

// hark index DIR skips a page's source copy and says how many it skipped.
func TestIndexSkipsSourceCopies(t *testing.T) {
	docs := t.TempDir()
	os.MkdirAll(filepath.Join(docs, "_sources"), 0o755)
	os.WriteFile(filepath.Join(docs, "tuning.html"), []byte("<html><head><title>Tuning</title></head><body><p>Set the flux capacitor to 1.21 gigawatts.</p></body></html>"), 0o644)
	os.WriteFile(filepath.Join(docs, "_sources", "tuning.rst.txt"), []byte("Tuning\n======\n\nSet the flux capacitor to 1.21 gigawatts.\n"), 0o644)
	os.WriteFile(filepath.Join(docs, "git-log.html"), []byte("<html><head><title>git-log</title></head><body><p>Show commit logs.</p></body></html>"), 0o644)
	os.WriteFile(filepath.Join(docs, "git-log.txt"), []byte("git-log(1)\n\nShow commit logs.\n"), 0o644)
	data := t.TempDir()
	code, out, errs := hark(t, nil, "", "--data-dir", data, "index", docs)
	if code != 0 || !strings.Contains(out, "Indexed 2 pages") || !strings.Contains(out, "skipped 2 files, the source copies of its HTML pages") {
		t.Fatalf("index: %d %q %q", code, out, errs)
	}
	code, out, errs = hark(t, nil, "", "--data-dir", t.TempDir(), "--json", "index", docs)
	if code != 0 || !strings.Contains(out, `"indexed":2`) || !strings.Contains(out, `"source_copies_skipped":2`) {
		t.Fatalf("index --json: %d %q %q", code, out, errs)
	}
}

// hark index URL crawls a site (loopback needs --allow-private), within
// --limit pages.
func TestIndexSite(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>Rivet works</title></head><body><p>We make rivets for bridges.</p><a href="/b">b</a> <a href="/c">c</a></body></html>`)
	})
	mux.HandleFunc("/b", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>Blind rivets</title></head><body><p>A blind rivet is set from one side of the joint.</p></body></html>`)
	})
	mux.HandleFunc("/c", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>Cold riveting</title></head><body><p>Cold riveting suits aluminium sheets.</p></body></html>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	data := t.TempDir()
	code, out, errs := hark(t, nil, "", "--data-dir", data, "--json", "index", "--allow-private", "--limit", "2", srv.URL+"/")
	if code != 0 || !strings.Contains(out, `"indexed":2`) {
		t.Fatalf("index --limit 2: %d %q %q", code, out, errs)
	}
	code, out, errs = hark(t, nil, "", "--data-dir", data, "index", "--allow-private", "--limit", "1", srv.URL+"/")
	if code != 0 || !strings.Contains(out, "Indexed 1 page from") {
		t.Fatalf("index --limit 1: %d %q %q", code, out, errs)
	}
	code, out, errs = hark(t, nil, "", "--data-dir", data, "index", "--allow-private", srv.URL+"/")
	if code != 0 || !strings.Contains(out, "Indexed 3 pages") {
		t.Fatalf("index: %d %q %q", code, out, errs)
	}
	code, out, errs = hark(t, nil, "", "--data-dir", data, "--json", "search", "blind rivet")
	if code != 0 || !strings.Contains(out, srv.URL+"/b") {
		t.Fatalf("search after index: %d %q %q", code, out, errs)
	}
	// The allow_private setting, which extract and crawl honour, lets
	// index read loopback too; the flag can still say no.
	t.Setenv("HARK_ALLOW_PRIVATE", "1")
	code, out, errs = hark(t, nil, "", "--data-dir", data, "index", srv.URL+"/")
	if code != 0 || !strings.Contains(out, "Indexed 3 pages") {
		t.Fatalf("index with HARK_ALLOW_PRIVATE=1: %d %q %q", code, out, errs)
	}
	code, _, errs = hark(t, nil, "", "--data-dir", data, "index", "--allow-private=false", srv.URL+"/")
	if code == 0 || !strings.Contains(errs, "refused") {
		t.Fatalf("--allow-private=false over the setting: %d %q", code, errs)
	}
}

// A folder that does not exist is the caller's mistake: exit 2, naming it.
func TestIndexMissingFolderIsUsage(t *testing.T) {
	t.Parallel()
	env := withEnv("HARK_BASE_URL", "", "HARK_API_KEY", "")
	missing := filepath.Join(t.TempDir(), "nonexistent")
	code, _, errs := harkApp(t, context.Background(), env, nil, "", "index", missing)
	if code != exitUsage || !strings.Contains(errs, "nonexistent") {
		t.Errorf("index of a missing folder: code %d, stderr %q; want 2 naming it", code, errs)
	}
}

// The data directory has one owner: the index the TUI's Index pane fills
// is the embedded gateway's own, so search finds its pages at once, and
// gateway.db is opened once however many of them are used.
func TestIndexFromTheTUIUsesTheGatewaysEngine(t *testing.T) {
	t.Parallel()
	docs := t.TempDir()
	os.WriteFile(filepath.Join(docs, "rivets.md"), []byte("# Blind rivets\n\nA blind rivet is set from one side of the joint.\n"), 0o644)
	opens := 0
	a := &App{cfg: &config.Config{DataDir: t.TempDir()}}
	a.hooks.openLocal = func(dir string, o embedded.Options) (*embedded.Local, error) {
		opens++
		return embedded.Open(dir, o)
	}
	defer a.close()
	ctx := context.Background()
	cl, err := a.client(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if hint := a.emptyIndexHint(ctx); !strings.Contains(hint, "index is empty") {
		t.Errorf("hint before indexing %q", hint)
	}
	ix := &localIndex{a: a}
	if n, err := ix.Index(ctx, docs, nil); err != nil || n != 1 {
		t.Fatalf("index from the TUI: %d %v", n, err)
	}
	out, err := cl.Search(ctx, api.SearchInput{Query: "blind rivet"})
	if err != nil || len(out.Results) != 1 || !strings.Contains(out.Results[0].URL, "rivets.md") {
		t.Fatalf("the gateway's search after the TUI's index: %+v %v", out, err)
	}
	if n, err := ix.Pages(ctx); err != nil || n != 1 {
		t.Errorf("pages %d %v", n, err)
	}
	if hint := a.emptyIndexHint(ctx); hint != "" {
		t.Errorf("hint after indexing %q", hint)
	}
	if opens != 1 {
		t.Errorf("the data directory was opened %d times, want once", opens)
	}
}

// hark index opens the data directory once and starts no gateway.
func TestIndexOpensTheDataDirectoryOnce(t *testing.T) {
	t.Parallel()
	docs := t.TempDir()
	os.WriteFile(filepath.Join(docs, "a.md"), []byte("# A\n\nalpha\n"), 0o644)
	opens, starts := 0, 0
	hook := func(h *hooks) {
		h.openLocal = func(dir string, o embedded.Options) (*embedded.Local, error) {
			opens++
			return embedded.Open(dir, o)
		}
		h.startGateway = func(context.Context) (string, string, func(), error) {
			starts++
			return "", "", nil, errors.New("hark index needs no gateway")
		}
	}
	code, out, errs := harkApp(t, context.Background(), hook, nil, "", "--data-dir", t.TempDir(), "index", docs)
	if code != 0 || !strings.Contains(out, "Indexed 1 page") || opens != 1 || starts != 0 {
		t.Errorf("index: %d %q %q; opened %d times, %d gateways started", code, out, errs, opens, starts)
	}
}
