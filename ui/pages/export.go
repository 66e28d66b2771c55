package pages

import (
	"path/filepath"

	tea "charm.land/bubbletea/v2"

	"hark/library"
)

type exportedMsg struct {
	dir string
	n   int
	err error
}

// export writes pages as markdown files into a new folder under OutputDir.
func (p *Pane) export(pages []*Page) tea.Cmd {
	if len(pages) == 0 {
		return nil
	}
	dir := filepath.Join(outputDir(p.c.OutputDir), "pages-"+p.c.Now().Format("20060102-150405"))
	snap := make([]library.Page, len(pages))
	for i, pg := range pages {
		snap[i] = library.Page{URL: pg.URL, Content: pg.Content, Err: pg.Err}
	}
	return func() tea.Msg {
		dir := library.FreshDir(dir)
		n, err := library.ExportPages(dir, snap)
		return exportedMsg{dir: dir, n: n, err: err}
	}
}

func outputDir(d string) string {
	if d == "" {
		return "."
	}
	return d
}
