package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"hark/api"
)

func newToolsCmd(a *App) *cobra.Command {
	return &cobra.Command{
		Use:   "tools",
		Short: "List the gateway's tools and their inputs",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := a.client(cmd.Context())
			if err != nil {
				return err
			}
			tools, err := cl.Tools(cmd.Context())
			if err != nil {
				return fromGateway(err)
			}
			if a.jsonOut {
				raws := make([]json.RawMessage, len(tools))
				for i, t := range tools {
					raws[i] = t.Raw
				}
				return writeJSON(a.stdout, raws)
			}
			for i, t := range tools {
				if i > 0 {
					fmt.Fprintln(a.stdout)
				}
				printTool(a.stdout, t)
			}
			return nil
		},
	}
}

func printTool(w io.Writer, t api.Tool) {
	fmt.Fprintf(w, "%s", t.Slug)
	if t.Name != "" && t.Name != t.Slug {
		fmt.Fprintf(w, " (%s)", t.Name)
	}
	fmt.Fprintln(w)
	if t.Description != "" {
		fmt.Fprintf(w, "  %s\n", oneLine(t.Description))
	}
	if len(t.Inputs) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	for _, f := range t.Inputs {
		typ := f.Type
		if typ == "" {
			typ = "?"
		}
		if f.Items != "" {
			typ += "<" + f.Items + ">"
		}
		req := ""
		if f.Required {
			req = "required"
		}
		var rule []string
		if f.Default != nil {
			b, _ := json.Marshal(f.Default)
			rule = append(rule, "default "+string(b))
		}
		if f.Min != nil || f.Max != nil {
			rule = append(rule, "range "+fmtBound(f.Min)+".."+fmtBound(f.Max))
		}
		if f.MaxLength > 0 {
			rule = append(rule, fmt.Sprintf("at most %d characters", f.MaxLength))
		}
		if f.MaxItems > 0 {
			rule = append(rule, fmt.Sprintf("at most %d items", f.MaxItems))
		}
		if f.Separator != "" {
			rule = append(rule, fmt.Sprintf("a list separated by %q", f.Separator))
		}
		if len(f.Enum) > 0 {
			rule = append(rule, "one of "+strings.Join(f.Enum, "|"))
		}
		if f.Description != "" {
			rule = append(rule, oneLine(f.Description))
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", f.Name, typ, req, strings.Join(rule, "; "))
	}
	tw.Flush()
}

func fmtBound(p *float64) string {
	if p == nil {
		return ""
	}
	return api.FormatNumber(*p)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// inputFlags are the ways to give a tool's inputs.
type inputFlags struct {
	pairs []string // -i key=value or key:=json
	file  string   // --file path or -
}

func (f *inputFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVarP(&f.pairs, "input", "i", nil, "input key=value (typed by the tool list), or key:=JSON; repeatable")
	cmd.Flags().StringVar(&f.file, "file", "", "JSON file of inputs ({...} or {\"inputs\": {...}}); - reads stdin")
}

func newInvokeCmd(a *App) *cobra.Command {
	var in inputFlags
	cmd := &cobra.Command{
		Use:   "invoke TOOL",
		Short: "Call any tool by slug, with inputs from -i, --file or stdin",
		Long: `Call any tool the gateway lists. Inputs come from -i key=value flags, typed by
the tool list's field types (integer, number, boolean, array as comma list or
JSON), -i key:=JSON for raw JSON values, a JSON file (--file), or a JSON
object on stdin when stdin is not a terminal. -i flags override the file.`,
		Args: exactArgs(1, "TOOL"),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return a.completeTools(cmd), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			inputs, err := a.readInputs(cmd, in, true)
			if err != nil {
				return err
			}
			return a.invokeAndPrint(cmd, args[0], inputs, in.pairs)
		},
	}
	in.register(cmd)
	a.completeInputFlag(cmd, func(args []string) string {
		if len(args) > 0 {
			return args[0]
		}
		return ""
	})
	return cmd
}

// Size limits of what the commands read.
const (
	maxInputs   = 64 << 20  // a JSON object of tool inputs
	maxTTSText  = 1 << 20   // text to synthesize from stdin
	maxSTTAudio = 256 << 20 // audio to recognize
)

// readAtMost reads r whole, refusing more than limit bytes rather than
// silently cutting them off.
func readAtMost(r io.Reader, limit int64, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	if int64(len(b)) > limit {
		return nil, usagef("%s: larger than the limit of %d bytes", what, limit)
	}
	return b, nil
}

// readFileAtMost is readAtMost for a file named on the command line;
// failing to open it is a usage error.
func readFileAtMost(path string, limit int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("%s: %v", what, err)
	}
	defer f.Close()
	return readAtMost(f, limit, what+" "+path)
}

