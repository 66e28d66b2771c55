package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The dependency rules of docs/architecture.md, checked on what each
// package really links (go list -deps, tests excluded). A rule names the
// hark packages a package may reach; anything else is a violation.
var dependencyRules = []struct {
	pkg   string   // a package, or a prefix ending in "/..."
	may   []string // hark packages (or "/..." prefixes) it may depend on
	never string   // why, shown on failure
}{
	{"hark/api/...", []string{"hark/api/..."}, "the wire types and client are the base everything shares"},
	{"hark/config", nil, "settings are read by the command line and handed down"},
	{"hark/audio/wav", nil, "the WAV code is shared by the gateway and the client, so it stands alone and needs no cgo"},
	{"hark/audio/pcm", []string{"hark/audio/wav"}, "raw audio (formats, samples, decoding, resampling) is shared by the gateway and the client, so it plays nothing"},
	{"hark/audio/prose", []string{"hark/gateway/text"}, "read-aloud splits sentences with the one text toolkit, which imports nothing of hark"},
	{"hark/audio/...", []string{"hark/audio/...", "hark/gateway/text"}, "playback knows sound, not the gateway (only the standalone text toolkit, through prose)"},
	{"hark/library/...", []string{"hark/api/...", "hark/library/..."}, "the library keeps what the client saw; it needs no gateway or screen"},
	{"hark/deck", []string{"hark/api/...", "hark/audio/...", "hark/gateway/text"}, "a demo deck is spoken through any gateway (api) and played through the sound output (audio); it draws nothing"},
	{"hark/gateway/text", nil, "the text toolkit (tokenizer, stemmer, BM25, sentences) is shared by the index, search and research, so it stands alone"},
	{"hark/gateway/text/lexicon", []string{"hark/gateway/text"}, "research's vocabulary reads dictionary files (WordNet, the word lists) into the text toolkit's terms; it knows no page, index or report"},
	{"hark/gateway/model", nil, "the model client speaks to a provider through its SDK and knows nothing of research, pages or the server"},
	{"hark/gateway/model/modeltest", []string{"hark/gateway/text"}, "the fake model service is a third party's stand-in: its fake embeddings read words with the text toolkit"},
	{"hark/gateway/research/doc", []string{"hark/gateway/research/lean", "hark/gateway/text", "hark/gateway/text/lexicon"}, "a page's parse knows no question, ranking or report: the web index stores it and research quotes from it"},
	{"hark/gateway/research/...", []string{"hark/api/...", "hark/gateway/engine", "hark/gateway/extract/...", "hark/gateway/store", "hark/gateway/text", "hark/gateway/text/lexicon", "hark/gateway/model", "hark/gateway/research/..."}, "research reads the web engine through its Index interface, never gateway/web itself (it escapes markdown as the extractor does); gateway/embedded wires the two"},
	{"hark/gateway/config", nil, "gateway.toml is read and checked, then handed down: it knows nothing of what uses it"},
	{"hark/gateway/store", nil, "the database and its migrations know nothing of the tables' owners, which register with it"},
	{"hark/gateway/auth", []string{"hark/api", "hark/gateway/config", "hark/gateway/store"}, "keys are checked and kept without the HTTP server"},
	{"hark/gateway/workspaces", []string{"hark/api", "hark/gateway/config", "hark/gateway/store"}, "the workspaces' table knows no HTTP, key or engine"},
	{"hark/gateway/usage", []string{"hark/gateway/store"}, "the ledger and costs know nothing of HTTP, keys or engines"},
	{"hark/gateway/limits", []string{"hark/gateway/store"}, "limits are middleware that refuse with an error; the gateway words the answer"},
	{"hark/gateway/jobs", []string{"hark/api", "hark/gateway/store"}, "the job queue runs what it is given; it knows no tool, engine or route"},
	{"hark/gateway/watch", []string{"hark/api", "hark/gateway/engine", "hark/gateway/store"}, "watched pages are read again through the engine's Rechecker interface, never gateway/web itself"},
	{"hark/gateway", []string{"hark/api", "hark/audio/wav", "hark/audio/pcm", "hark/gateway/auth", "hark/gateway/config", "hark/gateway/engine", "hark/gateway/jobs", "hark/gateway/limits", "hark/gateway/store", "hark/gateway/usage", "hark/gateway/watch", "hark/gateway/workspaces"}, "the gateway's HTTP knows its engines only through gateway/engine's interfaces; gateway/embedded wires the local ones"},
	{"hark/gateway/...", []string{"hark/api/...", "hark/audio/wav", "hark/audio/pcm", "hark/gateway/..."}, "the gateway never reaches into the client (ui, cli, audio playback, settings)"},
	{"hark/ui/...", []string{"hark/api/...", "hark/audio/...", "hark/library/...", "hark/deck", "hark/ui/...", "hark/gateway/text"}, "ui talks to any gateway through api only: it never imports gateway, cli or config (gateway/text, which stands alone, reaches it through read-aloud's prose)"},
	{"hark/scripts/fileserver", nil, "the tmux scripts' file server serves a folder on loopback; it needs nothing of hark"},
	{"hark/deploy", nil, "the deployment files' package holds no code: its tests run the unit, the proxy and the image's steps"},
	{"hark/cli", []string{"hark/..."}, "the command line wires everything"},
	{"hark", []string{"hark/..."}, "main only runs the command line (TestRootHoldsOnlyMain checks it imports cli alone)"},
}

