package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"hark/api/apitest"
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
