package api

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The tool schema, typed once: the gateway declares its tools' inputs as
// Fields and serves them (Tool.MarshalJSON), the client decodes them
// (DecodeToolList), and Validate checks inputs against them for the
// gateway, the TUI's forms and the CLI alike, with one wording of errors.

// Field is one input of a tool. Type is the JSON Schema type name
// (string, integer, number, boolean, array, object), several joined by
// "|" when the gateway allows more than one (e.g. "string|array"), or
// whatever the gateway sent when hark does not recognise it. Items and
// ItemFormat are the element type and format of an array. Raw is the
// field's description as received.
type Field struct {
	Name        string
	Type        string
	Format      string // FormatDate, FormatURI, or what the gateway sent
	Description string
	Required    bool
	Default     any
	Enum        []string
	Min, Max    *float64 // numbers: inclusive bounds
	MaxLength   int      // strings: most characters (runes); 0 is no limit
	MaxItems    int      // lists: most elements; 0 is no limit
	// Separator is how a list is written in one string ("," for
	// "a, b, c"): set, a string value is a list of its parts.
	Separator  string
	Items      string
	ItemFormat string
	Raw        json.RawMessage
}

// Formats a string field (or a list's elements) may have; they are JSON
// Schema format names.
const (
	FormatDate = "date" // YYYY-MM-DD
	FormatURI  = "uri"  // absolute http or https URL
)

// ListSeparator is the Separator of comma-separated lists.
const ListSeparator = ","

// RuleRequired is the rule of a required field left out.
const RuleRequired = "is required"

// FieldError is an input that breaks a rule of its field. Its text is the
// gateway's wording, "invalid <field>: <rule>", wherever it is checked.
type FieldError struct {
	Field string
	Rule  string
}

func (e *FieldError) Error() string { return fmt.Sprintf("invalid %s: %s", e.Field, e.Rule) }

// Input returns the field called name, or nil.
func (t *Tool) Input(name string) *Field {
	for i := range t.Inputs {
		if t.Inputs[i].Name == name {
			return &t.Inputs[i]
		}
	}
	return nil
}

// HasType reports whether the field accepts JSON type typ.
func (f *Field) HasType(typ string) bool {
	for _, t := range strings.Split(f.Type, "|") {
		if t == typ {
			return true
		}
	}
	return false
}

// IsList reports whether the field takes a list: an array, or a string
// of parts separated by Separator.
func (f *Field) IsList() bool { return f.HasType("array") || f.Separator != "" }

// SplitList splits s at commas into trimmed, non-empty parts.
func SplitList(s string) []string { return splitOn(s, ListSeparator) }

func splitOn(s, sep string) []string {
	var out []string
	for _, p := range strings.Split(s, sep) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Validate checks inputs against fields and returns them normalized:
// defaults applied, unknown inputs dropped, arrays of strings as
// []string, integers as int. An optional field given "" is unset. The
// first field in order that breaks a rule is the error, a *FieldError.
func Validate(fields []Field, inputs map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(fields))
	for i := range fields {
		f := &fields[i]
		v, present := inputs[f.Name]
		if s, ok := v.(string); present && ok && s == "" && !f.Required {
			present = false
		}
		if !present || v == nil {
			if f.Required {
				return nil, f.invalid(RuleRequired)
			}
			if f.Default != nil {
				out[f.Name] = f.Default
			}
			continue
		}
		nv, err := f.Check(v)
		if err != nil {
			return nil, err
		}
		out[f.Name] = nv
	}
	return out, nil
}

func (f *Field) invalid(rule string, args ...any) error {
	return &FieldError{Field: f.Name, Rule: fmt.Sprintf(rule, args...)}
}

