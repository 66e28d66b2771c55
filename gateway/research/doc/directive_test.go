package doc

import "testing"

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
