package doc

import "sync"

// Cache keeps the pages research has read, parsed: reading a page's
// markdown into passages, blocks and sentences is a third of a report's
// time, and a researcher's next question (or a later round) mostly reads
// the same pages again. A page is read anew when its title or text
// differs from what was kept. The zero value is ready; it holds at most
// maxCachedDocs pages, the oldest read first to go.
type Cache struct {
	mu    sync.Mutex
	byURL map[string]cachedDoc
	order []string // URLs, oldest first
}

type cachedDoc struct {
	title, text, markdown string
	doc                   *Page
}

const maxCachedDocs = 32

// Read is the page at url parsed: the index's stored copy (parsed, as
// Parse wrote it) when it holds for the same title, else the markdown
// read, else the text. The Page is shared by every caller that reads the
// same page, and never written after it is built.
func (c *Cache) Read(url, title, text, markdown string, parsed []byte) *Page {
	c.mu.Lock()
	k, ok := c.byURL[url]
	c.mu.Unlock()
	if !ok || k.title != title || k.text != text || k.markdown != markdown {
		k = cachedDoc{title: title, text: text, markdown: markdown}
		// The index's copy, read when the page was indexed, holds for
		// the same title (a page without one is read under its URL).
		if d, ok := Decode(parsed); ok && d.Title == title {
			k.doc = d
		} else if markdown != "" {
			k.doc = ReadMarkdown(markdown, title)
		} else {
			k.doc = ReadText(text, title)
		}
		c.put(url, k)
	}
	return k.doc
}

func (c *Cache) put(url string, k cachedDoc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byURL == nil {
		c.byURL = map[string]cachedDoc{}
	}
	if _, ok := c.byURL[url]; !ok {
		c.order = append(c.order, url)
	}
	c.byURL[url] = k
	for len(c.order) > maxCachedDocs {
		delete(c.byURL, c.order[0])
		c.order = c.order[1:]
	}
}
