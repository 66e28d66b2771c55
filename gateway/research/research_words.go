package research

import (
	_ "embed"
	"strings"
	"sync"
)

// wordsFile is research's word lists (words.txt): lexicons too long to
// be read well as Go.
//
//go:embed words.txt
var wordsFile string

// wordLists is words.txt read: each list's words by its name.
var wordLists = sync.OnceValue(func() map[string][]string {
	out := map[string][]string{}
	name := ""
	for _, line := range strings.Split(wordsFile, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if n, ok := strings.CutSuffix(line, ":"); ok && !strings.Contains(n, " ") {
			name = n
			out[name] = []string{}
			continue
		}
		out[name] = append(out[name], strings.Fields(line)...)
	}
	return out
})

// wordList is words.txt's list called name; a name it lacks panics, as
// a list is read once, at first use, from a file the binary embeds.
func wordList(name string) []string {
	ws, ok := wordLists()[name]
	if !ok {
		panic("research: words.txt has no list " + name)
	}
	return ws
}
