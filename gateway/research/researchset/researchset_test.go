package researchset

import (
	"strings"
	"testing"
)

func TestRate(t *testing.T) {
	q := Question{ID: 1, Part: Tuning, Question: "compare memcheck and massif", Fact: []string{"heap profiler"}, Page: "valgrind/ms-manual.html"}
	clean := "# q\n\n## Summary\n\nMassif is a heap profiler. [1]\n\n## Memcheck\n\n- Memcheck is a memory error detector. [2]\n\n## Method\n\nheap profiler\n"
	s := Rate(q, clean, []string{"file:///d/valgrind/ms-manual.md", "file:///d/valgrind/mc-manual.html"})
	if !s.Answered || !s.Cited || !s.Clean() {
		t.Errorf("clean report: %+v", s)
	}
	if s.Quotes != 2 || s.OnTopic != 2 {
		t.Errorf("%d quotes, %d on topic; want 2 and 2", s.Quotes, s.OnTopic)
	}
	if s := Rate(q, clean, []string{"file:///d/valgrind/ms-manual.md", "file:///d/nodejs/os.md"}); s.Quotes != 2 || s.OnTopic != 1 {
		t.Errorf("a quote of another documentation set: %d quotes, %d on topic; want 2 and 1", s.Quotes, s.OnTopic)
	}
	if s := Rate(q, "# q\n\n## Method\n\nheap profiler\n", nil); s.Answered || s.Cited {
		t.Errorf("a fact in Method answers nothing: %+v", s)
	}
	// A fact is read as the report renders: code marks are not words.
	v := Question{ID: 3, Part: Tuning, Question: "whisper", Fact: []string{"zero value of the voicing attribute"}, Page: "espeak-ng/voices.html"}
	if s := Rate(v, "# q\n\n## Summary\n\nUse a zero value of the `voicing` attribute. [1]\n", nil); !s.Answered {
		t.Errorf("a fact with a code span in it is not read: %+v", s)
	}
	if s := Rate(v, "# q\n\n## Summary\n\nUse a zero value of the pitch attribute. [1]\n", nil); s.Answered {
		t.Errorf("another fact answers: %+v", s)
	}
	// "This is an example for …:" points at the code after it.
	if s := Rate(q, "# q\n\n## Summary\n\nThis is an example for defining a heap profiler type:\n\n```\nx\n```\n", nil); !s.Clean() {
		t.Errorf("a forward-pointing opening reads as dangling: %+v", s)
	}
	if s := Rate(q, "# q\n\n## Summary\n\nThis is an example of what went wrong. [1]\n", nil); s.Clean() {
		t.Errorf("a back-pointing opening reads as clean: %+v", s)
	}
	// "It is possible to …" points at what follows; "It is a …" back.
	if s := Rate(q, "# q\n\n## Summary\n\nIt is possible to build the heap profiler with the sanitizer. [1]\n", nil); !s.Clean() {
		t.Errorf("an opening on a dummy it reads as dangling: %+v", s)
	}
	dirty := "# q\n\n## Summary\n\nNor does it measure the size of code. [1]\n\n## Massif: what does each measure and when should I use which\n\n- It is a heap profiler. [1]\n"
	s = Rate(q, dirty, []string{"https://a/x/fs.html", "https://a/x/fs.md"})
	want := []string{"source listed twice", "dangling first sentence: Nor does", "fragment heading: Massif:", "dangling first sentence: It is"}
	got := strings.Join(s.Problems, "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("problems lack %q:\n%s", w, got)
		}
	}
}
