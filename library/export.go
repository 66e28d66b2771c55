package library

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"hark/api"
)

// Page is a page to export: its URL, its content (markdown or text; ""
// when it was not extracted) and why it failed, if it did.
type Page struct {
	URL, Content, Err string
}

// FreshDir is dir, or dir-2, dir-3… when it exists: two exports in the
// same second must not mix their files.
func FreshDir(dir string) string {
	d := dir
	for i := 2; i < 1000; i++ {
		if _, err := os.Lstat(d); os.IsNotExist(err) {
			return d
		}
		d = fmt.Sprintf("%s-%d", dir, i)
	}
	return d
}

// ExportPages writes each page with content to dir as <host>_<path>.md, with
// its URL as a front-matter line, and returns how many it wrote. Pages
// with no content (mapped links, failures) are listed in index.md.
func ExportPages(dir string, pages []Page) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	var index strings.Builder
	index.WriteString("# Exported pages\n\n")
	used := map[string]int{}
	n := 0
	for _, pg := range pages {
		if pg.Content == "" {
			reason := "not extracted"
			if pg.Err != "" {
				reason = "failed: " + pg.Err
			}
			fmt.Fprintf(&index, "- <%s> (%s)\n", pg.URL, reason)
			continue
		}
		name := FileName(pg.URL)
		if c := used[name]; c > 0 {
			name = strings.TrimSuffix(name, ".md") + fmt.Sprintf("-%d.md", c+1)
		}
		used[FileName(pg.URL)]++
		body := "<!-- source: " + pg.URL + " -->\n\n" + pg.Content + "\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return n, fmt.Errorf("export %s: %w", pg.URL, err)
		}
		fmt.Fprintf(&index, "- [%s](%s) <%s>\n", name, name, pg.URL)
		n++
	}
	if err := os.WriteFile(filepath.Join(dir, "index.md"), []byte(index.String()), 0o644); err != nil {
		return n, fmt.Errorf("export index: %w", err)
	}
	return n, nil
}

