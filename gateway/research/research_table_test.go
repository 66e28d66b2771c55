package research

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"hark/api"
)

// A fact a manual gives only in a data table (a type's range) is
// found end to end: the folder indexed, the question asked, the table's
// row quoted as a statement with its header and the page cited, and
// the row's passages found at their places in the page's kept text. A
// question the page's prose answers is still answered from its prose.
func TestResearchQuotesATableRow(t *testing.T) {
	ctx := context.Background()
	e := testEngine(t, nil)
	dir, err := filepath.Abs("testdata/tables")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Index(ctx, dir); err != nil {
		t.Fatal(err)
	}
	page := "file://" + filepath.Join(dir, "numeric.html")

	out, err := e.Research(ctx, api.ResearchInput{Input: "What is the range of the tinyint type?", Model: "mini"})
	if err != nil || out.Status != api.ResearchCompleted {
		t.Fatalf("%v %+v", err, out)
	}
	checkPassages(t, e, out)
	row := "`tinyint` — Storage Size: 2 bytes; Description: small-range whole number; Range: -32768 to +32767."
	n := 0
	for i, s := range out.Sources {
		if s.URL == page {
			n = i + 1
		}
	}
	if n == 0 || !strings.Contains(out.Content, row+" ["+string(rune('0'+n))+"]") {
		t.Errorf("the report lacks the row %q cited as the page (source %d):\n%s", row, n, out.Content)
	}
	var quotes []string
	for _, p := range out.Passages {
		if p.URL == page && p.Start >= 0 {
			quotes = append(quotes, p.Quote)
		}
	}
	for _, want := range []string{"Name | Storage Size | Description | Range", "tinyint | 2 bytes | small-range whole number | -32768 to +32767"} {
		if !strings.Contains(strings.Join(quotes, "\n"), want) {
			t.Errorf("no passage %q found in the page: %q", want, quotes)
		}
	}

	out, err = e.Research(ctx, api.ResearchInput{Input: "When should the tinyint type be used?", Model: "mini"})
	if err != nil || out.Status != api.ResearchCompleted {
		t.Fatalf("%v %+v", err, out)
	}
	checkPassages(t, e, out)
	if !strings.Contains(out.Content, "only used if disk space is at a premium") {
		t.Errorf("the prose's answer is crowded out:\n%s", out.Content)
	}
}
