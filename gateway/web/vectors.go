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
	"unicode/utf8"

	"hark/gateway/store"
	"hark/gateway/text"
)

// With an embedding model configured (docs/model.md), each page of the
// index has vectors: one for each of its first passages (the sentences
// stored when it was indexed, passages.go, gathered into pieces a small
// embedding model reads whole, each under the page's title), kept in
// web_vectors by page and passage with the model's name, the vector's
// dimension and the hash of the text embedded. `hark index` embeds the
// pages that have none for the configured model, or whose passages
// changed since, in batches; a run that stops keeps every batch it
// stored, so the next one embeds only what is left. Search scores a page
// by its passage nearest the query and fuses that rank with the
// full-text one (hybrid.go). The table is the same on both databases,
// and so is its SQL: one statement, rebound for PostgreSQL.

// Embedder embeds texts, one vector per text: the configured embedding
// model (gateway/model's Client).
type Embedder interface {
	EmbeddingModel() string
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// passageRunes bounds one embedded passage: consecutive sentences are
// gathered up to it (a longer sentence is cut to it), which embedding
// models of 512 tokens still read whole with the title before it.
const passageRunes = 1000

// maxEmbedPassages bounds a page's vectors: its first 8 passages, about
// its first 8,000 characters. Past them a manual's page is reference
// that the full-text rank finds by its words.
const maxEmbedPassages = 8

// defaultEmbedBatch is how many passages one embeddings request carries.
const defaultEmbedBatch = 32

// embedPassages is what is embedded of a page: its passages, each under
// its title, of the sentences stored when it was indexed, or of its body
// for a page indexed before they were (passages.go: the same sentences).
// A page without text is its title alone.
func embedPassages(title string, stored []byte, body string) []string {
	sents, ok := storedSentenceTexts(string(stored))
	if !ok {
		for _, p := range text.SentencesUnder(body) {
			sents = append(sents, withoutFooter(p.Text))
		}
	}
	var out []string
	var cur strings.Builder
	n := 0
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
			n = 0
		}
	}
	for _, s := range sents {
		if len(out) == maxEmbedPassages {
			break
		}
		s = strings.Join(strings.Fields(text.TruncateRunes(s, passageRunes)), " ")
		if s == "" {
			continue
		}
		r := utf8.RuneCountInString(s)
		if n > 0 && n+1+r > passageRunes {
			flush()
			if len(out) == maxEmbedPassages {
				break
			}
		}
		if n > 0 {
			cur.WriteByte(' ')
			n++
		}
		cur.WriteString(s)
		n += r
	}
	if len(out) < maxEmbedPassages {
		flush()
	}
	if title == "" {
		return out
	}
	if len(out) == 0 {
		return []string{title}
	}
	for i := range out {
		out[i] = title + "\n" + out[i]
	}
	return out
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
	ids   []int64   // each vector's page: a page's passages are adjacent
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
	Embedded int    `json:"embedded"`           // pages embedded by this run
	Passages int    `json:"passages,omitempty"` // their passages, a vector each
	Kept     int    `json:"kept"`               // pages whose vectors for Model were current
	Left     int    `json:"left"`               // pages still without them (a run that stopped)
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

// EmbedPages gives every page of the index its passages' vectors from
// the embedding model: the pages that have none for it, or whose
// passages changed since, in batches of about Config.EmbedBatch
// passages (whole pages, at least one), telling progress (when not nil)
// after each batch of the pages done out of those to do. A batch that
// fails stops the run; the batches before it stay stored, and a later
// run embeds only what is left.
func (e *Engine) EmbedPages(ctx context.Context, progress func(done, total int)) (EmbedReport, error) {
	if e.vectors == nil {
		return EmbedReport{}, errors.New("web: no embedding model is configured (model.embedding)")
	}
	return e.vectors.embedPages(ctx, progress)
}

