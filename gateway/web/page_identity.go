package web

import (
	"path"
	"strings"
)

// samePage is the identity of the page at u: URLs that differ only in
// how a site serves one page map to one key. Node.js ships every API
// page as fs.html and fs.md; a directory is "/", "" and "/index.html";
// so these count once in search results and research sources.
func samePage(u string) string {
	c := canonicalString(u)
	base, query, _ := strings.Cut(c, "?")
	base = strings.TrimSuffix(base, "/")
	dir, file := path.Split(base)
	switch strings.ToLower(file) {
	case "index.html", "index.htm", "index.md", "index.markdown":
		base = strings.TrimSuffix(dir, "/")
	default:
		if ext := path.Ext(file); ext != "" {
			switch strings.ToLower(ext) {
			case ".html", ".htm", ".md", ".markdown", ".xhtml":
				base = strings.TrimSuffix(base, ext)
			}
		}
	}
	if query != "" {
		base += "?" + query
	}
	return base
}
