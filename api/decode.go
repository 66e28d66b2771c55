package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// The typed decoders of the five known tool outputs. Each keeps the fields
// it does not know in Extra, at every level, and names the field whose
// value has the wrong type.

// DecodeSearch decodes the output of vendor_search.
func DecodeSearch(raw json.RawMessage) (*SearchOutput, error) { return decodeOutput[SearchOutput](raw) }

// DecodeExtract decodes the output of vendor_extract.
func DecodeExtract(raw json.RawMessage) (*ExtractOutput, error) {
	return decodeOutput[ExtractOutput](raw)
}

// DecodeCrawl decodes the output of vendor_crawl.
func DecodeCrawl(raw json.RawMessage) (*CrawlOutput, error) { return decodeOutput[CrawlOutput](raw) }

// DecodeMap decodes the output of vendor_map.
func DecodeMap(raw json.RawMessage) (*MapOutput, error) { return decodeOutput[MapOutput](raw) }

// DecodeResearch decodes the output of vendor_research.
func DecodeResearch(raw json.RawMessage) (*ResearchOutput, error) {
	return decodeOutput[ResearchOutput](raw)
}

func decodeOutput[T any](raw json.RawMessage) (*T, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, malformed(fmt.Errorf("output: want a JSON object, got %s", snippet(raw)))
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, malformed(describeJSONError(err))
	}
	return &v, nil
}

// DecodeVoices decodes the voice list: an array of voices, or one wrapped
// under voices, items or data.
func DecodeVoices(raw json.RawMessage) ([]Voice, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		var w map[string]json.RawMessage
		if err := json.Unmarshal(raw, &w); err == nil {
			for _, k := range []string{"voices", "items", "data"} {
				if v, ok := w[k]; ok {
					raw = bytes.TrimSpace(v)
					break
				}
			}
		}
	}
	if len(raw) == 0 || raw[0] != '[' {
		return nil, malformed(fmt.Errorf("voice list: want a JSON array, got %s", snippet(raw)))
	}
	var vs []Voice
	if err := json.Unmarshal(raw, &vs); err != nil {
		return nil, malformed(fmt.Errorf("voice list: %w", describeJSONError(err)))
	}
	return vs, nil
}

// describeJSONError turns encoding/json's errors into ones naming the
// field and the rule.
func describeJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "(top level)"
		}
		return fmt.Errorf("field %s: must be %s, got JSON %s", field, jsonKind(te.Type), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("not valid JSON at byte %d: %v", se.Offset, se)
	}
	return err
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Slice:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.String()
}

var knownKeysCache sync.Map // reflect.Type -> map[string]bool

func knownKeys(t reflect.Type) map[string]bool {
	if v, ok := knownKeysCache.Load(t); ok {
		return v.(map[string]bool)
	}
	keys := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = t.Field(i).Name
		}
		keys[name] = true
	}
	knownKeysCache.Store(t, keys)
	return keys
}

// splitExtra returns the members of the JSON object b that plain's type
// does not declare.
func splitExtra(b []byte, plain any) (Extra, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	known := knownKeys(reflect.TypeOf(plain))
	var extra Extra
	for k, v := range all {
		// encoding/json matches keys case-insensitively; so do we.
		if known[k] || known[strings.ToLower(k)] {
			continue
		}
		if extra == nil {
			extra = Extra{}
		}
		extra[k] = v
	}
	return extra, nil
}

// mergeExtra writes plain as JSON with extra's members added (declared
// fields win).
func mergeExtra(plain any, extra Extra) ([]byte, error) {
	b, err := json.Marshal(plain)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	for k, v := range extra {
		if _, ok := all[k]; !ok && json.Valid(v) {
			all[k] = v
		}
	}
	return json.Marshal(all)
}

func unmarshalObject[P any](b []byte, p *P) (Extra, error) {
	if err := json.Unmarshal(b, p); err != nil {
		return nil, err
	}
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil, nil
	}
	return splitExtra(b, *p)
}

func (o *SearchOutput) UnmarshalJSON(b []byte) error {
	type plain SearchOutput
	var p plain
	extra, err := unmarshalObject(b, &p)
	if err != nil {
		return err
	}
	*o = SearchOutput(p)
	o.Extra = extra
	return nil
}

func (o SearchOutput) MarshalJSON() ([]byte, error) {
	type plain SearchOutput
	return mergeExtra(plain(o), o.Extra)
}

func (o *SearchResult) UnmarshalJSON(b []byte) error {
	type plain SearchResult
	var p plain
	extra, err := unmarshalObject(b, &p)
	if err != nil {
		return err
	}
	*o = SearchResult(p)
	o.Extra = extra
	return nil
}

func (o SearchResult) MarshalJSON() ([]byte, error) {
	type plain SearchResult
	return mergeExtra(plain(o), o.Extra)
}

