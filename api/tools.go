package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// Tool is one entry of the live tool list. Inputs lists the tool's input
// fields in the order the gateway gave them. Raw is the entry exactly as
// received, so nothing hark does not understand is lost.
type Tool struct {
	Slug        string
	Name        string
	Description string
	Inputs      []Field
	Raw         json.RawMessage
}

// DecodeToolList decodes the tool list, whose shape the spec does not fix.
// It accepts a bare array or one wrapped in an object under tools, items or
// data (or an object mapping slugs to tools); entries naming the tool as
// slug, name or tool (or a bare string); and input schemas under
// input_schema, inputSchema, parameters, inputs or fields, given as JSON
// Schema, a list of field descriptions, or an object of field descriptions.
// Entries without a usable slug are skipped; a list with none is an error.
// Errors are ErrMalformed and do not repeat "tool list": the caller's
// error names what it decoded (Client.Tools says "tool list: ...").
func DecodeToolList(data []byte) ([]Tool, error) {
	tools, err := decodeToolList(data)
	return tools, malformed(err)
}

func decodeToolList(data []byte) ([]Tool, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return nil, errors.New("empty")
	}
	items, err := toolItems(data, 0)
	if err != nil {
		return nil, err
	}
	tools := make([]Tool, 0, len(items))
	for _, it := range items {
		t, ok := decodeTool(it.raw, it.key)
		if ok {
			tools = append(tools, t)
		}
	}
	if len(tools) == 0 && len(items) > 0 {
		return nil, errors.New("no entry names a tool (want slug, name or tool)")
	}
	return tools, nil
}

type toolItem struct {
	key string // slug from an enclosing map, if any
	raw json.RawMessage
}

func toolItems(data []byte, depth int) ([]toolItem, error) {
	if depth > 3 {
		return nil, errors.New("nested too deeply")
	}
	switch data[0] {
	case '[':
		var arr []json.RawMessage
		if err := json.Unmarshal(data, &arr); err != nil {
			return nil, describeJSONError(err)
		}
		out := make([]toolItem, len(arr))
		for i, r := range arr {
			out[i] = toolItem{raw: r}
		}
		return out, nil
	case '{':
		keys, obj, err := orderedObject(data)
		if err != nil {
			return nil, describeJSONError(err)
		}
		for _, k := range []string{"tools", "items", "data"} {
			if v, ok := obj[k]; ok {
				v = bytes.TrimSpace(v)
				if len(v) > 0 && (v[0] == '[' || v[0] == '{') {
					return toolItems(v, depth+1)
				}
			}
		}
		// A single tool, or a map of slug -> tool.
		if _, t := pickString(obj, "slug", "tool"); t != "" {
			return []toolItem{{raw: data}}, nil
		}
		var out []toolItem
		for _, k := range keys {
			v := bytes.TrimSpace(obj[k])
			if len(v) > 0 && v[0] == '{' {
				out = append(out, toolItem{key: k, raw: v})
			}
		}
		if len(out) == 0 {
			return nil, errors.New("want an array of tools, or an object with tools, items or data")
		}
		return out, nil
	}
	return nil, errors.New("want a JSON array or object")
}

func decodeTool(raw json.RawMessage, key string) (Tool, bool) {
	t := Tool{Raw: raw}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return t, false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil || strings.TrimSpace(s) == "" {
			return t, false
		}
		t.Slug, t.Name = s, s
		return t, true
	}
	_, obj, err := orderedObject(raw)
	if err != nil {
		return t, false
	}
	// OpenAI-style {"type": "function", "function": {name, parameters}}.
	if fn, ok := obj["function"]; ok {
		if _, inner, err := orderedObject(fn); err == nil {
			obj = inner
		}
	}
	_, slug := pickString(obj, "slug", "tool")
	_, name := pickString(obj, "name")
	if slug == "" {
		slug = name
		name = ""
	}
	if slug == "" {
		slug = key
	}
	if slug == "" {
		return t, false
	}
	t.Slug = slug
	if name == "" {
		_, name = pickString(obj, "title", "display_name", "displayName")
	}
	if name == "" {
		name = slug
	}
	t.Name = name
	_, t.Description = pickString(obj, "description", "desc", "summary")
	for _, k := range []string{"input_schema", "inputSchema", "parameters", "inputs", "input", "fields", "schema", "args", "arguments"} {
		if v, ok := obj[k]; ok {
			t.Inputs = decodeFields(v)
			break
		}
	}
	return t, true
}

