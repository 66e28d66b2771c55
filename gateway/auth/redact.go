package auth

import (
	"strings"

	"hark/api"
)

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
			msg = strings.ReplaceAll(msg, sec, api.Redacted)
		}
	}
	return r.RedactKeys(msg)
}

// RedactKeys replaces each API key in text with [redacted]: a key of
// this gateway, however it was sent (in another case, without its
// "hark_" prefix), and anything with the shape of a hark key, which
// another gateway's key has too (api.RedactKeys). A key sent in a path
// segment (/voice/<KEY>/voices) or as the method would otherwise reach
// the log and the 404 or 405 message that echoes them.
func (r *Redactor) RedactKeys(text string) string {
	return api.RedactKeys(text, r.isKey)
}

func (r *Redactor) isKey(tok string) bool {
	if r.keys == nil {
		return false
	}
	ws, _ := r.keys.Lookup(tok)
	return ws != ""
}
