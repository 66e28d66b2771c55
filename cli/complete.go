package cli

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"hark/api"
)

// Shell completion asks the gateway: tool slugs, the enum values of a
// tool's inputs, input names for -i, and voices come from the live tool
// and voice lists, so they are right for whichever gateway is configured.
// With no base URL that is the embedded gateway, started for the one
// completion like for any command (about 0.1 s). A completion that cannot
// reach a gateway completes nothing: it never prints an error into the
// command line being typed, and never waits longer than completeTimeout.

const completeTimeout = 3 * time.Second

// completeCall runs f with a client, bounded by completeTimeout.
func completeCall[T any](a *App, cmd *cobra.Command, f func(ctx context.Context, cl *api.Client) (T, error)) (T, bool) {
	var zero T
	ctx, cancel := context.WithTimeout(cmd.Context(), completeTimeout)
	defer cancel()
	if a.load(ctx) != nil {
		return zero, false
	}
	// One attempt: a TAB is not worth waiting on retries for.
	a.retry.MaxAttempts = 1
	cl, err := a.client(ctx)
	if err != nil {
		return zero, false
	}
	v, err := f(ctx, cl)
	return v, err == nil
}

func (a *App) completionTools(cmd *cobra.Command) []api.Tool {
	tools, _ := completeCall(a, cmd, func(ctx context.Context, cl *api.Client) ([]api.Tool, error) { return cl.Tools(ctx) })
	return tools
}

// completeTools offers the tool slugs, each with its description.
func (a *App) completeTools(cmd *cobra.Command) []cobra.Completion {
	var out []cobra.Completion
	for _, t := range a.completionTools(cmd) {
		out = append(out, cobra.CompletionWithDesc(t.Slug, oneLine(t.Description)))
	}
	return out
}

// field finds a tool's input in the live tool list.
func (a *App) field(cmd *cobra.Command, tool, input string) *api.Field {
	for _, t := range a.completionTools(cmd) {
		if t.Slug == tool {
			return t.Input(input)
		}
	}
	return nil
}

// completeEnum completes a flag that sets a tool's input with the values
// the tool list allows for it.
func (a *App) completeEnum(tool, input string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		f := a.field(cmd, tool, input)
		if f == nil || len(f.Enum) == 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, v := range f.Enum {
			out = append(out, cobra.Completion(v))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeInputFlag completes -i/--input of cmd: the tool's input names
// as "name=", then, after the =, the input's enum values. toolOf names
// the tool from the positional arguments ("" when not yet typed).
func (a *App) completeInputFlag(cmd *cobra.Command, toolOf func(args []string) string) {
	cmd.RegisterFlagCompletionFunc("input", func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		slug := toolOf(args)
		var tool *api.Tool
		tools := a.completionTools(cmd)
		for i := range tools {
			if tools[i].Slug == slug {
				tool = &tools[i]
			}
		}
		if tool == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		if name, _, ok := strings.Cut(toComplete, "="); ok {
			if f := tool.Input(name); f != nil {
				for _, v := range f.Enum {
					out = append(out, cobra.Completion(name+"="+v))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		}
		for _, f := range tool.Inputs {
			out = append(out, cobra.CompletionWithDesc(f.Name+"=", oneLine(f.Description)))
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	})
}

// completeVoices offers the configured provider's voices: the code, with
// the voice's name and language as the description.
func (a *App) completeVoices(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	voices, _ := completeCall(a, cmd, func(ctx context.Context, cl *api.Client) ([]api.Voice, error) {
		return cl.Voices(ctx, a.cfg.Provider)
	})
	var out []cobra.Completion
	for _, v := range voices {
		if strings.HasPrefix(v.Value, toComplete) {
			out = append(out, cobra.CompletionWithDesc(v.Value, strings.TrimSpace(v.Name+" "+v.Language)))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// fixed completes a flag with a fixed list of values.
func fixed(values ...string) cobra.CompletionFunc {
	return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
}
