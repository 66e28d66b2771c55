package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"hark/api"
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
	if code, out, _ := hark(t, nil, "", "--data-dir", data, "library", "list"); code != 0 || strings.Count(strings.TrimSpace(out), "\n") != 1 {
		t.Errorf("verify kept something in the library:\n%s", out)
	}
	os.WriteFile(page, []byte("# Zorblax tuning\n\nA new opening paragraph comes first now.\n\n"+body[len("# Zorblax tuning\n\n"):]), 0o644)
	verify("moved")
	os.WriteFile(page, []byte("# Zorblax tuning\n\nNothing about it here any more.\n"), 0o644)
	verify("0 stand, 0 moved")
	os.Remove(page)
	verify("0 stand, 0 moved, 1 gone")

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

// A report whose sources are pages of a site on loopback: verify reads
// them with --allow-private as they were read (the setting is the
// embedded gateway's), keeps nothing in the library, and calls a quote
// whose site cannot be reached "not checked", with the reason, exiting
// 4; without --allow-private it exits 2 with the way to allow it; a page
// that answers 404 is gone (issue 43).
func TestResearchVerifyHTTPSources(t *testing.T) {
	t.Parallel()
	body := "<html><head><title>Zorblax tuning</title></head><body><h1>Zorblax tuning</h1>" +
		"<p>The zorblax engine is tuned by setting the flux ratio to 3.5 in the control file. " +
		"A higher ratio makes the engine louder, and a lower one makes it quiet.</p></body></html>"
	var gone atomic.Bool
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gone.Load() {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, body)
	}))
	defer site.Close()
	data := t.TempDir()
	if code, _, errs := hark(t, nil, "", "--data-dir", data, "index", "--allow-private", site.URL+"/zorblax.html"); code != 0 {
		t.Fatalf("index: %d %s", code, errs)
	}
	if code, out, errs := hark(t, nil, "", "--data-dir", data, "research", "how do I tune zorblax?"); code != 0 || !strings.Contains(out, "flux ratio") {
		t.Fatalf("research: %d %s %s", code, out, errs)
	}
	id := onlyItem(t, data, "research")
	libraryItems := func() int {
		t.Helper()
		_, out, _ := hark(t, nil, "", "--data-dir", data, "library", "list", "--json")
		var items []library.Item
		json.Unmarshal([]byte(out), &items)
		return len(items)
	}

	code, out, errs := hark(t, nil, "", "--data-dir", data, "research", "verify", "--allow-private", id)
	if code != 0 || !strings.Contains(out, "1 stand, 0 moved, 0 gone") && !strings.Contains(out, " 0 moved, 0 gone") || strings.Contains(out, "not checked") {
		t.Errorf("verify --allow-private: %d %q %q", code, out, errs)
	}
	if n := libraryItems(); n != 1 {
		t.Errorf("verify kept what it read: the library holds %d items, want the report alone", n)
	}

	code, out, errs = hark(t, nil, "", "--data-dir", data, "research", "verify", id)
	if code != exitUsage || !strings.Contains(out, "not checked") || !strings.Contains(out, "address is private") ||
		!strings.Contains(errs, "--allow-private") || strings.Contains(out, "gone ") {
		t.Errorf("verify of a loopback page without --allow-private: %d %q %q", code, out, errs)
	}

	gone.Store(true)
	code, out, errs = hark(t, nil, "", "--data-dir", data, "research", "verify", "--allow-private", id)
	if code != 0 || !strings.Contains(out, "gone") || !strings.Contains(out, "404") || strings.Contains(out, "not checked") {
		t.Errorf("verify of a page that answers 404: %d %q %q", code, out, errs)
	}

	site.Close()
	code, out, errs = hark(t, nil, "", "--data-dir", data, "research", "verify", "--allow-private", id)
	if code != exitGateway || !strings.Contains(out, "not checked") || !strings.Contains(out, "connection refused") ||
		!strings.Contains(out, "0 gone") || !strings.Contains(errs, "not checked") {
		t.Errorf("verify with the site down: %d %q %q", code, out, errs)
	}
	code, out, _ = hark(t, nil, "", "--data-dir", data, "--json", "research", "verify", "--allow-private", id)
	var checks []api.PassageCheck
	if code != exitGateway || json.Unmarshal([]byte(out), &checks) != nil || len(checks) == 0 || checks[0].State != api.PassageUnchecked || checks[0].Error == "" {
		t.Errorf("verify --json with the site down: %d %s", code, out)
	}
	// What the index kept of the page is still there: the site being down
	// changed nothing kept.
	if code, out, _ := hark(t, nil, "", "--data-dir", data, "search", "flux ratio"); code != 0 || !strings.Contains(out, "zorblax") {
		t.Errorf("the index lost the page: %d %s", code, out)
	}
	if n := libraryItems(); n != 2 { // the report and the search just made
		t.Errorf("the library holds %d items after the verifies, want 2", n)
	}
}

