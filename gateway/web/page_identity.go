package web

import (
	"bytes"
	"context"
	"net/url"
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

// directoryIndexNames are the documents a web server serves for a
// folder's URL (Apache's DirectoryIndex, nginx's index, Python's and
// Go's file servers).
var directoryIndexNames = map[string]bool{"index.html": true, "index.htm": true, "index.xhtml": true}

// directoryURL is the folder URL of a directory index ("http://h/a/" for
// "http://h/a/index.html"), "" for any other URL: only http(s), and no
// query, as "?p=2" may be another document.
func directoryURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.RawQuery != "" {
		return ""
	}
	dir, file := path.Split(p.Path)
	if !directoryIndexNames[strings.ToLower(file)] {
		return ""
	}
	p.Path, p.RawPath = dir, ""
	return p.String()
}

// directoryTwin is the folder URL a fetched directory index is served at
// too, when the site serves it there byte for byte: the page's one URL,
// as a careful crawler keeps it. mdBook links its "/" as "index.html",
// and an index walked from "/" kept both as two pages. The folder's
// copy is fetched to be sure (a server may list a folder, answer 404 or
// redirect it to the index): one request more for each folder's index,
// and nothing changes where they differ. "" when fp is no directory
// index, or its folder is not the same page.
func (e *Engine) directoryTwin(ctx context.Context, fp *fetchedPage) string {
	dir := directoryURL(fp.URL)
	if dir == "" {
		return ""
	}
	twin, err := e.fetch.fetch(ctx, dir, pageTypes)
	if err != nil || twin.URL != dir || !bytes.Equal(twin.Body, fp.Body) {
		return ""
	}
	return dir
}
