package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
)

// setHelp makes every command's help and usage fit the terminal: cobra
// prints each command's and flag's description on one line, so at 80
// columns the terminal broke them mid-word with no indent (search's
// flags ran to 140 columns, its live description to 150). Descriptions
// are wrapped under their own column instead; piped, help is wrapped at
// 80 columns.
func (a *App) setHelp(root *cobra.Command) {
	root.SetHelpFunc(func(c *cobra.Command, _ []string) {
		w := c.OutOrStdout()
		if text := strings.TrimRight(c.Long, " \t\n"); text != "" || c.Short != "" {
			if text == "" {
				text = c.Short
			}
			fmt.Fprintln(w, wrapHelp(text, a.helpWidth()))
			fmt.Fprintln(w)
		}
		if c.Runnable() || c.HasSubCommands() {
			_ = writeUsage(w, c, a.helpWidth())
		}
	})
	root.SetUsageFunc(func(c *cobra.Command) error {
		return writeUsage(c.OutOrStderr(), c, a.helpWidth())
	})
}

// helpWidth is the width help is wrapped at: the terminal's (at most
// 120 columns, for reading), else 80.
func (a *App) helpWidth() int {
	if f, ok := a.stdout.(*os.File); ok && term.IsTerminal(f.Fd()) {
		if w, _, err := term.GetSize(f.Fd()); err == nil && w >= 40 {
			return min(w, 120)
		}
	}
	return 80
}

// writeUsage is cobra's usage (its defaultUsageFunc: hark uses no
// aliases, examples or groups) with the descriptions wrapped at width.
func writeUsage(w io.Writer, c *cobra.Command, width int) error {
	var b strings.Builder
	b.WriteString("Usage:")
	if c.Runnable() {
		b.WriteString("\n  " + c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\n  " + c.CommandPath() + " [command]")
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\n\nAvailable Commands:")
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				lead := fmt.Sprintf("  %-*s ", sub.NamePadding(), sub.Name())
				b.WriteString("\n" + hang(lead, sub.Short, width))
			}
		}
	}
	if c.HasAvailableLocalFlags() {
		b.WriteString("\n\nFlags:\n" + strings.TrimRight(c.LocalFlags().FlagUsagesWrapped(width), " \t\n"))
	}
	if c.HasAvailableInheritedFlags() {
		b.WriteString("\n\nGlobal Flags:\n" + strings.TrimRight(c.InheritedFlags().FlagUsagesWrapped(width), " \t\n"))
	}
	if c.HasAvailableSubCommands() {
		more := fmt.Sprintf("Use \"%s [command] --help\" for more information about a command.", c.CommandPath())
		b.WriteString("\n\n" + strings.Join(fill(strings.Fields(more), width), "\n"))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// hang writes lead then text wrapped at width, the lines after the first
// indented as far as lead is wide.
func hang(lead, text string, width int) string {
	indent := strings.Repeat(" ", ansi.StringWidth(lead))
	lines := fill(strings.Fields(text), max(20, width-len(indent)))
	if len(lines) == 0 {
		return strings.TrimRight(lead, " ")
	}
	return lead + strings.Join(lines, "\n"+indent)
}

// wrapHelp wraps a command's description at width: a line that fits is
// kept as written (the descriptions wrap their own paragraphs, and keep
// lists and commands on lines of their own); a longer one is filled,
// its continuation indented as the line is.
func wrapHelp(text string, width int) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if ansi.StringWidth(l) <= width {
			out = append(out, l)
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
		for _, f := range fill(strings.Fields(l), max(20, width-len(indent))) {
			out = append(out, indent+f)
		}
	}
	return strings.Join(out, "\n")
}

// fill lays words on lines of at most width columns; a word longer than
// that has a line of its own.
func fill(words []string, width int) []string {
	var lines []string
	cur := ""
	for _, w := range words {
		switch {
		case cur == "":
			cur = w
		case ansi.StringWidth(cur)+1+ansi.StringWidth(w) <= width:
			cur += " " + w
		default:
			lines = append(lines, cur)
			cur = w
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}
