package text

import (
	"strings"
	"sync"
	"sync/atomic"
)

// Stem is the Porter stemmer as SQLite's FTS5 "porter" tokenizer applies
// it (fts5_tokenize.c), so that a word research or a snippet ranks meets
// the word the index matched: a token shorter than 3 bytes or longer than
// 64 is left as it is; bytes that are not ASCII letters are consonants.
// TestStemAgreesWithFTS5 checks it against the index's own tokenizer.
//
// Stems are remembered (stems, up to maxStems words): search and
// research stem every word of every page they rank, and a vocabulary is
// small beside that, so most words are stemmed once.
func Stem(w string) string {
	if len(w) < 3 || len(w) > 64 {
		return w
	}
	if s, ok := stems.Load(w); ok {
		return s.(string)
	}
	s := stem(w)
	if stemCount.Add(1) <= maxStems {
		// A clone: w is often a slice of a whole page's text.
		stems.Store(strings.Clone(w), s)
	}
	return s
}

// stems maps words to their stems; stemCount counts what it was given,
// and it takes no more past maxStems (the words met first are the
// common ones), so a huge or hostile text cannot grow it without end.
var (
	stems     sync.Map
	stemCount atomic.Int64
)

const maxStems = 50_000

func stem(w string) string {
	b := []byte(w)
	b = step1a(b)
	b, ok := step1b(b)
	if ok {
		if nb2, ok := replaceFirst(b, step1b2); ok {
			b = nb2
		} else {
			c := b[len(b)-1]
			if !isVowel(c, false) && c != 'l' && c != 's' && c != 'z' && len(b) > 1 && c == b[len(b)-2] {
				b = b[:len(b)-1]
			} else if measureEq1(b) && oStar(b) {
				b = append(b, 'e')
			}
		}
	}
	if b[len(b)-1] == 'y' && hasVowel(b[:len(b)-1]) {
		b[len(b)-1] = 'i'
	}
	b = applyRule(b, step2, measureGt0)
	b = applyRule(b, step3, measureGt0)
	b = applyStep4(b)
	if b[len(b)-1] == 'e' {
		s := b[:len(b)-1]
		if measureGt1(s) || measureEq1(s) && !oStar(s) {
			b = s
		}
	}
	if len(b) > 1 && b[len(b)-1] == 'l' && b[len(b)-2] == 'l' && measureGt1(b[:len(b)-1]) {
		b = b[:len(b)-1]
	}
	return string(b)
}

// isVowel: a, e, i, o, u, and y after a consonant.
func isVowel(c byte, yIsVowel bool) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || yIsVowel && c == 'y'
}

// gobbleVC returns the length of the first vowel run and the consonant
// run after it in s (0 when there is none), the measure's unit.
func gobbleVC(s []byte, prevCons bool) int {
	cons := prevCons
	i := 0
	for ; i < len(s); i++ {
		cons = !isVowel(s[i], cons)
		if !cons {
			break
		}
	}
	for i++; i < len(s); i++ {
		cons = !isVowel(s[i], cons)
		if cons {
			return i + 1
		}
	}
	return 0
}

func measureGt0(s []byte) bool { return gobbleVC(s, false) > 0 }

func measureGt1(s []byte) bool {
	n := gobbleVC(s, false)
	return n > 0 && gobbleVC(s[n:], true) > 0
}

func measureEq1(s []byte) bool {
	n := gobbleVC(s, false)
	return n > 0 && gobbleVC(s[n:], true) == 0
}

// oStar: s ends consonant-vowel-consonant, the last not w, x or y.
func oStar(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	if c := s[len(s)-1]; c == 'w' || c == 'x' || c == 'y' {
		return false
	}
	mask, cons := 0, false
	for _, c := range s {
		cons = !isVowel(c, cons)
		mask <<= 1
		if cons {
			mask++
		}
	}
	return mask&7 == 5
}

func hasVowel(s []byte) bool {
	for i, c := range s {
		if isVowel(c, i > 0) {
			return true
		}
	}
	return false
}

func step1a(b []byte) []byte {
	n := len(b)
	if b[n-1] != 's' {
		return b
	}
	switch {
	case b[n-2] == 'e':
		if n > 4 && b[n-4] == 's' && b[n-3] == 's' || n > 3 && b[n-3] == 'i' {
			return b[:n-2]
		}
		return b[:n-1]
	case b[n-2] != 's':
		return b[:n-1]
	}
	return b
}

// step1b reports whether "ed" or "ing" was removed (then step 1b's second
// part runs).
func step1b(b []byte) ([]byte, bool) {
	switch {
	case hasSuffix(b, "eed"):
		if measureGt0(b[:len(b)-3]) {
			return b[:len(b)-1], false
		}
	case hasSuffix(b, "ed"):
		if hasVowel(b[:len(b)-2]) {
			return b[:len(b)-2], true
		}
	case hasSuffix(b, "ing"):
		if hasVowel(b[:len(b)-3]) {
			return b[:len(b)-3], true
		}
	}
	return b, false
}

type rule struct{ suffix, with string }

var step1b2 = []rule{{"at", "ate"}, {"bl", "ble"}, {"iz", "ize"}}

// replaceFirst replaces the first suffix of rules b ends with,
// unconditionally.
func replaceFirst(b []byte, rules []rule) ([]byte, bool) {
	for _, r := range rules {
		if hasSuffix(b, r.suffix) {
			return append(b[:len(b)-len(r.suffix)], r.with...), true
		}
	}
	return b, false
}

var step2 = []rule{
	{"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"}, {"izer", "ize"}, {"logi", "log"},
	{"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"},
	{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"},
	{"alism", "al"}, {"iveness", "ive"}, {"fulness", "ful"}, {"ousness", "ous"},
	{"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"},
}

var step3 = []rule{
	{"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"}, {"ical", "ic"}, {"ful", ""}, {"ness", ""},
}

var step4 = []string{"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
	"ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize"}

// applyRule replaces the rule whose suffix b ends with (FTS5 tries the
// rules sharing b's second-last letter, longest first, and stops at the
// first that matches whether or not its condition holds).
func applyRule(b []byte, rules []rule, cond func([]byte) bool) []byte {
	if len(b) < 2 {
		return b
	}
	for _, r := range rules {
		if len(b) > len(r.suffix) && r.suffix[len(r.suffix)-2] == b[len(b)-2] && hasSuffix(b, r.suffix) {
			stem := b[:len(b)-len(r.suffix)]
			if cond(stem) {
				return append(stem, r.with...)
			}
			return b
		}
	}
	return b
}

func applyStep4(b []byte) []byte {
	if len(b) < 2 {
		return b
	}
	for _, suf := range step4 {
		if len(b) > len(suf) && suf[len(suf)-2] == b[len(b)-2] && hasSuffix(b, suf) {
			stem := b[:len(b)-len(suf)]
			ok := measureGt1(stem)
			if suf == "ion" {
				ok = ok && (stem[len(stem)-1] == 's' || stem[len(stem)-1] == 't')
			}
			if ok {
				return stem
			}
			return b
		}
	}
	return b
}

func hasSuffix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[len(b)-len(s):]) == s
}
