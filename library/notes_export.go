package library

// Exporting highlights where researchers keep notes: an Obsidian (or any
// markdown) folder with one note per source, BibTeX with the highlights
// in annote, CSL-JSON with them in note, and Zotero (zotero.go). Every
// export can be run again: it rewrites the same files under the same
// names and keys, and sends Zotero only what it has not sent.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// NoteSource is one source's highlights: a page (by URL) or a report.
type NoteSource struct {
	Key        string    `json:"key"` // the page's URL, or hark://library/ID for a report
	Title      string    `json:"title"`
	URL        string    `json:"url,omitempty"`
	Kind       string    `json:"kind"`
	Accessed   time.Time `json:"accessed"`
	Highlights []Highlight
}

// Tags are every tag of the source's highlights, each once, sorted.
func (s NoteSource) Tags() []string {
	var out []string
	for _, h := range s.Highlights {
		for _, t := range h.Tags {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	slices.Sort(out)
	return out
}

// NoteSources groups highlights by source, sources in the order their
// first highlight was made, highlights in the order they sit in the text. A
// source was accessed when its first kept copy holding a highlight was.
func (s *Store) NoteSources(ctx context.Context, hs []Highlight) ([]NoteSource, error) {
	var out []NoteSource
	at := map[string]int{}
	for _, h := range hs {
		key := h.URL
		if key == "" {
			key = fmt.Sprintf("hark://library/%d", h.ItemID)
		}
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			src := NoteSource{Key: key, Title: h.Title, URL: h.URL, Kind: h.Kind, Accessed: h.Created}
			out = append(out, src)
		}
		if it, err := s.Get(ctx, h.ItemID); err == nil && it.Created.Before(out[i].Accessed) {
			out[i].Accessed = it.Created
		} else if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
		out[i].Highlights = append(out[i].Highlights, h)
	}
	first := func(src NoteSource) int64 {
		return slices.MinFunc(src.Highlights, func(a, b Highlight) int { return int(a.ID - b.ID) }).ID
	}
	slices.SortStableFunc(out, func(a, b NoteSource) int { return int(first(a) - first(b)) })
	for i := range out {
		slices.SortStableFunc(out[i].Highlights, func(a, b Highlight) int { return a.Start - b.Start })
		if out[i].Title == "" {
			out[i].Title = out[i].Key
		}
	}
	return out, nil
}

// Markers around what hark writes in a note: what the researcher writes
// below the end marker stays when the note is exported again.
const (
	noteBegin = "<!-- hark:begin · written by hark notes export; edits between these lines are replaced at the next export -->"
	noteEnd   = "<!-- hark:end -->"
)

// yamlString is s as a YAML double-quoted scalar (JSON's escaping is
// YAML's).
func yamlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// ObsidianNote is a source's note: YAML front matter (title, url,
// accessed, tags, and hark_source, by which the next export finds the
// file again), then each highlight as a quote block with its note, its
// tags and a link back to the passage.
func ObsidianNote(src NoteSource) (front, body string) {
	var f strings.Builder
	f.WriteString("---\n")
	fmt.Fprintf(&f, "title: %s\n", yamlString(src.Title))
	if src.URL != "" {
		fmt.Fprintf(&f, "url: %s\n", yamlString(src.URL))
	}
	fmt.Fprintf(&f, "accessed: %s\n", src.Accessed.Format("2006-01-02"))
	tags := src.Tags()
	quoted := make([]string, len(tags))
	for i, t := range tags {
		quoted[i] = yamlString(t)
	}
	fmt.Fprintf(&f, "tags: [%s]\n", strings.Join(quoted, ", "))
	fmt.Fprintf(&f, "hark_source: %s\n", yamlString(src.Key))
	f.WriteString("---\n")

	var b strings.Builder
	b.WriteString(noteBegin + "\n")
	fmt.Fprintf(&b, "# %s\n\n", mdText(src.Title))
	if src.URL != "" {
		fmt.Fprintf(&b, "<%s>\n\n", src.URL)
	}
	for _, h := range src.Highlights {
		for _, l := range strings.Split(Wrapped(h.Quote), "\n") {
			b.WriteString(strings.TrimRight("> "+l, " ") + "\n")
		}
		b.WriteString("\n")
		if h.Note != "" {
			b.WriteString(h.Note + "\n\n")
		}
		var meta []string
		meta = append(meta, fmt.Sprintf("[open at the passage](%s)", h.Link()))
		if len(h.Tags) > 0 {
			ts := make([]string, len(h.Tags))
			for i, t := range h.Tags {
				ts[i] = "#" + t
			}
			meta = append(meta, strings.Join(ts, " "))
		}
		meta = append(meta, fmt.Sprintf("hark highlight %d", h.ID))
		b.WriteString(strings.Join(meta, " · ") + "\n\n")
	}
	b.WriteString(noteEnd + "\n")
	return f.String(), b.String()
}

// Wrapped is s with its blanks collapsed, on one line (quotes are kept
// that way; a quote block is one paragraph).
func Wrapped(s string) string { return strings.Join(strings.Fields(s), " ") }

// FolderResult is what a folder export did.
type FolderResult struct {
	Written   []string `json:"written"`   // files made or changed
	Unchanged []string `json:"unchanged"` // files that already said the same
}

// ExportObsidian writes one note per source into dir (an Obsidian vault
// or any folder; made when missing, if its parent exists). A note hark
// wrote before is found by its hark_source and updated in place (its
// front matter and the text between the markers; what follows the end
// marker is the researcher's and stays); a new source gets a new file
// named after its title.
func ExportObsidian(dir string, srcs []NoteSource) (FolderResult, error) {
	res := FolderResult{Written: []string{}, Unchanged: []string{}} // [] in JSON, never null
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return res, fmt.Errorf("export: %s is a file, not a folder", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, fmt.Errorf("export: %w", err)
	}
	known, err := harkNotes(dir)
	if err != nil {
		return res, err
	}
	taken := map[string]bool{}
	for _, p := range known {
		taken[strings.ToLower(filepath.Base(p))] = true
	}
	for _, src := range srcs {
		front, body := ObsidianNote(src)
		path, ok := known[src.Key]
		mine := ""
		if ok {
			old, err := os.ReadFile(path)
			if err != nil {
				return res, fmt.Errorf("export: %w", err)
			}
			if _, after, found := strings.Cut(string(old), noteEnd+"\n"); found {
				mine = after
			}
		} else {
			path = filepath.Join(dir, noteFileName(src.Title, taken))
			taken[strings.ToLower(filepath.Base(path))] = true
		}
		text := front + "\n" + body + mine
		if old, err := os.ReadFile(path); err == nil && string(old) == text {
			res.Unchanged = append(res.Unchanged, path)
			continue
		}
		if err := writeFileAtomic(path, []byte(text)); err != nil {
			return res, err
		}
		res.Written = append(res.Written, path)
	}
	return res, nil
}

// harkNotes maps each hark_source of the notes in dir to its file.
func harkNotes(dir string) (map[string]string, error) {
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if key := frontMatterSource(path); key != "" {
			out[key] = path
		}
	}
	return out, nil
}

