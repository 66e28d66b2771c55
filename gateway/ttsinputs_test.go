package gateway

import (
	"context"
	"testing"

	"hark/api"
)

// TTSInputs makes testVoice describe its TTS inputs.
func (testVoice) TTSInputs() []api.Field {
	lo, hi := -10.0, 10.0
	return []api.Field{
		{Name: "pitch", Type: "integer", Default: 0, Min: &lo, Max: &hi},
		{Name: "sample_rate", Type: "integer", Enum: []string{"8000", "16000"}},
	}
}

// The gateway serves what the provider says about its TTS inputs, and the
// client reads it back.
func TestTTSInputs(t *testing.T) {
	t.Parallel()
	g := startGateway(t, nil)
	in, err := g.client(t, g.key).TTSInputs(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	p, sr := in.Input("pitch"), in.Input("sample_rate")
	if in.Provider != api.DefaultProvider || p == nil || *p.Min != -10 || *p.Max != 10 || p.Default != 0.0 ||
		sr == nil || len(sr.Ints()) != 2 || sr.Ints()[1] != 16000 {
		t.Fatalf("read back %+v", in)
	}
	status, env, _ := g.call(t, "GET", "/v1/openapi/third-party-service/voice/"+api.DefaultProvider+"/tts/inputs", g.key, nil)
	if status != 200 || string(env.Data) != `{"provider":"vendor_speech","input_schema":{"type":"object","properties":{"pitch":{"type":"integer","default":0,"minimum":-10,"maximum":10},"sample_rate":{"type":"integer","enum":[8000,16000]}},"additionalProperties":true}}` {
		t.Fatalf("%d %s", status, env.Data)
	}
}
