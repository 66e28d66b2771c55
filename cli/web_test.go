package cli

import (
	"bytes"
	"strings"
	"testing"

	"hark/api"
)

// hark research used to print "## Sources" twice: the gateway's report
// has its own list, and the CLI appended the output's sources after it.
func TestPrintResearchSourcesOnce(t *testing.T) {
	t.Parallel()
	sources := []api.ResearchSource{{Title: "Rivets", URL: "https://rivets.example/"}}
	for _, tc := range []struct {
		name, content string
		wantAppended  bool
	}{
		{"report lists its sources", "# Report\n\nRivets hold.\n\n## Sources\n\n1. [Rivets](https://rivets.example/)\n", false},
		{"setext references", "Report\n======\n\nRivets hold.\n\nReferences\n----------\n\n1. rivets.example\n", false},
		{"report without sources", "# Report\n\nRivets hold, says the open sources community.\n", true},
	} {
		var out bytes.Buffer
		a := &App{stdout: &out}
		if err := a.printResearch(&api.ResearchOutput{Status: api.ResearchCompleted, Content: tc.content, Sources: sources}); err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSpace(tc.content) + "\n"
		if tc.wantAppended {
			want += "\n## Sources\n\n1. [Rivets](https://rivets.example/)\n"
		}
		if out.String() != want {
			t.Errorf("%s: printed\n%s\nwant\n%s", tc.name, out.String(), want)
		}
	}
}
