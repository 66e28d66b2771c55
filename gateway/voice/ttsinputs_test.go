package voice

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"hark/api"
	"hark/gateway/engine"
)

var update = flag.Bool("update", false, "rewrite the TTS-inputs fixture the client tests read (api/apitest/ttsinputs.json)")

// What TTSInputs says is what a synthesis takes: each bound is accepted,
// one past it refused naming the field, every listed rate and format
// accepted.
func TestTTSInputsAreWhatSynthesisTakes(t *testing.T) {
	l := provider(t)
	base := api.TTSRequest{Text: "Hello.", VoiceCode: "espeak:en-us"}
	set := func(r *api.TTSRequest, name string, v int) {
		switch name {
		case "speech_rate":
			r.SpeechRate = v
		case "pitch":
			r.Pitch = v
		case "loudness":
			r.Loudness = v
		case "sample_rate":
			r.SampleRate = v
		}
	}
	for _, f := range l.TTSInputs() {
		switch {
		case f.Min != nil && f.Max != nil:
			for _, tc := range []struct {
				v  int
				ok bool
			}{{int(*f.Min), true}, {int(*f.Max), true}, {int(*f.Min) - 1, false}, {int(*f.Max) + 1, false}} {
				req := base
				set(&req, f.Name, tc.v)
				_, err := l.planTTS(context.Background(), req)
				var ie *engine.InputError
				if tc.ok && err != nil || !tc.ok && (!errors.As(err, &ie) || ie.Field != f.Name) {
					t.Errorf("%s=%d: %v", f.Name, tc.v, err)
				}
			}
		case f.Name == "sample_rate":
			for _, r := range f.Ints() {
				req := base
				req.SampleRate = r
				if _, err := l.planTTS(context.Background(), req); err != nil {
					t.Errorf("sample_rate %d listed but refused: %v", r, err)
				}
			}
			req := base
			req.SampleRate = 12345
			if _, err := l.planTTS(context.Background(), req); err == nil {
				t.Error("sample_rate 12345 accepted though not listed")
			}
		case f.Name == "format":
			for _, fm := range f.Enum {
				req := base
				req.Format = fm
				if _, err := l.planTTS(context.Background(), req); err != nil {
					t.Errorf("format %s listed but refused: %v", fm, err)
				}
			}
		}
	}
}

// ttsInputsFixture is where api/apitest finds a provider's TTS inputs:
// this provider's, written here, never kept by hand.
var ttsInputsFixture = filepath.Join("..", "..", "api", "apitest", "ttsinputs.json")

// TestTTSInputsFixture: go test ./gateway/voice -run TestTTSInputsFixture
// -update rewrites it after a change to the ranges.
func TestTTSInputsFixture(t *testing.T) {
	l := provider(t)
	got, err := json.MarshalIndent(api.TTSInputs{Provider: api.DefaultProvider, InputSchema: l.TTSInputs()}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(ttsInputsFixture, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(ttsInputsFixture)
	if err != nil {
		t.Fatalf("%v (go test ./gateway/voice -run TestTTSInputsFixture -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not this provider's TTS inputs: go test ./gateway/voice -run TestTTSInputsFixture -update rewrites it", ttsInputsFixture)
	}
}

// Through a real gateway: the client reads back exactly what this
// provider describes.
func TestGatewayServesTTSInputs(t *testing.T) {
	l := provider(t)
	base, key := gatewayOn(t, l)
	c, err := api.New(api.Options{BaseURL: base, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	in, err := c.TTSInputs(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	want := l.TTSInputs()
	if len(in.InputSchema) != len(want) {
		t.Fatalf("read %d fields, want %d", len(in.InputSchema), len(want))
	}
	for i, w := range want {
		g := in.InputSchema[i]
		if g.Name != w.Name || g.Type != w.Type || !slices.Equal(g.Enum, w.Enum) || !sameBound(g.Min, w.Min) || !sameBound(g.Max, w.Max) {
			t.Errorf("%s read back as %+v, want %+v", w.Name, g, w)
		}
	}
}

func sameBound(a, b *float64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
