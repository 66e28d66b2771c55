package deck

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"hark/api"
)

const goodDeck = `
title = "Three voices"
voice = "flite:slt"
speed = 10

[[line]]
text = "Good morning."
caption = "Welcome"

[[line]]
pause = 1.5

[[line]]
text = "  Second line.  "
voice = "openai_speech/alloy"
speed = -20
pitch = 5

[[line]]
pause = "800ms"

[[line]]
text = "Third."
`

func TestParse(t *testing.T) {
	d, err := Parse("three.toml", []byte(goodDeck))
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Three voices" || d.Name != "three" || len(d.Lines) != 5 {
		t.Fatalf("deck %+v", d)
	}
	want := []Line{
		{Number: 1, Text: "Good morning.", Caption: "Welcome", Voice: "flite:slt", Speed: 10},
		{Number: 2, Pause: 1500 * time.Millisecond},
		{Number: 3, Text: "Second line.", Caption: "Second line.", Provider: "openai_speech", Voice: "alloy", Speed: -20, Pitch: 5},
		{Number: 4, Pause: 800 * time.Millisecond},
		{Number: 5, Text: "Third.", Caption: "Third.", Voice: "flite:slt", Speed: 10},
	}
	for i, l := range d.Lines {
		if l != want[i] {
			t.Errorf("line %d: %+v\nwant %+v", i+1, l, want[i])
		}
	}
	if got := d.Lines[2].VoiceRef(); got != "openai_speech/alloy" {
		t.Errorf("VoiceRef %q", got)
	}
	if r := d.Lines[0].Request("vendor_speech"); r.Provider != "vendor_speech" || r.VoiceCode != "flite:slt" || r.Format != api.FormatWAV || r.SpeechRate != 10 {
		t.Errorf("request %+v", r)
	}
	if ps := d.Providers("vendor_speech"); strings.Join(ps, ",") != "openai_speech,vendor_speech" {
		t.Errorf("providers %v", ps)
	}
	// A default provider applies to the deck's voices without one.
	d, err = Parse("d.toml", []byte("provider = \"elevenlabs\"\nvoice = \"rachel\"\n[[line]]\ntext = \"Hi.\"\n[[line]]\ntext = \"Ho.\"\nvoice = \"vendor_speech/flite:rms\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Lines[0].VoiceRef() != "elevenlabs/rachel" || d.Lines[1].VoiceRef() != "vendor_speech/flite:rms" {
		t.Errorf("voices %q %q", d.Lines[0].VoiceRef(), d.Lines[1].VoiceRef())
	}
}

// Every refusal names the line, the field and the rule.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ deck, want string }{
		{``, "no [[line]]"},
		{`voice = "flite:slt"` + "\n[[line]]\npause = 1", "every line is a pause"},
		{"[[line]]\ntext = \"Hi.\"", "line 1: voice: none given"},
		{"voice = \"a\"\n[[line]]\ntext = \"Hi.\"\ncaptoin = \"x\"", `[[line]]: unknown key "captoin"; a line takes text, caption`},
		{"voise = \"a\"\n[[line]]\ntext = \"Hi.\"", `unknown key "voise"; a deck takes title, provider`},
		{"voice = \"a\"\n[[line]]\ntext = \"Hi.\"\npause = 2", "line 1: pause: a pause is a line of its own"},
		{"voice = \"a\"\n[[line]]\ncaption = \"Hi.\"", "line 1: give text (a line to say) or pause"},
		{"voice = \"a\"\n[[line]]\ntext = \"   \"", "line 1: text: is empty"},
		{"voice = \"a\"\n[[line]]\ntext = \"Hi.\"\n[[line]]\npause = 0", "line 2: pause: 0s; must be more than 0"},
		{"voice = \"a\"\n[[line]]\ntext = \"Hi.\"\n[[line]]\npause = 61", "line 2: pause: 1m1s; must be more than 0 and at most 1m0s"},
		{"voice = \"a\"\n[[line]]\ntext = \"Hi.\"\n[[line]]\npause = \"soon\"", `line 2: pause: "soon" is not seconds`},
		{"voice = \"a\"\n[[line]]\ntext = \"Hi.\"\n[[line]]\npause = true", "line 2: pause: true is not seconds"},
		{"voice = \"a\"\n[[line]]\ntext = \"Hi.\"\nvoice = \"Open AI/x\"", "line 1: voice: \"Open AI/x\": a provider before /"},
		{"voice = \"a\"\n[[line]]\ntext = \"Hi.\"\nvoice = \"p/a/b\"", "line 1: voice: \"p/a/b\": write provider/voice, with one /"},
		{"voice = \"a\"\n[[line]]\ntext = \"Hi.\"\nspeed = \"fast\"", "line 1: speed: fast is not a whole number"},
		{"voice = \"a\"\n[[line]\ntext = \"Hi.\"", "of the file: expected end of table array name"},
		{"voice = \"a\"\n[[line]]\ntext = \"" + strings.Repeat("a", MaxTextChars+1) + "\"", "line 1: text: 5001 characters; at most 5000"},
		{"provider = \"Bad Provider\"\nvoice = \"a\"\n[[line]]\ntext = \"Hi.\"", "provider: \"Bad Provider\" is not a provider code"},
	} {
		_, err := Parse("d.toml", []byte(tc.deck))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "d.toml: ") {
			t.Errorf("%q:\n got %v\nwant …%s…", tc.deck, err, tc.want)
		}
	}
	if _, err := Parse("d.toml", []byte{0xff, 0xfe}); err == nil || !strings.Contains(err.Error(), "not UTF-8") {
		t.Errorf("binary deck: %v", err)
	}
}

