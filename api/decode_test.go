package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"hark/api"
	"hark/api/apitest"
)

func TestDecodeToolListShapes(t *testing.T) {
	cases := []struct {
		name, in string
		check    func(t *testing.T, tools []api.Tool)
	}{
		{"wrapped tools with JSON Schema", string(apitest.DefaultToolList), func(t *testing.T, tools []api.Tool) {
			if len(tools) != 5 || tools[4].Slug != api.ToolResearch || tools[4].Input("model").Enum[1] != "pro" {
				t.Errorf("%+v", tools)
			}
			// Inputs keep the gateway's order.
			if tools[0].Inputs[0].Name != "query" || tools[0].Inputs[1].Name != "max_results" {
				t.Errorf("order: %s, %s", tools[0].Inputs[0].Name, tools[0].Inputs[1].Name)
			}
		}},
		{"bare array, name, parameters", `[{"name":"vendor_map","description":"d","parameters":{"type":"object","properties":{"url":{"type":"string"},"limit":{"type":["integer","null"],"minimum":1}},"required":["url"]}}]`, func(t *testing.T, tools []api.Tool) {
			f := tools[0].Input("limit")
			if tools[0].Slug != "vendor_map" || tools[0].Description != "d" || f.Type != "integer" || *f.Min != 1 || f.Max != nil || f.Required {
				t.Errorf("%+v %+v", tools[0], f)
			}
		}},
		{"items, tool key, field list", `{"items":[{"tool":"vendor_extract","title":"Extract","inputs":[
			{"name":"urls","type":"string or array of string","required":"yes","rule":"one or more URLs"},
			{"field":"format","type":"str","default":"markdown","options":["markdown","text"]},
			{"name":"max","type":"int","min":1,"max":5,"required":false},
			{"name":"tags","type":"string[]"},
			{"name":"weird","type":"uuid"}]}]}`, func(t *testing.T, tools []api.Tool) {
			tl := tools[0]
			u, f, m, tg, w := tl.Input("urls"), tl.Input("format"), tl.Input("max"), tl.Input("tags"), tl.Input("weird")
			if tl.Slug != "vendor_extract" || tl.Name != "Extract" || !u.Required || u.Type != "string|array" || u.Items != "string" || u.Description != "one or more URLs" {
				t.Errorf("urls %+v", u)
			}
			if f.Type != "string" || f.Default != "markdown" || len(f.Enum) != 2 || f.Required {
				t.Errorf("format %+v", f)
			}
			if m.Type != "integer" || *m.Min != 1 || *m.Max != 5 {
				t.Errorf("max %+v", m)
			}
			if tg.Type != "array" || tg.Items != "string" {
				t.Errorf("tags %+v", tg)
			}
			if w.Type != "uuid" || len(w.Raw) == 0 {
				t.Errorf("unknown type dropped: %+v", w)
			}
		}},
		{"data wrapper, slug and name, inputSchema", `{"data":[{"slug":"vendor_search","name":"Search","inputSchema":{"properties":{"q":"string"}}}]}`, func(t *testing.T, tools []api.Tool) {
			if tools[0].Slug != "vendor_search" || tools[0].Name != "Search" || tools[0].Inputs[0].Type != "string" {
				t.Errorf("%+v", tools[0])
			}
		}},
		{"map of slug to tool", `{"vendor_search":{"description":"s","input_schema":{"query":{"type":"string","required":true}}},"vendor_map":{}}`, func(t *testing.T, tools []api.Tool) {
			if len(tools) != 2 || tools[0].Slug != "vendor_search" || !tools[0].Inputs[0].Required || tools[1].Slug != "vendor_map" {
				t.Errorf("%+v", tools)
			}
		}},
		{"function-calling style", `[{"type":"function","function":{"name":"vendor_crawl","description":"c","parameters":{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]}}}]`, func(t *testing.T, tools []api.Tool) {
			if tools[0].Slug != "vendor_crawl" || !tools[0].Inputs[0].Required {
				t.Errorf("%+v", tools[0])
			}
		}},
		{"bare strings", `["vendor_search","vendor_map"]`, func(t *testing.T, tools []api.Tool) {
			if len(tools) != 2 || tools[1].Slug != "vendor_map" {
				t.Errorf("%+v", tools)
			}
		}},
		{"nested data.tools", `{"data":{"tools":[{"slug":"a"}]}}`, func(t *testing.T, tools []api.Tool) {
			if len(tools) != 1 || tools[0].Slug != "a" {
				t.Errorf("%+v", tools)
			}
		}},
		{"unusable entries skipped", `[{"slug":"a"},{"x":1},42]`, func(t *testing.T, tools []api.Tool) {
			if len(tools) != 1 {
				t.Errorf("%+v", tools)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tools, err := api.DecodeToolList([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			for _, tl := range tools {
				if len(tl.Raw) == 0 {
					t.Errorf("%s: Raw empty", tl.Slug)
				}
			}
			tc.check(t, tools)
		})
	}
	for _, bad := range []string{``, `null`, `42`, `"x"`, `{"tools": 3}`, `[{"x":1}]`, `[`} {
		_, err := api.DecodeToolList([]byte(bad))
		switch {
		case err == nil:
			t.Errorf("DecodeToolList(%q): no error", bad)
		case !errors.Is(err, api.ErrMalformed):
			// The gateway's fault: the command line exits 4 for it.
			t.Errorf("DecodeToolList(%q): %v is not ErrMalformed", bad, err)
		case strings.Contains(err.Error(), "tool list"):
			// The client says "tool list: " once, before it.
			t.Errorf("DecodeToolList(%q): %q names the tool list itself", bad, err)
		}
	}
}

// An answer of the wrong shape, through the client: the error says
// "tool list" once and is ErrMalformed, as are the voice list's and a
// tool output's.
func TestMalformedAnswers(t *testing.T) {
	s := apitest.New(t)
	s.Script(api.PathTools, apitest.OK(42))
	cl, err := api.New(api.Options{BaseURL: s.URL, APIKey: s.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cl.Tools(context.Background())
	if !errors.Is(err, api.ErrMalformed) || strings.Count(err.Error(), "tool list") != 1 {
		t.Errorf("tool list of the wrong shape: %v", err)
	}
	if _, err := api.DecodeVoices([]byte(`{"voices": 3}`)); !errors.Is(err, api.ErrMalformed) {
		t.Errorf("voice list of the wrong shape: %v", err)
	}
	if _, err := api.DecodeSearch([]byte(`{"results": 3}`)); !errors.Is(err, api.ErrMalformed) || !strings.Contains(err.Error(), "field results") {
		t.Errorf("search output of the wrong shape: %v", err)
	}
}

func TestToolMarshalRoundTrip(t *testing.T) {
	tools, err := api.DecodeToolList(apitest.DefaultToolList)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(tools)
	if err != nil {
		t.Fatal(err)
	}
	back, err := api.DecodeToolList(b)
	if err != nil || len(back) != len(tools) {
		t.Fatal(err)
	}
	for i := range tools {
		a, z := tools[i], back[i]
		if a.Slug != z.Slug || len(a.Inputs) != len(z.Inputs) {
			t.Fatalf("%s: %d vs %d inputs", a.Slug, len(a.Inputs), len(z.Inputs))
		}
		for j := range a.Inputs {
			x, y := a.Inputs[j], z.Inputs[j]
			if x.Name != y.Name || x.Type != y.Type || x.Items != y.Items || x.Required != y.Required || strings.Join(x.Enum, ",") != strings.Join(y.Enum, ",") {
				t.Errorf("%s.%s: %+v vs %+v", a.Slug, x.Name, x, y)
			}
		}
	}
}

func TestDecodersKeepUnknownFields(t *testing.T) {
	out, err := api.DecodeSearch(json.RawMessage(`{"query":"q","results":[{"title":"t","url":"u","score":0.5,"lang":"en"}],
		"images":["https://img", {"url":"https://i2","description":"d","w":3}],"request_id":"r1"}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(out.Extra["request_id"]) != `"r1"` || string(out.Results[0].Extra["lang"]) != `"en"` {
		t.Errorf("extra lost: %v %v", out.Extra, out.Results[0].Extra)
	}
	if out.Images[0].URL != "https://img" || out.Images[1].Description != "d" || string(out.Images[1].Extra["w"]) != "3" {
		t.Errorf("images %+v", out.Images)
	}
	b, _ := json.Marshal(out)
	if !strings.Contains(string(b), `"request_id":"r1"`) || !strings.Contains(string(b), `"lang":"en"`) {
		t.Errorf("marshal drops extra: %s", b)
	}
	m, err := api.DecodeMap(json.RawMessage(`{"base_url":"b","results":["https://a",{"url":"https://b","depth":2}]}`))
	if err != nil || m.Results[0].URL != "https://a" || string(m.Results[1].Extra["depth"]) != "2" {
		t.Errorf("map %+v %v", m, err)
	}
	e, err := api.DecodeExtract(json.RawMessage(`{"results":[{"url":"u","raw_content":"c","images":[{"url":"i"}]}],"failed_results":[{"url":"f","error":"e","code":7}]}`))
	if err != nil || e.Results[0].Images[0] != "i" || string(e.FailedResults[0].Extra["code"]) != "7" {
		t.Errorf("extract %+v %v", e, err)
	}
	r, err := api.DecodeResearch(json.RawMessage(`{"request_id":"x","status":"completed","content":"c","sources":[{"title":"t","url":"u","favicon":"f"}],"cost":1}`))
	if err != nil || string(r.Extra["cost"]) != "1" || string(r.Sources[0].Extra["favicon"]) != `"f"` {
		t.Errorf("research %+v %v", r, err)
	}
	c, err := api.DecodeCrawl(json.RawMessage(`{"base_url":"b","results":[],"pages":9}`))
	if err != nil || string(c.Extra["pages"]) != "9" {
		t.Errorf("crawl %+v %v", c, err)
	}
}

func TestDecodersNameTheBadField(t *testing.T) {
	_, err := api.DecodeSearch(json.RawMessage(`{"query":"q","results":[{"score":"high"}]}`))
	if err == nil || !strings.Contains(err.Error(), "score") || !strings.Contains(err.Error(), "number") {
		t.Errorf("err = %v", err)
	}
	for _, bad := range []string{``, `null`, `[]`, `"x"`, `{`} {
		if _, err := api.DecodeResearch(json.RawMessage(bad)); err == nil {
			t.Errorf("DecodeResearch(%q): no error", bad)
		}
	}
}

func TestParseVendorFailure(t *testing.T) {
	cases := []struct {
		msg  string
		want *api.VendorFailure
	}{
		{"tavily API request failed: context deadline exceeded", &api.VendorFailure{Vendor: "tavily", Detail: "context deadline exceeded"}},
		{"Volc Engine API returned status code 429: {\"error\":\"quota\"}", &api.VendorFailure{Vendor: "Volc Engine", Status: 429, Detail: "{\"error\":\"quota\"}"}},
		{"vendor API returned status code 500: multi\nline", &api.VendorFailure{Vendor: "vendor", Status: 500, Detail: "multi\nline"}},
		{"something else", nil},
		{api.MsgCredentialsMissing, nil},
	}
	for _, tc := range cases {
		got := api.ParseVendorFailure(tc.msg)
		if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("ParseVendorFailure(%q) = %+v, want %+v", tc.msg, got, tc.want)
		}
	}
}

func TestDecodeVoices(t *testing.T) {
	for _, in := range []string{`[{"name":"A","value":"a","language":"en","scene":"s","age":"adult","gender":"female"}]`, `{"voices":[{"name":"A","value":"a","age":"adult","gender":"female"}]}`} {
		vs, err := api.DecodeVoices(json.RawMessage(in))
		if err != nil || len(vs) != 1 || vs[0].Value != "a" || vs[0].Gender != "female" || string(vs[0].Extra["age"]) != `"adult"` {
			t.Errorf("%s: %+v %v", in, vs, err)
		}
	}
	if _, err := api.DecodeVoices(json.RawMessage(`{"x":1}`)); err == nil {
		t.Error("no error for a non-list")
	}
}
