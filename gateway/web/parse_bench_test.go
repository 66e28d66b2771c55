package web

import (
	"os"
	"testing"
	"time"
)

func BenchmarkParseHTML(b *testing.B) {
	body, err := os.ReadFile("/usr/share/doc/valgrind/html/dist.readme-android.html")
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
