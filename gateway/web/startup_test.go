package web

import (
	"os/exec"
	"strings"
	"testing"
)

// go-dateparser's package init costs every hark process 0.2-0.5 s and
// ~25 MiB of heap (docs/web.md, Benchmarks); nothing linked into hark may
// bring it back. (Test binaries carry no module list, so ask go list.)
func TestNoDateParserLinked(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to list hark's packages")
	}
	out, err := exec.Command(goTool, "list", "-e", "-deps", "hark", "hark/gateway/web").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "go-dateparser") || strings.Contains(pkg, "go-htmldate") {
			t.Errorf("%s is linked into hark; its init slows every hark start", pkg)
		}
	}
}
