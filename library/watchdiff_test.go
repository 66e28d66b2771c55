package library

import (
	"context"
	"strings"
	"testing"
	"time"

	"hark/api"
)

func TestWordDiff(t *testing.T) {
	t.Parallel()
	old := "The okapi is a giraffid of the Congo.\nIts stripes hide it in the forest.\nIt eats leaves."
	new := "The okapi is a giraffid of the Congo.\nIts stripes mark it out in the forest.\nIt eats leaves."
	ops := WordDiff(old, new)
	var got []string
	for _, o := range ops {
		if o.Kind != '=' {
			got = append(got, string(o.Kind)+o.Text)
		}
	}
	if strings.Join(got, "|") != "-hide|+mark|+out" && strings.Join(got, "|") != "+mark|-hide|+out" {
		t.Errorf("diff: %v", got)
	}
	if lines := DiffLines(ops, 3, 80); !strings.Contains(strings.Join(lines, " "), "stripes [-hide-] {+mark out+} it") && !strings.Contains(strings.Join(lines, " "), "stripes [-hide-] {+mark+} it {+out+}") {
		t.Errorf("lines: %q", lines)
	}
	if Changed(WordDiff(old, old)) {
		t.Error("the same text changed")
	}
	if ops := WordDiff("", "new words"); len(ops) != 1 || ops[0].Kind != '+' {
		t.Errorf("from nothing: %+v", ops)
	}
}

// The change touches the highlight on the sentence it rewrote, and the
// report quote that no longer stands; not the one it left alone.
func TestTouched(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	ctx := context.Background()
	const u = "https://docs.example/okapi"
	it := keepPage(t, s, u, okapiPage, time.Now())
	hit := highlight(t, s, it, "Its stripes hide it in the forest.", "camouflage")
	highlight(t, s, it, "It eats leaves.", "diet")
	rep := &Item{Kind: KindResearch, Tool: api.ToolResearch, Title: "q", Query: "q", Body: "r",
		Output: `{"request_id":"r","status":"completed","content":"x","sources":[{"title":"Okapi","url":"` + u + `"}],"passages":[{"source":1,"url":"` + u + `","quote":"The okapi is a giraffid of the Congo.","start":0,"end":10}]}`}
	s.Add(ctx, rep)
	old := "Okapi facts\nThe okapi is a giraffid of the Congo. Its stripes hide it in the forest.\nIt eats leaves."
	new := "Okapi facts\nThe okapi is a mammal of the Congo. Its stripes mark it out in the forest.\nIt eats leaves."
	flags, err := s.Touched(ctx, u, old, new, WordDiff(old, new))
	if err != nil {
		t.Fatal(err)
	}
	if len(flags) != 2 || flags[0].Highlight == nil || flags[0].Highlight.ID != hit.ID || flags[0].State != api.PassageGone ||
		flags[1].Report != rep.ID || flags[1].State != api.PassageGone {
		t.Fatalf("flags: %+v", flags)
	}
}

// A change in each of two paragraphs far apart is two passages, each
// with its context; kept words between them are left out.
func TestDiffPassages(t *testing.T) {
	t.Parallel()
	filler := strings.Repeat("kept words of the page ", 10)
	old := "Heading\n\nThe okapi hides in the forest. " + filler + "It eats leaves and fruit."
	new := "Heading\n\nThe okapi lives in the forest. " + filler + "It eats leaves, buds and fruit."
	ps := DiffPassages(WordDiff(old, new), 3)
	if len(ps) != 2 {
		t.Fatalf("passages: %q", ps)
	}
	if ps[0] != "… Heading The okapi [-hides-] {+lives+} in the forest. …" && ps[0] != "Heading The okapi [-hides-] {+lives+} in the forest. …" {
		t.Errorf("first passage: %q", ps[0])
	}
	if !strings.HasPrefix(ps[1], "… page It eats [-leaves-] {+leaves, buds+} and fruit.") {
		t.Errorf("second passage: %q", ps[1])
	}
	if got := DiffPassages(WordDiff(old, old), 3); len(got) != 0 {
		t.Errorf("no change gave %q", got)
	}
}
