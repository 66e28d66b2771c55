package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"hark/api/apitest"
	"hark/library"
)

// hark research verify reads a kept report's sources again: each quote
// stands, then moves when text is added above it, then is gone when its
// page no longer says it.
func TestResearchVerify(t *testing.T) {
	t.Parallel()
	docs := t.TempDir()
	page := filepath.Join(docs, "zorblax.md")
	body := "# Zorblax tuning\n\nThe zorblax engine is tuned by setting the flux ratio to 3.5 in the control file. " +
		"A higher ratio makes the engine louder.\n"
	if err := os.WriteFile(page, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	if code, _, errs := hark(t, nil, "", "--data-dir", data, "index", docs); code != 0 {
		t.Fatalf("index: %d %s", code, errs)
	}
	code, out, errs := hark(t, nil, "", "--data-dir", data, "--json", "research", "how do I tune zorblax?")
	if code != 0 || !strings.Contains(out, `"passages"`) || !strings.Contains(out, "flux ratio") {
		t.Fatalf("research --json carries no passages: %d %s %s", code, out, errs)
	}
	code, out, _ = hark(t, nil, "", "--data-dir", data, "library", "list", "--json", "--kind", "research")
	var items []library.Item
	if code != 0 || json.Unmarshal([]byte(out), &items) != nil || len(items) != 1 {
		t.Fatalf("list: %d %s", code, out)
	}
	id := strconv.FormatInt(items[0].ID, 10)

	verify := func(want string) {
		t.Helper()
		code, out, errs := hark(t, nil, "", "--data-dir", data, "research", "verify", id)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("verify: %d %q %q, want %q", code, out, errs, want)
		}
	}
	verify("0 moved, 0 gone")
	verify("stands")
	os.WriteFile(page, []byte("# Zorblax tuning\n\nA new opening paragraph comes first now.\n\n"+body[len("# Zorblax tuning\n\n"):]), 0o644)
	verify("moved")
	os.WriteFile(page, []byte("# Zorblax tuning\n\nNothing about it here any more.\n"), 0o644)
	verify("0 stand, 0 moved")

	code, _, errs = hark(t, nil, "", "--data-dir", data, "research", "verify", "999")
	if code != exitUsage || !strings.Contains(errs, "no item 999") {
		t.Errorf("unknown id: %d %q", code, errs)
	}
}

// A report from a gateway that records no passages cannot be verified:
// verify says so rather than report every quote gone.
func TestResearchVerifyWithoutPassages(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	data := t.TempDir()
	if code, _, errs := harkData(t, s, data, "", "research", "how do okapis hide"); code != 0 {
		t.Fatalf("research: %d %s", code, errs)
	}
	code, out, _ := harkData(t, s, data, "", "library", "list", "--json")
	var items []library.Item
	if code != 0 || json.Unmarshal([]byte(out), &items) != nil || len(items) != 1 {
		t.Fatalf("list: %d %s", code, out)
	}
	code, _, errs := harkData(t, s, data, "", "research", "verify", strconv.FormatInt(items[0].ID, 10))
	if code != exitUsage || !strings.Contains(errs, "records no passages") {
		t.Errorf("verify: %d %q", code, errs)
	}
}
