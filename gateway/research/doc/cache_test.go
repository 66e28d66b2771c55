package doc

import (
	"fmt"
	"testing"
)

// The cache hands out one parse of a page, reads a page anew when its
// text changed, and keeps at most maxCachedDocs pages.
func TestCache(t *testing.T) {
	t.Parallel()
	var c Cache
	const u, md = "https://docs.example/a", "# A\n\nMemcheck is a memory error detector. It finds leaks.\n"
	a, b := c.Read(u, "A", "", md, nil), c.Read(u, "A", "", md, nil)
	if a != b || len(a.Sents) == 0 {
		t.Fatalf("want one parse, read once: %p %p", a, b)
	}
	if d := c.Read(u, "A", "", "# A\n\nMassif is a heap profiler.\n", nil); d.Sents[0].Text != "Massif is a heap profiler." {
		t.Errorf("a changed page was not read anew: %q", d.Sents[0].Text)
	}
	for i := range maxCachedDocs + 5 {
		c.Read(fmt.Sprintf("https://docs.example/%d", i), "P", "Some text here.", "", nil)
	}
	if len(c.byURL) != maxCachedDocs || len(c.order) != maxCachedDocs {
		t.Errorf("cache holds %d pages (%d in order), want %d", len(c.byURL), len(c.order), maxCachedDocs)
	}
}

// A copy stored under another title (a page read under its URL) is
// parsed anew.
func TestCacheReadsACopyOfItsTitle(t *testing.T) {
	t.Parallel()
	var c Cache
	enc := Parse("Memcheck", "Memcheck finds leaks.", "")
	if d := c.Read("file:///m", "file:///m", "Memcheck finds leaks.", "", enc); d.Title != "file:///m" {
		t.Fatalf("the copy of another title was read: %q", d.Title)
	}
}
