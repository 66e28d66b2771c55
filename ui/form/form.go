// Package form builds an input form from a tool's fields in the runtime
// tool list: a text input, number input, select, toggle, comma list or
// date input per field, with defaults pre-filled and each value checked
// inline before anything is sent. It knows no tool by name.
package form

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/ui/common"
)

// Kind is the control a field gets.
type Kind int

const (
	Text Kind = iota
	Integer
	Number
	Enum
	Bool
	List
	Date
	Object
)

func (k Kind) String() string {
	return [...]string{"text", "integer", "number", "select", "toggle", "list", "date", "json"}[k]
}

// KindOf picks the control for a field from its type, format, enum and
// list separator: what the tool list says, never guessed from prose.
func KindOf(f api.Field) Kind {
	switch {
	case len(f.Enum) > 0:
		return Enum
	case f.HasType("boolean"):
		return Bool
	case f.HasType("integer"):
		return Integer
	case f.HasType("number"):
		return Number
	case f.Format == api.FormatDate:
		return Date
	case f.IsList():
		return List
	case f.HasType("object"):
		return Object
	}
	return Text
}

// Control is one field's input.
type Control struct {
	Field api.Field
	Kind  Kind
	Err   string

	input   textinput.Model
	options []string // Enum: the choices, "" meaning unset
	choice  int
	on      bool
}

// Action is what a key did to the form as a whole.
type Action int

const (
	None Action = iota
	Submit
	Cancel
)

// Form is a tool's input form.
type Form struct {
	Tool     api.Tool
	Controls []*Control
	focus    int
	offset   int
	width    int
	height   int
	styles   *common.Styles
	// Keys are the form's bindings; the pane that opens the form gives
	// those held in Common.
	Keys common.FormKeys
}

// New builds the form of a tool, with defaults pre-filled.
func New(t api.Tool, s *common.Styles) *Form {
	f := &Form{Tool: t, styles: s, Keys: common.DefaultFormKeys()}
	for _, fd := range t.Inputs {
		c := &Control{Field: fd, Kind: KindOf(fd)}
		switch c.Kind {
		case Enum:
			if !fd.Required && fd.Default == nil {
				c.options = append(c.options, "")
			}
			c.options = append(c.options, fd.Enum...)
			if d := defaultText(fd.Default); d != "" {
				for i, o := range c.options {
					if o == d {
						c.choice = i
					}
				}
			}
		case Bool:
			c.on, _ = fd.Default.(bool)
		default:
			c.input = common.NewInput(s)
			c.input.Prompt = ""
			c.input.SetValue(defaultText(fd.Default))
			c.input.Placeholder = placeholder(c)
		}
		f.Controls = append(f.Controls, c)
	}
	f.focusControl(0)
	return f
}

func placeholder(c *Control) string {
	switch c.Kind {
	case Date:
		return "YYYY-MM-DD"
	case List:
		return "a, b, c"
	case Integer, Number:
		if c.Field.Min != nil && c.Field.Max != nil {
			return fmt.Sprintf("%s–%s", api.FormatNumber(*c.Field.Min), api.FormatNumber(*c.Field.Max))
		}
		return "number"
	case Object:
		return `{"key": "value"}`
	}
	return ""
}

// defaultText is a default value as the form shows it.
func defaultText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return api.FormatNumber(v)
	case int:
		return strconv.Itoa(v)
	case bool:
		return strconv.FormatBool(v)
	case []string:
		return strings.Join(v, ", ")
	case []any:
		parts := make([]string, 0, len(v))
		for _, x := range v {
			parts = append(parts, defaultText(x))
		}
		return strings.Join(parts, ", ")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Control returns the control of the field called name, or nil.
func (f *Form) Control(name string) *Control {
	for _, c := range f.Controls {
		if c.Field.Name == name {
			return c
		}
	}
	return nil
}

// Set pre-fills a field (e.g. the search query typed on the query line).
func (f *Form) Set(name string, v any) {
	c := f.Control(name)
	if c == nil {
		return
	}
	s := defaultText(v)
	switch c.Kind {
	case Enum:
		for i, o := range c.options {
			if o == s {
				c.choice = i
			}
		}
	case Bool:
		c.on, _ = v.(bool)
	default:
		c.input.SetValue(s)
		c.Err = c.validate()
	}
}