// frontMatterSource reads a note's hark_source, "" when it has none.
func frontMatterSource(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 0; sc.Scan() && n < 40; n++ {
		l := sc.Text()
		if n == 0 && l != "---" {
			return ""
		}
		if n > 0 && l == "---" {
			return ""
		}
		if v, ok := strings.CutPrefix(l, "hark_source: "); ok {
			var s string
			if json.Unmarshal([]byte(v), &s) == nil {
				return s
			}
		}
	}
	return ""
}

// noteFileName is a file name for a note titled title, not one of taken
// (lower-cased names): Obsidian links notes by file name, so it is the
// title, less what file systems and Obsidian's links refuse.
func noteFileName(title string, taken map[string]bool) string {
	name := strings.Map(func(r rune) rune {
		if strings.ContainsRune(`/\:*?"<>|#^[]`, r) || r < 32 {
			return ' '
		}
		return r
	}, title)
	name = strings.Join(strings.Fields(name), " ")
	name = strings.Trim(name, ". ")
	if r := []rune(name); len(r) > 100 {
		name = strings.TrimSpace(string(r[:100]))
	}
	if name == "" {
		name = "hark note"
	}
	cand := name + ".md"
	for i := 2; taken[strings.ToLower(cand)]; i++ {
		cand = fmt.Sprintf("%s %d.md", name, i)
	}
	return cand
}

