package auth

import "strings"

// Redactor keeps secrets out of what the gateway writes and logs: the
// vendor secrets of its config, and API keys wherever a request put them.
type Redactor struct {
	secrets []string
	keys    *Keys
}

// NewRedactor redacts secrets (shorter than 4 characters are left: they
// would blank out ordinary words) and keys's API keys.
func NewRedactor(secrets []string, keys *Keys) *Redactor {
	return &Redactor{secrets: secrets, keys: keys}
}

// Scrub removes configured vendor secrets, and API keys, from a message.
func (r *Redactor) Scrub(msg string) string {
	for _, sec := range r.secrets {
		if len(sec) >= 4 {
			msg = strings.ReplaceAll(msg, sec, "[redacted]")
		}
	}
	return r.RedactKeys(msg)
}

// minKeyLen is the shortest run of characters checked for being a key;
// hark's own keys are 69 long.
const minKeyLen = 16

// RedactKeys replaces each run of token characters that is an API key of
// this gateway, or has the form of one of hark's keys, with [redacted]. A
// key sent in a path segment (/voice/<KEY>/voices) would otherwise reach
// the log and the 404 or 405 message that echoes the path.
func (r *Redactor) RedactKeys(text string) string {
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
		if tok := text[i:j]; len(tok) >= minKeyLen && (looksLikeHarkKey(tok) || r.isKey(tok)) {
			b.WriteString(text[last:i])
			b.WriteString("[redacted]")
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

func (r *Redactor) isKey(tok string) bool {
	if r.keys == nil {
		return false
	}
	ws, _ := r.keys.Lookup(tok)
	return ws != ""
}

func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0
}

// looksLikeHarkKey matches NewAPIKey's form, "hark_" and hex digits,
// anywhere in tok: another gateway's key is as secret as ours, and so is
// a key cut short. 16 digits tell it from a word.
func looksLikeHarkKey(tok string) bool {
	i := strings.Index(tok, "hark_")
	if i < 0 || len(tok)-i-5 < 16 {
		return false
	}
	for _, c := range tok[i+5 : i+5+16] {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}