// UnmarshalJSON accepts an object with url and description, or a bare URL.
func (o *SearchImage) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*o = SearchImage{URL: s}
		return nil
	}
	type plain SearchImage
	var p plain
	extra, err := unmarshalObject(b, &p)
	if err != nil {
		return err
	}
	*o = SearchImage(p)
	o.Extra = extra
	return nil
}

func (o SearchImage) MarshalJSON() ([]byte, error) {
	type plain SearchImage
	return mergeExtra(plain(o), o.Extra)
}

func (o *ExtractOutput) UnmarshalJSON(b []byte) error {
	type plain ExtractOutput
	var p plain
	extra, err := unmarshalObject(b, &p)
	if err != nil {
		return err
	}
	*o = ExtractOutput(p)
	o.Extra = extra
	return nil
}

func (o ExtractOutput) MarshalJSON() ([]byte, error) {
	type plain ExtractOutput
	return mergeExtra(plain(o), o.Extra)
}

func (o *PageContent) UnmarshalJSON(b []byte) error {
	type plain PageContent
	var p plain
	// Images may be objects with url (as in search) rather than strings.
	var probe struct {
		Images []json.RawMessage `json:"images"`
	}
	if json.Unmarshal(b, &probe) == nil && len(probe.Images) > 0 {
		var urls []string
		allStrings := true
		for _, im := range probe.Images {
			var si SearchImage
			if err := json.Unmarshal(im, &si); err != nil {
				allStrings = false
				break
			}
			urls = append(urls, si.URL)
		}
		if allStrings {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(b, &m); err != nil {
				return err
			}
			nb, _ := json.Marshal(urls)
			m["images"] = nb
			b, _ = json.Marshal(m)
		}
	}
	extra, err := unmarshalObject(b, &p)
	if err != nil {
		return err
	}
	*o = PageContent(p)
	o.Extra = extra
	return nil
}

func (o PageContent) MarshalJSON() ([]byte, error) {
	type plain PageContent
	return mergeExtra(plain(o), o.Extra)
}

func (o *FailedExtract) UnmarshalJSON(b []byte) error {
	type plain FailedExtract
	var p plain
	extra, err := unmarshalObject(b, &p)
	if err != nil {
		return err
	}
	*o = FailedExtract(p)
	o.Extra = extra
	return nil
}

func (o FailedExtract) MarshalJSON() ([]byte, error) {
	type plain FailedExtract
	return mergeExtra(plain(o), o.Extra)
}

func (o *CrawlOutput) UnmarshalJSON(b []byte) error {
	type plain CrawlOutput
	var p plain
	extra, err := unmarshalObject(b, &p)
	if err != nil {
		return err
	}
	*o = CrawlOutput(p)
	o.Extra = extra
	return nil
}

func (o CrawlOutput) MarshalJSON() ([]byte, error) {
	type plain CrawlOutput
	return mergeExtra(plain(o), o.Extra)
}

func (o *MapOutput) UnmarshalJSON(b []byte) error {
	type plain MapOutput
	var p plain
	extra, err := unmarshalObject(b, &p)
	if err != nil {
		return err
	}
	*o = MapOutput(p)
	o.Extra = extra
	return nil
}

func (o MapOutput) MarshalJSON() ([]byte, error) {
	type plain MapOutput
	return mergeExtra(plain(o), o.Extra)
}

// UnmarshalJSON accepts an object with url, or a bare URL string.
func (o *MapLink) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*o = MapLink{URL: s}
		return nil
	}
	type plain MapLink
	var p plain
	extra, err := unmarshalObject(b, &p)
	if err != nil {
		return err
	}
	*o = MapLink(p)
	o.Extra = extra
	return nil
}

func (o MapLink) MarshalJSON() ([]byte, error) {
	type plain MapLink
	return mergeExtra(plain(o), o.Extra)
}

func (o *ResearchOutput) UnmarshalJSON(b []byte) error {
	type plain ResearchOutput
	var p plain
	extra, err := unmarshalObject(b, &p)
	if err != nil {
		return err
	}
	*o = ResearchOutput(p)
	o.Extra = extra
	return nil
}

func (o ResearchOutput) MarshalJSON() ([]byte, error) {
	type plain ResearchOutput
	return mergeExtra(plain(o), o.Extra)
}

func (o *ResearchSource) UnmarshalJSON(b []byte) error {
	type plain ResearchSource
	var p plain
	extra, err := unmarshalObject(b, &p)
	if err != nil {
		return err
	}
	*o = ResearchSource(p)
	o.Extra = extra
	return nil
}

func (o ResearchSource) MarshalJSON() ([]byte, error) {
	type plain ResearchSource
	return mergeExtra(plain(o), o.Extra)
}

func (o *Voice) UnmarshalJSON(b []byte) error {
	type plain Voice
	var p plain
	extra, err := unmarshalObject(b, &p)
	if err != nil {
		return err
	}
	*o = Voice(p)
	o.Extra = extra
	return nil
}

func (o Voice) MarshalJSON() ([]byte, error) {
	type plain Voice
	return mergeExtra(plain(o), o.Extra)
}
