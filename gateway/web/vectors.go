package web

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"hark/gateway/store"
	"hark/gateway/text"
)

// With an embedding model configured (docs/model.md), each page of the
// index has a vector: its title and opening text as the model embeds
// them, kept in web_vectors with the model's name and the vector's
// dimension. `hark index` embeds the pages that have none for the
// configured model, or whose text changed since, in batches; a run that
// stops keeps every batch it stored, so the next one embeds only what
// is left. Search then fuses the full-text rank with the query's nearest
// pages (hybrid.go). The table is the same on both databases, and so is
// its SQL: one statement, rebound for PostgreSQL.

// Embedder embeds texts, one vector per text: the configured embedding
// model (gateway/model's Client).
type Embedder interface {
	EmbeddingModel() string
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// embedRunes is how much of a page is embedded: its title and the
// opening of its body, which embedding models of 512 tokens still read
// whole.
const embedRunes = 1500

// defaultEmbedBatch is how many pages one embeddings request carries.
const defaultEmbedBatch = 32

// pageEmbedText is what is embedded of a page.
func pageEmbedText(title, body string) string {
	body = strings.Join(strings.Fields(text.TruncateRunes(body, embedRunes)), " ")
	if title == "" {
		return body
	}
	return title + "\n" + body
}

// textHash names the text a vector was made from: a page whose text
// changes is embedded again.
func textHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:12])
}

// encodeVector is a vector as stored: little-endian float32s.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVector(b []byte, into []float32) {
	for i := range into {
		into[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}

// normalize scales v to length 1, so that a dot product is the cosine.
func normalize(v []float32) {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return
	}
	s := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= s
	}
}

// vectorIndex is the index's vectors for one embedding model.
type vectorIndex struct {
	db    *store.DB
	emb   Embedder
	batch int

	mu          sync.Mutex
	cache       *vectorCache
	pausedUntil time.Time // hybrid.go: no query embedding before then
}

// vectorCache is the configured model's vectors in memory, normalised,
// with the stamp of web_vectors they were read at.
type vectorCache struct {
	stamp vectorStamp
	dims  int
	ids   []int64
	vecs  []float32 // len(ids) × dims
}

// vectorStamp says whether web_vectors changed for a model: how many it
// holds and when the last was written.
type vectorStamp struct {
	n    int64
	last int64
}

func (s vectorStamp) String() string { return fmt.Sprintf("%d@%d", s.n, s.last) }

// EmbedReport is what an embedding run did.
type EmbedReport struct {
	Model    string `json:"model"`
	Dims     int    `json:"dims,omitempty"`
	Embedded int    `json:"embedded"` // pages embedded by this run
	Kept     int    `json:"kept"`     // pages whose vector for Model was current
	Left     int    `json:"left"`     // pages still without one (a run that stopped)
}

// Embeds reports whether the engine has an embedding model.
func (e *Engine) Embeds() bool { return e.vectors != nil }

// EmbeddingModel is the engine's embedding model, "" without one.
func (e *Engine) EmbeddingModel() string {
	if e.vectors == nil {
		return ""
	}
	return e.vectors.emb.EmbeddingModel()
}

// EmbedPages gives every page of the index a vector from the embedding
// model: those that have none for it, or one of text that changed since,
// in batches of Config.EmbedBatch, telling progress (when not nil) after
// each batch of the pages done out of those to do. A batch that fails
// stops the run; the batches before it stay stored, and a later run
// embeds only what is left.
func (e *Engine) EmbedPages(ctx context.Context, progress func(done, total int)) (EmbedReport, error) {
	if e.vectors == nil {
		return EmbedReport{}, errors.New("web: no embedding model is configured (model.embedding)")
	}
	return e.vectors.embedPages(ctx, progress)
}

// pendingPage is a page whose vector is to be made.
type pendingPage struct {
	id   int64
	hash string
}

