package web

import (
	"runtime/debug"
	"strings"
	"testing"
)

// go-dateparser's package init costs every hark process 0.2-0.5 s and
// ~25 MiB of heap (docs/web.md, Benchmarks); nothing the web engine links
// may bring it back.
func TestNoDateParserLinked(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("no build info in this test binary")
	}
	for _, m := range bi.Deps {
		if strings.Contains(m.Path, "go-dateparser") || strings.Contains(m.Path, "go-htmldate") {
			t.Errorf("%s is linked into the web engine; its init slows every hark start", m.Path)
		}
	}
}