// Check validates one present, non-null value of the field and returns
// it normalized (see Validate).
func (f *Field) Check(v any) (any, error) {
	types := f.knownTypes()
	if len(types) == 0 {
		return v, f.checkEnum(v)
	}
	has := func(t string) bool {
		for _, x := range types {
			if x == t {
				return true
			}
		}
		return false
	}
	switch x := v.(type) {
	case bool:
		if has("boolean") {
			return x, f.checkEnum(x)
		}
	case float64, json.Number, int, int64:
		switch {
		case has("integer"):
			return f.checkInteger(v)
		case has("number"):
			return f.checkNumber(v)
		}
	case string:
		switch {
		case has("array") && f.Separator != "":
			return f.checkList(v)
		case has("string"):
			return f.checkString(x)
		}
	case []any, []string:
		if has("array") {
			return f.checkList(v)
		}
	case map[string]any:
		if has("object") {
			return x, nil
		}
	}
	return nil, f.invalid("%s", f.typeRule(types))
}

// knownTypes are the field's types hark can check; none means anything
// goes (a type hark does not recognise, or none given).
func (f *Field) knownTypes() []string {
	var out []string
	for _, t := range strings.Split(f.Type, "|") {
		switch t {
		case "string", "integer", "number", "boolean", "array", "object":
			out = append(out, t)
		case "":
		default:
			return nil
		}
	}
	return out
}

// typeRule says what a value of the wrong JSON type should have been.
func (f *Field) typeRule(types []string) string {
	if f.HasType("array") && f.HasType("string") {
		noun := f.itemNoun()
		return fmt.Sprintf("must be a %s string or an array of %s strings", noun, noun)
	}
	switch types[0] {
	case "boolean":
		return "must be true or false"
	case "integer":
		return "must be an integer"
	case "number":
		return "must be a number"
	case "string":
		return "must be a string"
	case "array":
		return "must be an array"
	case "object":
		return "must be a JSON object"
	}
	return "must be " + strings.Join(types, " or ")
}

func (f *Field) itemNoun() string {
	if f.ItemFormat == FormatURI {
		return "URL"
	}
	return "value"
}

func (f *Field) checkEnum(v any) error {
	if len(f.Enum) == 0 {
		return nil
	}
	s, ok := enumSpelling(v)
	if !ok {
		return nil
	}
	for _, e := range f.Enum {
		if e == s {
			return nil
		}
	}
	return f.invalid("must be one of %s", strings.Join(f.Enum, ", "))
}

// enumSpelling spells a scalar as the tool list's enum does (strings as
// they are, numbers and booleans as JSON); false for other values.
func enumSpelling(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool, int, int64, float64, json.Number:
		b, err := json.Marshal(x)
		return string(b), err == nil
	}
	return "", false
}

func (f *Field) checkInteger(v any) (any, error) {
	n, ok := asInt(v)
	if !ok && !isWholeNumber(v) {
		return nil, f.invalid("must be an integer")
	}
	// !ok here: a whole number too large for an int32.
	if !ok || f.Min != nil && float64(n) < *f.Min || f.Max != nil && float64(n) > *f.Max {
		if f.Min == nil && f.Max == nil {
			return nil, f.invalid("must be an integer between %d and %d", math.MinInt32, math.MaxInt32)
		}
		return nil, f.invalid("%s", f.rangeRule())
	}
	return n, f.checkEnum(n)
}

func (f *Field) checkNumber(v any) (any, error) {
	n, ok := asFloat(v)
	if !ok || math.IsNaN(n) || math.IsInf(n, 0) {
		return nil, f.invalid("must be a number")
	}
	if f.Min != nil && n < *f.Min || f.Max != nil && n > *f.Max {
		return nil, f.invalid("%s", f.rangeRule())
	}
	return n, f.checkEnum(n)
}

// rangeRule words the field's bounds.
func (f *Field) rangeRule() string {
	switch {
	case f.Min != nil && f.Max != nil:
		return fmt.Sprintf("must be between %s and %s", FormatNumber(*f.Min), FormatNumber(*f.Max))
	case f.Min != nil:
		return "must be at least " + FormatNumber(*f.Min)
	default:
		return "must be at most " + FormatNumber(*f.Max)
	}
}

