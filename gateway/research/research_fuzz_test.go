package research

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReadAndQuote reads any page (markdown, or plain text) as research
// does and quotes it for any question: no panic, every sentence leans
// only on one before it, and every quote written holds only the page's
// sentences, each once, in page order.
func FuzzReadAndQuote(f *testing.F) {
	for _, seed := range []struct{ page, question string }{
		{"# Zorbgrind\n\n- **Interactive dumping.** Use\n\n      zorbctl -d [hint]\n\n  to request a dump of the running program.\n", "How do I dump a running program?"},
		{"# Voices\n\n## gender\n\n```\ngender <gender> [<age>]\n```\n\nThis attribute is only a label. It does not change the sound.\n", "Does gender change the sound?"},
		{"# Options\n\n**--zorb=<yes|no>**\n\nThe zorb engine frobs widgets. This makes them shine.\n\nThe tool is cleaned with oil.\n", "what does --zorb do"},
		{"Thus\n\n    flite -t hello\n\nwill say the word hello while\n\n    flite hello\n\nwill say the content of the file hello.\n", "how do I make flite say a word"},
		{"The different methods are:\n\n1. Configure the project:\n\n       ./configure\n\nCheck that log shows:\n\n1. Build the project:\n\n       make apk\n", "how do I build the app"},
		{"RELEASE NOTES\n=============\n\n* Support for X has been added.\n* It also does Y.\n", "which release added X?"},
	} {
		f.Add(seed.page, seed.question)
	}
	f.Fuzz(func(t *testing.T, page, question string) {
		if len(page) > 1<<14 || len(question) > 200 || !utf8.ValidString(page) || !utf8.ValidString(question) {
			return
		}
		for _, d := range []*rdoc{readMarkdownDoc(page, "Fuzzed page"), readTextDoc(page, "Fuzzed page")} {
			d.kept = page
			for i, s := range d.Sents {
				if s.Dep >= i || s.AfterList >= i {
					t.Fatalf("sentence %d leans on %d (after list %d)", i, s.Dep, s.AfterList)
				}
				if s.Block < 0 || s.Block >= len(d.Blocks) || s.Passage < 0 || s.Passage >= len(d.Passages) {
					t.Fatalf("sentence %d sits in block %d of %d, passage %d of %d", i, s.Block, len(d.Blocks), s.Passage, len(d.Passages))
				}
			}
			c := newCorpus([]*rdoc{d})
			a := c.respell(newAsk(question, nil, false))
			used := newUsedSet()
			for _, opt := range []pickOptions{{noLists: true}, {perPassage: 2, perSource: sectionPerSource}} {
				for _, q := range c.pick(a, 6, used, opt) {
					seen := map[int]bool{}
					last := -1
					for _, k := range q.all() {
						if k < 0 || k >= len(d.Sents) || seen[k] {
							t.Fatalf("quote %+v holds sentence %d twice or out of the page's %d", q, k, len(d.Sents))
						}
						seen[k] = true
					}
					for _, k := range q.sents {
						if k <= last {
							t.Fatalf("quote %+v is out of page order", q)
						}
						last = k
					}
					var b strings.Builder
					c.write(&b, q, 1, true)
					if strings.TrimSpace(b.String()) == "" {
						t.Fatalf("quote %+v writes nothing", q)
					}
				}
			}
		}
	})
}
