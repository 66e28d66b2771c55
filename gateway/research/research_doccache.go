package research

import "sync"

// docCache keeps the pages research has read, parsed: reading a page's
// markdown into passages, blocks and sentences is a third of a report's
// time, and a researcher's next question (or a later round) mostly reads
// the same pages again. A page is read anew when its title or text
// differs from what was kept. The zero value is ready; it holds at most
// maxCachedDocs pages, the oldest read first to go.
type docCache struct {
	mu    sync.Mutex
	byURL map[string]cachedDoc
	order []string // URLs, oldest first
}

type cachedDoc struct {
	title, text, markdown string
	doc                   *rdoc
}

const maxCachedDocs = 32

// read is src read as a document of its own: a copy of the cached parse,
// whose per-report fields (url, kept, changelog, offTopic) the caller
// sets. The parse itself (sentences, blocks, passages) is never written
// after it is built, so copies share it.
func (c *docCache) read(src *researchSource) *rdoc {
	c.mu.Lock()
	k, ok := c.byURL[src.url]
	c.mu.Unlock()
	if !ok || k.title != src.title || k.text != src.text || k.markdown != src.markdown {
		k = cachedDoc{title: src.title, text: src.text, markdown: src.markdown}
		// The index's copy, read when the page was indexed, holds for
		// the same title (a page without one is read under its URL).
		if d, ok := decodeDoc(src.parsed); ok && d.title == src.title {
			k.doc = d
		} else if src.markdown != "" {
			k.doc = readMarkdownDoc(src.markdown, src.title)
		} else {
			k.doc = readTextDoc(src.text, src.title)
		}
		c.put(src.url, k)
	}
	d := *k.doc
	return &d
}

func (c *docCache) put(url string, k cachedDoc) {
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
