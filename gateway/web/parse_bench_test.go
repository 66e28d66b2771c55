package web

import (
	"os"
	"testing"
	"time"
)

// BenchmarkParseHTML runs one real page through the whole extract path.
func BenchmarkParseHTML(b *testing.B) {
	body, err := os.ReadFile("testdata/extract/nodejs_punycode.html")
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		if _, err := parseHTML("http://example.com/x.html", body, "", time.Now(), extractOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