// pendingPage is a page whose vectors are to be made, and how many
// passages it has.
type pendingPage struct {
	id       int64
	passages int
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
	for start := 0; start < len(todo); {
		end, n := start, 0
		for end < len(todo) && (end == start || n+todo[end].passages <= vi.batch) {
			n += todo[end].passages
			end++
		}
		batch := todo[start:end]
		pages, err := vi.texts(ctx, batch)
		if err != nil {
			return rep, fmt.Errorf("embed pages: %w", err)
		}
		var texts []string
		for _, p := range pages {
			texts = append(texts, p.texts...)
		}
		var vecs [][]float32
		for at := 0; at < len(texts); at += vi.batch {
			part := texts[at:min(at+vi.batch, len(texts))]
			vs, err := vi.emb.Embed(ctx, part)
			if err != nil {
				return rep, fmt.Errorf("embed pages with %s: %w", name, err)
			}
			if len(vs) != len(part) {
				return rep, fmt.Errorf("embed pages with %s: %d vectors for %d texts", name, len(vs), len(part))
			}
			vecs = append(vecs, vs...)
		}
		dims, err := vi.store(ctx, name, pages, vecs)
		if err != nil {
			return rep, fmt.Errorf("embed pages with %s: %w", name, err)
		}
		if dims != 0 {
			rep.Dims = dims
		}
		rep.Embedded += len(batch)
		rep.Passages += len(texts)
		rep.Left -= len(batch)
		start = end
		if progress != nil {
			progress(start, len(todo))
		}
	}
	if rep.Dims == 0 {
		_ = vi.db.QueryRow(ctx, `SELECT dims FROM web_vectors WHERE model = ? LIMIT 1`, name).Scan(&rep.Dims)
	}
	return rep, nil
}

// pageTextSQL reads a page's title, stored passages, and its body only
// when no passages are stored (a page indexed before them).
const pageTextSQL = `SELECT id, title, passages, CASE WHEN length(passages) = 0 THEN body ELSE '' END FROM web_pages`

// pageTexts is a page's passages to embed.
type pageTexts struct {
	id    int64
	texts []string
}

