package doc

import (
	"strings"

	"hark/gateway/text"
	"hark/gateway/text/lexicon"
)

// Terms are the words of s as research ranks them: text.Terms (the
// index's tokenizer and stemmer), with the forms of one word that the
// Porter stemmer leaves apart read as one ("speak" and "speech", "lose"
// and "loss", "child" and "children", "colour" and "color"), so that
// "how do I make flite speak a file" meets flite_file_to_speech. Only
// research's ranking reads them so; the searches it sends the index use
// the words as typed. A page's stored parse holds them: a change here
// takes a new docVersion.
func Terms(s string) []string {
	return Families(text.Terms(optLevels(keyChords(s))))
}

// keyChords writes each key chord in s ("Ctrl+C", "Ctrl-Z") with its
// chord as one more word ("ctrlc"): the tokenizer reads "Ctrl+C" as
// "ctrl" and a letter, which it drops, so that "the Ctrl key" would
// answer "how do I catch Ctrl+C" as well as Ctrl+C itself does.
func keyChords(s string) string {
	if !strings.Contains(s, "+") && !strings.Contains(s, "-") {
		return s
	}
	return keyChord().ReplaceAllStringFunc(s, func(c string) string {
		return c + " " + strings.Map(func(r rune) rune {
			if r == '+' || r == '-' {
				return -1
			}
			return r
		}, c)
	})
}

// optLevels writes each compiler optimisation flag in s ("-O0", "-O2",
// "-Os", a bare "-O") with the words it stands for, "optimization
// level": Valgrind's manual advises "Compile with option -O1 instead of
// -O0" and never writes those words, which "which optimisation level
// should I use?" asks in. An option as the page writes it is code, and
// a flag's meaning is no synonym: "Ctrl+C" is read so too (keyChords).
func optLevels(s string) string {
	if !strings.Contains(s, "-O") {
		return s
	}
	return optLevel().ReplaceAllStringFunc(s, func(c string) string { return c + " optimization level" })
}

// optLevel is a compiler's optimisation flag, on its own or opening
// inline code.
var optLevel = text.LazyRegexp(`(?:^|[\s\x01(])-O[0-3sgz]?\b`)

var keyChord = text.LazyRegexp(`(?i)\b(?:ctrl|control|alt|shift|cmd|meta)[+-][a-z0-9]\b`)

// Families reads the terms t (in place) with each word family as one:
// irregular forms, abstract nouns and their verb, British
// spellings and clipped forms, as the lexicon reads them from WordNet,
// the word lists and its data file (gateway/text/lexicon).
func Families(t []string) []string {
	lx := lexicon.Default()
	for i, w := range t {
		t[i] = lx.Family(w)
	}
	return t
}
