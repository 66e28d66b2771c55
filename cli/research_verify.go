package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"hark/api"
	"hark/gateway/web"
	"hark/library"
)

// maxVerifyFile bounds a local source read again by verify.
const maxVerifyFile = 16 << 20

func newResearchVerifyCmd(a *App) *cobra.Command {
	return &cobra.Command{
		Use:   "verify ID",
		Short: "Read a kept report's sources again and say, quote by quote, whether each still stands, moved or is gone",
		Long: `verify takes a research report kept in the library (hark library list
shows the IDs), reads each of its sources again (pages with the gateway's
extract, files indexed from a folder from disk) and finds every quote: it
stands where the report recorded it, moved elsewhere in the page, or is
gone. Only reports whose gateway recorded passages can be verified.`,
		Args: exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
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
			checks := a.verifyPassages(cmd.Context(), out.Passages)
			if a.jsonOut {
				return writeJSON(a.stdout, checks)
			}
			counts := map[string]int{}
			for _, c := range checks {
				counts[c.State]++
				line := fmt.Sprintf("[%d] %-6s %s", c.Source, c.State, excerpt(c.Quote, 70))
				if c.State == api.PassageMoved {
					line += fmt.Sprintf(" (was at %d, now %d)", c.Start, c.Now)
				}
				if c.Error != "" {
					line += " (" + c.Error + ")"
				}
				fmt.Fprintln(a.stdout, line)
			}
			quotes := "quotes"
			if len(checks) == 1 {
				quotes = "quote"
			}
			fmt.Fprintf(a.stdout, "%d %s: %d stand, %d moved, %d gone\n", len(checks), quotes,
				counts[api.PassageStands], counts[api.PassageMoved], counts[api.PassageGone])
			return nil
		},
	}
}

// passageCheck is one quote of a report as verify found it.
type passageCheck struct {
	api.ResearchPassage
	State string `json:"state"`
	Now   int    `json:"now_start"` // where the quote is now, -1 when gone
	Error string `json:"error,omitempty"`
}

// verifyPassages reads each source once and checks its quotes.
func (a *App) verifyPassages(ctx context.Context, ps []api.ResearchPassage) []passageCheck {
	pages := map[string]string{}
	errs := map[string]error{}
	for _, p := range ps {
		if _, ok := pages[p.URL]; ok || errs[p.URL] != nil {
			continue
		}
		pages[p.URL], errs[p.URL] = a.sourceText(ctx, p.URL)
		if errs[p.URL] != nil {
			delete(pages, p.URL)
		}
	}
	out := make([]passageCheck, len(ps))
	for i, p := range ps {
		c := passageCheck{ResearchPassage: p, State: api.PassageGone, Now: -1}
		if err := errs[p.URL]; err != nil {
			c.Error = a.scrub(err.Error())
		} else {
			c.State, c.Now, _ = p.Verify(pages[p.URL])
		}
		out[i] = c
	}
	return out
}

// sourceText is a source's kept text now: a file read from disk as the
// index reads it, a page through the gateway's extract as text.
func (a *App) sourceText(ctx context.Context, u string) (string, error) {
	if strings.HasPrefix(u, "file:") {
		return web.FileText(u, maxVerifyFile)
	}
	cl, err := a.client(ctx)
	if err != nil {
		return "", err
	}
	res, err := cl.Extract(ctx, api.ExtractInput{URLs: api.URLList{u}, Format: "text"})
	if err != nil {
		return "", err
	}
	for _, f := range res.FailedResults {
		return "", fmt.Errorf("extract %s: %s", f.URL, f.Error)
	}
	if len(res.Results) == 0 {
		return "", fmt.Errorf("extract %s: no page", u)
	}
	return res.Results[0].RawContent, nil
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
