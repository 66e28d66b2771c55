package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"hark/library"
)

// Export targets of hark notes export.
const (
	notesZotero   = "zotero"
	notesObsidian = "obsidian"
	notesBibTeX   = "bibtex"
	notesCSL      = "csl-json"
)

var notesTargets = []string{notesZotero, notesObsidian, notesBibTeX, notesCSL}

func newNotesCmd(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "notes",
		Short: "Highlights and their notes: list, add, remove, export to Zotero, Obsidian, BibTeX, CSL-JSON",
		Long: `A highlight marks a passage of a kept page or report (the TUI's reader: v
to select, enter to highlight, then a note with #tags), anchored as a
report's quotes are: after the page is read again, hark notes list says
whether each still stands, moved or is gone. Highlights live in the
library; none of these commands calls a gateway.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q for hark notes", args[0])
			}
			return usagef("notes: want list, add, rm or export")
		},
	}
	cmd.AddCommand(newNotesListCmd(a), newNotesAddCmd(a), newNotesRmCmd(a), newNotesExportCmd(a))
	return cmd
}

// highlightID parses a highlight ID argument.
func highlightID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, usagef("highlight ID %q: must be a whole number from hark notes list", s)
	}
	return id, nil
}

func newNotesListCmd(a *App) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "list [WORDS...]",
		Short: "List highlights, newest first, or those whose quote, note or tags hold WORDS; with where each stands now",
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 {
				return usagef("--limit %d: must be 0 (no limit) or more", limit)
			}
			s, err := a.openLibrary()
			if err != nil {
				return err
			}
			hs, err := s.Highlights(cmd.Context(), strings.Join(args, " "), limit)
			if err == nil {
				err = s.Check(cmd.Context(), hs)
			}
			if err != nil {
				return searchError("notes list", err)
			}
			if a.jsonOut {
				if hs == nil {
					hs = []library.Highlight{}
				}
				return writeJSON(a.stdout, hs)
			}
			if len(hs) == 0 {
				if len(args) > 0 {
					fmt.Fprintln(a.stdout, "no highlight matches")
				} else {
					fmt.Fprintln(a.stdout, "no highlights yet (in the TUI's reader: v selects a sentence, enter highlights it)")
				}
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSTATE\tSOURCE\tQUOTE")
			for _, h := range hs {
				state := h.State
				if state == "" {
					state = "-"
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", h.ID, state, excerpt(h.Title, 30), excerpt(h.Quote, 60))
				var more []string
				if h.Note != "" {
					more = append(more, excerpt(h.Note, 70))
				}
				if len(h.Tags) > 0 {
					more = append(more, "#"+strings.Join(h.Tags, " #"))
				}
				if len(more) > 0 {
					fmt.Fprintf(tw, "\t\t\t  %s\n", strings.Join(more, " · "))
				}
			}
			return tw.Flush()
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 0, "at most N highlights (0: all)")
	return cmd
}

func newNotesAddCmd(a *App) *cobra.Command {
	var quote, note string
	var tags []string
	cmd := &cobra.Command{
		Use:   "add ID --quote TEXT [--note TEXT] [--tag TAG]...",
		Short: "Highlight a passage of a kept page or report (ID from hark library list), found by its words",
		Args:  exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(quote) == "" {
				return usagef("notes add: want --quote TEXT, the passage's words as the page has them")
			}
			s, it, err := a.getItem(cmd, args[0])
			if err != nil {
				return err
			}
			start, end, ok := library.FindPassage(it, quote, 0)
			if !ok {
				return usagef("notes add: invalid quote: item %d (%s) does not hold %q", it.ID, excerpt(it.Title, 40), excerpt(quote, 60))
			}
			// #words in the note are tags, as on the TUI's note line.
			note, more := library.SplitNote(note)
			h, err := s.AddHighlight(cmd.Context(), it, start, end, note, append(tags, more...))
			if err != nil {
				if strings.Contains(err.Error(), "invalid") || strings.Contains(err.Error(), "pages and reports") {
					return usageError{err}
				}
				return libraryError{err}
			}
			return a.done(h, fmt.Sprintf("highlight %d in item %d: %s", h.ID, it.ID, excerpt(h.Quote, 60)))
		},
	}
	cmd.Flags().StringVar(&quote, "quote", "", "the passage's words (found whatever their markup and spacing)")
	cmd.Flags().StringVar(&note, "note", "", "a note beside it")
	cmd.Flags().StringArrayVar(&tags, "tag", nil, "a tag (repeat for more; #words in --note are tags too)")
	return cmd
}

func newNotesRmCmd(a *App) *cobra.Command {
	return &cobra.Command{
		Use:   "rm ID...",
		Short: "Remove highlights (all or none: an unknown ID removes nothing)",
		Args:  minArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var ids []int64
			for _, arg := range args {
				id, err := highlightID(arg)
				if err != nil {
					return err
				}
				ids = append(ids, id)
			}
			s, err := a.openLibrary()
			if err != nil {
				return err
			}
			if err := s.DeleteHighlights(cmd.Context(), ids); errors.Is(err, library.ErrNoHighlight) {
				return usagef("notes rm: %v (hark notes list shows the IDs); nothing was removed", err)
			} else if err != nil {
				return libraryError{err}
			}
			return a.done(map[string]any{"removed": len(ids), "ids": ids}, "removed "+plural(len(ids), "highlight"))
		},
	}
}

// notesTarget picks the export's target from --to, else from -o.
func notesTarget(to, out string) (string, error) {
	if to != "" {
		for _, t := range notesTargets {
			if t == to {
				return t, nil
			}
		}
		return "", usagef("--to %q: must be one of %s", to, strings.Join(notesTargets, ", "))
	}
	switch strings.ToLower(filepath.Ext(out)) {
	case ".bib":
		return notesBibTeX, nil
	case ".json":
		return notesCSL, nil
	case "":
		if out != "" && out != "-" {
			return notesObsidian, nil
		}
	}
	return "", usagef("notes export: want --to %s (or -o FILE.bib, FILE.json, or a folder for Obsidian)", strings.Join(notesTargets, "|"))
}

func newNotesExportCmd(a *App) *cobra.Command {
	var to, out string
	var ids []string
	cmd := &cobra.Command{
		Use:   "export [WORDS...] --to FORMAT [-o PATH]",
		Short: "Export highlights (all, those matching WORDS, or --id): to Zotero, an Obsidian folder, BibTeX or CSL-JSON; again updates, never duplicates",
		Long: `Exports highlights grouped by source:

  --to zotero     through Zotero's connector server (zotero_url, default
                  http://127.0.0.1:23119): each source as a web page item
                  with its highlights as notes. Zotero must be running.
                  Exporting again sends only highlights not sent before.
  --to obsidian   -o FOLDER: one note per source with YAML front matter
                  (title, url, accessed, tags) and each highlight as a
                  quote block with its note and a link back; exporting
                  again updates the same notes, keeping what you wrote
                  below hark's end marker.
  --to bibtex     -o FILE.bib: @misc entries, highlights in annote.
  --to csl-json   -o FILE.json: CSL-JSON items, highlights in note.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := notesTarget(to, out)
			if err != nil {
				return err
			}
			if target == notesZotero && out != "" {
				return usagef("notes export --to zotero: -o has no use (Zotero is reached at %s)", a.cfg.ZoteroURL)
			}
			if (target == notesObsidian) && (out == "" || out == "-") {
				return usagef("notes export --to obsidian: want -o FOLDER (your vault, or a folder in it)")
			}
			if (target == notesBibTeX || target == notesCSL) && out == "" {
				return usagef("notes export --to %s: want -o FILE (- for stdout)", target)
			}
			s, err := a.openLibrary()
			if err != nil {
				return err
			}
			var hs []library.Highlight
			if len(ids) > 0 {
				for _, arg := range ids {
					id, err := highlightID(arg)
					if err != nil {
						return err
					}
					h, err := s.GetHighlight(cmd.Context(), id)
					if errors.Is(err, library.ErrNoHighlight) {
						return usagef("notes export: --id %d: no such highlight (hark notes list shows the IDs)", id)
					} else if err != nil {
						return libraryError{err}
					}
					hs = append(hs, h)
				}
			} else if hs, err = s.Highlights(cmd.Context(), strings.Join(args, " "), 0); err != nil {
				return searchError("notes export", err)
			}
			if len(hs) == 0 {
				return usagef("notes export: no highlights to export")
			}
			srcs, err := s.NoteSources(cmd.Context(), hs)
			if err != nil {
				return libraryError{err}
			}
			switch target {
			case notesZotero:
				res, err := s.ExportZotero(cmd.Context(), library.Zotero{URL: a.cfg.ZoteroURL}, srcs)
				if err != nil {
					if errors.Is(err, library.ErrZoteroNotRunning) || strings.HasPrefix(err.Error(), "zotero:") {
						return upstreamError{err}
					}
					return libraryError{err}
				}
				msg := fmt.Sprintf("sent Zotero %s and %s", plural(res.Items, "new item"), plural(res.Notes, "note"))
				if res.Already > 0 {
					msg += fmt.Sprintf("; %s already there", plural(res.Already, "highlight"))
				}
				if len(res.Changed) > 0 {
					msg += fmt.Sprintf("; %s edited since it was sent (Zotero's connector cannot change a saved note: edit it in Zotero)", plural(len(res.Changed), "highlight"))
				}
				return a.done(res, msg)
			case notesObsidian:
				if err := checkOutputParent(filepath.Clean(out)); err != nil {
					return err
				}
				if st, err := os.Stat(out); err == nil && !st.IsDir() {
					return targetError{fmt.Errorf("-o %s: is a file; name a folder (your vault, or a folder in it)", out)}
				}
				res, err := library.ExportObsidian(out, srcs)
				if err != nil {
					return targetError{err}
				}
				return a.done(res, fmt.Sprintf("wrote %s to %s (%d unchanged)", plural(len(res.Written), "note"), out, len(res.Unchanged)))
			}
			var data []byte
			if target == notesBibTeX {
				data = []byte(library.NotesBibTeX(srcs))
			} else if data, err = library.NotesCSL(srcs); err != nil {
				return err
			}
			if err := a.writeOutput(cmd.Context(), out, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
				return err
			}
			if out == "-" {
				return nil
			}
			return a.done(map[string]any{"path": out, "format": target, "sources": len(srcs), "highlights": len(hs)},
				fmt.Sprintf("wrote %s (%s: %s, %s)", out, target, plural(len(srcs), "source"), plural(len(hs), "highlight")))
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "zotero, obsidian, bibtex or csl-json (default: from -o)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "the folder (obsidian) or file (bibtex, csl-json; - for stdout)")
	cmd.Flags().StringArrayVar(&ids, "id", nil, "export this highlight (repeat for more)")
	cmd.RegisterFlagCompletionFunc("to", fixed(notesTargets...))
	return cmd
}