// FileName turns a URL into a safe markdown file name.
func FileName(u string) string {
	pu, err := url.Parse(u)
	s := u
	if err == nil {
		s = pu.Host + pu.Path
		if pu.RawQuery != "" {
			s += "_" + pu.RawQuery
		}
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := strings.Trim(b.String(), "_.")
	if len(name) > 120 {
		name = name[:120]
	}
	if name == "" {
		name = "page"
	}
	return name + ".md"
}

// Source is one work an item draws on: a research source, a search
// result, a page.
type Source struct {
	Title string `json:"title"`
	URL   string `json:"url"`
}

// Sources lists the works an item cites or holds: a report's numbered
// sources, a search's results, a crawl's pages, a page itself.
func Sources(it Item) []Source {
	var out []Source
	switch it.Kind {
	case KindResearch:
		if o, err := api.DecodeResearch(json.RawMessage(it.Output)); err == nil {
			for _, s := range o.Sources {
				out = append(out, Source{Title: orElse(oneLine(s.Title), s.URL), URL: s.URL})
			}
		}
	case KindSearch:
		if o, err := api.DecodeSearch(json.RawMessage(it.Output)); err == nil {
			for _, r := range o.Results {
				out = append(out, Source{Title: orElse(oneLine(r.Title), r.URL), URL: r.URL})
			}
		}
	case KindCrawl:
		if o, err := api.DecodeCrawl(json.RawMessage(it.Output)); err == nil {
			for _, p := range o.Results {
				out = append(out, Source{Title: PageTitle(p), URL: p.URL})
			}
		}
	case KindMap:
		if o, err := api.DecodeMap(json.RawMessage(it.Output)); err == nil {
			for _, l := range o.Results {
				out = append(out, Source{Title: l.URL, URL: l.URL})
			}
		}
	case KindPage:
		out = append(out, Source{Title: it.Title, URL: it.URL})
	}
	return out
}

// Markdown is an item as one markdown document: a report with its
// numbered sources, a page with its source URL, the results of a search,
// a crawl's pages, a map's URLs.
func Markdown(it Item) string {
	switch it.Kind {
	case KindResearch, KindSearch:
		return strings.TrimSpace(it.Body) + "\n"
	case KindPage:
		body := strings.TrimSpace(it.Body)
		if !strings.HasPrefix(body, "# ") {
			body = "# " + mdText(it.Title) + "\n\n" + body
		}
		return "<!-- source: " + it.URL + " -->\n\n" + body + "\n"
	}
	return "# " + mdText(it.Title) + "\n\n" + strings.TrimSpace(it.Body) + "\n"
}

// bibHeader says what the entries are, for whoever opens the file.
const bibHeader = `% Sources kept by hark, as @misc entries: url and urldate for biblatex
% and natbib styles, howpublished for the classic BibTeX styles (\url
% needs the url or hyperref package). Zotero, JabRef and BibDesk import
% them as web pages.

`

// BibTeX is the item's sources as BibTeX @misc entries, which both
// BibTeX and biblatex read (@online is biblatex's alone), and reference
// managers (Zotero, JabRef, BibDesk) import.
func BibTeX(it Item) string {
	var b strings.Builder
	b.WriteString(bibHeader)
	used := map[string]int{}
	for _, s := range Sources(it) {
		key := bibKey(s)
		used[key]++
		if n := used[key]; n > 1 {
			key += fmt.Sprintf("-%d", n)
		}
		fmt.Fprintf(&b, "@misc{%s,\n  title = {%s},\n  howpublished = {\\url{%s}},\n  url = {%s},\n  urldate = {%s},\n",
			key, bibTitle(s.Title), s.URL, s.URL, it.Created.Format("2006-01-02"))
		if u, err := url.Parse(s.URL); err == nil && u.Host != "" {
			fmt.Fprintf(&b, "  organization = {%s},\n", bibEscape(u.Host))
		}
		fmt.Fprintf(&b, "  note = {Kept by hark from %s}\n}\n\n", bibEscape(it.Gateway))
	}
	return b.String()
}

// bibTitle is a title for BibTeX: its text (no markdown escapes), each
// character LaTeX treats specially escaped, and each word with a capital
// past its first letter (POSIX, API, JavaScript, macOS) in braces, which
// keep styles that lower-case titles from lower-casing it.
func bibTitle(title string) string {
	words := strings.Fields(PlainText(title))
	for i, w := range words {
		e := bibEscape(w)
		if letters := []rune(strings.TrimLeftFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })); len(letters) > 1 &&
			strings.IndexFunc(string(letters[1:]), unicode.IsUpper) >= 0 {
			e = "{" + e + "}"
		}
		words[i] = e
	}
	return strings.Join(words, " ")
}

// bibKey is a citation key from the source's host and title words.
func bibKey(s Source) string {
	host := "web"
	if u, err := url.Parse(s.URL); err == nil && u.Host != "" {
		host = strings.TrimPrefix(u.Hostname(), "www.")
		host, _, _ = strings.Cut(host, ".")
	}
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s.Title), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) > 3 && len(words) < 2 {
			words = append(words, w)
		}
	}
	key := strings.Join(append([]string{host}, words...), "-")
	return strings.Map(func(r rune) rune {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-') {
			return r
		}
		return -1
	}, key)
}

var bibEscaper = strings.NewReplacer(`\`, `\textbackslash{}`, "{", `\{`, "}", `\}`, "&", `\&`, "%", `\%`, "$", `\$`, "#", `\#`, "_", `\_`,
	"~", `\textasciitilde{}`, "^", `\textasciicircum{}`)

func bibEscape(s string) string { return bibEscaper.Replace(oneLine(s)) }

