package api

import (
	"encoding/json"
	"fmt"
)

// UnmarshalJSON accepts a string (one URL or several separated by commas)
// or an array of strings.
func (l *URLList) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*l = ParseURLList(s)
		return nil
	}
	var a []string
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("urls: must be a string or an array of strings")
	}
	out := make(URLList, 0, len(a))
	for _, u := range a {
		out = append(out, ParseURLList(u)...)
	}
	*l = out
	return nil
}
