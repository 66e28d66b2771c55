package api_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"hark/api"
	"hark/api/apitest"
)

// The fuzz targets check that decoders of what the network sends never
// panic or hang, and keep their promises on what they do return.

func FuzzDecodeEnvelope(f *testing.F) {
	for _, s := range []string{`{"code":200,"message":"success","data":{},"trace_id":"t"}`, `{"code":"200"}`, `{"code":500,"message":"三方服务凭证未配置"}`, `[]`, `null`, `{"code":1e400}`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		env, ok := api.DecodeEnvelope(b)
		if !ok && (env.Code != 0 || env.Data != nil) {
			t.Fatalf("not ok but filled: %+v", env)
		}
		if ok && !json.Valid(b) {
			t.Fatalf("ok on invalid JSON %q", b)
		}
		api.ParseVendorFailure(env.Message)
	})
}

func FuzzDecodeToolList(f *testing.F) {
	f.Add([]byte(apitest.DefaultToolList))
	for _, s := range []string{`[{"name":"a","parameters":{"properties":{"x":{"type":["string","array"],"items":{"type":"integer"}}}}}]`,
		`{"items":[{"tool":"t","inputs":[{"name":"n","type":"array of int","required":"yes","enum":[1,null,"a"]}]}]}`,
		`{"data":{"tools":{"x":{}}}}`, `["a"]`, `{"a":{"schema":{"schema":{"properties":{}}}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tools, err := api.DecodeToolList(b)
		if err != nil {
			return
		}
		for _, tl := range tools {
			if tl.Slug == "" {
				t.Fatalf("tool without slug from %q", b)
			}
			if _, err := json.Marshal(tl); err != nil {
				t.Fatalf("marshal %+v: %v", tl, err)
			}
		}
	})
}

func FuzzDecodeFrames(f *testing.F) {
	for _, s := range []string{`{"is_final":true}`, `{"is_final":true,"error":"x"}`, `{"sequence":1,"text":"hi","is_partial":true}`, `nope`, `{"sequence":"1"}`, ``, `[1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := api.DecodeTTSFrame(b); err == nil && !json.Valid(b) {
			t.Fatalf("TTS frame ok on invalid JSON %q", b)
		}
		if _, err := api.DecodeSTTFrame(b); err == nil && !json.Valid(b) {
			t.Fatalf("STT frame ok on invalid JSON %q", b)
		}
	})
}

func FuzzDecodeOutputs(f *testing.F) {
	for _, s := range []string{`{"query":"q","results":[{"title":"t"}],"images":["u",{"url":"v"}]}`, `{"results":["a",{"url":"b"}]}`, `{"results":[{"images":[{"url":1}]}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		api.DecodeSearch(b)
		api.DecodeExtract(b)
		api.DecodeCrawl(b)
		if m, err := api.DecodeMap(b); err == nil {
			if _, err := json.Marshal(m); err != nil {
				t.Fatal(err)
			}
		}
		api.DecodeResearch(b)
		api.DecodeVoices(b)
	})
}

// FuzzValidate: whatever a gateway's tool list says and whatever the
// inputs hold, Validate never panics, and a refusal names a field of the
// tool.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(apitest.DefaultToolList), []byte(`{"query":"q","max_results":3,"urls":"https://a, https://b"}`))
	f.Add([]byte(`[{"name":"t","parameters":{"properties":{"x":{"type":["string","array"],"items":{"type":"integer"},"maxItems":1},"n":{"type":"number","enum":[1,2]}}}}]`), []byte(`{"x":[1,"a"],"n":3}`))
	f.Add([]byte(`[{"name":"t","inputs":[{"name":"d","type":"string","format":"date","x-separator":";"}]}]`), []byte(`{"d":"2020-01-01; x"}`))
	f.Fuzz(func(t *testing.T, list, inputs []byte) {
		tools, err := api.DecodeToolList(list)
		if err != nil {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(inputs))
		dec.UseNumber()
		var in map[string]any
		if dec.Decode(&in) != nil {
			return
		}
		for _, tl := range tools {
			_, err := api.Validate(tl.Inputs, in)
			if err == nil {
				continue
			}
			var fe *api.FieldError
			if !errors.As(err, &fe) || tl.Input(fe.Field) == nil {
				t.Fatalf("%s: %v names no field of the tool", tl.Slug, err)
			}
		}
	})
}
