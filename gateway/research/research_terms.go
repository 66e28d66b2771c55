package research

import (
	"strings"
	"sync"

	"hark/gateway/text"
)

// terms are the words of s as research ranks them: text.Terms (the
// index's tokenizer and stemmer), with the forms of one word that the
// Porter stemmer leaves apart read as one ("speak" and "speech", "lose"
// and "loss", "child" and "children"), so that "how do I make flite
// speak a file" meets flite_file_to_speech. Only research's ranking
// reads them so; the searches it sends the index use the words as typed.
func terms(s string) []string {
	return families(text.Terms(optLevels(keyChords(oneSpelling(s)))))
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

// oneSpelling writes the British spellings in s as the American ones
// ("optimisation" as "optimization", "behaviour" as "behavior", "centre"
// as "center"), which the Porter stemmer leaves apart: Valgrind's manual
// writes "uninitialised", a question may ask "uninitialized". Words
// whose "-ise" is not the suffix ("promise", "precise", "exercise") stay.
func oneSpelling(s string) string {
	if !britishHint().MatchString(s) {
		return s
	}
	return britishWord().ReplaceAllStringFunc(s, func(w string) string {
		lw := strings.ToLower(w)
		if keepSpelling[lw] {
			return w
		}
		for _, r := range britishEndings {
			if strings.HasSuffix(lw, r[0]) && (len(lw)-len(r[0]) >= 3 || !strings.HasPrefix(r[0], "is") && !strings.HasPrefix(r[0], "our")) {
				stem := lw[:len(lw)-len(r[0])]
				if strings.HasPrefix(r[0], "is") && keepSpelling[stem+"ise"] {
					return w
				}
				return stem + r[1]
			}
		}
		return w
	})
}

// britishHint is a cheap first look for a British spelling.
var britishHint = text.LazyRegexp(`(?i)is(?:e|es|ed|ing|ation|ations|er|ers)\b|our(?:s|ed|ing|ite|ites)?\b|tres?\b|ogues?\b|(?:lic|def|off)ence\b`)

var britishWord = text.LazyRegexp(`(?i)\b(?:[a-z]+(?:is(?:e|es|ed|ing|ation|ations|er|ers)|our(?:s|ed|ing|ite|ites)?)|[a-z]*(?:cen|me|fib|lit|thea)tres?|[a-z]*(?:catal|dial|anal)ogues?|[a-z]*(?:lic|def|off)ence)\b`)

// britishEndings are the British endings and their American forms,
// longest first.
var britishEndings = [][2]string{
	{"isations", "izations"}, {"isation", "ization"}, {"isers", "izers"}, {"ising", "izing"}, {"iser", "izer"},
	{"ises", "izes"}, {"ised", "ized"}, {"ise", "ize"},
	{"ourites", "orites"}, {"ourite", "orite"}, {"oured", "ored"}, {"ouring", "oring"}, {"ours", "ors"}, {"our", "or"},
	{"tres", "ters"}, {"tre", "ter"}, {"ogues", "ogs"}, {"ogue", "og"}, {"ence", "ense"},
}

// keepSpelling are the words whose "-ise" is their own, not the suffix
// American English writes "-ize", and the "-our" words that American
// English writes so too.
var keepSpelling = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`advertise advise apprise arise chastise circumcise comprise compromise concise demise
despise devise disguise enterprise excise exercise expertise franchise improvise incise merchandise precise premise
promise raise rise supervise surmise surprise televise treatise wise otherwise likewise clockwise paradise noise poise
praise cruise bruise guise reprise valise anise revise sunrise uprise
our ours your yours four hour hours flour pour tour tours detour contour sour scour devour
`) {
		m[w] = true
	}
	return m
}()

// families reads the terms t (in place) with each word family as one.
func families(t []string) []string {
	fam := wordFamilies()
	for i, w := range t {
		if c, ok := fam[w]; ok {
			t[i] = c
		}
	}
	return t
}

// wordFamilies maps each stem of a family to the family's first stem.
// The families are English morphology: irregular verb forms, and nouns
// and adjectives whose stem is not their verb's or their singular's,
// and the clipped forms of words ("app" of "application", "config" of
// "configuration"). No synonyms: "encrypt" and "cipher" are different
// words.
var wordFamilies = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, f := range strings.Split(`speak speech spoke spoken|choose choice chose chosen|lose loss lost|die death dead|
fly flight flew flown|see sight seen|weigh weight|high height|long length|strong strength|deep depth|wide width|
broad breadth|true truth|grow growth grew grown|think thought|write wrote written|run ran|begin began begun|
give gave given|take took taken|break broke broken|freeze froze frozen|hide hid hidden|buy bought|seek sought|
teach taught|catch caught|send sent|build built|keep kept|mean meant|feel felt|hold held|fail failure|
analyse analyze analysis|describe description|decide decision|divide division|explain explanation|
compare comparison|solve solution|resolve resolution|convert conversion|invert inversion|revert reversion|
extend extension|expand expansion|permit permission|omit omission|submit submission|transmit transmission|
emit emission|admit admission|receive reception|subscribe subscription|produce production|reduce reduction|
introduce introduction|consume consumption|assume assumption|destroy destruction|define definition|
recognize recognition|compose composition|repeat repetition|pronounce pronunciation|suspend suspension|
exclude exclusion|include inclusion|conclude conclusion|provide provision|collide collision|child children|man men|mouse mice|index indices|
matrix matrices|vertex vertices|able ability|possible possibility|responsible responsibility|
application app|directory dir|repository repo|argument arg|parameter param|configuration config|
environment env|structure struct|specification spec|statistics stats|maximum max|minimum min|temporary temp tmp|message msg`, "|") {
		words := strings.Fields(f)
		first, _ := text.Term(words[0])
		for _, w := range words[1:] {
			if t, ok := text.Term(w); ok && t != first {
				m[t] = first
			}
		}
	}
	return m
})
