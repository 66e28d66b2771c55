package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"hark/api"
	"hark/gateway/web"
	"hark/library"
)

// maxVerifyFile bounds a local source read again by verify.
const maxVerifyFile = 16 << 20

func newResearchVerifyCmd(a *App) *cobra.Command {
	var allowPrivate bool
	var depth string
	cmd := &cobra.Command{
		Use:   "verify ID",
		Short: "Read a kept report's sources again and say, quote by quote, whether each still stands, moved or is gone",
		Long: `verify takes a research report kept in the library (hark library list
shows the IDs), reads each of its sources again (pages with the gateway's
extract, files indexed from a folder from disk) and finds every quote: it
stands where the report recorded it, moved elsewhere in the page, or is
gone (the page no longer says it, or answers 404 or 410). A source that
cannot be read now (the site or the gateway unreachable, a private
address refused) leaves its quotes not checked, with the reason, and the
command exits non-zero. Nothing kept is changed: the report, the library
and the index stay as they were. Only reports whose gateway recorded
passages can be verified.

Through a remote gateway, pages are read again at the depth the report
was made with: advanced for a pro report, basic for mini and auto, since
advanced extraction costs more on a paid vendor. Basic depth leaves out a
page's data tables, so a quote from a table reads as gone there; --depth
advanced reads them. The embedded gateway reads pages as its index did,
whatever the depth.`,
		Args: exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.allowPrivate(allowPrivate)
			if depth != "" && depth != api.DepthBasic && depth != api.DepthAdvanced {
				return usagef("research verify: --depth %q: must be basic or advanced", depth)
			}
			_, it, err := a.getItem(cmd, args[0])
			if err != nil {
				return err
			}
			if it.Kind != library.KindResearch {
				return usagef("research verify: library item %d is a %s, not a research report", it.ID, it.Kind)
			}
			out, err := api.DecodeResearch(json.RawMessage(it.Output))
			if err != nil {
				return fmt.Errorf("research verify: item %d: %w", it.ID, err)
			}
			if len(out.Passages) == 0 {
				return usagef("research verify: report %d records no passages (its gateway does not record them, or it predates them)", it.ID)
			}
			if depth == "" {
				// Inputs that do not read (an old report's) name no
				// model: the depth a report without one was made with.
				var in struct{ Model string }
				if json.Unmarshal([]byte(it.Inputs), &in) != nil {
					in.Model = ""
				}
				depth = api.ReportDepth(in.Model)
			}
			ctx := cmd.Context()
			checks := api.CheckPassages(out.Passages, func(u string) (string, error) {
				t, err := a.sourceText(ctx, u, depth)
				if err != nil {
					err = scrubbed{a.scrub(err.Error()), err}
				}
				return t, err
			})
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if a.jsonOut {
				if err := writeJSON(a.stdout, checks); err != nil {
					return err
				}
			} else {
				for _, c := range checks {
					state := c.State
					if state == api.PassageUnchecked {
						state = "not checked"
					}
					line := fmt.Sprintf("[%d] %-11s %s", c.Source, state, excerpt(c.Quote, 70))
					if c.State == api.PassageMoved {
						line += fmt.Sprintf(" (was at %d, now %d)", c.Start, c.Now)
					}
					if c.Error != "" {
						line += " (" + c.Error + ")"
					}
					fmt.Fprintln(a.stdout, line)
				}
				fmt.Fprintln(a.stdout, api.CheckSummary(checks))
				if a.cfg.BaseURL != "" && depth == api.DepthBasic && goneFromPage(checks) {
					fmt.Fprintln(a.stdout, "pages were read again at basic depth, as the report was made: a quote from a table is found only with --depth advanced")
				}
			}
			return a.uncheckedError(checks)
		},
	}
	cmd.Flags().StringVar(&depth, "depth", "", "read pages again at basic or advanced depth (advanced keeps tables and costs more on a paid vendor); default: the depth the report was made with, advanced for pro, else basic")
	cmd.Flags().BoolVar(&allowPrivate, "allow-private", false, "let the embedded gateway read private, loopback and link-local addresses (the report's sources were read with it); default: the allow_private setting")
	return cmd
}

// scrubbed is an error shown with the API key hidden, still matching
// what it wraps (api.ErrSourceGone).
type scrubbed struct {
	text string
	err  error
}

func (e scrubbed) Error() string { return e.text }
func (e scrubbed) Unwrap() error { return e.err }

// uncheckedError is verify's exit: quotes whose source could not be read
// are not a verification, so the command fails: exit 2 with the way to
// allow them when every such source was a private address refused, else
// exit 4, as any site or gateway that cannot be reached.
func (a *App) uncheckedError(checks []api.PassageCheck) error {
	n, private := 0, 0
	for _, c := range checks {
		if c.State == api.PassageUnchecked {
			n++
			if refusedPrivate(c.Error) {
				private++
			}
		}
	}
	if n == 0 {
		return nil
	}
	err := fmt.Errorf("research verify: %d of %d quotes not checked: their sources could not be read now; nothing kept was changed", n, len(checks))
	if private == n {
		return targetError{fmt.Errorf("%w\nhint: %s", err, a.privateHint())}
	}
	return upstreamError{err}
}

// sourceText is a source's text now, read as the index read it: a file
// from disk, a page through the embedded gateway's web engine (its text
// with its headline, which research's passages point into; neither
// indexed nor kept), or a remote gateway's extract as text at depth (not
// kept).
func (a *App) sourceText(ctx context.Context, u, depth string) (string, error) {
	if strings.HasPrefix(u, "file:") {
		return fileSourceText(u)
	}
	if a.cfg.BaseURL == "" {
		return a.localPageText(ctx, u)
	}
	cl, err := a.client(ctx)
	if err != nil {
		return "", err
	}
	return cl.PageText(ctx, u, depth)
}

// goneFromPage reports whether a quote is gone from a page that was read
// (not one that no longer exists): at basic depth it may sit in a table.
func goneFromPage(checks []api.PassageCheck) bool {
	for _, c := range checks {
		if c.State == api.PassageGone && c.Error == "" {
			return true
		}
	}
	return false
}

// localPageText is a page read again by the local web engine; a page
// that answers 404 or 410 is gone (api.ErrSourceGone).
func (a *App) localPageText(ctx context.Context, u string) (string, error) {
	e, err := a.localWeb()
	if err != nil {
		return "", err
	}
	t, err := e.PageText(ctx, u)
	if err != nil && api.SourceGone(err.Error()) {
		err = fmt.Errorf("%w: %w", err, api.ErrSourceGone)
	}
	return t, err
}

// fileSourceText is a file source read again from disk as the index
// reads it; a file deleted is gone (api.ErrSourceGone).
func fileSourceText(u string) (string, error) {
	t, err := web.FileText(u, maxVerifyFile)
	if errors.Is(err, fs.ErrNotExist) {
		err = fmt.Errorf("%w: %w", err, api.ErrSourceGone)
	}
	return t, err
}

// excerpt is s on one line, cut to n runes at a word.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n])
		if k := strings.LastIndexByte(s, ' '); k > n/2 {
			s = s[:k]
		}
		s += " …"
	}
	return s
}
