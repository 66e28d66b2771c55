package api

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Object is a JSON object that keeps its members in order when written:
// the tool list shows fields in the order the spec lists them. It is the
// one ordered-JSON writer of hark.
type Object []Member

// Member is one key and value of an Object.
type Member struct {
	Key   string
	Value any
}

// MarshalJSON writes the members in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(m.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// InputSchema is a tool's inputs written as the JSON Schema object of the
// tool list: properties in the fields' order, required names in the same
// order, other inputs allowed.
type InputSchema []Field

// MarshalJSON writes the schema.
func (s InputSchema) MarshalJSON() ([]byte, error) {
	props := make(Object, len(s))
	var required []string
	for i, f := range s {
		props[i] = Member{f.Name, f}
		if f.Required {
			required = append(required, f.Name)
		}
	}
	return json.Marshal(struct {
		Type                 string   `json:"type"`
		Properties           Object   `json:"properties"`
		Required             []string `json:"required,omitempty"`
		AdditionalProperties bool     `json:"additionalProperties"`
	}{"object", props, required, true})
}

// MarshalJSON writes the field as a JSON Schema property. A required
// string also says minLength 1: "" is not a value of it.
func (f Field) MarshalJSON() ([]byte, error) {
	type items struct {
		Type   string `json:"type,omitempty"`
		Format string `json:"format,omitempty"`
	}
	p := struct {
		Type        any               `json:"type,omitempty"`
		Description string            `json:"description,omitempty"`
		Default     any               `json:"default,omitempty"`
		Enum        []json.RawMessage `json:"enum,omitempty"`
		Minimum     *float64          `json:"minimum,omitempty"`
		Maximum     *float64          `json:"maximum,omitempty"`
		MinLength   int               `json:"minLength,omitempty"`
		MaxLength   int               `json:"maxLength,omitempty"`
		MaxItems    int               `json:"maxItems,omitempty"`
		Format      string            `json:"format,omitempty"`
		Items       *items            `json:"items,omitempty"`
		Separator   string            `json:"x-separator,omitempty"`
	}{Description: f.Description, Default: f.Default, Minimum: f.Min, Maximum: f.Max,
		MaxLength: f.MaxLength, MaxItems: f.MaxItems, Format: f.Format, Separator: f.Separator}
	for _, e := range f.Enum {
		// Enum holds numbers and booleans in JSON spelling: a field that
		// takes no string lists them as JSON values again.
		v, _ := json.Marshal(e)
		if !f.HasType("string") && f.Type != "" && json.Valid([]byte(e)) {
			v = json.RawMessage(e)
		}
		p.Enum = append(p.Enum, v)
	}
	switch types := strings.Split(f.Type, "|"); {
	case f.Type == "":
	case len(types) == 1:
		p.Type = types[0]
	default:
		p.Type = types
	}
	if f.Required && f.Type == "string" {
		p.MinLength = 1
	}
	if f.Items != "" || f.ItemFormat != "" {
		p.Items = &items{f.Items, f.ItemFormat}
	}
	return json.Marshal(p)
}