// readInputs reads --file or stdin into an inputs object (untyped pairs
// are typed later, against the tool list).
func (a *App) readInputs(cmd *cobra.Command, in inputFlags, allowStdin bool) (map[string]any, error) {
	var raw []byte
	var from string
	var err error
	switch {
	case in.file == "-" || in.file == "" && allowStdin && len(in.pairs) == 0 && stdinIsData(a.stdin):
		raw, err = readAtMost(a.stdin, maxInputs, "inputs from stdin")
		from = "stdin"
	case in.file != "":
		raw, err = readFileAtMost(in.file, maxInputs, "--file")
		from = in.file
	}
	if err != nil {
		return nil, err
	}
	inputs := map[string]any{}
	if len(bytes.TrimSpace(raw)) == 0 {
		return inputs, nil
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, usagef("inputs from %s: must be a JSON object: %v", from, err)
	}
	if inner, ok := obj["inputs"].(map[string]any); ok && len(obj) == 1 {
		obj = inner
	}
	return obj, nil
}

// stdinIsData reports whether stdin is a pipe or file rather than a
// terminal (readers other than files, as in tests, count as data).
func stdinIsData(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return r != nil
	}
	st, err := f.Stat()
	if err != nil {
		return false
	}
	return st.Mode()&os.ModeCharDevice == 0 && (st.Mode()&os.ModeNamedPipe != 0 || st.Mode().IsRegular())
}

// invokeAndPrint types pairs against the tool list, merges them into
// inputs, checks the tool list's rules, invokes and prints.
func (a *App) invokeAndPrint(cmd *cobra.Command, tool string, inputs map[string]any, pairs []string) error {
	ctx := cmd.Context()
	cl, err := a.client(ctx)
	if err != nil {
		return err
	}
	tools, err := cl.Tools(ctx)
	var spec *api.Tool
	var ae *api.Error
	switch {
	case errors.As(err, &ae) && ae.Auth():
		// The call would be refused the same way: stop here, with the
		// hint on what to check (the client's error names the tool list).
		return err
	case ae == nil && api.Unreachable(err):
		// Nothing answers: the call would fail the same way. Stop here,
		// with the hint (errorText), rather than warn and fail again.
		return fromGateway(err)
	case err != nil:
		fmt.Fprintf(a.stderr, "hark: warning: tool list unavailable (%v); inputs are sent untyped\n", a.scrub(err.Error()))
	default:
		for i := range tools {
			if tools[i].Slug == tool {
				spec = &tools[i]
			}
		}
		if spec == nil {
			names := make([]string, len(tools))
			for i, t := range tools {
				names[i] = t.Slug
			}
			return usagef("tool %q: not in the gateway's tool list (%s)", tool, strings.Join(names, ", "))
		}
	}
	for _, p := range pairs {
		k, v, err := parsePair(spec, p)
		if err != nil {
			return err
		}
		inputs[k] = v
	}
	if spec != nil {
		if err := checkInputs(spec, inputs); err != nil {
			return err
		}
		for k := range inputs {
			if spec.Input(k) == nil {
				fmt.Fprintf(a.stderr, "hark: warning: input %q is not in %s's tool list; sent anyway\n", k, tool)
			}
		}
	}
	if a.detach && detachTools[tool] {
		return a.submitDetached(cmd, cl, tool, inputs)
	}
	if tool == api.ToolResearch {
		ctx = api.WithRetryObserver(ctx, func(ev api.RetryEvent) {
			fmt.Fprintf(a.stderr, "hark: research attempt %d failed (%s); retrying in %s\n", ev.Attempt, a.scrub(ev.Err.Error()), ev.Wait.Round(100_000_000))
		})
		if isTerminal(a.stderr) && a.cfg.BaseURL != "" {
			// Only a remote gateway's research takes minutes; say so
			// only once the wait is noticeable.
			stop := noteIfSlow(2*time.Second, a.stderr, "hark: still researching; a remote gateway usually takes 1 to 3 minutes (up to 6)...")
			defer stop()
		}
	}
	if q, ok := inputs["input"].(string); ok && tool == api.ToolResearch {
		a.question = q
	}
	res, err := cl.Invoke(ctx, tool, inputs)
	if err != nil {
		return fromGateway(err)
	}
	switch {
	case a.jsonl:
		err = a.printJSONL(res)
	case a.jsonOut:
		err = writeJSON(a.stdout, res)
	default:
		err = a.printOutput(ctx, res)
	}
	if err != nil {
		return err
	}
	return everyURLFailed(res)
}

// everyURLFailed is the error of an extract whose every URL failed (exit
// 4), whatever the output format: a script must not take "nothing read"
// for success. Some failed is a success: the failures are on stderr (in
// the data with --json and --jsonl).
func everyURLFailed(res *api.InvokeResult) error {
	if res.Tool != api.ToolExtract {
		return nil
	}
	out, err := api.DecodeExtract(res.Output)
	if err != nil || len(out.Results) > 0 || len(out.FailedResults) == 0 {
		return nil
	}
	if len(out.FailedResults) == 1 {
		return upstreamError{errors.New("extract: the URL could not be read")}
	}
	return upstreamError{fmt.Errorf("extract: none of the %d URLs could be read", len(out.FailedResults))}
}