// decodeFields reads a JSON Schema object, a list of field descriptions,
// or an object mapping names to field descriptions.
func decodeFields(raw json.RawMessage) []Field {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	switch raw[0] {
	case '[':
		var arr []json.RawMessage
		if json.Unmarshal(raw, &arr) != nil {
			return nil
		}
		var out []Field
		for _, r := range arr {
			_, obj, err := orderedObject(r)
			if err != nil {
				continue
			}
			_, name := pickString(obj, "name", "field", "key", "id")
			if name == "" {
				continue
			}
			f := decodeField(name, r, obj)
			if b, ok := obj["required"]; ok {
				f.Required = truthy(b)
			}
			out = append(out, f)
		}
		return out
	case '{':
		keys, obj, err := orderedObject(raw)
		if err != nil {
			return nil
		}
		// A JSON Schema may itself be wrapped, e.g. {"schema": {...}}.
		if p, ok := obj["properties"]; ok {
			required := map[string]bool{}
			var req []string
			if json.Unmarshal(obj["required"], &req) == nil {
				for _, r := range req {
					required[r] = true
				}
			}
			pkeys, props, err := orderedObject(p)
			if err != nil {
				return nil
			}
			out := make([]Field, 0, len(pkeys))
			for _, name := range pkeys {
				f := fieldFromSchema(name, props[name])
				if required[name] {
					f.Required = true
				}
				out = append(out, f)
			}
			return out
		}
		for _, k := range []string{"schema", "json_schema", "jsonSchema"} {
			if v, ok := obj[k]; ok {
				return decodeFields(v)
			}
		}
		out := make([]Field, 0, len(keys))
		for _, name := range keys {
			out = append(out, fieldFromSchema(name, obj[name]))
		}
		return out
	}
	return nil
}

func fieldFromSchema(name string, raw json.RawMessage) Field {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return Field{Name: name, Type: normType(s), Raw: raw}
	}
	_, obj, err := orderedObject(raw)
	if err != nil {
		return Field{Name: name, Raw: raw}
	}
	f := decodeField(name, raw, obj)
	if b, ok := obj["required"]; ok && len(b) > 0 && b[0] != '[' {
		f.Required = truthy(b)
	}
	return f
}

// decodeField reads the parts common to JSON Schema properties and field
// descriptions.
func decodeField(name string, raw json.RawMessage, obj map[string]json.RawMessage) Field {
	f := Field{Name: name, Raw: raw}
	f.Type, f.Items = schemaType(obj)
	_, f.Format = pickString(obj, "format")
	_, f.Description = pickString(obj, "description", "desc", "rule", "title")
	for _, k := range []string{"default", "default_value", "defaultValue"} {
		if v, ok := obj[k]; ok {
			var d any
			if json.Unmarshal(v, &d) == nil {
				f.Default = d
			}
			break
		}
	}
	for _, k := range []string{"enum", "options", "one_of", "choices", "values"} {
		if v, ok := obj[k]; ok {
			var vals []any
			if json.Unmarshal(v, &vals) == nil {
				for _, x := range vals {
					switch x := x.(type) {
					case string:
						f.Enum = append(f.Enum, x)
					case nil:
					default:
						b, _ := json.Marshal(x)
						f.Enum = append(f.Enum, string(b))
					}
				}
			}
			break
		}
	}
	f.Min = pickNumber(obj, "minimum", "min")
	f.Max = pickNumber(obj, "maximum", "max")
	if n := pickNumber(obj, "maxLength", "max_length"); n != nil && *n > 0 {
		f.MaxLength = int(*n)
	}
	if n := pickNumber(obj, "maxItems", "max_items"); n != nil && *n > 0 {
		f.MaxItems = int(*n)
	}
	_, f.Separator = pickRawString(obj, "x-separator")
	if it, ok := obj["items"]; ok {
		if _, io, err := orderedObject(it); err == nil {
			_, f.ItemFormat = pickString(io, "format")
		}
	}
	return f
}