func (vi *vectorIndex) embedPages(ctx context.Context, progress func(done, total int)) (EmbedReport, error) {
	name := vi.emb.EmbeddingModel()
	rep := EmbedReport{Model: name}
	todo, kept, err := vi.pending(ctx, name)
	if err != nil {
		return rep, fmt.Errorf("embed pages: %w", err)
	}
	rep.Kept = kept
	rep.Left = len(todo)
	if progress != nil {
		progress(0, len(todo))
	}
	for start := 0; start < len(todo); start += vi.batch {
		batch := todo[start:min(start+vi.batch, len(todo))]
		texts, ids, err := vi.texts(ctx, batch)
		if err != nil {
			return rep, fmt.Errorf("embed pages: %w", err)
		}
		if len(texts) > 0 {
			vecs, err := vi.emb.Embed(ctx, texts)
			if err != nil {
				return rep, fmt.Errorf("embed pages with %s: %w", name, err)
			}
			if len(vecs) != len(texts) {
				return rep, fmt.Errorf("embed pages with %s: %d vectors for %d texts", name, len(vecs), len(texts))
			}
			dims, err := vi.store(ctx, name, ids, texts, vecs)
			if err != nil {
				return rep, fmt.Errorf("embed pages with %s: %w", name, err)
			}
			rep.Dims = dims
		}
		rep.Embedded += len(batch)
		rep.Left -= len(batch)
		if progress != nil {
			progress(start+len(batch), len(todo))
		}
	}
	if rep.Dims == 0 {
		_ = vi.db.QueryRow(ctx, `SELECT dims FROM web_vectors WHERE model = ? LIMIT 1`, name).Scan(&rep.Dims)
	}
	return rep, nil
}

// pending is the pages that need a vector from model, in id order, and
// how many have a current one. It reads each page's opening text, the
// part embedded, to see whether it changed.
func (vi *vectorIndex) pending(ctx context.Context, model string) (todo []pendingPage, kept int, err error) {
	rows, err := vi.db.Query(ctx, `SELECT p.id, p.title, substr(p.body, 1, ?), COALESCE(v.model, ''), COALESCE(v.text_hash, '')
FROM web_pages p LEFT JOIN web_vectors v ON v.page_id = p.id ORDER BY p.id`, embedRunes+1)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var title, body, vmodel, vhash string
		if err := rows.Scan(&id, &title, &body, &vmodel, &vhash); err != nil {
			return nil, 0, err
		}
		h := textHash(pageEmbedText(title, body))
		if vmodel == model && vhash == h {
			kept++
			continue
		}
		todo = append(todo, pendingPage{id: id, hash: h})
	}
	return todo, kept, rows.Err()
}

// texts reads a batch's texts; a page removed since pending is skipped.
func (vi *vectorIndex) texts(ctx context.Context, batch []pendingPage) (texts []string, ids []int64, err error) {
	idl := make([]int64, len(batch))
	for i, p := range batch {
		idl[i] = p.id
	}
	rows, err := vi.db.Query(ctx, `SELECT id, title, substr(body, 1, ?) FROM web_pages WHERE id IN (`+joinIDs(idl)+`) ORDER BY id`, embedRunes+1)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var title, body string
		if err := rows.Scan(&id, &title, &body); err != nil {
			return nil, nil, err
		}
		texts = append(texts, pageEmbedText(title, body))
		ids = append(ids, id)
	}
	return texts, ids, rows.Err()
}

