package doc

import (
	"slices"
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

// A directive's summary box is a table of named values with no header
// ("Default: | KeepAliveTimeout 5"): each row reads as the statement
// "Default: KeepAliveTimeout 5." and can be quoted for a question that
// names the value ("the default value of KeepAliveTimeout"), as a row
// under a header can. Read as a headless table, no row was quotable,
// and the default was in no report. A headless table of data still
// is not quoted: what its cells are is not said.
func TestBoxOfNamedValuesIsQuotable(t *testing.T) {
	d := ReadMarkdown("# core\n\n## KeepAliveTimeout Directive\n\n"+
		"| Description: | Amount of time the server will wait for subsequent requests on a persistent connection |\n| --- | --- |\n"+
		"| Syntax: | KeepAliveTimeout num[ms] |\n| Default: | KeepAliveTimeout 5 |\n| Context: | server config, virtual host |\n\n"+
		"The number of seconds Apache httpd will wait for a subsequent request before closing the connection.\n\n"+
		"## Sizes\n\n| small | 1 |\n| --- | --- |\n| large | 2 |\n", "core")
	i := sentAt(t, d, "Default: KeepAliveTimeout 5.")
	if s := d.Sents[i]; !s.OK || !slices.Equal(d.Blocks[s.Block].Key, Terms("Default")) || d.Blocks[s.Block].Row != "Default: | KeepAliveTimeout 5" {
		t.Errorf("the box's Default row: OK %v, key %v, row %q", s.OK, d.Blocks[s.Block].Key, d.Blocks[s.Block].Row)
	}
	if s := d.Sents[sentAt(t, d, "The number of seconds Apache httpd will wait for a subsequent request before closing the connection.")]; !s.OK {
		t.Errorf("the prose after the box is not quotable")
	}
	if s := d.Sents[sentAt(t, d, "large | 2")]; s.OK {
		t.Errorf("a headless data table's row is quotable: %q", s.Text)
	}
}
