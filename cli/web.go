package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"hark/api"
	"hark/ui/markdown"
)

// The convenience commands build a tool's inputs from flags and run the
// same path as invoke (typed and checked against the live tool list), so
// -i still reaches every input the gateway lists.

type webFlags struct {
	a            *App
	tool         string
	dictate      string // --dictate FILE
	out          string // -o FILE: what is printed, written there instead
	allowPrivate bool   // --allow-private: the embedded gateway's allow_private
	in           inputFlags
	set          map[string]func() any // input name -> value, applied when the flag was given
	flag         map[string]string     // input name -> flag name
}

func newWebCmd(a *App, tool, use, short string, positional func(args []string) (string, any), setup func(cmd *cobra.Command, w *webFlags)) *cobra.Command {
	w := &webFlags{a: a, tool: tool, set: map[string]func() any{}, flag: map[string]string{}}
	what := strings.TrimSuffix(strings.SplitN(use, " ", 2)[1], "...")
	fromStdin := tool == api.ToolSearch || tool == api.ToolResearch
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  minArgs(1, what),
		RunE: func(cmd *cobra.Command, args []string) error {
			if a.detach && detachTools[tool] && a.cfg.BaseURL == "" && !a.backgroundRun() && a.hooks.background != nil {
				// The embedded gateway runs jobs only while a hark runs:
				// this command runs again in the background, and runs it.
				return a.hooks.background(cmd.Context())
			}
			a.allowPrivate(w.allowPrivate)
			if w.dictate != "" {
				// The query is what the recogniser hears in the file.
				if len(args) > 0 {
					return usagef("%s: give %s or --dictate FILE, not both", cmd.Name(), what)
				}
				q, err := a.dictate(cmd.Context(), w.dictate)
				if err != nil {
					return err
				}
				args = []string{q}
			}
			if fromStdin && (len(args) == 0 || len(args) == 1 && args[0] == "-") {
				// The query or question from stdin: "-", or no argument
				// with stdin a pipe or file.
				if len(args) == 0 && !stdinIsData(a.stdin) {
					return usagef("%s: missing %s (or - to read it from stdin)", cmd.Name(), what)
				}
				b, err := readAtMost(a.stdin, maxTTSText, cmd.Name()+": "+what+" from stdin")
				if err != nil {
					return err
				}
				q := strings.Join(strings.Fields(string(b)), " ")
				if q == "" {
					return usagef("%s: %s from stdin is empty", cmd.Name(), what)
				}
				args = []string{q}
			}
			if w.out != "" && w.out != "-" {
				// Before the call: output that cannot be written must
				// not be paid for.
				if err := checkOutputParent(w.out); err != nil {
					return err
				}
			}
			inputs, err := a.readInputs(cmd, w.in, false)
			if err != nil {
				return err
			}
			k, v := positional(args)
			inputs[k] = v
			for name, get := range w.set {
				if cmd.Flags().Changed(w.flag[name]) {
					inputs[name] = get()
				}
			}
			call := func() error { return a.siteRule(cmd.Context(), tool, a.invokeAndPrint(cmd, tool, inputs, w.in.pairs)) }
			if w.out == "" || w.out == "-" {
				return call()
			}
			err = a.writeOutput(cmd.Context(), w.out, func(f io.Writer) error {
				stdout := a.stdout
				a.stdout = f
				defer func() { a.stdout = stdout }()
				return call()
			})
			if err == nil && !a.detach {
				fmt.Fprintf(a.stderr, "hark: wrote %s\n", w.out)
			}
			return err
		},
	}
	w.in.register(cmd)
	a.completeInputFlag(cmd, func([]string) string { return tool })
	if fromStdin {
		cmd.Flags().StringVar(&w.dictate, "dictate", "", "speak the "+strings.ToLower(what)+": recognise it in an audio FILE (wav, mp3, pcm, opus)")
		cmd.Args = cobra.ArbitraryArgs
		cmd.Use = strings.Replace(use, " ", " [", 1) + " | -]"
	}
	// One rule for output, in every command that has some: what is
	// printed is for people, --json the gateway's data, --jsonl one
	// result per line; -o FILE writes what would be printed, in that form.
	cmd.Flags().BoolVar(&a.jsonl, "jsonl", false, jsonlUsage[tool])
	if detachTools[tool] {
		cmd.Flags().BoolVar(&a.detach, "detach", false, "start it as a job on the gateway, print the job's ID and return at once (follow it with hark jobs attach ID)")
	}
	outUsage := "write what would be printed to FILE (with --json or --jsonl, in that form), replacing it; - for stdout"
	if tool == api.ToolResearch {
		outUsage = "write what would be printed to FILE: the report as markdown with its sources (with --json or --jsonl, the data), replacing it; - for stdout"
	}
	cmd.Flags().StringVarP(&w.out, "output", "o", "", outUsage)
	if tool == api.ToolExtract || tool == api.ToolCrawl || tool == api.ToolMap {
		cmd.Flags().BoolVar(&w.allowPrivate, "allow-private", false, "let the embedded gateway read private, loopback and link-local addresses (an intranet, a server on this machine); default: the allow_private setting")
	}
	setup(cmd, w)
	// Help says what this gateway's tool does, from its live tool list.
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		w.describe(c)
		c.Root().HelpFunc()(c, args)
	})
	return cmd
}

