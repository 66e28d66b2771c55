package text

import (
	"strings"
	"unicode"
)

// Shingles are the word n-grams of s (lower-cased runs of letters and
// digits), each with how often it occurs; a text of fewer than n words
// is one shingle. Research's near-duplicate quotes and the extraction
// score's overlap (3-shingles) compare texts by them.
func Shingles(s string, n int) map[string]int {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := map[string]int{}
	for i := 0; i+n <= len(words); i++ {
		out[strings.Join(words[i:i+n], " ")]++
	}
	if len(words) < n && len(words) > 0 {
		out[strings.Join(words, " ")]++
	}
	return out
}
