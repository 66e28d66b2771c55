package doc

import (
	"strings"
	"testing"
)

// A directive's prose opening on "This directive …" after its summary
// box (Apache's manual: "Description:", "Syntax:", "Default:" rows
// under the heading "ProxyPass Directive") leans on the heading, as it
// does with no box: the box's rows are no prose it could lean on, yet
// they made it no longer the section's first sentence, so it was read
// as leaning on text the page lacks and never quoted.
func TestDirectiveProseAfterItsBoxNamesTheHeading(t *testing.T) {
	d := ReadMarkdown("# mod_proxy\n\n## ProxyPass Directive\n\n"+
		"| Description: | Maps remote servers into the local server URL-space |\n| --- | --- |\n"+
		"| Syntax: | ProxyPass [path] !|url [key=value] |\n| Context: | server config, virtual host |\n\n"+
		"This directive allows remote servers to be mapped into the space of the local server.\n\n", "mod_proxy")
	for s, lost := range map[string]bool{
		"This directive allows remote servers to be mapped into the space of the local server.": false,
	} {
		if got := d.Sents[sentAt(t, d, s)].Lost; got != lost {
			t.Errorf("%q lost %v, want %v", s, got, lost)
		}
	}
}

// A whole sentence that introduces a short table on ":" ("The structure
// of a record-based node is determined by its label, which has the
// following schema:" and the label's grammar in a table) can be quoted,
// with the table as its code: it was no sentence at all, as only a list
// or code could follow a ":", and the answer to how a record's structure
// is set was in no report. A fragment before a table still is not.
func TestSentenceIntroducingATableIsQuotable(t *testing.T) {
	d := ReadMarkdown("# Node Shapes\n\n## Record-based Nodes\n\n"+
		"The structure of a record-based node is determined by its label, which has the following schema:\n\n"+
		"| rlabel | = | field ( '\\|' field )* |\n| --- | --- | --- |\n| where field | = | fieldId or '{' rlabel '}' |\n\n"+
		"Sizes:\n\n| small | 1 |\n| --- | --- |\n| large | 2 |\n", "Node Shapes")
	i := sentAt(t, d, "The structure of a record-based node is determined by its label, which has the following schema:")
	if s := d.Sents[i]; !s.OK || s.CodeLines != 2 || !strings.Contains(s.Code, "fieldId or") {
		t.Errorf("the table's lead-in: OK %v, code %q", s.OK, s.Code)
	}
	if s := d.Sents[sentAt(t, d, "Sizes:")]; s.OK {
		t.Errorf("a fragment before a table is quotable: code %q", s.Code)
	}
}
