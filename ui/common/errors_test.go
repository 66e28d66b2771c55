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
