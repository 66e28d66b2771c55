package library

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"hark/api"
)

// Items turns a tool call that succeeded into what the library keeps:
// a research report (completed ones only), a search with its results,
// one page per extracted page, a crawl with its pages, a map with its
// URLs. Tools the library does not know, and outputs that do not decode,
// give nothing.
func Items(r api.Result) []*Item {
	inputs, _ := json.Marshal(r.Inputs)
	base := func(kind, title, query, url, body string) *Item {
		return &Item{Kind: kind, Tool: r.Tool, Title: oneLine(title), Query: query, URL: url, Body: body,
			Inputs: string(inputs), Output: string(r.Output), Gateway: r.Gateway, TraceID: r.TraceID}
	}
	str := func(k string) string { s, _ := r.Inputs[k].(string); return s }
	switch r.Tool {
	case api.ToolResearch:
		out, err := api.DecodeResearch(r.Output)
		if err != nil || out.Status != api.ResearchCompleted || strings.TrimSpace(out.Content) == "" || len(out.Sources) == 0 {
			// A report that found no source ("No sources available",
			// on an empty index) holds nothing to keep.
			return nil
		}
		q := str("input")
		return []*Item{base(KindResearch, orElse(q, out.RequestID), q, "", out.Document(q, ""))}
	case api.ToolSearch:
		out, err := api.DecodeSearch(r.Output)
		if err != nil {
			return nil
		}
		q := orElse(str("query"), out.Query)
		return []*Item{base(KindSearch, q+optionsNote(r.Inputs), q, "", searchMarkdown(q, out))}
	case api.ToolExtract:
		out, err := api.DecodeExtract(r.Output)
		if err != nil {
			return nil
		}
		var items []*Item
		for _, p := range out.Results {
			if strings.TrimSpace(p.RawContent) == "" {
				continue
			}
			items = append(items, base(KindPage, PageTitle(p), p.URL, p.URL, p.RawContent))
		}
		return items
	case api.ToolCrawl:
		out, err := api.DecodeCrawl(r.Output)
		if err != nil {
			return nil
		}
		u := orElse(str("url"), out.BaseURL)
		var b strings.Builder
		for _, p := range out.Results {
			fmt.Fprintf(&b, "## %s\n\n<%s>\n\n%s\n\n", mdText(PageTitle(p)), p.URL, strings.TrimSpace(p.RawContent))
		}
		return []*Item{base(KindCrawl, fmt.Sprintf("Crawl of %s (%s)", u, plural(len(out.Results), "page")), u, u, b.String())}
	case api.ToolMap:
		out, err := api.DecodeMap(r.Output)
		if err != nil {
			return nil
		}
		u := orElse(str("url"), out.BaseURL)
		var b strings.Builder
		for _, l := range out.Results {
			fmt.Fprintf(&b, "- <%s>\n", l.URL)
		}
		return []*Item{base(KindMap, fmt.Sprintf("Map of %s (%s)", u, plural(len(out.Results), "URL")), u, u, b.String())}
	}
	return nil
}

// optionsNote is what a search sent besides its query, for its title:
// " · max_results=6, topic=news", so that two searches of one query with
// other options are told apart in a list ("" when it sent only the
// query).
func optionsNote(inputs map[string]any) string {
	var parts []string
	for k, v := range inputs {
		if k == "query" {
			continue
		}
		var val string
		switch v := v.(type) {
		case string:
			val = v
		default:
			b, _ := json.Marshal(v)
			val = string(b)
		}
		parts = append(parts, k+"="+val)
	}
	if len(parts) == 0 {
		return ""
	}
	slices.Sort(parts)
	return " · " + strings.Join(parts, ", ")
}

// PageTitle is a page's title: the gateway's title field when it sends
// one, else the page's first markdown heading, else the URL.
func PageTitle(p api.PageContent) string {
	if t := oneLine(p.Title); t != "" {
		return t
	}
	// The first heading, of any level (libffi's pages open at "### 2.3
	// Types"), as text: "Tilde \~ and caret ^" is "Tilde ~ and caret ^".
	fenced := false
	for _, l := range strings.SplitN(p.RawContent, "\n", 40) {
		l = strings.TrimSpace(l)
		if mdFence.MatchString(l) {
			fenced = !fenced
		}
		if !fenced && mdHeading.MatchString(l) {
			if t := PlainText(l); t != "" {
				return t
			}
		}
	}
	return p.URL
}

func searchMarkdown(q string, out *api.SearchOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", mdText(q))
	if out.Answer != "" {
		fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(out.Answer))
	}
	for i, r := range out.Results {
		fmt.Fprintf(&b, "%d. [%s](%s)\n", i+1, mdText(orElse(oneLine(r.Title), r.URL)), r.URL)
		if c := oneLine(r.Content); c != "" {
			fmt.Fprintf(&b, "   %s\n", c)
		}
	}
	if len(out.Results) == 0 {
		b.WriteString("No results.\n")
	}
	return b.String()
}

var mdEscaper = strings.NewReplacer("[", `\[`, "]", `\]`, "*", `\*`, "_", `\_`, "`", "\\`")

func mdText(s string) string { return mdEscaper.Replace(oneLine(s)) }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func orElse(s, alt string) string {
	if strings.TrimSpace(s) != "" {
		return s
	}
	return alt
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