type listedPackage struct {
	ImportPath string
	Deps       []string
	Module     *struct {
		Path, Version string
		Replace       *struct{ Path, Version string }
	}
}

func goList(t *testing.T, args ...string) []listedPackage {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Deps,Module"}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func matches(pattern, pkg string) bool {
	if p, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == p || strings.HasPrefix(pkg, p+"/")
	}
	return pkg == pattern
}

func TestDependencyRules(t *testing.T) {
	for _, p := range goList(t, "./...") {
		rule := -1
		for i, r := range dependencyRules {
			if matches(r.pkg, p.ImportPath) {
				rule = i
				break
			}
		}
		if rule < 0 {
			t.Errorf("%s: no dependency rule covers it; add one to dependencyRules and docs/architecture.md", p.ImportPath)
			continue
		}
		r := dependencyRules[rule]
		for _, d := range p.Deps {
			if d != "hark" && !strings.HasPrefix(d, "hark/") {
				continue
			}
			ok := false
			for _, m := range r.may {
				ok = ok || matches(m, d)
			}
			if !ok {
				t.Errorf("%s depends on %s: %s", p.ImportPath, d, r.never)
			}
		}
	}
}

// TestRootHoldsOnlyMain keeps the command line in package cli.
func TestRootHoldsOnlyMain(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{join .GoFiles \" \"}}|{{join .Imports \" \"}}", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	files, imports, _ := strings.Cut(strings.TrimSpace(string(out)), "|")
	if files != "main.go" {
		t.Errorf("the root package holds %q; only main.go belongs there (the command line is package cli)", files)
	}
	for _, imp := range strings.Fields(imports) {
		if strings.HasPrefix(imp, "hark/") && imp != "hark/cli" {
			t.Errorf("main imports %s; it only runs hark/cli", imp)
		}
	}
}

// Packages whose init is known to cost more than 5 ms (measured with
// GODEBUG=inittrace=1 on hark's 2-core machine; docs/startup.md). hark runs
// every package init before main, at every start, so none may be linked.
var slowInit = []string{
	// Compiles about 4,000 regular expressions at init: 260-310 ms
	// (markusmobius/go-dateparser#20). go-trafilatura linked it through
	// go-htmldate; hark's own extractor (gateway/extract) replaced both.
	"github.com/markusmobius/go-dateparser",
	"github.com/markusmobius/go-htmldate",
	"github.com/markusmobius/go-trafilatura",
	"github.com/markusmobius/go-domdistiller",
	"github.com/go-shiori/go-readability",
	// Language-detection models, loaded at init by trafilatura's helpers.
	"github.com/pemistahl/lingua-go",
}

// TestImportsAreGrouped checks every Go file's imports read as
// goimports -local hark writes them: the standard library, then
// third-party modules, then hark's own packages, each group apart.
func TestImportsAreGrouped(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		kind := func(p string) int {
			switch first, _, _ := strings.Cut(p, "/"); {
			case p == "hark" || first == "hark":
				return 2
			case strings.Contains(first, "."):
				return 1
			}
			return 0
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.IMPORT {
				continue
			}
			// Each import declaration on its own ("import \"C\"" stands
			// apart from the block after it).
			lastLine, group := 0, -1
			for _, spec := range gd.Specs {
				im := spec.(*ast.ImportSpec)
				p, _ := strconv.Unquote(im.Path.Value)
				k, line := kind(p), fset.Position(im.Pos()).Line
				if im.Doc != nil {
					line = fset.Position(im.Doc.Pos()).Line
				}
				switch {
				case lastLine == 0 || line > lastLine+1:
					if k <= group {
						t.Errorf("%s: %s opens a group after a group of its kind or a later one", path, p)
					}
					group = k
				case k != group:
					t.Errorf("%s: %s shares a group with imports of another kind (standard library, third-party, hark)", path, p)
				}
				lastLine = fset.Position(im.End()).Line
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestStartupImportGraph keeps the packages with slow inits out of the
// hark binary, and the two replaced modules replaced.
func TestStartupImportGraph(t *testing.T) {
	for _, p := range goList(t, "-deps", ".") {
		for _, slow := range slowInit {
			if matches(slow+"/...", p.ImportPath) {
				t.Errorf("the hark binary links %s, whose package init is known to cost over 5 ms at every start", p.ImportPath)
			}
		}
		m := p.Module
		if m == nil {
			continue
		}
		switch m.Path {
		case "github.com/alecthomas/chroma/v2":
			// Its init parses every lexer and style: 13 to 16 ms.
			if m.Replace == nil || m.Replace.Path != "./replace/chroma" {
				t.Errorf("%s comes from the real chroma v2; go.mod must replace it with ./replace/chroma", p.ImportPath)
			}
		case "github.com/mattn/go-runewidth":
			// v0.0.24 and later build lookup tables at init: 25 to 59 ms.
			v := m.Version
			if m.Replace != nil {
				v = m.Replace.Version
			}
			if v != "v0.0.23" {
				t.Errorf("go-runewidth %s is linked; go.mod pins v0.0.23, whose init costs 0.02 ms", v)
			}
		}
	}
}

// Bounds of one package's init in the built binary: see
// TestPackageInitsAreCheap.
const (
	initClockBound = 5.0     // ms, on the fastest of initRuns starts
	initBytesBound = 2 << 20 // bytes allocated
	initRuns       = 5
)

// TestPackageInitsAreCheap catches a new dependency with a slow init,
// which the fixed list of TestStartupImportGraph cannot know of: it runs
// the built hark --version with GODEBUG=inittrace=1 and fails when one
// package's init allocates over 2 MiB (deterministic: the same binary does
// the same work) or takes over 5 ms on the fastest of 5 starts. Load on
// the machine only ever adds time, so the minimum is the init's own cost;
// today the slowest package's minimum is about 0.5 ms, so the bound has
// ten times that of headroom and a busy machine does not make it flake.
func TestPackageInitsAreCheap(t *testing.T) {
	bin := buildHark(t)
	fastest := map[string]float64{}
	allocated := map[string]int64{}
	for range initRuns {
		cmd := exec.Command(bin, "--version")
		cmd.Env = append(cmd.Environ(), "GODEBUG=inittrace=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("hark --version: %v\n%s", err, stderr.String())
		}
		inits, err := parseInitTrace(stderr.String())
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range inits {
			if ms, ok := fastest[in.pkg]; !ok || in.ms < ms {
				fastest[in.pkg] = in.ms
			}
			allocated[in.pkg] = max(allocated[in.pkg], in.bytes)
		}
	}
	if len(fastest) < 20 {
		t.Fatalf("inittrace named %d packages; is GODEBUG=inittrace=1 still the format parseInitTrace reads?", len(fastest))
	}
	pkgs := make([]string, 0, len(fastest))
	for p := range fastest {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		if fastest[p] > initClockBound {
			t.Errorf("%s: package init takes %.2f ms on the fastest of %d starts (bound %.0f ms); defer its work to first use, or keep it out of the binary (docs/startup.md)", p, fastest[p], initRuns, initClockBound)
		}
		if allocated[p] > initBytesBound {
			t.Errorf("%s: package init allocates %d bytes (bound %d); defer its work to first use, or keep it out of the binary (docs/startup.md)", p, allocated[p], initBytesBound)
		}
	}
}

// buildHark builds the hark binary into a temporary folder.
func buildHark(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the hark binary")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	bin := filepath.Join(t.TempDir(), "hark")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// hark with no terminal (a pipe, cron, a service) says what to do
// instead of opening the TUI, and exits 2: the user asked for something
// this place cannot give, not a bug.
func TestTUIWithoutATerminal(t *testing.T) {
	bin := buildHark(t)
	dir := t.TempDir()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir, "HARK_BASE_URL=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // a new session has no controlling terminal
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("hark with no terminal: %v, want exit 2; stderr %q", err, stderr.String())
	}
	if msg := stderr.String(); !strings.Contains(msg, "the TUI needs a terminal") || !strings.Contains(msg, "hark search QUERY") || strings.Contains(msg, "bubbletea") {
		t.Errorf("stderr %q: want what to do instead, in hark's words", msg)
	}
}

type packageInit struct {
	pkg   string
	ms    float64
	bytes int64
}

// parseInitTrace reads GODEBUG=inittrace=1 lines:
// "init PKG @0.012 ms, 0.004 ms clock, 0 bytes, 0 allocs".
func parseInitTrace(s string) ([]packageInit, error) {
	var out []packageInit
	for _, l := range strings.Split(s, "\n") {
		f := strings.Fields(l)
		if len(f) < 11 || f[0] != "init" {
			continue
		}
		if f[6] != "clock," || f[8] != "bytes," {
			return nil, fmt.Errorf("inittrace line %q: not the form init PKG @T ms, D ms clock, B bytes, N allocs", l)
		}
		ms, err1 := strconv.ParseFloat(f[4], 64)
		b, err2 := strconv.ParseInt(f[7], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("inittrace line %q: unreadable numbers", l)
		}
		out = append(out, packageInit{f[1], ms, b})
	}
	return out, nil
}
