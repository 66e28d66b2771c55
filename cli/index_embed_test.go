package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hark/gateway/model/modeltest"
)

// With an embedding model configured as docs/model.md shows, hark index
// embeds the pages in batches; a run whose batch fails keeps what it
// stored and says so, --embed-only embeds only what is left, reading the
// folder again embeds nothing, and search embeds its query once the index
// holds vectors.
func TestIndexEmbedsPagesAndResumes(t *testing.T) {
	t.Parallel()
	docs := t.TempDir()
	for i := 0; i < 40; i++ { // two batches of 32
		body := fmt.Sprintf("# Note %d\n\nThe quorble setting number %d is read at start-up.\n", i, i)
		if err := os.WriteFile(filepath.Join(docs, fmt.Sprintf("n%02d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := modeltest.NewOpenAI(t)
	env := withEnv("HARK_BASE_URL", "", "HARK_API_KEY", "",
		"HARK_MODEL_PROVIDER", "openai", "HARK_MODEL_BASE_URL", srv.BaseURL(),
		"HARK_MODEL_API_KEY", modeltest.Key, "HARK_MODEL_CHAT", modeltest.ChatModel,
		"HARK_MODEL_EMBEDDING", modeltest.EmbeddingModel)
	data := t.TempDir()

	// The second batch fails, and so do the client's two retries of it.
	fail := modeltest.Reply{Status: 500, RetryAfter: "0"}
	srv.FailEmbeddingsAfter(1, fail, fail, fail)
	code, out, errs := harkApp(t, t.Context(), env, nil, "", "--data-dir", data, "index", docs)
	if code != exitGateway || !strings.Contains(errs, "32 pages embedded and kept; hark index --embed-only embeds the 8 pages left") {
		t.Fatalf("a failed batch: %d %q %q", code, out, errs)
	}
	if strings.Contains(errs, modeltest.Key) {
		t.Errorf("the key in the error: %q", errs)
	}

	code, out, errs = harkApp(t, t.Context(), env, nil, "", "--data-dir", data, "index", "--embed-only")
	if code != 0 || !strings.Contains(out, "Embedded 8 pages with fake-embed (64 dimensions); 32 pages already had theirs.") ||
		strings.Contains(out, "Indexed") {
		t.Fatalf("the resumed run: %d %q %q", code, out, errs)
	}
	code, _, errs = harkApp(t, t.Context(), env, nil, "", "--data-dir", data, "index", "--embed-only", docs)
	if code != exitUsage || !strings.Contains(errs, "--embed-only takes no URL") {
		t.Errorf("--embed-only with a target: %d %q", code, errs)
	}
	code, _, errs = harkApp(t, t.Context(), withEnv("HARK_BASE_URL", "", "HARK_API_KEY", ""), nil, "", "--data-dir", data, "index", "--embed-only")
	if code != exitUsage || !strings.Contains(errs, "no embedding model is configured") {
		t.Errorf("--embed-only without a model: %d %q", code, errs)
	}

	code, out, errs = harkApp(t, t.Context(), env, nil, "", "--data-dir", data, "--json", "index", docs)
	var res struct {
		Embedded struct {
			Model                string
			Embedded, Kept, Dims int
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Embedded.Embedded != 0 || res.Embedded.Kept != 40 || res.Embedded.Model != "fake-embed" {
		t.Fatalf("a run with nothing to embed: %d %q %q", code, out, errs)
	}

	code, out, errs = harkApp(t, t.Context(), env, nil, "", "--data-dir", data, "--json", "search", "quorble setting 7")
	if code != 0 || !strings.Contains(out, "n07.md") {
		t.Fatalf("search: %d %q %q", code, out, errs)
	}
	asked := false
	for _, r := range srv.Requests() {
		asked = asked || slices.Equal(r.Inputs, []string{"quorble setting 7"})
	}
	if !asked {
		t.Error("search with vectors in the index did not embed its query")
	}

	code, out, errs = harkApp(t, t.Context(), env, nil, "", "--data-dir", data, "index", "--no-embed", docs)
	if code != 0 || strings.Contains(out, "Embedded") {
		t.Errorf("--no-embed: %d %q %q", code, out, errs)
	}
}
