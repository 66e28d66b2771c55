package text

import (
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

// LazyRegexp compiles pattern on first use. Patterns compiled as package
// variables would cost every start of hark, a research or markdown file
// read or not (docs/startup.md).
func LazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// VersionNumber matches a version number: "1.2", "3.10.4".
var VersionNumber = LazyRegexp(`\b\d+\.\d+(?:\.\d+)*\b`)

// OneLine is s with every run of white space one space.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// TruncateRunes cuts s to n runes, marking the cut with "…".
func TruncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// The byte offset of rune n, without turning a long text (a page's
	// body) into runes whole.
	k := 0
	for i := range s {
		if k == n {
			return strings.TrimRightFunc(s[:i], unicode.IsSpace) + "…"
		}
		k++
	}
	return s
}

// Markdown is how the gateway reads markdown: CommonMark with GitHub's
// tables, strikethrough and autolinks, and footnotes. The web engine
// renders markdown files with it, research reads the extractor's
// markdown with its parser. It is made on first use: building its
// extensions costs about a millisecond, which hark's start-up need not
// pay.
var Markdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM, extension.NewFootnote(extension.WithFootnoteBacklinkHTML(""))),
		// Raw HTML in markdown (READMEs' centred logos and <details>)
		// goes to the extractor like any page's; nothing is ever run.
		goldmark.WithRendererOptions(gmhtml.WithUnsafe()),
	)
})