// FormatNumber writes a bound or a default as a person would: 20, 0.5.
func FormatNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func (f *Field) checkString(s string) (any, error) {
	if f.Required && strings.TrimSpace(s) == "" {
		return nil, f.invalid("must not be empty")
	}
	if f.MaxLength > 0 && utf8.RuneCountInString(s) > f.MaxLength {
		return nil, f.invalid("must be at most %d characters", f.MaxLength)
	}
	if err := f.checkEnum(s); err != nil {
		return nil, err
	}
	if f.Separator != "" {
		if _, err := f.listItems(splitOn(s, f.Separator)); err != nil {
			return nil, err
		}
		return s, nil
	}
	if err := f.checkFormat(f.Format, s, false); err != nil {
		return nil, err
	}
	return s, nil
}

// checkFormat checks a string against a format; an element of a list is
// quoted in the rule, so the user sees which one.
func (f *Field) checkFormat(format, s string, element bool) error {
	var rule string
	switch format {
	case FormatDate:
		if _, err := time.Parse("2006-01-02", s); err != nil {
			rule = "a date in the form YYYY-MM-DD"
		}
	case FormatURI:
		if !isHTTPURL(s) {
			rule = "an absolute http or https URL"
		}
	}
	switch {
	case rule == "":
		return nil
	case element:
		return f.invalid("%q is not %s", truncateRunes(s, 80), rule)
	}
	return f.invalid("must be %s", rule)
}

// checkList checks a list given as one string (split at the separator) or
// as an array, whose string elements are split too.
func (f *Field) checkList(v any) (any, error) {
	sep := f.Separator
	if sep == "" {
		sep = ListSeparator
	}
	var items []string
	switch x := v.(type) {
	case string:
		items = splitOn(x, sep)
	case []string:
		for _, s := range x {
			items = append(items, splitOn(s, sep)...)
		}
	case []any:
		if f.Items != "" && f.Items != "string" {
			// An array of numbers or objects: each element is checked
			// as a field of the element type.
			el := Field{Name: f.Name, Type: f.Items, Format: f.ItemFormat}
			for i, e := range x {
				if _, err := el.Check(e); err != nil {
					return nil, f.invalid("element %d: %s", i, err.(*FieldError).Rule)
				}
			}
			if f.MaxItems > 0 && len(x) > f.MaxItems {
				return nil, f.invalid("must hold at most %d %ss", f.MaxItems, f.itemNoun())
			}
			return x, nil
		}
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, f.invalid("element %d must be a string", i)
			}
			items = append(items, splitOn(s, sep)...)
		}
	}
	return f.listItems(items)
}

func (f *Field) listItems(items []string) ([]string, error) {
	if len(items) == 0 {
		return nil, f.invalid("must hold at least one %s", f.itemNoun())
	}
	if f.MaxItems > 0 && len(items) > f.MaxItems {
		return nil, f.invalid("must hold at most %d %ss", f.MaxItems, f.itemNoun())
	}
	for _, s := range items {
		if err := f.checkFormat(f.ItemFormat, s, true); err != nil {
			return nil, err
		}
	}
	return items, nil
}

func asInt(v any) (int, bool) {
	switch v := v.(type) {
	case json.Number:
		if n, err := v.Int64(); err == nil && n >= math.MinInt32 && n <= math.MaxInt32 {
			return int(n), true
		}
		if f, err := v.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) <= math.MaxInt32 {
			return int(f), true
		}
	case float64:
		if v == math.Trunc(v) && math.Abs(v) <= math.MaxInt32 {
			return int(v), true
		}
	case int:
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			return v, true
		}
	case int64:
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			return int(v), true
		}
	}
	return 0, false
}

// isWholeNumber reports a number without a fraction, however large.
func isWholeNumber(v any) bool {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return (err == nil || math.IsInf(f, 0)) && f == math.Trunc(f)
	case float64:
		return n == math.Trunc(n)
	case int, int64:
		return true
	}
	return false
}

func asFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
