package search

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"hark/ui/form"
)

// Options are the quick options of the query line, by input field name.
// Each is shown only when the runtime tool has that field.
var quick = []string{"search_depth", "topic", "time_range", "max_results", "include_answer", "include_domains"}

// rerunMsg runs the search again after the options changed, unless they
// changed again since (gen is then stale): pressing + three times makes
// one call, not three.
type rerunMsg struct{ gen int }

// rerunDelay is how long option keys must rest before the search re-runs.
const rerunDelay = 400 * time.Millisecond

// changed re-runs the last search shortly after a quick option changed,
// so the results always match the options line.
func (p *Pane) changed(did bool) tea.Cmd {
	if !did || (p.out == nil && p.err == nil) {
		return nil
	}
	p.optGen++
	gen := p.optGen
	return tea.Tick(rerunDelay, func(time.Time) tea.Msg { return rerunMsg{gen: gen} })
}

// cycle moves an enum option to its next allowed value (from the runtime
// list), passing through "unset" when the field has no default.
// It reports whether the value changed.
func (p *Pane) cycle(name string) bool {
	f := p.field(name)
	if f == nil || len(f.Enum) == 0 {
		return false
	}
	vals := f.Enum
	if f.Default == nil && !f.Required {
		vals = append([]string{""}, vals...)
	}
	cur, _ := p.value(name).(string)
	next := vals[0]
	for i, v := range vals {
		if v == cur {
			next = vals[(i+1)%len(vals)]
		}
	}
	p.opts[name] = next
	return next != cur
}

// step moves a number option by d within its minimum and maximum; it
// reports whether the value changed.
func (p *Pane) step(name string, d float64) bool {
	f := p.field(name)
	if f == nil {
		return false
	}
	before := fmt.Sprint(p.value(name))
	cur, ok := toFloat(p.value(name))
	if !ok {
		cur = 5
		if f.Min != nil {
			cur = *f.Min
		}
	}
	cur += d
	if f.Min != nil {
		cur = max(cur, *f.Min)
	}
	if f.Max != nil {
		cur = min(cur, *f.Max)
	}
	p.opts[name] = cur
	return fmt.Sprint(cur) != before
}

// toFloat reads a number of any type an option's value comes in: the
// form sends integers as int64 (form's wire), JSON as float64 or
// json.Number, the palette as int.
func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case int32:
		return float64(v), true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case string:
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil
	}
	return 0, false
}

// newForm builds the full form of the tool, pre-filled with the query
// line and the quick options; withLast fills first what was last sent, so
// that reopening the form (f, or after a refusal) shows what the user
// typed there.
func (p *Pane) newForm(withLast bool) *form.Form {
	f := form.New(p.tool(), p.c.Styles)
	f.Keys = p.c.Keys().Form
	if withLast {
		f.SetInputs(p.inputs)
	}
	f.Set("query", p.query.Value())
	for k, v := range p.opts {
		f.Set(k, v)
	}
	return f
}

func (p *Pane) optionsLine() string {
	s := p.c.Styles
	var parts []string
	for _, name := range quick {
		f := p.field(name)
		if f == nil {
			continue
		}
		k, label := "", name
		switch name {
		case "search_depth":
			k, label = "d", "depth"
		case "topic":
			k, label = "t", "topic"
		case "time_range":
			k, label = "r", "time"
		case "max_results":
			k, label = "+-", "max"
		case "include_answer":
			k, label = "a", "answer"
		case "include_domains":
			k, label = "D", "domains"
		}
		v := p.value(name)
		var vs string
		switch v := v.(type) {
		case nil:
			vs = "any"
		case bool:
			vs = map[bool]string{true: "on", false: "off"}[v]
		case float64:
			vs = strconv.FormatFloat(v, 'f', -1, 64)
		case string:
			vs = v
			if v == "" {
				vs = "any"
			}
		default:
			vs = fmt.Sprint(v)
		}
		if d := p.sentDates(); name == "time_range" && d != "" && (v == nil || v == "") {
			vs = d // the dates the last search sent, not "any"
		}
		parts = append(parts, s.Key.Render(k)+" "+s.Label.Render(label)+" "+s.Text.Render(vs))
	}
	if len(parts) == 0 {
		if p.c.Tools == nil && p.err != nil {
			return s.Dim.Render("no tool list, so only the query is sent")
		}
		return s.Dim.Render("options appear once the tool list is loaded")
	}
	parts = append(parts, s.Key.Render("f")+s.Label.Render(" more"))
	if p.typing() {
		// While a line has the cursor these letters type: say how to
		// reach them.
		parts[0] = s.Dim.Render("esc, then ") + parts[0]
	}
	// Greedy wrap on option boundaries, so 80 columns show them all.
	sep := s.Dim.Render(" · ")
	var lines []string
	cur := ""
	for _, part := range parts {
		switch {
		case cur == "":
			cur = part
		case p.width > 0 && lipgloss.Width(cur)+3+lipgloss.Width(part) > p.width:
			lines = append(lines, cur)
			cur = part
		default:
			cur += sep + part
		}
	}
	return strings.Join(append(lines, cur), "\n")
}
