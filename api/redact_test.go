package api

import (
	"strings"
	"testing"
)

func TestRedactKeys(t *testing.T) {
	t.Parallel()
	const hex64 = "3ee5033f3f2657b7622abc6937344ae0caa710bb30bbd71293f84f8d3b5ac249"
	const key = "hark_" + hex64
	custom := "team-secret-2024-alpha"
	isKey := func(s string) bool { return s == key || s == custom }
	for _, tc := range []struct{ in, want string }{
		{"GET /voice/" + key + "/voices", "GET /voice/[redacted]/voices"},
		{"GET /voice/" + strings.ToUpper(key) + "/voices", "GET /voice/[redacted]/voices"},
		{"/x/" + hex64 + ".json", "/x/[redacted]"},
		{"/x/" + strings.ToUpper(hex64), "/x/[redacted]"},
		{"Bearer Hark_0123456789ABCDEF", "Bearer [redacted]"},                     // cut short, mixed case
		{"url=https://h/p?k=" + key + "&a=1", "url=https://h/p?k=[redacted]&a=1"}, // in a URL
		{"path /docs/" + custom + ".html", "path /docs/[redacted]"},               // a key of the gateway's own, by its hash
		{"path /docs/" + strings.ToUpper(custom), "path /docs/[redacted]"},        // and in upper case
	} {
		if got := RedactKeys(tc.in, isKey); got != tc.want {
			t.Errorf("RedactKeys(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Only a key of its own is known without its prefix: the hash of
	// "hark_"+lower case.
	if got := RedactKeys("/voice/"+strings.ToUpper(hex64[:40])+"/x", func(s string) bool { return s == "hark_"+hex64[:40] }); got != "/voice/[redacted]/x" {
		t.Errorf("a known key without its prefix, in upper case: %q", got)
	}
	for _, keep := range []string{
		"trace 9f86d081884c7d65 ok",                       // a trace ID: 16 hex digits
		"commit 2c26b46b68ffc68ff99b453c1d30413413422d70", // 40 hex digits
		"harkening_to the sound of 0123456789",
		"vendor_search gateway_usage stt_recognisers",
		"",
	} {
		if got := RedactKeys(keep, isKey); got != keep {
			t.Errorf("RedactKeys(%q) = %q, want it kept", keep, got)
		}
	}
}