// describe puts the live tool list's words in cmd's help: the tool's
// description and each flag's input as this gateway describes it (the
// embedded gateway searches the pages hark indexed, and its answer is
// quoted from them, not written by AI). Without a tool list the static
// words stay.
func (w *webFlags) describe(cmd *cobra.Command) {
	var t *api.Tool
	for _, x := range w.a.completionTools(cmd) {
		if x.Slug == w.tool {
			t = &x
			break
		}
	}
	if t == nil {
		return
	}
	if d := strings.TrimSpace(t.Description); d != "" {
		cmd.Short = d
		if cmd.Long == "" {
			cmd.Long = d
		}
	}
	for input, flag := range w.flag {
		f, fl := t.Input(input), cmd.Flags().Lookup(flag)
		if f != nil && fl != nil && f.Description != "" {
			fl.Usage = fieldHelp(f)
		}
	}
}

// fieldHelp is a flag's usage from its input's field: the description,
// then its values, bounds and default.
func fieldHelp(f *api.Field) string {
	var extra []string
	if len(f.Enum) > 0 {
		extra = append(extra, strings.Join(f.Enum, ", "))
	}
	if f.Min != nil && f.Max != nil {
		extra = append(extra, fmt.Sprintf("%g to %g", *f.Min, *f.Max))
	}
	if f.Default != nil && f.Default != false && f.Default != "" {
		extra = append(extra, fmt.Sprintf("default %v", f.Default))
	}
	if len(extra) == 0 {
		return f.Description
	}
	return f.Description + " (" + strings.Join(extra, "; ") + ")"
}

// jsonlUsage is what --jsonl prints, by tool.
var jsonlUsage = map[string]string{
	api.ToolSearch:   "print each result as one line of JSON, for jq and pipes",
	api.ToolExtract:  "print each page, then each failure, as one line of JSON, for jq and pipes",
	api.ToolCrawl:    "print each page as one line of JSON, for jq and pipes",
	api.ToolMap:      "print each URL as one line of JSON, for jq and pipes",
	api.ToolResearch: "print the report's data as one line of JSON, for jq and pipes",
}

func (w *webFlags) intFlag(cmd *cobra.Command, flag, input, usage string) {
	p := cmd.Flags().Int(flag, 0, usage)
	w.set[input], w.flag[input] = func() any { return *p }, flag
}

func (w *webFlags) strFlag(cmd *cobra.Command, flag, input, usage string) {
	p := cmd.Flags().String(flag, "", usage)
	w.set[input], w.flag[input] = func() any { return *p }, flag
	// The values come from the live tool list: an input the gateway
	// lists with an enum completes; any other completes nothing.
	cmd.RegisterFlagCompletionFunc(flag, w.a.completeEnum(w.tool, input))
}

func (w *webFlags) boolFlag(cmd *cobra.Command, flag, input, usage string) {
	p := cmd.Flags().Bool(flag, false, usage)
	w.set[input], w.flag[input] = func() any { return *p }, flag
}

func joinArgs(key string) func([]string) (string, any) {
	return func(args []string) (string, any) { return key, strings.Join(args, " ") }
}

