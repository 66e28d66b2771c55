package research

import (
	"fmt"
	"testing"
)

// The cache hands out copies of one parse, reads a page anew when its
// text changed, and keeps at most maxCachedDocs pages.
func TestDocCache(t *testing.T) {
	t.Parallel()
	var c docCache
	src := &researchSource{url: "https://docs.example/a", title: "A", markdown: "# A\n\nMemcheck is a memory error detector. It finds leaks.\n"}
	a, b := c.read(src), c.read(src)
	if a == b || len(a.sents) == 0 || &a.sents[0] != &b.sents[0] {
		t.Fatalf("want two copies of one parse: %p %p", a, b)
	}
	a.offTopic, a.url = true, "x"
	if b.offTopic || b.url != "" {
		t.Error("a report's fields leaked into another's copy")
	}
	src2 := *src
	src2.markdown = "# A\n\nMassif is a heap profiler.\n"
	if d := c.read(&src2); d.sents[0].text != "Massif is a heap profiler." {
		t.Errorf("a changed page was not read anew: %q", d.sents[0].text)
	}
	for i := range maxCachedDocs + 5 {
		c.read(&researchSource{url: fmt.Sprintf("https://docs.example/%d", i), title: "P", text: "Some text here."})
	}
	if len(c.byURL) != maxCachedDocs || len(c.order) != maxCachedDocs {
		t.Errorf("cache holds %d pages (%d in order), want %d", len(c.byURL), len(c.order), maxCachedDocs)
	}
}
