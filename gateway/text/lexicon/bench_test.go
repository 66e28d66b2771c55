package lexicon

import (
	"os"
	"path/filepath"
	"testing"

	"hark/gateway/text"
)

// debian skips a benchmark without Debian's files.
func debian(b *testing.B) {
	if _, err := os.Stat(filepath.Join(WordNetDir, "data.noun")); err != nil {
		b.Skip("wordnet-base is not installed")
	}
}

// BenchmarkLoad is what research's first question pays: opening
// WordNet, pairing the spellings and building the families.
func BenchmarkLoad(b *testing.B) {
	debian(b)
	for b.Loop() {
		l := Load(WordNetDir, BritishList, AmericanList)
		l.WordNet.Close()
	}
}

// BenchmarkFamily is the lookup every term of every sentence research
// reads pays.
func BenchmarkFamily(b *testing.B) {
	debian(b)
	l := Default()
	words := text.Terms("The speech of the children was recognised at the centre after the conversion of each colour")
	for b.Loop() {
		for _, w := range words {
			l.Family(w)
		}
	}
}

func BenchmarkExpand(b *testing.B) {
	debian(b)
	l := Default()
	for _, src := range []Source{Synonym, Derived, Spelling} {
		b.Run(src.String(), func(b *testing.B) {
			for b.Loop() {
				l.Expand("speak", src)
			}
		})
	}
}

// BenchmarkRM3 is feedback over ten documents of 300 terms.
func BenchmarkRM3(b *testing.B) {
	words := text.Terms("voice synthesis festival diphone unit selection prosody duration pitch intonation lexicon letter sound rules tokenizer")
	var docs []Doc
	for d := range 10 {
		var t []string
		for i := range 300 {
			t = append(t, words[(i*7+d)%len(words)])
		}
		docs = append(docs, Doc{Terms: t, Score: float64(10 - d)})
	}
	for b.Loop() {
		RM3(words[:2], docs, 10)
	}
}
