package web

import (
	"strings"
	"testing"
	"time"
)

// format=markdown leads with the page's headline, as a reader shows it;
// format=text is the article's body alone, with or without a query.
func TestTextFormatIsTheBodyAlone(t *testing.T) {
	t.Parallel()
	page := `<html><head><title>Rain in Spain</title></head><body><nav><a href="/">Home</a></nav>
<h1>Rain in Spain</h1><p>It falls mainly on the plain, say the people who measure it, year after year, in every season.</p></body></html>`
	p, err := parseHTML("http://news.example/rain", []byte(page), "", time.Now(), extractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if md := renderBody(p, "markdown", ""); !strings.HasPrefix(md, "# Rain in Spain\n") {
		t.Errorf("markdown does not lead with the headline:\n%s", md)
	}
	for _, q := range []string{"", "plain"} {
		if tx := renderBody(p, "text", q); strings.Contains(tx, "Rain in Spain") || !strings.Contains(tx, "It falls mainly") {
			t.Errorf("text with query %q:\n%s", q, tx)
		}
	}
}
