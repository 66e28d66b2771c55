package api

import "strings"

// Redacted replaces an API key wherever hark writes text down.
const Redacted = "[redacted]"

// RedactKeys replaces every run of token characters (letters, digits and
// -._~) in text that holds an API key with Redacted: one that has the
// shape of a hark key, in any case — "hark_" followed by at least 16 hex
// digits (a key cut short is as secret), or 64 hex digits without the
// prefix — or, when isKey is given, one isKey accepts: the run as sent,
// in lower case, with "hark_" put before it, and each of its parts
// between dots (a key followed by ".json"). The gateway's isKey knows
// its keys by their hashes; the client's knows its own key.
func RedactKeys(text string, isKey func(string) bool) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(text); {
		if !isTokenByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isTokenByte(text[j]) {
			j++
		}
		if tok := text[i:j]; len(tok) >= minKeyLen && (hasKeyShape(tok) || isKey != nil && holdsKey(tok, isKey)) {
			if last == 0 {
				b.Grow(len(text))
			}
			b.WriteString(text[last:i])
			b.WriteString(Redacted)
			last = j
		}
		i = j
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// minKeyLen is the shortest run checked for being a key: 16 characters
// tell a key from a word; hark's own keys are 69 long.
const minKeyLen = 16

func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// hasKeyShape reports a hark key in tok, in any case: "hark_" and 16 hex
// digits at least, or a run of 64 hex digits (a key sent without its
// prefix).
func hasKeyShape(tok string) bool {
	run := 0
	for i := 0; i < len(tok); i++ {
		if isHex(tok[i]) {
			if run++; run >= 64 {
				return true
			}
		} else {
			run = 0
		}
		if i+5+16 <= len(tok) && strings.EqualFold(tok[i:i+5], "hark_") {
			hex := 0
			for hex < 16 && isHex(tok[i+5+hex]) {
				hex++
			}
			if hex == 16 {
				return true
			}
		}
	}
	return false
}

// holdsKey asks isKey about tok and the forms a key may have taken in it.
func holdsKey(tok string, isKey func(string) bool) bool {
	lower := strings.ToLower(tok)
	if isKey(tok) || lower != tok && isKey(lower) || !strings.HasPrefix(lower, "hark_") && isKey("hark_"+lower) {
		return true
	}
	if !strings.Contains(tok, ".") {
		return false
	}
	for _, part := range strings.Split(tok, ".") {
		if len(part) >= minKeyLen && part != tok && holdsKey(part, isKey) {
			return true
		}
	}
	return false
}
