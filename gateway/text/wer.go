package text

import (
	"strings"
	"unicode"
)

// SpokenWords are the words of s as a recogniser gives them back: lower
// case, punctuation dropped (apostrophes kept, as in "don't").
func SpokenWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// WordErrorRate is the word error rate of hyp against ref: the fewest
// substitutions, insertions and deletions of words that turn ref into
// hyp, over ref's word count (SpokenWords). It is 0 when both are empty
// and 1 when only ref is.
func WordErrorRate(ref, hyp string) float64 {
	r, h := SpokenWords(ref), SpokenWords(hyp)
	if len(r) == 0 {
		if len(h) == 0 {
			return 0
		}
		return 1
	}
	prev := make([]int, len(h)+1)
	cur := make([]int, len(h)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(r); i++ {
		cur[0] = i
		for j := 1; j <= len(h); j++ {
			sub := prev[j-1]
			if r[i-1] != h[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(h)]) / float64(len(r))
}
