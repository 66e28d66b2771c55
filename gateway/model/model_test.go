package model_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"hark/gateway/model"
	"hark/gateway/model/modeltest"
)

const answer = "Use fs.mkdir with recursive: true [1]. It creates the parent directories [1]."

type fake struct {
	name string
	srv  func(testing.TB) *modeltest.Server
	prov string
}

var fakes = []fake{
	{"openai", modeltest.NewOpenAI, model.ProviderOpenAI},
	{"anthropic", modeltest.NewAnthropic, model.ProviderAnthropic},
}

func client(t *testing.T, f fake, s *modeltest.Server, edit ...func(*model.Config)) *model.Client {
	t.Helper()
	cfg := model.Config{Provider: f.prov, BaseURL: s.BaseURL(), APIKey: modeltest.Key, Chat: modeltest.ChatModel}
	if f.prov == model.ProviderOpenAI {
		cfg.Embedding = modeltest.EmbeddingModel
	}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := model.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func kind(t *testing.T, err error, want model.Kind) *model.Error {
	t.Helper()
	var me *model.Error
	if !errors.As(err, &me) {
		t.Fatalf("err = %v (%T), want a *model.Error", err, err)
	}
	if me.Kind != want {
		t.Fatalf("kind = %d, want %d: %v", me.Kind, want, err)
	}
	return me
}

func TestWriteStreams(t *testing.T) {
	t.Parallel()
	for _, f := range fakes {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			s := f.srv(t)
			s.Script(modeltest.Reply{Text: answer, Chunk: 5})
			var pieces []string
			w, err := client(t, f, s).Write(context.Background(), model.Prompt{System: "cite", User: "[1] passage"}, func(p string) { pieces = append(pieces, p) })
			if err != nil {
				t.Fatal(err)
			}
			if w.Text != answer || strings.Join(pieces, "") != answer {
				t.Fatalf("text %q, pieces %q", w.Text, pieces)
			}
			if len(pieces) < 5 {
				t.Fatalf("%d pieces: the answer did not stream", len(pieces))
			}
			if w.Model != modeltest.ChatModel {
				t.Fatalf("model %q", w.Model)
			}
			r := s.Requests()
			if len(r) != 1 || !r[0].Stream || r[0].System != "cite" || r[0].User != "[1] passage" {
				t.Fatalf("requests %+v", r)
			}
		})
	}
}

func TestDroppedStreamKeepsText(t *testing.T) {
	t.Parallel()
	for _, f := range fakes {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			s := f.srv(t)
			s.Script(modeltest.Reply{Text: answer, Chunk: 10, DropAfter: 3})
			w, err := client(t, f, s).Write(context.Background(), model.Prompt{User: "q"}, nil)
			kind(t, err, model.KindDropped)
			if w.Text != answer[:30] {
				t.Fatalf("kept %q, want the first 30 bytes", w.Text)
			}
			if len(s.Requests()) != 1 {
				t.Fatal("a stream that dropped after text arrived was retried")
			}
		})
	}
}

func TestCancelStopsTheCall(t *testing.T) {
	t.Parallel()
	for _, f := range fakes {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			s := f.srv(t)
			s.Script(modeltest.Reply{Text: strings.Repeat("slow words ", 200), Chunk: 4, Delay: 20 * time.Millisecond})
			ctx, cancel := context.WithCancel(context.Background())
			n := 0
			done := make(chan struct{})
			var w model.Written
			var err error
			go func() {
				defer close(done)
				w, err = client(t, f, s).Write(ctx, model.Prompt{User: "q"}, func(string) {
					if n++; n == 3 {
						cancel()
					}
				})
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("Write did not return after cancel")
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if len(w.Text) < 8 || len(w.Text) > 40 {
				t.Fatalf("kept %q", w.Text)
			}
		})
	}
}

func TestRateLimitHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	for _, f := range fakes {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			s := f.srv(t)
			s.Script(modeltest.Reply{Status: 429, RetryAfter: "1"}, modeltest.Reply{Text: answer})
			w, err := client(t, f, s).Write(context.Background(), model.Prompt{User: "q"}, nil)
			if err != nil || w.Text != answer {
				t.Fatalf("%q, %v", w.Text, err)
			}
			r := s.Requests()
			if len(r) != 2 {
				t.Fatalf("%d requests", len(r))
			}
			if gap := r[1].At.Sub(r[0].At); gap < time.Second {
				t.Fatalf("retried after %s; Retry-After asked for 1s", gap)
			}
		})
	}
}

func TestRateLimitTooLongIsReported(t *testing.T) {
	t.Parallel()
	for _, f := range fakes {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			s := f.srv(t)
			s.Script(modeltest.Reply{Status: 429, RetryAfter: "120"})
			_, err := client(t, f, s).Write(context.Background(), model.Prompt{User: "q"}, nil)
			me := kind(t, err, model.KindRateLimited)
			if me.RetryAfter != 120*time.Second || !strings.Contains(err.Error(), "retry after 2m0s") {
				t.Fatalf("%v (retry after %s)", err, me.RetryAfter)
			}
			if len(s.Requests()) != 1 {
				t.Fatal("waited for a Retry-After past the limit")
			}
		})
	}
}