func newSearchCmd(a *App) *cobra.Command {
	return newWebCmd(a, api.ToolSearch, "search QUERY...", "Search with the gateway (the embedded one searches the pages hark has indexed)", joinArgs("query"), func(cmd *cobra.Command, w *webFlags) {
		w.intFlag(cmd, "max-results", "max_results", "number of results, 1 to 20 (default 5)")
		w.strFlag(cmd, "depth", "search_depth", "basic, advanced (2x credits), fast or ultra-fast")
		w.strFlag(cmd, "topic", "topic", "general, news or finance")
		w.strFlag(cmd, "time-range", "time_range", "day, week, month or year")
		w.strFlag(cmd, "country", "country", "boost results from this country (full English name)")
		w.boolFlag(cmd, "answer", "include_answer", "include an answer (the embedded gateway quotes it from the results)")
		w.boolFlag(cmd, "raw-content", "include_raw_content", "attach each page's cleaned body")
		w.boolFlag(cmd, "images", "include_images", "return related images")
		w.boolFlag(cmd, "image-descriptions", "include_image_descriptions", "describe the returned images")
		w.boolFlag(cmd, "favicon", "include_favicon", "return each site's favicon")
		w.boolFlag(cmd, "exact", "exact_match", "only results containing the whole query phrase")
		w.strFlag(cmd, "start-date", "start_date", "only results after this date, YYYY-MM-DD")
		w.strFlag(cmd, "end-date", "end_date", "only results before this date, YYYY-MM-DD")
		w.strFlag(cmd, "include-domains", "include_domains", "domain allow-list, comma-separated")
		w.strFlag(cmd, "exclude-domains", "exclude_domains", "domain deny-list, comma-separated")
	})
}

func newExtractCmd(a *App) *cobra.Command {
	return newWebCmd(a, api.ToolExtract, "extract URL...", "Extract the body text of pages",
		func(args []string) (string, any) {
			var urls []any
			for _, u := range args {
				for _, p := range api.ParseURLList(u) {
					urls = append(urls, p)
				}
			}
			return "urls", urls
		},
		func(cmd *cobra.Command, w *webFlags) {
			w.strFlag(cmd, "depth", "extract_depth", "basic or advanced")
			w.strFlag(cmd, "format", "format", "markdown or text")
			w.strFlag(cmd, "query", "query", "re-rank snippets by relevance to this query")
			w.boolFlag(cmd, "images", "include_images", "return the pages' images")
			w.boolFlag(cmd, "favicon", "include_favicon", "return each site's favicon")
		})
}

func crawlFlags(withContent bool) func(cmd *cobra.Command, w *webFlags) {
	return func(cmd *cobra.Command, w *webFlags) {
		w.intFlag(cmd, "max-depth", "max_depth", "link depth, 1 to 5 (default 1)")
		w.intFlag(cmd, "max-breadth", "max_breadth", "links followed per level, 1 to 500 (default 20)")
		w.intFlag(cmd, "limit", "limit", "maximum total pages (default 50)")
		w.strFlag(cmd, "instructions", "instructions", "natural-language filter (2x credits)")
		w.strFlag(cmd, "select-paths", "select_paths", "path regexps to keep, comma-separated")
		w.strFlag(cmd, "select-domains", "select_domains", "domain regexps to keep, comma-separated")
		w.boolFlag(cmd, "allow-external", "allow_external", "keep links to other sites (default true)")
		if withContent {
			w.strFlag(cmd, "depth", "extract_depth", "basic or advanced")
			w.strFlag(cmd, "format", "format", "markdown or text")
			w.boolFlag(cmd, "favicon", "include_favicon", "return each page's favicon")
		}
	}
}

func newCrawlCmd(a *App) *cobra.Command {
	return newWebCmd(a, api.ToolCrawl, "crawl URL", "Crawl a site and print its pages", joinArgs("url"), crawlFlags(true))
}

func newMapCmd(a *App) *cobra.Command {
	return newWebCmd(a, api.ToolMap, "map URL", "List a site's URLs", joinArgs("url"), crawlFlags(false))
}

func newResearchCmd(a *App) *cobra.Command {
	cmd := newWebCmd(a, api.ToolResearch, "research QUESTION...", "Research a question and print the report",
		joinArgs("input"), func(cmd *cobra.Command, w *webFlags) {
			w.strFlag(cmd, "model", "model", "mini, pro or auto")
			w.boolFlag(cmd, "strict", "strict", "drop the sentences of a model-written answer that their passages do not support")
		})
	cmd.AddCommand(newResearchVerifyCmd(a))
	return cmd
}