// writeFileAtomic writes path through a temporary file renamed over it,
// so that a failed write leaves the old file whole.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("export %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("export %s: %w", path, err)
	}
	os.Chmod(f.Name(), 0o644)
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("export %s: %w", path, err)
	}
	return nil
}

// annotation is a source's highlights as plain text: each quote in
// quotation marks, then its note and tags.
func annotation(src NoteSource) string {
	parts := make([]string, len(src.Highlights))
	for i, h := range src.Highlights {
		p := "“" + PlainQuote(h.Quote) + "”"
		if h.Note != "" {
			p += " — " + Wrapped(h.Note)
		}
		if len(h.Tags) > 0 {
			p += " [" + strings.Join(h.Tags, ", ") + "]"
		}
		parts[i] = p
	}
	return strings.Join(parts, "\n\n")
}

// notesKey is a source's citation key, the same at every export.
func notesKey(src NoteSource, used map[string]int) string {
	key := bibKey(Source{Title: src.Title, URL: src.URL})
	if src.URL == "" {
		key = "hark-" + strings.TrimPrefix(src.Key, "hark://library/") + "-" + strings.TrimPrefix(key, "web-")
	}
	used[key]++
	if n := used[key]; n > 1 {
		key += fmt.Sprintf("-%d", n)
	}
	return key
}

// NotesBibTeX is the sources as @misc entries with their highlights in
// annote (Zotero imports annote as a note, JabRef and BibDesk show it).
func NotesBibTeX(srcs []NoteSource) string {
	var b strings.Builder
	b.WriteString("% Highlights kept by hark (hark notes export), one @misc entry per source,\n% each highlight in annote with its note and tags.\n\n")
	used := map[string]int{}
	for _, src := range srcs {
		fmt.Fprintf(&b, "@misc{%s,\n  title = {%s},\n", notesKey(src, used), bibTitle(src.Title))
		if src.URL != "" {
			fmt.Fprintf(&b, "  howpublished = {\\url{%s}},\n  url = {%s},\n", src.URL, src.URL)
			if u, err := url.Parse(src.URL); err == nil && u.Host != "" {
				fmt.Fprintf(&b, "  organization = {%s},\n", bibEscape(u.Host))
			}
		} else {
			b.WriteString("  howpublished = {Research report kept by hark},\n")
		}
		fmt.Fprintf(&b, "  urldate = {%s},\n", src.Accessed.Format("2006-01-02"))
		if tags := src.Tags(); len(tags) > 0 {
			fmt.Fprintf(&b, "  keywords = {%s},\n", bibEscape(strings.Join(tags, ", ")))
		}
		ann := strings.Split(annotation(src), "\n\n")
		for i := range ann {
			ann[i] = bibEscape(ann[i])
		}
		fmt.Fprintf(&b, "  annote = {%s}\n}\n\n", strings.Join(ann, "\n\n  "))
	}
	return b.String()
}

// NotesCSL is the sources as CSL-JSON items (webpage, or report), their
// highlights in note.
func NotesCSL(srcs []NoteSource) ([]byte, error) {
	type date struct {
		Parts [][]int `json:"date-parts"`
	}
	type entry struct {
		ID        string `json:"id"`
		Type      string `json:"type"`
		Title     string `json:"title"`
		URL       string `json:"URL,omitempty"`
		Container string `json:"container-title,omitempty"`
		Accessed  date   `json:"accessed"`
		Keyword   string `json:"keyword,omitempty"`
		Note      string `json:"note"`
	}
	out := []entry{}
	used := map[string]int{}
	for _, src := range srcs {
		a := src.Accessed
		e := entry{ID: notesKey(src, used), Type: "webpage", Title: src.Title, URL: src.URL, Note: annotation(src),
			Accessed: date{[][]int{{a.Year(), int(a.Month()), a.Day()}}}, Keyword: strings.Join(src.Tags(), ", ")}
		if src.URL == "" {
			e.Type = "report"
		} else if u, err := url.Parse(src.URL); err == nil {
			e.Container = u.Host
		}
		out = append(out, e)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