// CSLJSON is the item's sources as CSL-JSON (type webpage), the format of
// Zotero, Mendeley and pandoc's citeproc.
func CSLJSON(it Item) ([]byte, error) {
	type date struct {
		Parts [][]int `json:"date-parts"`
	}
	type entry struct {
		ID        string `json:"id"`
		Type      string `json:"type"`
		Title     string `json:"title"`
		URL       string `json:"URL"`
		Container string `json:"container-title,omitempty"`
		Accessed  date   `json:"accessed"`
	}
	out := []entry{}
	used := map[string]int{}
	c := it.Created
	for _, s := range Sources(it) {
		key := bibKey(s)
		used[key]++
		if n := used[key]; n > 1 {
			key += fmt.Sprintf("-%d", n)
		}
		e := entry{ID: key, Type: "webpage", Title: s.Title, URL: s.URL, Accessed: date{[][]int{{c.Year(), int(c.Month()), c.Day()}}}}
		if u, err := url.Parse(s.URL); err == nil {
			e.Container = u.Host
		}
		out = append(out, e)
	}
	return json.MarshalIndent(out, "", "  ")
}

// Export formats.
const (
	FormatMarkdown = "markdown"
	FormatBibTeX   = "bibtex"
	FormatCSL      = "csl-json"
	FormatFolder   = "folder"
)

// FormatFor picks the export format from path: .bib is BibTeX, .json
// CSL-JSON, a crawl to a path without an extension a folder, anything
// else markdown.
func FormatFor(it Item, path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".bib":
		return FormatBibTeX
	case ".json":
		return FormatCSL
	case "":
		if it.Kind == KindCrawl {
			return FormatFolder
		}
	}
	return FormatMarkdown
}

// Encode is it in a one-file format: markdown, bibtex or csl-json.
func Encode(it Item, format string) ([]byte, error) {
	switch format {
	case FormatMarkdown:
		return []byte(Markdown(it)), nil
	case FormatBibTeX:
		return []byte(BibTeX(it)), nil
	case FormatCSL:
		b, err := CSLJSON(it)
		if err != nil {
			return nil, err
		}
		return append(b, '\n'), nil
	case FormatFolder:
		return nil, fmt.Errorf("export format %s: a folder is not one file (give -o a folder, not -)", format)
	}
	return nil, fmt.Errorf("export format %q: must be markdown, bibtex, csl-json or folder", format)
}

// WriteFolder writes a crawl's pages into dir, which must exist: one
// markdown file per page and index.md.
func WriteFolder(it Item, dir string) error {
	if it.Kind != KindCrawl {
		return fmt.Errorf("export %s: a folder holds a crawl's pages; item %d is a %s", FormatFolder, it.ID, it.Kind)
	}
	o, err := api.DecodeCrawl(json.RawMessage(it.Output))
	if err != nil {
		return fmt.Errorf("export: item %d: %w", it.ID, err)
	}
	pages := make([]Page, len(o.Results))
	for i, p := range o.Results {
		pages[i] = Page{URL: p.URL, Content: p.RawContent}
	}
	_, err = ExportPages(dir, pages)
	return err
}

// Export writes it to path in format ("" picks by FormatFor), for the
// TUI: a folder export (crawls) writes one markdown file per page and
// index.md into a new folder; the other formats write one new file.
// Existing files are never overwritten. It returns what it wrote. (The
// command line follows its -o rule instead: see cli/output.go.)
func Export(it Item, path, format string) (string, error) {
	if format == "" {
		format = FormatFor(it, path)
	}
	if format == FormatFolder {
		if it.Kind != KindCrawl {
			return "", WriteFolder(it, path)
		}
		if _, err := os.Stat(path); err == nil {
			return "", fmt.Errorf("export: %s exists; choose a new folder", path)
		}
		if err := WriteFolder(it, path); err != nil {
			return "", err
		}
		return path, nil
	}
	data, err := Encode(it, format)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if os.IsExist(err) {
			return "", fmt.Errorf("export: %s exists; choose another name", path)
		}
		return "", fmt.Errorf("export: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return "", fmt.Errorf("export %s: %w", path, err)
	}
	return path, f.Close()
}