// printOutput shows a tool's output for people: the five known tools in
// their own form, anything else as indented JSON.
func (a *App) printOutput(ctx context.Context, res *api.InvokeResult) error {
	w := a.stdout
	switch res.Tool {
	case api.ToolSearch:
		out, err := api.DecodeSearch(res.Output)
		if err != nil {
			break
		}
		if out.Answer != "" {
			fmt.Fprintf(w, "%s\n\n", out.Answer)
		}
		for i, r := range out.Results {
			fmt.Fprintf(w, "%d. %s\n   %s\n", i+1, oneLine(r.Title), r.URL)
			if r.Content != "" {
				fmt.Fprintf(w, "   %s\n", oneLine(r.Content))
			}
		}
		if len(out.Results) == 0 {
			fmt.Fprintln(w, "no results")
		}
		for _, im := range out.Images {
			fmt.Fprintf(w, "image: %s %s\n", im.URL, oneLine(im.Description))
		}
		return nil
	case api.ToolExtract:
		out, err := api.DecodeExtract(res.Output)
		if err != nil {
			break
		}
		printPages(w, out.Results)
		for _, f := range out.FailedResults {
			fmt.Fprintf(a.stderr, "hark: extract %s failed: %s\n", f.URL, f.Error)
		}
		return nil
	case api.ToolCrawl:
		out, err := api.DecodeCrawl(res.Output)
		if err != nil {
			break
		}
		printPages(w, out.Results)
		fmt.Fprintf(a.stderr, "hark: crawled %d pages from %s\n", len(out.Results), out.BaseURL)
		return nil
	case api.ToolMap:
		out, err := api.DecodeMap(res.Output)
		if err != nil {
			break
		}
		for _, l := range out.Results {
			fmt.Fprintln(w, l.URL)
		}
		return nil
	case api.ToolResearch:
		out, err := api.DecodeResearch(res.Output)
		if err != nil {
			break
		}
		return a.printResearch(out)
	}
	// Unknown tool or an output hark cannot decode: show it as JSON.
	return writeJSON(w, json.RawMessage(res.Output))
}

func printPages(w io.Writer, pages []api.PageContent) {
	for i, p := range pages {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "== %s ==\n%s\n", p.URL, strings.TrimSpace(p.RawContent))
	}
}

// printResearch prints the report: rendered markdown on a terminal, the
// markdown itself otherwise.
func (a *App) printResearch(out *api.ResearchOutput) error {
	md := out.Document(a.question, "")
	if !isTerminal(a.stdout) {
		_, err := io.WriteString(a.stdout, md)
		return err
	}
	width := 100
	if f, ok := a.stdout.(*os.File); ok {
		if w, _, err := term.GetSize(f.Fd()); err == nil && w > 20 {
			width = min(w, 120) - 2
		}
	}
	_, err := io.WriteString(a.stdout, renderMarkdown(md, a.getenv("GLAMOUR_STYLE"), width))
	return err
}

// renderMarkdown renders md for a terminal of the given width, as the
// TUI renders a report (ui/markdown: URLs and options kept whole, an
// escaped "\&str" shown as "&str"); if glamour fails, the markdown
// itself is better than nothing.
func renderMarkdown(md, style string, width int) string {
	if style == "" {
		style = "dark"
	}
	r := markdown.NewRenderer()
	s, err := r.Render(md, style, max(20, width))
	if err != nil {
		s, err = r.Render(md, "dark", max(20, width))
	}
	if err != nil {
		return md
	}
	return s + "\n"
}

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// printJSONL prints one result per line: a search's results, an
// extract's pages (then its failures, each with "error"), a crawl's
// pages, a map's URLs; any other output (a research report) is one line.
func (a *App) printJSONL(res *api.InvokeResult) error {
	var rows []any
	switch res.Tool {
	case api.ToolSearch:
		out, err := api.DecodeSearch(res.Output)
		if err != nil {
			return upstreamError{fmt.Errorf("--jsonl: %w", err)}
		}
		for _, r := range out.Results {
			rows = append(rows, r)
		}
	case api.ToolExtract:
		out, err := api.DecodeExtract(res.Output)
		if err != nil {
			return upstreamError{fmt.Errorf("--jsonl: %w", err)}
		}
		for _, p := range out.Results {
			rows = append(rows, p)
		}
		for _, f := range out.FailedResults {
			rows = append(rows, f)
		}
	case api.ToolCrawl:
		out, err := api.DecodeCrawl(res.Output)
		if err != nil {
			return upstreamError{fmt.Errorf("--jsonl: %w", err)}
		}
		for _, p := range out.Results {
			rows = append(rows, p)
		}
	case api.ToolMap:
		out, err := api.DecodeMap(res.Output)
		if err != nil {
			return upstreamError{fmt.Errorf("--jsonl: %w", err)}
		}
		for _, l := range out.Results {
			rows = append(rows, l)
		}
	default:
		rows = append(rows, json.RawMessage(res.Output))
	}
	for _, r := range rows {
		if err := writeJSONCompact(a.stdout, r); err != nil {
			return err
		}
	}
	return nil
}
