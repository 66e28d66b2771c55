package api_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"hark/api"
)

func bound(v float64) *float64 { return &v }

// One validator, one wording: what the gateway, the forms and the CLI
// all say about a value.
func TestValidateWording(t *testing.T) {
	fields := []api.Field{
		{Name: "q", Type: "string", Required: true, MaxLength: 5},
		{Name: "n", Type: "integer", Default: 3, Min: bound(1), Max: bound(7)},
		{Name: "lo", Type: "integer", Min: bound(0)},
		{Name: "free", Type: "integer"},
		{Name: "x", Type: "number", Max: bound(0.5)},
		{Name: "b", Type: "boolean"},
		{Name: "e", Type: "string", Enum: []string{"a", "b"}},
		{Name: "ne", Type: "integer", Enum: []string{"4", "6"}},
		{Name: "d", Type: "string", Format: api.FormatDate},
		{Name: "u", Type: "string", Format: api.FormatURI},
		{Name: "urls", Type: "string|array", Items: "string", ItemFormat: api.FormatURI, Separator: ",", MaxItems: 2},
		{Name: "doms", Type: "string", Separator: ","},
		{Name: "o", Type: "object"},
		{Name: "odd", Type: "uuid"},
	}
	ok := map[string]any{"q": "hi"}
	for _, tc := range []struct {
		field string
		value any
		rule  string
	}{
		{"q", nil, "is required"},
		{"q", " ", "must not be empty"},
		{"q", "toolong", "must be at most 5 characters"},
		{"q", 3.0, "must be a string"},
		{"n", 0.0, "must be between 1 and 7"},
		{"n", json.Number("2.5"), "must be an integer"},
		{"n", "5", "must be an integer"},
		{"lo", int64(-1), "must be at least 0"},
		{"free", json.Number("1e12"), "must be an integer between -2147483648 and 2147483647"},
		{"x", 0.75, "must be at most 0.5"},
		{"x", "many", "must be a number"},
		{"b", "true", "must be true or false"},
		{"e", "c", "must be one of a, b"},
		{"ne", int64(5), "must be one of 4, 6"},
		{"d", "2026-02-30", "must be a date in the form YYYY-MM-DD"},
		{"u", "ftp://x", "must be an absolute http or https URL"},
		{"urls", " , ", "must hold at least one URL"},
		{"urls", "https://a, https://b, https://c", "must hold at most 2 URLs"},
		{"urls", []any{"https://a", "ftp://b"}, `"ftp://b" is not an absolute http or https URL`},
		{"urls", []any{"https://a", 3.0}, "element 1 must be a string"},
		{"urls", true, "must be a URL string or an array of URL strings"},
		{"doms", " , ", "must hold at least one value"},
		{"o", "[1]", "must be a JSON object"},
	} {
		in := map[string]any{"q": "hi", tc.field: tc.value}
		if tc.value == nil {
			delete(in, tc.field)
		}
		_, err := api.Validate(fields, in)
		var fe *api.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || fe.Rule != tc.rule {
			t.Errorf("%s=%#v: %v, want invalid %s: %s", tc.field, tc.value, err, tc.field, tc.rule)
			continue
		}
		if want := "invalid " + tc.field + ": " + tc.rule; err.Error() != want {
			t.Errorf("%q, want %q", err, want)
		}
	}
	// Normalized: defaults applied, "" unset, lists split, integers int,
	// unknown inputs dropped, unknown types passed through.
	ok["n"] = json.Number("7")
	ok["e"] = ""
	ok["urls"] = "https://a, https://b"
	ok["doms"] = "a.org, b.org"
	ok["odd"] = "anything"
	ok["bogus"] = 1
	got, err := api.Validate(fields, ok)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"q": "hi", "n": 7, "urls": []string{"https://a", "https://b"}, "doms": "a.org, b.org", "odd": "anything"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("normalized %#v, want %#v", got, want)
	}
	delete(ok, "n")
	if got, _ := api.Validate(fields, ok); got["n"] != 3 {
		t.Errorf("default not applied: %#v", got["n"])
	}
}

// Every rule the schema holds survives the trip through the tool list.
func TestFieldRoundTrip(t *testing.T) {
	in := api.Tool{Slug: "t", Name: "T", Inputs: []api.Field{
		{Name: "q", Type: "string", Required: true, MaxLength: 400, Description: "keywords"},
		{Name: "urls", Type: "string|array", Items: "string", ItemFormat: api.FormatURI, Separator: ",", MaxItems: 20, Required: true},
		{Name: "n", Type: "integer", Default: 5.0, Min: bound(1), Max: bound(20)},
		{Name: "d", Type: "string", Format: api.FormatDate},
		{Name: "doms", Type: "string", Separator: ","},
		{Name: "m", Type: "string", Enum: []string{"a", "b"}, Default: "a"},
	}}
	b, err := json.Marshal([]api.Tool{in})
	if err != nil {
		t.Fatal(err)
	}
	out, err := api.DecodeToolList(b)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range in.Inputs {
		g := out[0].Inputs[i]
		g.Raw = nil
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: read back %+v, want %+v", w.Name, g, w)
		}
	}
}

func TestSplitList(t *testing.T) {
	if got := api.SplitList(" a, ,b ,c,"); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("%q", got)
	}
	if got := api.SplitList(" , "); got != nil {
		t.Errorf("%q", got)
	}
}

func TestErrorStatus(t *testing.T) {
	for _, tc := range []struct {
		e                       api.Error
		refused, timedOut, auth bool
	}{
		{api.Error{HTTPStatus: 400}, true, false, false},
		{api.Error{HTTPStatus: 200, Code: 422}, true, false, false},
		{api.Error{HTTPStatus: 504}, false, true, false},
		{api.Error{Code: 408}, false, true, false},
		{api.Error{HTTPStatus: 403}, false, false, true},
		{api.Error{HTTPStatus: 500}, false, false, false},
	} {
		if tc.e.Refused() != tc.refused || tc.e.TimedOut() != tc.timedOut || tc.e.Auth() != tc.auth {
			t.Errorf("%+v: refused %v timedOut %v auth %v", tc.e, tc.e.Refused(), tc.e.TimedOut(), tc.e.Auth())
		}
	}
}
