package text

import (
	"strings"
	"unicode"
)

// PlainWords is s lower-cased, its words only: "This API is so
// Fetching!" gives "this api is so fetching".
func PlainWords(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), " ")
}

// SentenceCase is s with its first letter upper-cased, as a sentence or
// a title opens.
func SentenceCase(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	return strings.ToUpper(string(r[0])) + string(r[1:])
}
