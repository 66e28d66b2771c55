package main

import "testing"

func TestGatewayLabel(t *testing.T) {
	for _, tc := range []struct{ base, profile, want string }{
		{"", "", "embedded · workspace local"},
		{"https://gw.example.com/", "default", "https://gw.example.com/"},
		{"https://user:secret@gw.example.com", "work", "https://gw.example.com · profile work"},
	} {
		if got := gatewayLabel(tc.base, tc.profile); got != tc.want {
			t.Errorf("gatewayLabel(%q, %q) = %q, want %q", tc.base, tc.profile, got, tc.want)
		}
	}
}
