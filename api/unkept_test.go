package api_test

import (
	"context"
	"testing"

	"hark/api"
	"hark/api/apitest"
)

// A call made under Unkept is not given to OnResult; others are.
func TestUnkeptCallsAreNotReported(t *testing.T) {
	s := apitest.New(t)
	var got []string
	c := newClient(t, s, func(o *api.Options) {
		o.OnResult = func(r api.Result) { got = append(got, r.Inputs["query"].(string)) }
	})
	ctx := context.Background()
	if _, err := c.Invoke(ctx, api.ToolSearch, map[string]any{"query": "kept"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Invoke(api.Unkept(ctx), api.ToolSearch, map[string]any{"query": "internal"}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "kept" {
		t.Errorf("OnResult saw %v, want only the kept call", got)
	}
}