// noteIfSlow writes note to w if stop has not been called within delay.
func noteIfSlow(delay time.Duration, w io.Writer, note string) (stop func()) {
	done := make(chan struct{})
	var once sync.Once
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		select {
		case <-time.After(delay):
			fmt.Fprintln(w, note)
		case <-done:
		}
	}()
	return func() {
		once.Do(func() { close(done) })
		<-finished
	}
}

// parsePair reads key=value (typed by the field) or key:=JSON.
func parsePair(spec *api.Tool, p string) (string, any, error) {
	if k, v, ok := strings.Cut(p, ":="); ok && k != "" && !strings.Contains(k, "=") {
		var x any
		if err := json.Unmarshal([]byte(v), &x); err != nil {
			return "", nil, usagef("input %s: value after := must be JSON: %v", k, err)
		}
		return k, x, nil
	}
	k, v, ok := strings.Cut(p, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return "", nil, usagef("input %q: must be key=value or key:=JSON", p)
	}
	k = strings.TrimSpace(k)
	var f *api.Field
	if spec != nil {
		f = spec.Input(k)
	}
	x, err := typeValue(f, v)
	if err != nil {
		return "", nil, usagef("input %s: %v", k, err)
	}
	return k, x, nil
}

// typeValue converts a command-line string to the field's JSON type.
// Without a field, true/false and integers are guessed; the rest stays a
// string. Text that does not convert stays text: checkInputs then names
// the rule it breaks, in the gateway's words.
func typeValue(f *api.Field, v string) (any, error) {
	if f == nil {
		if v == "true" || v == "false" {
			return v == "true", nil
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n, nil
		}
		return v, nil
	}
	has := func(t string) bool { return f.HasType(t) }
	t := strings.TrimSpace(v)
	switch {
	case has("string") || f.Type == "":
		// A string is accepted as it is, even where an array also is
		// (e.g. extract's urls takes "a,b").
		if has("array") && strings.HasPrefix(t, "[") {
			var arr []any
			if json.Unmarshal([]byte(v), &arr) == nil {
				return arr, nil
			}
		}
	case has("integer"):
		if n, err := strconv.ParseInt(t, 10, 64); err == nil {
			return n, nil
		}
	case has("number"):
		if n, err := strconv.ParseFloat(t, 64); err == nil {
			return n, nil
		}
	case has("boolean"):
		switch strings.ToLower(t) {
		case "true", "yes", "1", "on":
			return true, nil
		case "false", "no", "0", "off":
			return false, nil
		}
	case has("array"):
		if strings.HasPrefix(t, "[") {
			var arr []any
			if err := json.Unmarshal([]byte(v), &arr); err != nil {
				return nil, fmt.Errorf("must be a JSON array or a comma-separated list: %v", err)
			}
			return arr, nil
		}
		arr := []any{}
		for _, p := range api.SplitList(v) {
			x, _ := typeValue(&api.Field{Type: orString(f.Items)}, p)
			arr = append(arr, x)
		}
		return arr, nil
	case has("object"):
		var obj map[string]any
		if err := json.Unmarshal([]byte(v), &obj); err != nil {
			return nil, fmt.Errorf("must be a JSON object: %v", err)
		}
		return obj, nil
	}
	return v, nil
}

func orString(t string) string {
	if t == "" {
		return "string"
	}
	return t
}

// checkInputs applies the tool list's rules with api.Validate, the
// gateway's own check, so a mistake is reported before anything is billed.
func checkInputs(t *api.Tool, inputs map[string]any) error {
	_, err := api.Validate(t.Inputs, inputs)
	var fe *api.FieldError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &fe) && fe.Rule == api.RuleRequired:
		return usagef("%v (give -i %s=...)", err, fe.Field)
	}
	return usageError{err}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments, got %q", cmd.CommandPath(), args[0])
	}
	return nil
}

// exactArgs wants exactly n arguments, called names in the messages: what
// is missing, or what is too much, and the command's usage line.
func exactArgs(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < n:
			return usagef("%s: missing %s\nusage: %s", cmd.Name(), names, usageLine(cmd))
		case len(args) > n && n == 0:
			return usagef("%s takes no arguments, got %s\nusage: %s", cmd.Name(), quoteArgs(args), usageLine(cmd))
		case len(args) > n:
			return usagef("%s: takes only %s, got %d arguments (%s)\nusage: %s", cmd.Name(), names, len(args), quoteArgs(args), usageLine(cmd))
		}
		return nil
	}
}

func minArgs(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usagef("%s: missing %s\nusage: %s", cmd.Name(), names, usageLine(cmd))
		}
		return nil
	}
}

// usageLine is how the command is called, e.g. "hark invoke TOOL [flags]".
func usageLine(cmd *cobra.Command) string { return cmd.UseLine() }

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = strconv.Quote(a)
	}
	return strings.Join(q, " ")
}