// schemaType returns the type (several joined by "|") and array item type.
func schemaType(obj map[string]json.RawMessage) (typ, items string) {
	var types []string
	add := func(t string) {
		t = normType(t)
		if t == "" {
			return
		}
		for _, x := range types {
			if x == t {
				return
			}
		}
		types = append(types, t)
	}
	if v, ok := obj["type"]; ok {
		var s string
		var arr []string
		if json.Unmarshal(v, &s) == nil {
			if it, ok := arrayOf(s); ok {
				add("array")
				items = it
			} else {
				for _, part := range splitTypes(s) {
					if it, ok := arrayOf(part); ok {
						add("array")
						items = it
					} else {
						add(part)
					}
				}
			}
		} else if json.Unmarshal(v, &arr) == nil {
			for _, t := range arr {
				if t != "null" {
					add(t)
				}
			}
		}
	}
	for _, k := range []string{"anyOf", "oneOf", "any_of"} {
		var alts []map[string]json.RawMessage
		if json.Unmarshal(obj[k], &alts) == nil {
			for _, a := range alts {
				t, it := schemaType(a)
				for _, p := range strings.Split(t, "|") {
					if p != "null" {
						add(p)
					}
				}
				if it != "" {
					items = it
				}
			}
		}
	}
	if it, ok := obj["items"]; ok && items == "" {
		var io map[string]json.RawMessage
		var s string
		if json.Unmarshal(it, &io) == nil {
			items, _ = schemaType(io)
		} else if json.Unmarshal(it, &s) == nil {
			items = normType(s)
		}
	}
	if items != "" && len(types) == 0 {
		add("array")
	}
	return strings.Join(types, "|"), items
}

func splitTypes(s string) []string {
	s = strings.ReplaceAll(s, " or ", "|")
	s = strings.ReplaceAll(s, ",", "|")
	s = strings.ReplaceAll(s, "/", "|")
	var out []string
	for _, p := range strings.Split(s, "|") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func arrayOf(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "[]") {
		return normType(strings.TrimSuffix(s, "[]")), true
	}
	for _, p := range []string{"array of ", "list of ", "array<", "list<", "[]"} {
		if strings.HasPrefix(strings.ToLower(s), p) {
			return normType(strings.TrimSuffix(strings.TrimSpace(s[len(p):]), ">")), true
		}
	}
	return "", false
}

// normType maps common spellings onto JSON Schema type names; anything
// else is kept as sent.
func normType(t string) string {
	t = strings.TrimSpace(t)
	switch strings.ToLower(t) {
	case "str", "string", "text":
		return "string"
	case "int", "integer", "int32", "int64", "long":
		return "integer"
	case "float", "double", "number", "float64", "decimal":
		return "number"
	case "bool", "boolean":
		return "boolean"
	case "array", "list":
		return "array"
	case "object", "map", "dict":
		return "object"
	case "strings":
		return "string"
	}
	return t
}

func truthy(b json.RawMessage) bool {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return false
	}
	switch v := v.(type) {
	case bool:
		return v
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "yes", "true", "required", "y", "1":
			return true
		}
	case float64:
		return v != 0
	}
	return false
}

func pickString(obj map[string]json.RawMessage, keys ...string) (string, string) {
	for _, k := range keys {
		if v, ok := obj[k]; ok {
			var s string
			if json.Unmarshal(v, &s) == nil && strings.TrimSpace(s) != "" {
				return k, strings.TrimSpace(s)
			}
		}
	}
	return "", ""
}

// pickRawString is pickString without the trimming: a separator may be
// a space.
func pickRawString(obj map[string]json.RawMessage, keys ...string) (string, string) {
	for _, k := range keys {
		var s string
		if v, ok := obj[k]; ok && json.Unmarshal(v, &s) == nil && s != "" {
			return k, s
		}
	}
	return "", ""
}

func pickNumber(obj map[string]json.RawMessage, keys ...string) *float64 {
	for _, k := range keys {
		if v, ok := obj[k]; ok {
			var n float64
			if json.Unmarshal(v, &n) == nil {
				return &n
			}
		}
	}
	return nil
}

// orderedObject decodes a JSON object keeping the order of its keys.
func orderedObject(raw []byte) ([]string, map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, errors.New("want a JSON object")
	}
	var keys []string
	obj := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, ok := tok.(string)
		if !ok {
			return nil, nil, errors.New("want a JSON object")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if _, dup := obj[k]; !dup {
			keys = append(keys, k)
		}
		obj[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	return keys, obj, nil
}

// MarshalJSON writes the tool in hark's canonical tool-list form: slug,
// name, description and input_schema as JSON Schema. DecodeToolList reads
// it back.
func (t Tool) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Slug        string      `json:"slug"`
		Name        string      `json:"name"`
		Description string      `json:"description,omitempty"`
		InputSchema InputSchema `json:"input_schema"`
	}{t.Slug, t.Name, t.Description, t.Inputs})
}
