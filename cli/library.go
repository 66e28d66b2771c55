package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"hark/library"
)

// libraryError marks a library that cannot be used: damaged, locked, or
// not a hark library (exit 6).
type libraryError struct{ err error }

func (e libraryError) Error() string { return e.err.Error() }
func (e libraryError) Unwrap() error { return e.err }

// searchError is a library search's failure: a query with no words is
// the caller's (exit 2, the rule named), anything else the library's.
func searchError(command string, err error) error {
	if errors.Is(err, library.ErrNoWords) {
		return usagef("%s: %w", command, err)
	}
	return libraryError{err}
}

func newLibraryCmd(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "library",
		Short: "What hark kept: reports, searches, pages, crawls and maps",
		Long: `Every research report, search, extracted page, crawl and map is kept in
the library (library.db in the data directory), with the time, the gateway
and the trace_id, unless library = false or HARK_LIBRARY=0. These commands
list, search, show, remove and export what is kept; none calls a gateway.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q for hark library", args[0])
			}
			return usagef("library: want list, search, show, rm or export")
		},
	}
	cmd.AddCommand(newLibraryListCmd(a, false), newLibraryListCmd(a, true), newLibraryShowCmd(a), newLibraryRmCmd(a), newLibraryExportCmd(a))
	return cmd
}

// openLibrary opens the library for a library command.
func (a *App) openLibrary() (*library.Store, error) {
	s, err := a.library()
	if err != nil {
		return nil, libraryError{err}
	}
	return s, nil
}

func checkKind(kind string) error {
	if kind == "" {
		return nil
	}
	for _, k := range library.Kinds {
		if k == kind {
			return nil
		}
	}
	return usagef("--kind %q: must be one of %s", kind, strings.Join(library.Kinds, ", "))
}

func newLibraryListCmd(a *App, search bool) *cobra.Command {
	var kind string
	var limit int
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List what is kept, newest first",
		Args:  exactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkKind(kind); err != nil {
				return err
			}
			if limit < 0 {
				return usagef("--limit %d: must be 0 (no limit) or more", limit)
			}
			s, err := a.openLibrary()
			if err != nil {
				return err
			}
			var items []library.Item
			if search {
				items, err = s.Search(cmd.Context(), strings.Join(args, " "), kind, limit)
			} else {
				items, err = s.List(cmd.Context(), kind, limit)
			}
			if err != nil {
				return searchError("library search", err)
			}
			if a.jsonOut {
				if items == nil {
					items = []library.Item{}
				}
				return writeJSON(a.stdout, items)
			}
			if len(items) == 0 {
				if search {
					fmt.Fprintln(a.stdout, "nothing kept matches")
				} else {
					fmt.Fprintf(a.stdout, "the library is empty (%s)\n", s.Path())
				}
				return nil
			}
			width := 0
			if isTerminal(a.stdout) {
				width = a.helpWidth()
			}
			return itemsTable(a.stdout, items, search, width)
		},
	}
	if search {
		cmd.Use, cmd.Short = "search QUERY...", "Search the text of what is kept (offline)"
		cmd.Args = minArgs(1, "QUERY")
	}
	cmd.Flags().StringVar(&kind, "kind", "", "only this kind: "+strings.Join(library.Kinds, ", "))
	cmd.Flags().IntVar(&limit, "limit", 0, "at most N items (0: all)")
	cmd.RegisterFlagCompletionFunc("kind", fixed(library.Kinds...))
	return cmd
}

// itemID parses an item ID argument.
func itemID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, usagef("ID %q: must be a whole number from hark library list", s)
	}
	return id, nil
}

// getItem fetches one item; an unknown ID is a usage error.
func (a *App) getItem(cmd *cobra.Command, arg string) (*library.Store, library.Item, error) {
	id, err := itemID(arg)
	if err != nil {
		return nil, library.Item{}, err
	}
	s, err := a.openLibrary()
	if err != nil {
		return nil, library.Item{}, err
	}
	it, err := s.Get(cmd.Context(), id)
	if errors.Is(err, library.ErrNotFound) {
		return nil, library.Item{}, targetError{fmt.Errorf("library: no item %d (hark library list shows the IDs)", id)}
	}
	if err != nil {
		return nil, library.Item{}, libraryError{err}
	}
	return s, it, nil
}

func newLibraryShowCmd(a *App) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Print an item as markdown (--json: the item with the tool's output)",
		Args:  exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, it, err := a.getItem(cmd, args[0])
			if err != nil {
				return err
			}
			if a.jsonOut {
				return writeJSON(a.stdout, itemJSON(it))
			}
			_, err = fmt.Fprint(a.stdout, library.Markdown(it))
			return err
		},
	}
}

// itemJSON is an item for --json, with its inputs and output as JSON
// rather than strings.
func itemJSON(it library.Item) any {
	raw := func(s string) json.RawMessage {
		if json.Valid([]byte(s)) {
			return json.RawMessage(s)
		}
		return json.RawMessage("null")
	}
	return struct {
		ID       int64           `json:"id"`
		Kind     string          `json:"kind"`
		Tool     string          `json:"tool"`
		Title    string          `json:"title"`
		Query    string          `json:"query,omitempty"`
		URL      string          `json:"url,omitempty"`
		Gateway  string          `json:"gateway"`
		TraceID  string          `json:"trace_id,omitempty"`
		Created  time.Time       `json:"created"`
		Markdown string          `json:"markdown"`
		Inputs   json.RawMessage `json:"inputs"`
		Output   json.RawMessage `json:"output"`
	}{it.ID, it.Kind, it.Tool, it.Title, it.Query, it.URL, it.Gateway, it.TraceID, it.Created, library.Markdown(it), raw(it.Inputs), raw(it.Output)}
}

func newLibraryRmCmd(a *App) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "rm ID... | --all",
		Short: "Remove items (--all empties the library)",
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case all && len(args) > 0:
				return usagef("rm: give IDs or --all, not both")
			case !all && len(args) == 0:
				return usagef("rm: want ID... or --all")
			}
			var ids []int64
			for _, arg := range args {
				id, err := itemID(arg)
				if err != nil {
					return err
				}
				ids = append(ids, id)
			}
			s, err := a.openLibrary()
			if err != nil {
				return err
			}
			if all {
				n, err := s.DeleteAll(cmd.Context())
				if err != nil {
					return libraryError{err}
				}
				return a.done(map[string]any{"removed": n}, fmt.Sprintf("removed %s; the library is empty", plural(int(n), "item")))
			}
			// All or none: a mistyped ID must not leave the others half
			// removed.
			var nf *library.NotFoundError
			if err := s.DeleteIDs(cmd.Context(), ids); errors.As(err, &nf) {
				unknown := make([]string, len(nf.IDs))
				for i, id := range nf.IDs {
					unknown[i] = strconv.FormatInt(id, 10)
				}
				return targetError{fmt.Errorf("library: no item %s (hark library list shows the IDs); nothing was removed", strings.Join(unknown, ", "))}
			} else if err != nil {
				return libraryError{err}
			}
			var removed []int64
			for _, id := range ids {
				if !slices.Contains(removed, id) {
					removed = append(removed, id)
				}
			}
			return a.done(map[string]any{"removed": len(removed), "ids": removed}, "removed "+plural(len(removed), "item"))
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "remove everything kept")
	return cmd
}

func newLibraryExportCmd(a *App) *cobra.Command {
	var out, format string
	cmd := &cobra.Command{
		Use:   "export ID -o FILE",
		Short: "Write an item: markdown (.md), its sources as BibTeX (.bib) or CSL-JSON (.json), a crawl as a folder",
		Args:  exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("export: want -o FILE (.md, .bib, .json, - for stdout, or a new folder for a crawl)")
			}
			_, it, err := a.getItem(cmd, args[0])
			if err != nil {
				return err
			}
			f := format
			if f == "" {
				f = library.FormatFor(it, out)
				if out == "-" {
					f = library.FormatMarkdown
				}
			}
			summary := map[string]any{"id": it.ID, "path": out, "format": f}
			if f == library.FormatFolder {
				if err := a.exportFolder(it, out); err != nil {
					return err
				}
				return a.done(summary, fmt.Sprintf("wrote %s (%s)", out, f))
			}
			data, err := library.Encode(it, f)
			if err != nil {
				return usageError{err}
			}
			if err := a.writeOutput(cmd.Context(), out, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
				return err
			}
			if out == "-" {
				// stdout holds the item: the summary goes to stderr, if asked.
				if a.jsonOut {
					return writeJSON(a.stderr, summary)
				}
				return nil
			}
			return a.done(summary, fmt.Sprintf("wrote %s (%s)", out, f))
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "file to write, replacing it (- for stdout); for a crawl, a new or empty folder")
	cmd.Flags().StringVar(&format, "format", "", "markdown, bibtex, csl-json or folder (default: from -o's extension)")
	cmd.RegisterFlagCompletionFunc("format", fixed(library.FormatMarkdown, library.FormatBibTeX, library.FormatCSL, library.FormatFolder))
	return cmd
}

// exportFolder writes a crawl's pages into the folder dir under the -o
// rule: its parent must exist, and dir is made (it alone) or is empty,
// so an export never mixes its files with others.
func (a *App) exportFolder(it library.Item, dir string) error {
	if dir == "-" {
		return usagef("export: a crawl as a folder cannot go to stdout; give -o a folder, or --format markdown")
	}
	if it.Kind != library.KindCrawl {
		return usagef("export --format %s: a folder holds a crawl's pages; item %d is a %s", library.FormatFolder, it.ID, it.Kind)
	}
	if err := checkOutputParent(dir); err != nil {
		return err
	}
	switch entries, err := os.ReadDir(dir); {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Mkdir(dir, 0o755); err != nil {
			return targetError{fmt.Errorf("-o %s: %v", dir, err)}
		}
	case err != nil:
		return targetError{fmt.Errorf("-o %s: %v", dir, err)}
	case len(entries) > 0:
		return targetError{fmt.Errorf("-o %s: the folder exists and is not empty; choose a new one", dir)}
	}
	if err := library.WriteFolder(it, dir); err != nil {
		return usageError{err}
	}
	return nil
}

// done reports a finished action: v as JSON with --json, else msg.
func (a *App) done(v any, msg string) error {
	if a.jsonOut {
		return writeJSON(a.stdout, v)
	}
	_, err := fmt.Fprintln(a.stdout, msg)
	return err
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// itemsTable prints library list's and search's table. On a terminal
// (width > 0) a title and a snippet are cut to the room the line leaves
// them (a report's title is its question, which may run to thousands of
// characters, and a snippet at 80 columns wrapped to the line's start);
// piped, they are printed whole.
func itemsTable(w io.Writer, items []library.Item, search bool, width int) error {
	snipW := 0
	if width > 0 {
		snipW = snippetRoom(items, width)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tKEPT\tTITLE")
	for _, it := range items {
		title := it.Title
		if snipW > 0 {
			title = ansi.Truncate(title, snipW+2, "…")
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", it.ID, it.Kind, it.Created.Local().Format("2006-01-02 15:04"), title)
		if search && it.Snippet != "" {
			snip := it.Snippet
			if snipW > 0 {
				snip = ansi.Truncate(snip, snipW, "…")
			}
			fmt.Fprintf(tw, "\t\t\t  %s\n", snip)
		}
	}
	return tw.Flush()
}

// snippetRoom is the width left for a snippet under the TITLE column of
// library search's table (ID, KIND, KEPT and two spaces of indent before
// it), in a terminal width columns wide.
func snippetRoom(items []library.Item, width int) int {
	idW, kindW := len("ID"), len("KIND")
	for _, it := range items {
		idW, kindW = max(idW, len(strconv.FormatInt(it.ID, 10))), max(kindW, len(it.Kind))
	}
	return max(20, width-(idW+2+kindW+2+len("2006-01-02 15:04")+2+2))
}