// Value is the control's current text ("" when unset).
func (c *Control) Value() string {
	switch c.Kind {
	case Enum:
		return c.options[c.choice]
	case Bool:
		return strconv.FormatBool(c.on)
	}
	return strings.TrimSpace(c.input.Value())
}

// validate explains what is wrong with the value, naming the rule as
// the gateway does: api.Validate is the one judge.
func (c *Control) validate() string {
	in := map[string]any{}
	if c.Value() != "" {
		in[c.Field.Name] = c.wire()
	}
	_, err := api.Validate([]api.Field{c.Field}, in)
	var fe *api.FieldError
	if errors.As(err, &fe) {
		return fe.Rule
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// wire converts the value to what the gateway expects. Text that does
// not convert (a number that is not one) stays text, for validate to
// name the rule it breaks.
func (c *Control) wire() any {
	v := c.Value()
	switch c.Kind {
	case Bool:
		return c.on
	case Integer, Number:
		n, err := strconv.ParseFloat(v, 64)
		switch {
		case err != nil:
			return v
		case c.Kind == Integer && n == math.Trunc(n) && math.Abs(n) < 1<<53:
			return int64(n)
		}
		return n
	case Enum:
		// An enum of numbers or booleans is listed in JSON spelling.
		var x any
		if !c.Field.HasType("string") && json.Unmarshal([]byte(v), &x) == nil {
			return x
		}
	case List:
		sep := c.Field.Separator
		if sep == "" {
			sep = api.ListSeparator
		}
		items := api.SplitList(strings.ReplaceAll(v, sep, api.ListSeparator))
		switch {
		case len(items) == 0:
			return v // no item at all: validate says so
		case c.Field.HasType("array"):
			return items
		}
		return strings.Join(items, sep)
	case Object:
		var m map[string]any
		if json.Unmarshal([]byte(v), &m) != nil {
			return v
		}
		return m
	}
	return v
}

// Validate checks every control, sets their inline errors, focuses the
// first invalid one and reports whether all are valid.
func (f *Form) Validate() bool {
	first := -1
	for i, c := range f.Controls {
		c.Err = c.validate()
		if c.Err != "" && first < 0 {
			first = i
		}
	}
	if first >= 0 {
		f.focusControl(first)
		return false
	}
	return true
}

// Inputs returns the values to send: required fields and every field whose
// value differs from its default, so the gateway applies its own defaults.
// Call Validate first.
func (f *Form) Inputs() map[string]any {
	in := map[string]any{}
	for _, c := range f.Controls {
		v := c.Value()
		if v == "" {
			continue
		}
		if !c.Field.Required && v == defaultText(c.Field.Default) {
			continue
		}
		in[c.Field.Name] = c.wire()
	}
	return in
}

// Errors lists "field: rule" for each invalid control.
func (f *Form) Errors() []string {
	var out []string
	for _, c := range f.Controls {
		if c.Err != "" {
			out = append(out, c.Field.Name+": "+c.Err)
		}
	}
	return out
}

// SetInputs pre-fills the form with inputs a previous submit sent, so
// that reopening the form after a refusal shows what the user typed.
func (f *Form) SetInputs(in map[string]any) {
	for k, v := range in {
		if v != nil {
			f.Set(k, v)
		}
	}
}

// Refused reports an error by which the gateway refused the inputs (HTTP
// or code 400/422): what FailOn shows at a field.
func Refused(err error) bool {
	var ae *api.Error
	return errors.As(err, &ae) && ae.Refused()
}

// FailOn shows a refusal at the field it names, with the whole rule, and
// focuses that field. The gateway says "invalid <field>: <rule>" (see
// docs/gateway.md); a message of another shape names the field that
// appears first in it, as a word of its own. It reports whether a field
// was named.
func (f *Form) FailOn(err error) (bool, tea.Cmd) {
	if err == nil {
		return false, nil
	}
	i, rule := f.refusedField(gatewayMessage(err))
	if i < 0 {
		return false, nil
	}
	f.Controls[i].Err = common.OneLine(rule)
	return true, f.focusControl(i)
}

// gatewayMessage is the gateway's own words in err, without the wrapping
// hark adds ("search: …") or the status and trace_id api.Error appends.
func gatewayMessage(err error) string {
	var ae *api.Error
	if errors.As(err, &ae) && ae.Message != "" {
		return ae.Message
	}
	return err.Error()
}

// refusedField finds the control a refusal names and the rule to show
// there (-1 when none is named).
func (f *Form) refusedField(msg string) (int, string) {
	// "invalid end_date: must not be before start_date": the field is the
	// word after "invalid", the rule all that follows the colon.
	if j := strings.Index(msg, "invalid "); j >= 0 {
		rest := msg[j+len("invalid "):]
		if k := strings.Index(rest, ":"); k > 0 {
			name := strings.TrimSpace(rest[:k])
			for i, c := range f.Controls {
				if c.Field.Name == name {
					if rule := strings.TrimSpace(rest[k+1:]); rule != "" {
						return i, rule
					}
					return i, msg
				}
			}
		}
	}
	// Another shape: the field named first, and what follows its name.
	best, at := -1, len(msg)
	for i, c := range f.Controls {
		if j := wordIndex(msg, c.Field.Name); j >= 0 && (j < at || j == at && len(c.Field.Name) > len(f.Controls[best].Field.Name)) {
			best, at = i, j
		}
	}
	if best < 0 {
		return -1, ""
	}
	rule := strings.TrimSpace(strings.TrimLeft(msg[at+len(f.Controls[best].Field.Name):], ":= "))
	if rule == "" {
		rule = msg
	}
	return best, rule
}

// wordIndex is where msg holds name as a word of its own ("start_date:
// must be..." holds start_date, not date), or -1.
func wordIndex(msg, name string) int {
	for i := 0; ; {
		j := strings.Index(msg[i:], name)
		if j < 0 {
			return -1
		}
		j += i
		before, after := j == 0 || !isNameByte(msg[j-1]), j+len(name) == len(msg) || !isNameByte(msg[j+len(name)])
		if before && after {
			return j
		}
		i = j + 1
	}
}

func isNameByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// Focus moves the focus to control i.
func (f *Form) Focus(i int) tea.Cmd { return f.focusControl(i) }

// Focused is the index of the focused control.
func (f *Form) Focused() int { return f.focus }

func (f *Form) focusControl(i int) tea.Cmd {
	if len(f.Controls) == 0 {
		return nil
	}
	i = (i + len(f.Controls)) % len(f.Controls)
	if f.focus < len(f.Controls) {
		f.Controls[f.focus].input.Blur()
	}
	f.focus = i
	c := f.Controls[i]
	if c.Kind != Enum && c.Kind != Bool {
		return c.input.Focus()
	}
	return nil
}

// Update handles a key or paste; it reports Submit only when every value
// is valid.
func (f *Form) Update(msg tea.Msg) (Action, tea.Cmd) {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		if _, paste := msg.(tea.PasteMsg); paste && len(f.Controls) > 0 {
			c := f.Controls[f.focus]
			var cmd tea.Cmd
			c.input, cmd = c.input.Update(msg)
			c.Err = c.validate()
			return None, cmd
		}
		return None, nil
	}
	switch {
	case key.Matches(km, f.Keys.Cancel):
		return Cancel, nil
	case key.Matches(km, f.Keys.Submit):
		if f.Validate() {
			return Submit, nil
		}
		return None, nil
	case key.Matches(km, f.Keys.Next):
		return None, f.focusControl(f.focus + 1)
	case key.Matches(km, f.Keys.Prev):
		return None, f.focusControl(f.focus - 1)
	}
	if len(f.Controls) == 0 {
		return None, nil
	}
	c := f.Controls[f.focus]
	switch c.Kind {
	case Enum:
		switch {
		case key.Matches(km, f.Keys.Left):
			c.choice = (c.choice - 1 + len(c.options)) % len(c.options)
		case key.Matches(km, f.Keys.Right), key.Matches(km, f.Keys.Toggle):
			c.choice = (c.choice + 1) % len(c.options)
		}
		return None, nil
	case Bool:
		if key.Matches(km, f.Keys.Toggle, f.Keys.Left, f.Keys.Right) {
			c.on = !c.on
		}
		return None, nil
	}
	var cmd tea.Cmd
	c.input, cmd = c.input.Update(msg)
	c.Err = c.validate()
	return None, cmd
}

// SetSize sets the area the form is drawn in.
func (f *Form) SetSize(w, h int) {
	f.width, f.height = max(0, w), max(0, h)
	iw := max(4, f.width-f.labelWidth()-4)
	for _, c := range f.Controls {
		c.input.SetWidth(iw)
	}
}

// labelWidth is the names' column: as wide as the longest name, up to
// two fifths of the form, so that at 80 columns a name such as
// include_image_descriptions is read whole (24 columns cut it).
func (f *Form) labelWidth() int {
	w := 8
	for _, c := range f.Controls {
		w = max(w, len(c.Field.Name)+2)
	}
	return min(w, max(24, f.width*2/5))
}

// maxErrLines is the most lines a field's inline error takes.
const maxErrLines = 4

// View draws the form: one line per field, its inline error below it
// (wrapped, at most maxErrLines lines), and the focused field's
// description at the bottom.
func (f *Form) View() string {
	s := f.styles
	lw := f.labelWidth()
	var rows []string
	focusRow := 0
	for i, c := range f.Controls {
		label := c.Field.Name
		if c.Field.Required {
			label += "*"
		}
		label = common.Truncate(label, lw)
		label += strings.Repeat(" ", max(0, lw-len([]rune(label))))
		ls := s.Label
		marker := "  "
		if i == f.focus {
			ls, marker = s.FocusLabel, s.Key.Render("› ")
			focusRow = len(rows)
		}
		rows = append(rows, marker+ls.Render(label)+" "+f.controlView(c, i == f.focus))
		if c.Err != "" {
			// Wrapped under the field, whole: a refusal that names a long
			// URL must still say its rule.
			indent := strings.Repeat(" ", lw+3)
			lines := strings.Split(common.Wrap("✗ "+c.Field.Name+" "+common.OneLine(c.Err), max(20, f.width-lw-3)), "\n")
			if len(lines) > maxErrLines {
				lines = append(lines[:maxErrLines-1], common.Truncate(strings.Join(lines[maxErrLines-1:], " "), max(20, f.width-lw-3)))
			}
			for _, l := range lines {
				rows = append(rows, indent+s.Err.Render(l))
			}
		}
	}
	if len(rows) == 0 {
		rows = append(rows, s.Dim.Render("  This tool takes no inputs. Press enter to run it."))
	}
	var foot []string
	if len(f.Controls) > 0 {
		c := f.Controls[f.focus]
		d := c.Field.Description
		meta := c.Kind.String()
		if c.Field.Type != "" && c.Field.Type != meta {
			meta += " · " + c.Field.Type
		}
		if c.Field.Default != nil {
			meta += " · default " + defaultText(c.Field.Default)
		}
		foot = append(foot, "", s.Dim.Render(common.Truncate(common.OneLine(c.Field.Name+" ("+meta+")  "+d), f.width)))
	}
	avail := max(1, f.height-len(foot))
	if focusRow < f.offset {
		f.offset = focusRow
	}
	if focusRow >= f.offset+avail-1 {
		f.offset = focusRow - avail + 2
	}
	f.offset = max(0, min(f.offset, len(rows)-1))
	end := min(len(rows), f.offset+avail)
	body := strings.Join(rows[f.offset:end], "\n")
	return common.Fit(body+"\n"+strings.Join(foot, "\n"), f.width, f.height)
}

func (f *Form) controlView(c *Control, focused bool) string {
	s := f.styles
	switch c.Kind {
	case Enum:
		var parts []string
		for i, o := range c.options {
			label := o
			if o == "" {
				label = "—"
			}
			if i == c.choice {
				parts = append(parts, s.Selected.Render("["+label+"]"))
			} else {
				parts = append(parts, s.Dim.Render(" "+label+" "))
			}
		}
		return strings.Join(parts, "")
	case Bool:
		if c.on {
			return s.OK.Render("[x] on")
		}
		return s.Dim.Render("[ ] off")
	}
	return c.input.View()
}
