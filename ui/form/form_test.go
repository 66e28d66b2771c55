package form

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/embedded"
	"hark/ui/common"
	"hark/ui/internal/uitest"
)

func f64(v float64) *float64 { return &v }

func TestValidation(t *testing.T) {
	tool := api.Tool{Slug: "t", Inputs: []api.Field{
		{Name: "q", Type: "string", Required: true},
		{Name: "n", Type: "integer", Min: f64(1), Max: f64(20), Default: 5.0},
		{Name: "x", Type: "number", Min: f64(0)},
		{Name: "d", Type: "string", Format: api.FormatDate, Description: "only results after this date"},
		{Name: "dom", Type: "string", Separator: api.ListSeparator, Description: "domain allow-list"},
		{Name: "extra", Type: "object"},
	}}
	f := New(tool, common.NewStyles(true, false))
	for _, tc := range []struct{ field, value, err string }{
		{"q", "", "is required"},
		{"q", "ok", ""},
		{"n", "0", "must be between 1 and 20"},
		{"n", "2.5", "must be an integer"},
		{"n", "abc", "must be an integer"},
		{"x", "abc", "must be a number"},
		{"n", "20", ""},
		{"x", "-1", "must be at least 0"},
		{"d", "2026-02-30", "must be a date in the form YYYY-MM-DD"},
		{"d", "2026-02-28", ""},
		{"dom", " , ", "must hold at least one value"},
		{"extra", "[1]", "must be a JSON object"},
		{"extra", `{"a":1}`, ""},
	} {
		f.Set(tc.field, tc.value)
		if got := f.Control(tc.field).Err; got != tc.err {
			t.Errorf("%s=%q: error %q, want %q", tc.field, tc.value, got, tc.err)
		}
	}
}

func TestDefaultsPrefilledAndNotSent(t *testing.T) {
	f := searchForm(t)
	if v := f.Control("max_results").Value(); v != "5" {
		t.Errorf("max_results prefilled %q", v)
	}
	if v := f.Control("search_depth").Value(); v != "basic" {
		t.Errorf("search_depth prefilled %q", v)
	}
	f.Set("query", "hello")
	f.Set("include_domains", "a.com,b.org")
	if !f.Validate() {
		t.Fatal(f.Errors())
	}
	in := f.Inputs()
	if len(in) != 2 || in["query"] != "hello" || in["include_domains"] != "a.com,b.org" {
		t.Errorf("inputs %v", in)
	}
}

func TestKinds(t *testing.T) {
	for _, tc := range []struct {
		f    api.Field
		want Kind
	}{
		{api.Field{Type: "string", Enum: []string{"a"}}, Enum},
		{api.Field{Type: "boolean"}, Bool},
		{api.Field{Type: "integer"}, Integer},
		{api.Field{Type: "number"}, Number},
		{api.Field{Type: "string", Format: "date"}, Date},
		{api.Field{Type: "string|array", Items: "string"}, List},
		{api.Field{Type: "string", Separator: ","}, List},
		// Prose is not read for hints: the schema says what a field is.
		{api.Field{Type: "string", Description: "domains, comma-separated; yyyy-mm-dd"}, Text},
		{api.Field{Type: "object"}, Object},
		{api.Field{Type: "weird"}, Text},
	} {
		if got := KindOf(tc.f); got != tc.want {
			t.Errorf("KindOf(%+v) = %v, want %v", tc.f, got, tc.want)
		}
	}
}

// The footer names a field's kind once: "integer · default 5", not
// "integer · integer · default 5".
func TestFooterNamesTheKindOnce(t *testing.T) {
	tool := api.Tool{Slug: "t", Inputs: []api.Field{{Name: "n", Type: "integer", Min: f64(1), Max: f64(20), Default: 5.0}}}
	f := New(tool, common.NewStyles(true, false))
	f.SetSize(80, 10)
	v := uitest.Plain(f.View())
	if !strings.Contains(v, "n (integer · default 5)") || strings.Contains(v, "integer · integer") {
		t.Errorf("footer:\n%s", v)
	}
}

