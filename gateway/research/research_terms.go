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
	return families(text.Terms(s))
}

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
compare comparison|solve solution|resolve resolution|child children|man men|mouse mice|index indices|
matrix matrices|vertex vertices|able ability|possible possibility|responsible responsibility|
application app|directory dir|repository repo|argument arg|parameter param|configuration config|
environment env|specification spec|statistics stats|maximum max|minimum min|temporary temp tmp|message msg`, "|") {
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
