package extract

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// texinfoIndex is an index node as texi2any writes it (libffi's
// Index.html, shortened): a "Jump to:" table of letters, then a table
// whose rows are the entries, each a link to where the term is defined
// and a link to its section, under a row per letter.
const texinfoIndex = `<!DOCTYPE html>
<html><head><title>Index (libffi)</title><meta name="generator" content="makeinfo"></head>
<body lang="en"><div class="unnumbered" id="Index">
<div class="header"><p>Previous: <a href="Missing-Features.html" accesskey="p" rel="prev">Missing Features</a>, Up: <a href="index.html" accesskey="u" rel="up">libffi</a> &nbsp; [<a href="#Index" title="Index" rel="index">Index</a>]</p></div>
<hr>
<span id="Index-1"></span><h2 class="unnumbered">Index</h2>
<table><tr><th valign="top">Jump to: &nbsp; </th><td><a class="summary-letter" href="#Index_cp_letter-A"><b>A</b></a>
 &nbsp; <a class="summary-letter" href="#Index_cp_letter-C"><b>C</b></a>
 &nbsp; <a class="summary-letter" href="#Index_cp_letter-F"><b>F</b></a>
 &nbsp; <a class="summary-letter" href="#Index_cp_letter-V"><b>V</b></a> &nbsp; </td></tr></table>
<table class="index-cp" border="0">
<tr><td></td><th align="left">Index Entry</th><td>&nbsp;</td><th align="left"> Section</th></tr>
<tr><td colspan="4"> <hr></td></tr>
<tr><th id="Index_cp_letter-A">A</th><td></td><td></td></tr>
<tr><td></td><td valign="top"><a href="Introduction.html#index-ABI">ABI</a>:</td><td>&nbsp;</td><td valign="top"><a href="Introduction.html">Introduction</a></td></tr>
<tr><td></td><td valign="top"><a href="Introduction.html#index-Application-Binary-Interface">Application Binary Interface</a>:</td><td>&nbsp;</td><td valign="top"><a href="Introduction.html">Introduction</a></td></tr>
<tr><td colspan="4"> <hr></td></tr>
<tr><th id="Index_cp_letter-C">C</th><td></td><td></td></tr>
<tr><td></td><td valign="top"><a href="Introduction.html#index-calling-convention">calling convention</a>:</td><td>&nbsp;</td><td valign="top"><a href="Introduction.html">Introduction</a></td></tr>
<tr><td></td><td valign="top"><a href="The-Closure-API.html#index-closures">closures</a>:</td><td>&nbsp;</td><td valign="top"><a href="The-Closure-API.html">The Closure API</a></td></tr>
<tr><td colspan="4"> <hr></td></tr>
<tr><th id="Index_cp_letter-F">F</th><td></td><td></td></tr>
<tr><td></td><td valign="top"><a href="The-Basics.html#index-ffi_005fcall"><code>ffi_call</code></a>:</td><td>&nbsp;</td><td valign="top"><a href="The-Basics.html">The Basics</a></td></tr>
<tr><td></td><td valign="top"><a href="The-Basics.html#index-ffi_005fprep_005fcif"><code>ffi_prep_cif</code></a>:</td><td>&nbsp;</td><td valign="top"><a href="The-Basics.html">The Basics</a></td></tr>
<tr><td colspan="4"> <hr></td></tr>
</table>
<table><tr><th valign="top">Jump to: &nbsp; </th><td><a class="summary-letter" href="#Index_cp_letter-A"><b>A</b></a>
 &nbsp; <a class="summary-letter" href="#Index_cp_letter-C"><b>C</b></a>
 &nbsp; <a class="summary-letter" href="#Index_cp_letter-F"><b>F</b></a> &nbsp; </td></tr></table>
</div></body></html>`

// A texinfo index node keeps every entry, linked to where it is defined,
// in basic extraction (tables dropped) as in advanced: libffi's
// Index.html once read "## Index / Jump to: / Jump to:".
func TestTexinfoIndexKeepsItsEntries(t *testing.T) {
	for _, opt := range []Options{{}, {Tables: true}} {
		md, text := extract(t, texinfoIndex, opt)
		t.Logf("tables %v:\n%s", opt.Tables, md)
		for _, w := range []string{"ABI", "Application Binary Interface", "calling convention", "closures", "ffi_call", "ffi_prep_cif"} {
			if !strings.Contains(text, w) {
				t.Errorf("tables %v: text lacks %q:\n%s", opt.Tables, w, text)
			}
		}
		for _, w := range []string{"- [ABI](http://host/valgrind/html/Introduction.html#index-ABI):", "- [`ffi_call`](http://host/valgrind/html/The-Basics.html#index-ffi_005fcall):",
			"- [closures](http://host/valgrind/html/The-Closure-API.html#index-closures):"} {
			if !strings.Contains(md, w) {
				t.Errorf("tables %v: markdown lacks %q:\n%s", opt.Tables, w, md)
			}
		}
		if strings.Contains(text, "Previous:") || strings.Contains(text, "Jump to") {
			t.Errorf("tables %v: the navigation line or a jump bar stayed:\n%s", opt.Tables, text)
		}
	}
}

// A table inside an article is part of the article: a standings table
// whose rows open with a place, its drivers and teams linked, is data,
// not an index of links to be read as its first column.
func TestArticleKeepsATableOfLinkedRows(t *testing.T) {
	var rows strings.Builder
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&rows, `<tr><td>%d</td><td><a href="/driver/%d">Driver Number%d</a></td><td><a href="/team/%d">Team%d</a></td><td>%d</td></tr>`, i, i, i, i, i, 5000-i*10)
	}
	page := `<html><head><title>Standings after Phoenix</title><meta property="og:type" content="article"></head><body><nav><a href="/">Home</a></nav>
<article><h1>Standings after Phoenix</h1>
<p>The playoff field is set after a long afternoon at Phoenix, where the leaders traded places three times in the final laps, and the points below are official.</p>
<table>` + rows.String() + `</table>
<p>Next week the series heads to Homestead for the final race of the season, with four drivers left in contention.</p></article></body></html>`
	doc, _ := html.Parse(strings.NewReader(page))
	text := Render(Main(doc), Title(doc), Options{Tables: true}).Text()
	for _, want := range []string{"Driver Number1", "Team12", "4880", "Homestead"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}
