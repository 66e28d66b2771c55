package search

import (
	"encoding/json"
	"fmt"
	"strings"
)

// useSent makes the quick options what was last sent: a search sent from
// the full form, the palette or a kept item shows its own max_results and
// time range on the options line, and re-runs with them.
func (p *Pane) useSent(inputs map[string]any) {
	for _, name := range quick {
		v, ok := inputs[name]
		switch {
		case !ok:
			delete(p.opts, name)
		case name == "max_results":
			if f, ok := toFloat(numberValue(v)); ok {
				p.opts[name] = f
			}
		default:
			p.opts[name] = v
		}
	}
}

// withoutDefaults is inputs without the options set to their default: a
// search with max_results 5 where 5 is the default is the same search as
// one without it, and the library keeps it as one (it replaces a search
// run again with the same query and inputs).
func (p *Pane) withoutDefaults(inputs map[string]any) map[string]any {
	out := make(map[string]any, len(inputs))
	for k, v := range inputs {
		if f := p.field(k); f != nil && !f.Required && f.Default != nil && sameValue(v, f.Default) {
			continue
		}
		out[k] = v
	}
	return out
}

// sameValue compares option values across their Go types (7 and 7.0).
func sameValue(a, b any) bool {
	if x, ok := toFloat(numberValue(a)); ok {
		if y, ok := toFloat(numberValue(b)); ok {
			_, as := a.(string)
			_, bs := b.(string)
			return x == y && as == bs
		}
	}
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// numberValue unwraps a number decoded from JSON (a kept item's inputs).
func numberValue(v any) any {
	if n, ok := v.(json.Number); ok {
		return string(n)
	}
	return v
}

// sentDates is the date span the last search sent ("since 2025-01-01",
// "2025-01-01 to 2025-02-01"), "" when it sent none.
func (p *Pane) sentDates() string {
	from, _ := p.inputs["start_date"].(string)
	to, _ := p.inputs["end_date"].(string)
	switch {
	case from != "" && to != "":
		return from + " to " + to
	case from != "":
		return "since " + from
	case to != "":
		return "until " + to
	}
	return ""
}

// noResults says what to try when a search finds nothing: what the last
// search narrowed (a time range, dates, domains, an exact phrase) is
// named, and nothing it did not send.
func (p *Pane) noResults() string {
	var narrowed []string
	if tr, _ := p.inputs["time_range"].(string); tr != "" {
		narrowed = append(narrowed, "the time range ("+tr+")")
	}
	if d := p.sentDates(); d != "" {
		narrowed = append(narrowed, "the dates ("+d+")")
	}
	for _, k := range []string{"include_domains", "exclude_domains"} {
		if v, ok := p.inputs[k]; ok && v != nil && v != "" {
			narrowed = append(narrowed, "the domains")
			break
		}
	}
	if on, _ := p.inputs["exact_match"].(bool); on {
		narrowed = append(narrowed, "the exact phrase")
	}
	t := "No results. Try other words (f shows every option)."
	if len(narrowed) > 0 {
		t = "No results. Try other words, or loosen " + strings.Join(narrowed, ", ") + " (f shows every option)."
	}
	if strings.HasPrefix(p.c.Gateway, "embedded") {
		t += " The embedded gateway searches only pages it has read: add some with `hark index URL|DIR`, or extract and crawl them in Pages."
	}
	return t
}
