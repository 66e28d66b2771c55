package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func newConfigCmd(a *App) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Show the effective settings and where each came from (the key masked)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c := a.cfg
			if a.jsonOut {
				m := map[string]any{"file": c.File, "sources": c.Sources, "warnings": c.Warnings}
				for _, kv := range c.Settings() {
					m[kv[0]] = kv[1]
				}
				m["base_url"] = c.BaseURL
				if ms, err := a.modelSettings(); err != nil {
					m["model"] = err.Error()
				} else {
					for _, kv := range ms.Settings() {
						m[kv[0]] = kv[1]
					}
				}
				if vs, err := a.voiceProviders(); err != nil {
					m["voice"] = err.Error()
				} else {
					for _, code := range slices.Sorted(maps.Keys(vs)) {
						for _, kv := range vs[code].Settings(code) {
							m[kv[0]] = kv[1]
						}
					}
				}
				return writeJSON(a.stdout, m)
			}
			file := c.File
			if file == "" {
				file = a.configPathHint(c) + " (not found)"
			}
			fmt.Fprintf(a.stdout, "config file: %s\n\n", file)
			tw := tabwriter.NewWriter(a.stdout, 0, 2, 2, ' ', 0)
			for _, kv := range c.Settings() {
				fmt.Fprintf(tw, "%s\t%s\t(%s)\n", kv[0], kv[1], c.Sources[kv[0]])
			}
			// The embedded gateway's model: gateway.toml's [model], then
			// HARK_MODEL_*; the key masked.
			ms, err := a.modelSettings()
			if err != nil {
				fmt.Fprintf(tw, "model\t(%v)\t\n", err)
			} else {
				for _, kv := range ms.Settings() {
					fmt.Fprintf(tw, "%s\t%s\t(gateway.toml [model], HARK_MODEL_*)\n", kv[0], kv[1])
				}
			}
			// The embedded gateway's other voice providers: gateway.toml's
			// [voice.<code>]; their keys masked.
			vs, err := a.voiceProviders()
			if err != nil {
				fmt.Fprintf(tw, "voice\t(%v)\t\n", err)
			}
			for _, code := range slices.Sorted(maps.Keys(vs)) {
				for _, kv := range vs[code].Settings(code) {
					fmt.Fprintf(tw, "%s\t%s\t(gateway.toml [voice.%s])\n", kv[0], kv[1], code)
				}
			}
			return tw.Flush()
		},
	}
}

func writeJSONCompact(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
