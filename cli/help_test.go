package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"hark/api/apitest"
	"hark/library"
)

// Every command's help fits 80 columns when it is not on a terminal:
// descriptions wrap under their own column, not mid-word at the
// terminal's edge (search's flags ran to 140 columns, its live tool
// description to 150). The web commands' help carries the gateway's
// descriptions, so they are asked of a gateway.
func TestHelpFits80Columns(t *testing.T) {
	t.Parallel()
	s := apitest.New(t)
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				walk(sub, append(append([]string(nil), path...), sub.Name()))
			}
		}
	}
	walk(newRootCmd(newApp(strings.NewReader(""), new(bytes.Buffer), new(bytes.Buffer))), nil)
	if len(paths) < 40 {
		t.Fatalf("walked %d commands", len(paths))
	}
	for _, p := range paths {
		code, out, errs := hark(t, s, "", append(p, "--help")...)
		if code != 0 || !strings.Contains(out, "Usage:") {
			t.Errorf("hark %s --help: %d %q", strings.Join(p, " "), code, errs)
			continue
		}
		for _, l := range strings.Split(out, "\n") {
			if ansi.StringWidth(l) > 80 {
				t.Errorf("hark %s --help: a line of %d columns: %q", strings.Join(p, " "), ansi.StringWidth(l), l)
			}
		}
	}
	// A command's own line breaks stay (lists, commands in the text).
	if got := wrapHelp("short line\n  --to x   a list item that is far too long to fit on one line of forty", 40); got !=
		"short line\n  --to x a list item that is far too\n  long to fit on one line of forty" {
		t.Errorf("wrapHelp: %q", got)
	}
}

// library search's snippets, on a terminal, end where the line does:
// under the title, the table's ID, KIND and KEPT columns before them.
func TestSnippetRoom(t *testing.T) {
	items := []library.Item{{ID: 7, Kind: "page"}, {ID: 112, Kind: "research"}}
	// "112  research  2026-12-07 18:38  " is 33 columns, then 2 of indent.
	if got := snippetRoom(items, 80); got != 80-35 {
		t.Errorf("snippetRoom at 80: %d, want %d", got, 80-35)
	}
	if got := snippetRoom(items, 30); got != 20 {
		t.Errorf("snippetRoom at 30: %d, want the floor 20", got)
	}
}

// library list's titles, on a terminal, end where the line does: a
// report's title is its question, and one of 2,000 characters filled the
// screen. Piped, the table keeps every title whole.
func TestItemsTableFitsTheTerminal(t *testing.T) {
	at := time.Date(2026, 12, 7, 21, 58, 0, 0, time.Local)
	long := strings.Repeat("word ", 400)
	items := []library.Item{{ID: 4, Kind: "research", Title: long, Created: at}, {ID: 3, Kind: "research", Title: "how do I move a worktree?", Created: at}}
	var b strings.Builder
	if err := itemsTable(&b, items, false, 80); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("a line of %d columns at 80: %q", w, l)
		}
	}
	if !strings.Contains(b.String(), "word word wo…") || !strings.Contains(b.String(), "how do I move a worktree?") {
		t.Errorf("the table at 80:\n%s", b.String())
	}
	b.Reset()
	itemsTable(&b, items, false, 0)
	if !strings.Contains(b.String(), strings.TrimSpace(long)) {
		t.Errorf("piped, a title was cut:\n%.200s", b.String())
	}
}