func TestParseVoiceRef(t *testing.T) {
	for _, tc := range []struct{ ref, p, v string }{
		{"flite:slt", "", "flite:slt"},
		{"espeak:en-us+f3", "", "espeak:en-us+f3"},
		{"openai_speech/alloy", "openai_speech", "alloy"},
		{" elevenlabs/21m00Tcm4TlvDq8ikWAM ", "elevenlabs", "21m00Tcm4TlvDq8ikWAM"},
	} {
		p, v, err := ParseVoiceRef(tc.ref)
		if err != nil || p != tc.p || v != tc.v {
			t.Errorf("%q: %q %q %v", tc.ref, p, v, err)
		}
	}
	for _, bad := range []string{"", "/alloy", "openai/", "OpenAI/alloy", "a/b/c"} {
		if _, _, err := ParseVoiceRef(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// fakeGateway answers Check from fixed lists.
type fakeGateway struct {
	voices map[string][]api.Voice
	inputs map[string]*api.TTSInputs
}

func (g fakeGateway) Voices(_ context.Context, p string) ([]api.Voice, error) {
	vs, ok := g.voices[p]
	if !ok {
		return nil, errors.New("voice provider " + p + " is not enabled for this workspace")
	}
	return vs, nil
}

func (g fakeGateway) TTSInputs(_ context.Context, p string) (*api.TTSInputs, error) {
	if in, ok := g.inputs[p]; ok {
		return in, nil
	}
	return nil, errors.New("404")
}

func TestCheck(t *testing.T) {
	lo, hi := -50.0, 100.0
	gw := fakeGateway{
		voices: map[string][]api.Voice{
			"vendor_speech": {{Name: "SLT (US English, female)", Value: "flite:slt"}},
			"openai_speech": {{Name: "Alloy", Value: "alloy"}},
		},
		inputs: map[string]*api.TTSInputs{"vendor_speech": {InputSchema: api.InputSchema{{Name: "speech_rate", Min: &lo, Max: &hi}}}},
	}
	d, err := Parse("three.toml", []byte(goodDeck))
	if err != nil {
		t.Fatal(err)
	}
	names, err := d.Check(context.Background(), gw, "vendor_speech")
	if err != nil {
		t.Fatal(err)
	}
	if names["flite:slt"] != "SLT (US English, female)" || names["openai_speech/alloy"] != "Alloy" {
		t.Errorf("names %v", names)
	}
	for _, tc := range []struct{ deck, want string }{
		{"voice = \"flite:sltt\"\n[[line]]\ntext = \"Hi.\"", `line 1: voice: "flite:sltt" is not a voice of vendor_speech (hark voices vendor_speech lists them)`},
		{"voice = \"flite:slt\"\n[[line]]\ntext = \"Hi.\"\n[[line]]\ntext = \"Ho.\"\nspeed = 150", "line 2: speed: 150 is outside vendor_speech's -50..100"},
		{"voice = \"elevenlabs/rachel\"\n[[line]]\ntext = \"Hi.\"", "voices of elevenlabs: voice provider elevenlabs is not enabled"},
	} {
		d, err := Parse("d.toml", []byte(tc.deck))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Check(context.Background(), gw, "vendor_speech"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s", tc.deck, err, tc.want)
		}
	}
	// A provider that serves no bounds leaves them to the gateway.
	d, _ = Parse("d.toml", []byte("voice = \"openai_speech/alloy\"\n[[line]]\ntext = \"Hi.\"\nspeed = 300"))
	if _, err := d.Check(context.Background(), gw, "vendor_speech"); err != nil {
		t.Errorf("no bounds served: %v", err)
	}
}
