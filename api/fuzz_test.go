package api_test

import (
	"encoding/json"
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