func TestServerErrorsRetriedThenReported(t *testing.T) {
	t.Parallel()
	for _, f := range fakes {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			s := f.srv(t)
			s.Script(modeltest.Reply{Status: 500}, modeltest.Reply{Text: answer})
			c := client(t, f, s)
			if w, err := c.Write(context.Background(), model.Prompt{User: "q"}, nil); err != nil || w.Text != answer {
				t.Fatalf("%q, %v", w.Text, err)
			}
			s.Script(modeltest.Reply{Status: 500}, modeltest.Reply{Status: 502}, modeltest.Reply{Status: 503})
			_, err := c.Write(context.Background(), model.Prompt{User: "q"}, nil)
			kind(t, err, model.KindServer)
			if n := len(s.Requests()); n != 5 {
				t.Fatalf("%d requests, want 2 + 3", n)
			}
		})
	}
}

func TestUnknownModel(t *testing.T) {
	t.Parallel()
	for _, f := range fakes {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			s := f.srv(t)
			_, err := client(t, f, s, func(c *model.Config) { c.Chat = "no-such-model" }).Write(context.Background(), model.Prompt{User: "q"}, nil)
			kind(t, err, model.KindUnknownModel)
			if !strings.Contains(err.Error(), `no model "no-such-model"`) {
				t.Fatal(err)
			}
		})
	}
}

func TestBadKeyNamesTheProviderNotTheKey(t *testing.T) {
	t.Parallel()
	const wrong = "sk-wrong-4c2f9e81d7a6b350"
	for _, f := range fakes {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			s := f.srv(t)
			_, err := client(t, f, s, func(c *model.Config) { c.APIKey = wrong }).Write(context.Background(), model.Prompt{User: "q"}, nil)
			kind(t, err, model.KindBadKey)
			msg := err.Error()
			if strings.Contains(msg, wrong) || strings.Contains(msg, wrong[len(wrong)-4:]) || strings.Contains(msg, "sk-") {
				t.Fatalf("the message shows the key: %s", msg)
			}
			want := "openai-compatible endpoint"
			if f.prov == model.ProviderAnthropic {
				want = "anthropic"
			}
			if !strings.Contains(msg, want) || !strings.Contains(msg, "refused the API key") {
				t.Fatalf("the message does not name the provider: %s", msg)
			}
		})
	}
}

func TestEndpointDown(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	for _, f := range fakes {
		c, err := model.New(model.Config{Provider: f.prov, BaseURL: "http://" + addr + "/v1", Chat: "m", Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Write(context.Background(), model.Prompt{User: "q"}, nil)
		kind(t, err, model.KindDown)
		if !strings.Contains(err.Error(), addr) {
			t.Fatalf("%s: the message does not name the endpoint: %v", f.name, err)
		}
	}
}

func TestEmbed(t *testing.T) {
	t.Parallel()
	s := modeltest.NewOpenAI(t)
	c := client(t, fakes[0], s)
	texts := []string{"create directories recursively", "the parent directory is created", "unrelated music theory"}
	v, err := c.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != 3 || len(v[0]) != modeltest.Dims {
		t.Fatalf("%d vectors of %d", len(v), len(v[0]))
	}
	for i, text := range texts {
		want := modeltest.Embed(text)
		for j := range want {
			if v[i][j] != want[j] {
				t.Fatalf("vector %d is not its text's", i)
			}
		}
	}
	s.FailEmbeddings(modeltest.Reply{Status: 429, RetryAfter: "1"})
	if _, err := c.Embed(context.Background(), texts); err != nil {
		t.Fatalf("a 429 was not retried: %v", err)
	}
	bad := client(t, fakes[0], s, func(c *model.Config) { c.Embedding = "nope" })
	_, err = bad.Embed(context.Background(), texts)
	kind(t, err, model.KindUnknownModel)
}

func TestPromptLoggedOnlyAtDebug(t *testing.T) {
	t.Parallel()
	const passage = "[1] The secret passage text about mkdir."
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		s := modeltest.NewOpenAI(t)
		var logs bytes.Buffer
		log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: level}))
		c := client(t, fakes[0], s, func(c *model.Config) { c.Log = log })
		if _, err := c.Write(context.Background(), model.Prompt{System: "sys", User: passage}, nil); err != nil {
			t.Fatal(err)
		}
		has := strings.Contains(logs.String(), "secret passage")
		if has != (level == slog.LevelDebug) {
			t.Fatalf("at %s the log holds the passage: %v\n%s", level, has, logs.String())
		}
		if !strings.Contains(logs.String(), "model answer") {
			t.Fatalf("no call logged:\n%s", logs.String())
		}
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cfg  model.Config
		want string
	}{
		{model.Config{Provider: "gemini", Chat: "m"}, "invalid model.provider"},
		{model.Config{Provider: "openai", BaseURL: "http://x/v1"}, "invalid model.chat"},
		{model.Config{Provider: "openai", Chat: "m"}, "invalid model.base_url"},
		{model.Config{Provider: "openai", Chat: "m", BaseURL: "localhost:11434"}, "must be an http:// or https:// URL"},
		{model.Config{Provider: "anthropic", Chat: "m", Embedding: "e"}, "invalid model.embedding_base_url"},
	} {
		err := c.cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	if err := (model.Config{Provider: "anthropic", Chat: "claude"}).Validate(); err != nil {
		t.Error(err)
	}
}
