package api

import (
	"os"
	"strings"
)

// SceneNarration is the scene of voices made for long passages; of the
// voices that match a locale, DefaultVoice prefers them.
const SceneNarration = "narration"

// DefaultVoice is the voice to use when none is configured: one whose
// language is the locale's ("en_US.UTF-8" → en-us), else its language's
// ("en"), else a regional variant of that language ("en-gb"), else the
// list's first. Within the best match a narration voice is preferred:
// smoother to listen to, and the one a recogniser understands best, so
// "hark tts TEXT | hark stt -" gives the words back. An empty list gives
// the zero Voice.
func DefaultVoice(vs []Voice, locale string) Voice {
	if len(vs) == 0 {
		return Voice{}
	}
	loc, _, _ := strings.Cut(locale, ".")
	loc = strings.ToLower(strings.ReplaceAll(loc, "_", "-"))
	if loc == "" || loc == "c" || loc == "posix" {
		loc = "en-us"
	}
	lang, _, _ := strings.Cut(loc, "-")
	for _, match := range []func(l string) bool{
		func(l string) bool { return l == loc },
		func(l string) bool { return l == lang },
		func(l string) bool { return strings.HasPrefix(l, lang+"-") },
	} {
		var first *Voice
		for i, v := range vs {
			if !match(strings.ToLower(v.Language)) {
				continue
			}
			if v.Scene == SceneNarration {
				return v
			}
			if first == nil {
				first = &vs[i]
			}
		}
		if first != nil {
			return *first
		}
	}
	return vs[0]
}

// Locale is the user's locale for messages: LC_ALL, LC_MESSAGES or LANG.
func Locale() string {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	return ""
}