// scanPageTexts reads pageTextSQL's rows, and closes them; a page
// whose stored passages are of another form is read again from its body.
func (vi *vectorIndex) scanPageTexts(ctx context.Context, rows *sql.Rows) ([]pageTexts, error) {
	var out []pageTexts
	again := map[int64]int{} // page → its place in out
	titles := map[int64]string{}
	for rows.Next() {
		var id int64
		var title, body string
		var stored []byte
		if err := rows.Scan(&id, &title, &stored, &body); err != nil {
			rows.Close()
			return nil, err
		}
		if len(stored) > 0 {
			if _, ok := storedSentenceTexts(string(stored)); !ok {
				again[id], titles[id] = len(out), title
				out = append(out, pageTexts{id: id})
				continue
			}
		}
		out = append(out, pageTexts{id, embedPassages(title, stored, body)})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(again) == 0 {
		return out, nil
	}
	ids := make([]int64, 0, len(again))
	for id := range again {
		ids = append(ids, id)
	}
	brows, err := vi.db.Query(ctx, `SELECT id, body FROM web_pages WHERE id IN (`+joinIDs(ids)+`)`)
	if err != nil {
		return nil, err
	}
	defer brows.Close()
	for brows.Next() {
		var id int64
		var body string
		if err := brows.Scan(&id, &body); err != nil {
			return nil, err
		}
		out[again[id]].texts = embedPassages(titles[id], nil, body)
	}
	return out, brows.Err()
}

// pending is the pages that need vectors from model, in id order, and
// how many have current ones: a page's are current when each of its
// passages has a vector of model made from its text, and it has no
// others.
func (vi *vectorIndex) pending(ctx context.Context, model string) (todo []pendingPage, kept int, err error) {
	held := map[int64][]string{}
	stale := map[int64]bool{}
	vrows, err := vi.db.Query(ctx, `SELECT page_id, passage, model, text_hash FROM web_vectors ORDER BY page_id, passage`)
	if err != nil {
		return nil, 0, err
	}
	for vrows.Next() {
		var id int64
		var passage int
		var vmodel, hash string
		if err := vrows.Scan(&id, &passage, &vmodel, &hash); err != nil {
			vrows.Close()
			return nil, 0, err
		}
		if vmodel != model || passage != len(held[id]) {
			stale[id] = true
		}
		held[id] = append(held[id], hash)
	}
	vrows.Close()
	if err := vrows.Err(); err != nil {
		return nil, 0, err
	}
	rows, err := vi.db.Query(ctx, pageTextSQL+` ORDER BY id`)
	if err != nil {
		return nil, 0, err
	}
	pages, err := vi.scanPageTexts(ctx, rows)
	if err != nil {
		return nil, 0, err
	}
	for _, p := range pages {
		current := !stale[p.id] && len(held[p.id]) == len(p.texts)
		for i, t := range p.texts {
			current = current && held[p.id][i] == textHash(t)
		}
		if current {
			kept++
		} else {
			todo = append(todo, pendingPage{id: p.id, passages: len(p.texts)})
		}
	}
	return todo, kept, nil
}

// texts reads a batch's passages; a page removed since pending is
// skipped.
func (vi *vectorIndex) texts(ctx context.Context, batch []pendingPage) ([]pageTexts, error) {
	idl := make([]int64, len(batch))
	for i, p := range batch {
		idl[i] = p.id
	}
	rows, err := vi.db.Query(ctx, pageTextSQL+` WHERE id IN (`+joinIDs(idl)+`) ORDER BY id`)
	if err != nil {
		return nil, err
	}
	return vi.scanPageTexts(ctx, rows)
}

// store writes a batch's vectors (vecs, in the order of the pages'
// texts) in one transaction, replacing each page's vectors. A model
// whose vectors change length (a different model behind the same name)
// is refused: one model's vectors are compared with each other, and
// must be of one length.
func (vi *vectorIndex) store(ctx context.Context, model string, pages []pageTexts, vecs [][]float32) (int, error) {
	dims := 0
	if len(vecs) > 0 {
		dims = len(vecs[0])
	}
	for _, v := range vecs {
		if len(v) != dims || dims == 0 {
			return 0, fmt.Errorf("the model returned vectors of %d and %d dimensions in one batch", dims, len(v))
		}
	}
	if dims != 0 {
		var held int
		err := vi.db.QueryRow(ctx, `SELECT dims FROM web_vectors WHERE model = ? LIMIT 1`, model).Scan(&held)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return 0, err
		}
		if held != 0 && held != dims {
			return 0, fmt.Errorf("the model returned %d dimensions, but the index holds vectors of %d from a model of that name; "+
				"name the new model differently so that its pages are embedded again", dims, held)
		}
	}
	now := time.Now().UnixNano()
	return dims, vi.db.Tx(ctx, func(tx *store.Tx) error {
		k := 0
		for _, p := range pages {
			if _, err := tx.Exec(ctx, `DELETE FROM web_vectors WHERE page_id = ?`, p.id); err != nil {
				return fmt.Errorf("replace the vectors of page %d: %w", p.id, err)
			}
			for i, t := range p.texts {
				if _, err := tx.Exec(ctx, `INSERT INTO web_vectors(page_id, passage, model, dims, text_hash, embedded, vector) VALUES (?, ?, ?, ?, ?, ?, ?)`,
					p.id, i, model, dims, textHash(t), now, encodeVector(vecs[k])); err != nil {
					return fmt.Errorf("store the vector of page %d's passage %d: %w", p.id, i, err)
				}
				k++
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
	rows, err := vi.db.Query(ctx, `SELECT page_id, dims, vector FROM web_vectors WHERE model = ? ORDER BY page_id, passage`, model)
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

// neighbour is a page near the query, by its nearest passage's cosine.
type neighbour struct {
	id  int64
	sim float32
}

// nearest is the k pages nearest q (normalised), best first, each as
// near as its nearest passage; a page with no resemblance at all
// (cosine 0 or less) is not near.
func (c *vectorCache) nearest(q []float32, k int) []neighbour {
	if k <= 0 || len(q) != c.dims {
		return nil
	}
	top := make([]neighbour, 0, k+1)
	add := func(id int64, s float32) {
		if s <= 0 || len(top) == k && s <= top[k-1].sim {
			return
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
	var page int64
	var best float32
	for i, id := range c.ids {
		if i > 0 && id != page {
			add(page, best)
		}
		s := dot(c.vecs[i*c.dims:(i+1)*c.dims], q)
		if i == 0 || id != page || s > best {
			page, best = id, s
		}
	}
	if len(c.ids) > 0 {
		add(page, best)
	}
	return top
}

// dot is the dot product of a and b (of a's length), four lanes at a
// time: the nearest search's whole cost, over every passage's vector.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		aa, bb := a[i:i+4:i+4], b[i:i+4:i+4]
		s0 += aa[0] * bb[0]
		s1 += aa[1] * bb[1]
		s2 += aa[2] * bb[2]
		s3 += aa[3] * bb[3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}
