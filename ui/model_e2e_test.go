package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"hark/gateway/embedded"
	"hark/gateway/model"
	"hark/gateway/model/modeltest"
	"hark/ui/research"
)

// With a model configured, the Research pane shows the answer as it is
// written, each sentence with its check as it ends, then the report with
// the count of supported sentences (issue 39).
func TestE2EResearchWrittenByModelStreams(t *testing.T) {
	srv := modeltest.NewOpenAI(t)
	srv.Write(func(r modeltest.Request) modeltest.Reply {
		if !strings.Contains(r.User, "forest giraffe") {
			return modeltest.Reply{Text: "The sources do not say [1]."}
		}
		return modeltest.Reply{Text: "The okapi is also called the forest giraffe [1]. Okapis eat leaves, buds and fungi [1]. Okapis can fly [2].", Chunk: 4}
	})
	c, err := model.New(model.Config{Provider: model.ProviderOpenAI, BaseURL: srv.BaseURL(), APIKey: modeltest.Key, Chat: modeltest.ChatModel})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := embedded.Start(ctx, t.TempDir(), embedded.Options{Model: c})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Stop)
	w, err := g.Web()
	if err != nil {
		t.Fatal(err)
	}
	const md = "# Okapi facts\n\nThe okapi is a giraffid mammal of the Congo rainforest, also called the forest giraffe. Okapis eat leaves, buds and fungi.\n"
	if err := w.Put(ctx, "https://zoo.example/okapi", "Okapi facts", strings.ReplaceAll(md, "#", ""), md); err != nil {
		t.Fatal(err)
	}

	r := startAt(t, g.URL, g.APIKey, 100, 30)
	r.keys("esc", "3")
	r.typeText("what do okapis eat?")
	r.keys("enter")
	var progress []string
	r.waitFor("the written report with its count", func(m *Model) bool {
		s := m.panes[2].(*research.Pane).Current()
		if s == nil || s.Running || !screenHas("2 of 3 sentences supported")(m) || !screenHas("unsupported")(m) {
			return false
		}
		progress = append([]string(nil), s.Progress...)
		return true
	})
	var checks []string
	for _, p := range progress {
		if strings.HasPrefix(p, "✓ ") || strings.HasPrefix(p, "✗ ") {
			checks = append(checks, p)
		}
	}
	if len(checks) != 3 || !strings.HasPrefix(checks[2], "✗ Okapis can fly") {
		t.Fatalf("the pane got the checks %q as the answer streamed", progress)
	}
}
