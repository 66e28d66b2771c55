package common

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"hark/api"
)

func TestExplain(t *testing.T) {
	vend := &api.Error{Code: 502, Message: "acme API returned status code 429: quota", TraceID: "t9", Vendor: api.ParseVendorFailure("acme API returned status code 429: quota")}
	for _, tc := range []struct {
		err              error
		msg, trace, hint string
	}{
		{&api.Error{Code: 500, Message: api.MsgCredentialsMissing, TraceID: "t1"}, api.MsgCredentialsMissing, "t1", "no credentials for the search vendor"},
		{fmt.Errorf("search: %w", vend), "search: " + vend.Message, "t9", "upstream service (acme) answered HTTP 429"},
		{&api.Error{HTTPStatus: 429, Code: 429, Message: "slow down", RetryAfter: 3 * time.Second}, "slow down", "", "Retry in 3s"},
		{&api.Error{HTTPStatus: 401, Message: "bad key"}, "bad key", "", "refused the API key"},
		{&api.Error{Code: 504, Message: api.MsgResearchWaitTimeout}, api.MsgResearchWaitTimeout, "", "waited 5 minutes"},
		{fmt.Errorf("research: %w", context.Canceled), "cancelled", "", ""},
	} {
		p := Explain(tc.err)
		if p.Message != tc.msg || p.TraceID != tc.trace || !strings.Contains(p.Hint, tc.hint) {
			t.Errorf("Explain(%v) = %+v", tc.err, p)
		}
	}
}

// The client already says "tool list:"; the UI does not say it twice.
func TestToolListErrorOnce(t *testing.T) {
	own := fmt.Errorf("tool list: %w", &api.Error{HTTPStatus: 401, Message: "invalid API key"})
	if got := Explain(ToolListError(own)).Message; got != "tool list: invalid API key" {
		t.Errorf("message %q", got)
	}
	if got := ToolListError(fmt.Errorf("dial tcp: refused")).Error(); got != "tool list: dial tcp: refused" {
		t.Errorf("unnamed error became %q", got)
	}
}

// A hint wrapped over several lines keeps its indent on each.
func TestErrorViewIndentsWrappedHint(t *testing.T) {
	v := ErrorView(NewStyles(true, true), &api.Error{HTTPStatus: 401, Message: "bad key"}, 40)
	lines := strings.Split(v, "\n")
	if len(lines) < 3 {
		t.Fatalf("hint not wrapped at 40 columns:\n%s", v)
	}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "  ") {
			t.Errorf("hint line without indent: %q", l)
		}
	}
}
