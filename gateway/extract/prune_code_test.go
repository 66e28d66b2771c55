package extract

import (
	"strings"
	"testing"
)

// A highlighter names its spans: highlight.js marks C's preprocessor
// lines "hljs-meta" and Prism a comment "token comment". Neither is a
// byline or a comment section, on a manual's page or in an article.
func TestCodeListingKeepsHighlighterSpans(t *testing.T) {
	listing := `<pre><code class="language-c"><span class="hljs-comment">// addon.h</span>
<span class="hljs-meta">#<span class="hljs-keyword">ifndef</span> _ADDON_H_</span>
<span class="hljs-meta">#<span class="hljs-keyword">include</span> <span class="hljs-string">&lt;js_native_api.h&gt;</span></span>
napi_value <span class="hljs-title function_">create_addon</span>(napi_env env);
<span class="hljs-meta">#<span class="hljs-keyword">endif</span></span></code> <button class="copy-button">copy</button></pre>
<pre class="language-c"><code class="language-c"><span class="token comment">// add.c</span><br><span class="token macro property"><span class="token directive-hash">#</span><span class="token keyword directive">include</span> <span class="token string">&lt;emscripten.h&gt;</span></span><br>int add(int x, int y);</code></pre>`
	prose := `<p>An addon is a shared object that Node.js loads with require(); its header declares the function that creates it, and the source file defines that function with the calls the API offers for building objects.</p>`
	pages := map[string]string{
		"manual": `<html><head><title>Node-API</title></head><body><nav><a href="/">Home</a></nav><div id="apicontent"><h1>Node-API</h1>` +
			prose + listing + prose + `</div></body></html>`,
		"article": `<html><head><title>Standalone Wasm</title><meta property="og:type" content="article"></head><body><article><h1>Standalone Wasm</h1>` +
			strings.Repeat(prose, 3) + listing + prose + `</article></body></html>`,
	}
	for name, page := range pages {
		md, _ := extract(t, page, Options{})
		for _, line := range []string{"// addon.h", "#ifndef _ADDON_H_", "#include <js_native_api.h>", "#endif", "// add.c", "#include <emscripten.h>"} {
			if !strings.Contains(md, "\n"+line+"\n") {
				t.Errorf("%s: the listing lost %q:\n%s", name, line, md)
			}
		}
		if strings.Contains(md, "copy\n") {
			t.Errorf("%s: the copy button is in the listing:\n%s", name, md)
		}
	}
}

// Doxygen sets each function's entry right after the heading that names
// it: the signature in a table, a line on it, and the functions it
// calls and is called by, which are mostly links. Beside the entry that
// scores best, such an entry is that heading's section, not a block of
// links.
func TestManualKeepsEntriesOfLinks(t *testing.T) {
	refs := func(names ...string) string {
		var b strings.Builder
		b.WriteString(`<p class="reference">Referenced by `)
		for _, n := range names {
			b.WriteString(`<a class="el" href="x_8c_source.html#l00059">` + n + `()</a>, `)
		}
		b.WriteString(`and <a class="el" href="x.html">ps_end()</a>.</p>`)
		return b.String()
	}
	entry := func(name, doc, more string) string {
		return `<h2 class="memtitle"><span class="permalink"><a href="#a1">&#9670;&nbsp;</a></span>` + name + `()</h2>
<div class="memitem"><div class="memproto"><table class="memname"><tr><td class="memname">int ` + name + ` </td><td>(</td>
<td class="paramtype"><a class="el" href="structd__t.html">dict2pid_t</a> *</td><td class="paramname"><em>d2p</em></td><td>)</td></tr></table></div>
<div class="memdoc"><p>` + doc + `</p>` + more + `</div></div>`
	}
	page := `<html><head><title>dict2pid.h File Reference</title></head><body>
<div id="top"><div id="navrow1" class="tabs"><ul class="tablist"><li><a href="index.html">Main Page</a></li><li><a href="files.html">Files</a></li></ul></div></div>
<div class="contents">
<h2 class="groupheader">Detailed Description</h2>
<div class="textblock"><p>Building triphones for a dictionary.</p>
<p>This is one of the more complicated parts of a cross-word triphone model decoder. The first and last phones of each word
get their left and right contexts, respectively, from other words. For single-phone words, both its contexts are from other
words, simultaneously. As these words are not known beforehand, life gets complicated.</p></div>
<h2 class="groupheader">Function Documentation</h2>
` + entry("dict2pid_build", "Build the dict2pid structure for the given model and dictionary.", "") + `
` + entry("dict2pid_free", "Free the memory of the dict2pid structure.", refs("ps_alignment_free", "ps_free", "ps_load_dict", "ps_reinit", "ps_search_base_free", "ps_search_base_reinit")) + `
` + entry("dict2pid_report", "Report a dict2pid data structure.", "") + `
</div></body></html>`
	md, _ := extract(t, page, Options{})
	for _, want := range []string{"## dict2pid_free()", "Free the memory of the dict2pid structure.", "ps_search_base_reinit", "## dict2pid_report()"} {
		if !strings.Contains(md, want) {
			t.Errorf("the manual lost %q:\n%s", want, md)
		}
	}
}
