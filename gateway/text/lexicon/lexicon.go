// Package lexicon is the English vocabulary research reads questions
// and pages with, taken from real resources rather than word lists in
// code: WordNet 3.0 (Debian's wordnet-base) for synonyms, derivationally
// related forms and irregular forms; the British and American word
// lists (wbritish, wamerican) for spelling variants; and the user's own
// index for pseudo-relevance feedback (RM3). Only the clipped forms of
// computing words ("app", "config"), which no dictionary pairs, come
// from a data file shipped with the package (clippings.txt).
//
// Nothing is read until first asked for: Default loads once, on first
// use, so that starting hark costs nothing. Without WordNet or the word
// lists, Default still works with what it has and logs once what it is
// missing.
//
// The API the ranker uses is small and stable:
//
//   - Family(stem) — the term a word family is read as (irregular forms,
//     abstract nouns and their verb, British spellings, clipped forms),
//     stem to stem as text.Term gives them. Research's terms are
//     Family(text.Term(word)).
//   - Expand(word, source) — one question word's expansions from one
//     source (Synonym, Derived, Spelling), as terms in that same form,
//     each with a prior weight in (0, 1]; the ranker fits one weight per
//     source.
//   - RM3(query, docs, n) — RM3's expansion terms over the top
//     documents a first retrieval found, weighted.
//
// It does no network I/O; it reads only the files named by its paths.
package lexicon

import (
	"bufio"
	"bytes"
	_ "embed"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"hark/gateway/text"
)

// Where Debian's packages put the resources.
const (
	WordNetDir   = "/usr/share/wordnet"               // wordnet-base
	BritishList  = "/usr/share/dict/british-english"  // wbritish
	AmericanList = "/usr/share/dict/american-english" // wamerican
)

// Lexicon is the vocabulary loaded from one set of files.
type Lexicon struct {
	WordNet  *WordNet   // nil when missing
	Spelling *Spellings // nil when missing
	Missing  []string   // what could not be read, as errors say it
	Took     time.Duration
	families map[string]string
}

//go:embed clippings.txt
var clippingsFile []byte

// Load reads the WordNet database in wordnetDir and pairs the spellings
// of the two word lists. It does not fail: what it cannot read is
// listed in Missing and left out.
func Load(wordnetDir, britishList, americanList string) *Lexicon {
	start := time.Now()
	l := &Lexicon{families: map[string]string{}}
	wn, err := OpenWordNet(wordnetDir)
	if err != nil {
		l.Missing = append(l.Missing, err.Error())
	} else {
		l.WordNet = wn
	}
	// The spellings and WordNet's families are read side by side: each
	// is about half of the load, on a machine with two cores or more.
	var spellErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.Spelling, spellErr = LoadSpelling(britishList, americanList, l.WordNet)
	}()
	var irregular, derived map[string]string
	if l.WordNet != nil {
		irregular = irregularStems(l.WordNet)
		if derived, err = derivedStems(l.WordNet); err != nil {
			l.Missing = append(l.Missing, err.Error())
		}
	}
	<-done
	if spellErr != nil {
		l.Missing = append(l.Missing, spellErr.Error())
		l.Spelling = nil
	}
	// Earlier sources win a stem: a spelling, a clipped form, an
	// irregular form, a derived noun.
	add := func(m map[string]string) {
		for k, v := range m {
			if _, ok := l.families[k]; !ok {
				l.families[k] = v
			}
		}
	}
	if l.Spelling != nil {
		add(l.Spelling.stemMap)
	}
	add(clippings())
	add(irregular)
	add(derived)
	resolve(l.families)
	l.Took = time.Since(start)
	return l
}

// clippings maps the stem of each clipped form in clippings.txt to its
// full word's ("app" → "application"): one family a line, the full word
// first.
func clippings() map[string]string {
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(clippingsFile))
	for sc.Scan() {
		ln := sc.Text()
		if i := strings.IndexByte(ln, '#'); i >= 0 {
			ln = ln[:i]
		}
		f := strings.Fields(ln)
		if len(f) < 2 {
			continue
		}
		to, _ := text.TermUncached(f[0])
		for _, w := range f[1:] {
			if from, ok := text.TermUncached(w); ok && from != to {
				m[from] = to
			}
		}
	}
	return m
}

// Family is the term that stem's word family is read as, or stem.
//
// A British stem that no word list holds ("vectoris" of "vectorised")
// is read by the spelling endings learnt from the lists, then by its
// family.
func (l *Lexicon) Family(stem string) string {
	if f, ok := l.families[stem]; ok {
		return f
	}
	if l.Spelling != nil {
		if a, ok := l.Spelling.americanStem(stem); ok {
			if f, ok := l.families[a]; ok {
				return f
			}
			return a
		}
	}
	return stem
}

// Families is the number of stems read as another.
func (l *Lexicon) Families() int { return len(l.families) }

var logger atomic.Pointer[slog.Logger]

// SetLogger sets where Default says what it is missing (default:
// slog.Default()).
func SetLogger(l *slog.Logger) { logger.Store(l) }

// Default is the lexicon of Debian's files, loaded on first call and
// kept; it logs once what is missing and how long the load took.
var Default = sync.OnceValue(func() *Lexicon {
	log := logger.Load()
	if log == nil {
		log = slog.Default()
	}
	return loadLogged(WordNetDir, BritishList, AmericanList, log)
})

// loadLogged is Load, saying on log what is missing (a warning) and
// what the load took (debug).
func loadLogged(wordnetDir, britishList, americanList string, log *slog.Logger) *Lexicon {
	l := Load(wordnetDir, britishList, americanList)
	if len(l.Missing) > 0 {
		log.Warn("lexicon: research reads words without what is missing (install wordnet-base, wbritish and wamerican; scripts/setup.sh does)",
			"missing", strings.Join(l.Missing, "; "))
	}
	log.Debug("lexicon loaded", "took", l.Took, "families", len(l.families))
	return l
}