// store writes a batch's vectors in one transaction, replacing a page's
// vector of another model. A model whose vectors change length (a
// different model behind the same name) is refused: one model's
// vectors are compared with each other, and must be of one length.
func (vi *vectorIndex) store(ctx context.Context, model string, ids []int64, texts []string, vecs [][]float32) (int, error) {
	dims := len(vecs[0])
	for _, v := range vecs {
		if len(v) != dims || dims == 0 {
			return 0, fmt.Errorf("the model returned vectors of %d and %d dimensions in one batch", dims, len(v))
		}
	}
	var held int
	err := vi.db.QueryRow(ctx, `SELECT dims FROM web_vectors WHERE model = ? LIMIT 1`, model).Scan(&held)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	if held != 0 && held != dims {
		return 0, fmt.Errorf("the model returned %d dimensions, but the index holds vectors of %d from a model of that name; "+
			"name the new model differently so that its pages are embedded again", dims, held)
	}
	now := time.Now().UnixNano()
	return dims, vi.db.Tx(ctx, func(tx *store.Tx) error {
		for i, id := range ids {
			if _, err := tx.Exec(ctx, `INSERT INTO web_vectors(page_id, model, dims, text_hash, embedded, vector) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT(page_id) DO UPDATE SET model = excluded.model, dims = excluded.dims, text_hash = excluded.text_hash,
	embedded = excluded.embedded, vector = excluded.vector`,
				id, model, dims, textHash(texts[i]), now, encodeVector(vecs[i])); err != nil {
				return fmt.Errorf("store the vector of page %d: %w", id, err)
			}
		}
		return nil
	})
}

// stampOf is web_vectors' stamp for model.
func (vi *vectorIndex) stampOf(ctx context.Context, model string) (vectorStamp, error) {
	var s vectorStamp
	err := vi.db.QueryRow(ctx, `SELECT count(*), COALESCE(max(embedded), 0) FROM web_vectors WHERE model = ?`, model).Scan(&s.n, &s.last)
	return s, err
}

// loaded is the configured model's vectors, read again when web_vectors
// changed for it; nil when the index holds none.
func (vi *vectorIndex) loaded(ctx context.Context) (*vectorCache, error) {
	model := vi.emb.EmbeddingModel()
	stamp, err := vi.stampOf(ctx, model)
	if err != nil {
		return nil, err
	}
	vi.mu.Lock()
	defer vi.mu.Unlock()
	if stamp.n == 0 {
		vi.cache = nil
		return nil, nil
	}
	if vi.cache != nil && vi.cache.stamp == stamp {
		return vi.cache, nil
	}
	rows, err := vi.db.Query(ctx, `SELECT page_id, dims, vector FROM web_vectors WHERE model = ? ORDER BY page_id`, model)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	c := &vectorCache{stamp: stamp}
	for rows.Next() {
		var id int64
		var dims int
		var b []byte
		if err := rows.Scan(&id, &dims, &b); err != nil {
			return nil, err
		}
		if c.dims == 0 {
			c.dims = dims
			c.vecs = make([]float32, 0, int(stamp.n)*dims)
		}
		if dims != c.dims || len(b) != 4*dims {
			continue // store refuses these; never compare vectors of two lengths
		}
		c.ids = append(c.ids, id)
		c.vecs = c.vecs[:len(c.vecs)+dims]
		v := c.vecs[len(c.vecs)-dims:]
		decodeVector(b, v)
		normalize(v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	vi.cache = c
	return c, nil
}

// neighbour is a page near the query, by cosine.
type neighbour struct {
	id  int64
	sim float32
}

// nearest is the k pages nearest q (normalised), best first; a page with
// no resemblance at all (cosine 0 or less) is not near.
func (c *vectorCache) nearest(q []float32, k int) []neighbour {
	if k <= 0 || len(q) != c.dims {
		return nil
	}
	top := make([]neighbour, 0, k+1)
	for i, id := range c.ids {
		v := c.vecs[i*c.dims : (i+1)*c.dims]
		var s float32
		for j, x := range v {
			s += x * q[j]
		}
		if s <= 0 || len(top) == k && s <= top[k-1].sim {
			continue
		}
		at := len(top)
		for at > 0 && top[at-1].sim < s {
			at--
		}
		top = append(top, neighbour{})
		copy(top[at+1:], top[at:])
		top[at] = neighbour{id, s}
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}
