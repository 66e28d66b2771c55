package api

import (
	"strings"
	"testing"
)

func TestResearchDocument(t *testing.T) {
	src := []ResearchSource{{Title: "Rivets\nand bolts", URL: "https://rivets.example/"}}
	cases := []struct {
		name     string
		out      ResearchOutput
		question string
		meta     string
		want     string
	}{
		{"report has its own title and sources",
			ResearchOutput{Status: ResearchCompleted, Content: "# Rivets\n\nThey hold.\n\n## Sources\n\n1. rivets\n", Sources: src},
			"why rivets?", "model mini",
			"# Rivets\n\n> why rivets?\n\n_model mini_\n\nThey hold.\n\n## Sources\n\n1. rivets\n"},
		{"bare report gets the question as title and the sources list",
			ResearchOutput{Status: ResearchCompleted, Content: "They hold.", Sources: src},
			"why\nrivets?", "",
			"# why rivets?\n\nThey hold.\n\n## Sources\n\n1. [Rivets and bolts](https://rivets.example/)\n"},
		{"unfinished task says so",
			ResearchOutput{RequestID: "r1", Status: ResearchFailed},
			"q", "",
			"# q\n\n_Research r1 is failed._\n\n"},
	}
	for _, tc := range cases {
		if got := tc.out.Document(tc.question, tc.meta); got != tc.want {
			t.Errorf("%s:\n%q\nwant\n%q", tc.name, got, tc.want)
		}
	}
}

func TestResearchDocumentOneTitle(t *testing.T) {
	o := ResearchOutput{Status: ResearchCompleted, Content: "# How rivets work\n\n## Summary\n\nThey hold. [1]\n\n## Sources\n\n1. x\n",
		Sources: []ResearchSource{{Title: "x", URL: "https://x.example/"}}}
	doc := o.Document("how do rivets work", "model auto")
	if n := strings.Count(doc, "\n# ") + strings.Count(doc[:2], "# "); n != 1 {
		t.Errorf("%d top-level titles:\n%s", n, doc)
	}
	if n := strings.Count(doc, "## Sources"); n != 1 {
		t.Errorf("%d Sources sections:\n%s", n, doc)
	}
}