// onlyItem is the ID of the one library item of kind.
func onlyItem(t *testing.T, data, kind string) string {
	t.Helper()
	code, out, _ := hark(t, nil, "", "--data-dir", data, "library", "list", "--json", "--kind", kind)
	var items []library.Item
	if code != 0 || json.Unmarshal([]byte(out), &items) != nil || len(items) != 1 {
		t.Fatalf("list --kind %s: %d %s", kind, code, out)
	}
	return strconv.FormatInt(items[0].ID, 10)
}

// Through a remote gateway, verify reads the sources again at the depth
// the report was made with (basic for mini, advanced for pro: advanced
// costs more on a paid vendor), and at advanced when --depth asks.
func TestResearchVerifyReadsAtTheReportsDepth(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	data := t.TempDir()
	u := "https://docs.example/zorblax"
	report := api.ResearchOutput{RequestID: "r1", Status: api.ResearchCompleted, Content: "Zorblax has a page [1].",
		Sources:  []api.ResearchSource{{Title: "Zorblax", URL: u}},
		Passages: []api.ResearchPassage{{Source: 1, URL: u, Quote: "Page " + u, Start: 2, End: 7 + len(u)}}}
	ids := map[string]string{}
	for _, model := range []string{"mini", "pro"} {
		b, _ := json.Marshal(report)
		s.Script(apitest.InvokePath(api.ToolResearch), apitest.OK(api.InvokeResult{Service: api.SearchService, Tool: api.ToolResearch, Output: b}))
		if code, _, errs := harkData(t, s, data, "", "research", "--model", model, "zorblax "+model); code != 0 {
			t.Fatalf("research %s: %d %s", model, code, errs)
		}
		code, out, _ := harkData(t, s, data, "", "library", "search", "--json", "zorblax "+model)
		var items []library.Item
		if code != 0 || json.Unmarshal([]byte(out), &items) != nil || len(items) == 0 {
			t.Fatalf("library search %s: %d %s", model, code, out)
		}
		ids[model] = strconv.FormatInt(items[0].ID, 10)
	}
	depth := func(args ...string) string {
		t.Helper()
		code, out, errs := harkData(t, s, data, "", append([]string{"research", "verify"}, args...)...)
		if code != 0 || !strings.Contains(out, "1 stand") {
			t.Fatalf("verify %v: %d %s %s", args, code, out, errs)
		}
		var body struct{ Inputs map[string]any }
		json.Unmarshal(s.Last(apitest.InvokePath(api.ToolExtract)).Body, &body)
		d, _ := body.Inputs["extract_depth"].(string)
		return d
	}
	if d := depth(ids["mini"]); d != "basic" {
		t.Errorf("a mini report's sources read again at %q, want basic", d)
	}
	if d := depth(ids["pro"]); d != "advanced" {
		t.Errorf("a pro report's sources read again at %q, want advanced", d)
	}
	if d := depth(ids["mini"], "--depth", "advanced"); d != "advanced" {
		t.Errorf("--depth advanced read at %q", d)
	}
	code, _, errs := harkData(t, s, data, "", "research", "verify", ids["mini"], "--depth", "deep")
	if code != exitUsage || !strings.Contains(errs, `--depth "deep": must be basic or advanced`) {
		t.Errorf("--depth deep: %d %q", code, errs)
	}
}