// The embedded gateway's refusals, as it words them ("invalid <field>:
// <rule>"), land at the field they name with the whole rule: a message
// that mentions another field (end_date's rule names start_date) does not
// mislead it.
func TestFailOnNamesTheGatewaysField(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := embedded.Start(ctx, t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Stop)
	cl, err := api.New(api.Options{BaseURL: g.URL, APIKey: g.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cl.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tool := func(slug string) api.Tool {
		for _, tl := range tools {
			if tl.Slug == slug {
				return tl
			}
		}
		t.Fatalf("no %s in the tool list", slug)
		return api.Tool{}
	}
	for _, tc := range []struct {
		slug   string
		inputs map[string]any
		field  string
		rule   string
	}{
		{api.ToolSearch, map[string]any{"query": "x", "start_date": "2025-06-01", "end_date": "2024-01-01"}, "end_date", "must not be before start_date"},
		{api.ToolExtract, map[string]any{"urls": []string{"ftp://example.com/x"}}, "urls", "is not an absolute http or https URL"},
		// A long URL leaves the rule on screen: the error wraps.
		{api.ToolExtract, map[string]any{"urls": []string{"file:///usr/share/doc/espeak-ng/docs/integration.html"}}, "urls", "is not an absolute http or https URL"},
		{api.ToolCrawl, map[string]any{"url": "https://example.com", "select_paths": "([a-z"}, "select_paths", "is not a valid regular expression"},
	} {
		_, err := cl.Invoke(ctx, tc.slug, tc.inputs)
		if err == nil {
			t.Fatalf("%s %v: the gateway accepted it", tc.slug, tc.inputs)
		}
		f := New(tool(tc.slug), common.NewStyles(true, false))
		f.SetInputs(tc.inputs)
		named, _ := f.FailOn(fmt.Errorf("%s: %w", tc.slug, err))
		if !named {
			t.Errorf("%s: %q named no field", tc.slug, err)
			continue
		}
		c := f.Controls[f.Focused()]
		if c.Field.Name != tc.field {
			t.Errorf("%s: %q focused %s, want %s", tc.slug, err, c.Field.Name, tc.field)
		}
		if !strings.Contains(c.Err, tc.rule) || strings.Contains(c.Err, "HTTP") || strings.Contains(c.Err, "trace") {
			t.Errorf("%s: %s shows %q, want the gateway's rule %q alone", tc.slug, c.Field.Name, c.Err, tc.rule)
		}
		f.SetSize(80, 20)
		if v := uitest.Plain(f.View()); !strings.Contains(strings.Join(strings.Fields(v), " "), tc.rule) {
			t.Errorf("%s: the form at 80 columns does not show the whole rule %q:\n%s", tc.slug, tc.rule, v)
		}
		// The other fields keep what was typed.
		for name, v := range tc.inputs {
			if got := f.Control(name).Value(); got != defaultText(v) && !(name == "urls" || name == "select_paths") {
				t.Errorf("%s: %s is %q after the refusal", tc.slug, name, got)
			}
		}
	}
}

// At 80 columns a long field name is read whole
// ("include_image_descripti…" was cut at 24 columns); at 50 the names'
// column still leaves the values room.
func TestLongNamesReadWholeAt80(t *testing.T) {
	f := searchForm(t)
	f.SetSize(80, 30)
	if v := uitest.Plain(f.View()); !strings.Contains(v, "include_image_descriptions ") {
		t.Errorf("a name cut at 80 columns:\n%s", v)
	}
	f.SetSize(50, 30)
	if f.labelWidth() > 24 {
		t.Errorf("at 50 columns the names take %d", f.labelWidth())
	}
}

// searchForm is the form of the served tool list's vendor_search.
func searchForm(t *testing.T) *Form {
	c, _ := uitest.Common(t, nil)
	for _, tl := range c.Tools {
		if tl.Slug == api.ToolSearch {
			return New(tl, c.Styles)
		}
	}
	t.Fatal("the tool list serves no " + api.ToolSearch)
	return nil
}
