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
