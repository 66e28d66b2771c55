package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"hark/gateway/model/modeltest"
	"hark/library"
)

// modelEnv points the embedded gateway's model at a fake server.
func modelEnv(s *modeltest.Server, key string) func(*hooks) {
	return withEnv("HARK_BASE_URL", "", "HARK_API_KEY", "",
		"HARK_MODEL_PROVIDER", "openai", "HARK_MODEL_BASE_URL", s.BaseURL(),
		"HARK_MODEL_API_KEY", key, "HARK_MODEL_CHAT", modeltest.ChatModel)
}

// With a model configured as the docs show (HARK_MODEL_*), hark research
// writes the answer with it, checks every sentence, and the kept report
// verifies as an extractive one does; hark config shows the model with
// its key masked.
func TestResearchWrittenByModel(t *testing.T) {
	t.Parallel()
	docs := t.TempDir()
	body := "# Zorblax tuning\n\nThe zorblax engine is tuned by setting the flux ratio to 3.5 in the control file. " +
		"A higher ratio makes the engine louder.\n"
	if err := os.WriteFile(filepath.Join(docs, "zorblax.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewOpenAI(t)
	srv.Write(func(r modeltest.Request) modeltest.Reply {
		if !strings.Contains(r.User, "flux ratio to 3.5") {
			return modeltest.Reply{Text: "The sources do not say [1]."}
		}
		return modeltest.Reply{Text: "Set the flux ratio to 3.5 in the control file to tune the zorblax engine [1]. A higher ratio makes it louder [1]. Set it to 7 for silence [1].", Chunk: 6}
	})
	data := t.TempDir()
	env := modelEnv(srv, modeltest.Key)
	if code, _, errs := harkApp(t, t.Context(), env, nil, "", "--data-dir", data, "index", docs); code != 0 {
		t.Fatalf("index: %d %s", code, errs)
	}
	code, out, errs := harkApp(t, t.Context(), env, nil, "", "--data-dir", data, "research", "how do I tune zorblax?")
	if code != 0 {
		t.Fatalf("research: %d %s", code, errs)
	}
	for _, want := range []string{"Written by fake-writer (openai): 2 of 3 sentences supported by their passages", "unsupported: `7` is not in passage [1]"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = harkApp(t, t.Context(), env, nil, "", "--data-dir", data, "library", "list", "--json", "--kind", "research")
	var items []library.Item
	if code != 0 || json.Unmarshal([]byte(out), &items) != nil || len(items) != 1 {
		t.Fatalf("list: %d %s", code, out)
	}
	code, out, errs = harkApp(t, t.Context(), env, nil, "", "--data-dir", data, "research", "verify", strconv.FormatInt(items[0].ID, 10))
	if code != 0 || !strings.Contains(out, "0 moved, 0 gone") {
		t.Errorf("verify of a written report: %d %q %q", code, out, errs)
	}
	code, out, errs = harkApp(t, t.Context(), env, nil, "", "--data-dir", data, "--json", "research", "--strict", "how do I tune zorblax?")
	var env39 struct {
		Output struct {
			Content string
			Written struct {
				Supported, Sentences, Dropped int
				Checks                        []struct {
					Sentence, Reason string
					Supported        bool
				}
			}
		}
	}
	res := &env39.Output
	if code != 0 || json.Unmarshal([]byte(out), &env39) != nil {
		t.Fatalf("research --json --strict: %d %s %s", code, out, errs)
	}
	if w := res.Written; w.Supported != 2 || w.Sentences != 3 || w.Dropped != 1 || len(w.Checks) != 3 ||
		w.Checks[2].Reason != "`7` is not in passage [1]" || strings.Contains(res.Content, "silence") {
		t.Errorf("--json --strict: %+v\n%s", w, out)
	}
	code, out, _ = harkApp(t, t.Context(), env, nil, "", "--data-dir", data, "config")
	if code != 0 || !strings.Contains(out, "model.chat") || !strings.Contains(out, "****"+modeltest.Key[len(modeltest.Key)-4:]) || strings.Contains(out, modeltest.Key) {
		t.Errorf("config shows the model badly:\n%s", out)
	}
}

// A bad key: research still answers, extractively, and says why, naming
// the provider and never the key.
func TestResearchModelBadKeyFallsBack(t *testing.T) {
	t.Parallel()
	docs := t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "zorblax.md"), []byte("# Zorblax tuning\n\nThe zorblax engine is tuned by setting the flux ratio to 3.5 in the control file.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewOpenAI(t)
	const bad = "sk-wrong-key-9f8e7d6c5b4a"
	env := modelEnv(srv, bad)
	data := t.TempDir()
	if code, _, errs := harkApp(t, t.Context(), env, nil, "", "--data-dir", data, "index", docs); code != 0 {
		t.Fatalf("index: %d %s", code, errs)
	}
	code, out, errs := harkApp(t, t.Context(), env, nil, "", "--data-dir", data, "research", "how do I tune zorblax?")
	if code != 0 || !strings.Contains(out, "refused the API key") || !strings.Contains(out, "openai-compatible endpoint") || !strings.Contains(out, "flux ratio") {
		t.Fatalf("research: %d\n%s\n%s", code, out, errs)
	}
	if strings.Contains(out+errs, bad) || strings.Contains(out+errs, "5b4a") {
		t.Fatalf("the key is shown:\n%s\n%s", out, errs)
	}
}
