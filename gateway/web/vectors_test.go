package web

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/model"
	"hark/gateway/model/modeltest"
	"hark/gateway/pgtest"
	"hark/gateway/store"
	"hark/gateway/web/webtest"
)

// embedClient is a model client of the fake's embedding model name,
// without retries, so that a scripted failure is the run's.
func embedClient(t testing.TB, s *modeltest.Server, embedding string) *model.Client {
	t.Helper()
	c, err := model.New(model.Config{Provider: model.ProviderOpenAI, BaseURL: s.BaseURL(), APIKey: modeltest.Key,
		Chat: modeltest.ChatModel, Embedding: embedding, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// vectorEngine is an engine on db (SQLite) or pg with the embedder.
func vectorEngine(t testing.TB, cfg Config, emb Embedder, batch int) *Engine {
	t.Helper()
	cfg.Embedder, cfg.EmbedBatch = emb, batch
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// tenPages seeds ten pages about different things.
func tenPages(t testing.TB, e *Engine) {
	t.Helper()
	for i := 0; i < 10; i++ {
		seed(t, e, &page{URL: fmt.Sprintf("https://docs.example/p%d", i), Title: fmt.Sprintf("Page %d", i),
			Text: fmt.Sprintf("Page %d is about topic number %d and its valgrind memcheck flags.", i, i)})
	}
}

// embeddedInputs is how many texts the fake was asked to embed.
func embeddedInputs(s *modeltest.Server) (requests, texts int) {
	for _, r := range s.Requests() {
		if strings.HasSuffix(r.Path, "/embeddings") {
			requests++
			texts += len(r.Inputs)
		}
	}
	return requests, texts
}

// vectorRows is web_vectors as (model, dims) per page.
func vectorRows(t testing.TB, e *Engine) map[int64]string {
	t.Helper()
	rows, err := e.vectors.db.Query(context.Background(), `SELECT page_id, model, dims FROM web_vectors`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var m string
		var d int
		if err := rows.Scan(&id, &m, &d); err != nil {
			t.Fatal(err)
		}
		out[id] = fmt.Sprintf("%s/%d", m, d)
	}
	return out
}

// backends runs f on gateway.db's index and on PostgreSQL's.
func backends(t *testing.T, f func(t *testing.T, cfg Config)) {
	t.Run("sqlite", func(t *testing.T) { f(t, Config{DB: webtest.DB(t)}) })
	t.Run("postgres", func(t *testing.T) {
		db, err := store.OpenPostgres(context.Background(), pgtest.Start(t).URL(), 4)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(db.Close)
		f(t, Config{Postgres: db})
	})
}

func TestEmbedPagesKeepsStoredBatchesAndResumes(t *testing.T) {
	backends(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		s := modeltest.NewOpenAI(t)
		e := vectorEngine(t, cfg, embedClient(t, s, modeltest.EmbeddingModel), 3)
		tenPages(t, e)

		// The third batch fails: the two before it stay stored.
		s.FailEmbeddingsAfter(2, modeltest.Reply{Status: 500, Message: "the server had an error"})
		var seen [][2]int
		rep, err := e.EmbedPages(ctx, func(done, total int) { seen = append(seen, [2]int{done, total}) })
		if err == nil || !strings.Contains(err.Error(), "fake-embed") {
			t.Fatalf("a failed batch: err %v, want one naming the model", err)
		}
		if rep.Embedded != 6 || rep.Left != 4 {
			t.Errorf("report after the failure %+v, want 6 embedded, 4 left", rep)
		}
		if want := [][2]int{{0, 10}, {3, 10}, {6, 10}}; !reflect.DeepEqual(seen, want) {
			t.Errorf("progress %v, want %v", seen, want)
		}
		if n := len(vectorRows(t, e)); n != 6 {
			t.Fatalf("%d vectors stored after the failure, want the two batches' 6", n)
		}

		// The next run embeds only the four left.
		_, before := embeddedInputs(s)
		rep, err = e.EmbedPages(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, after := embeddedInputs(s)
		if after-before != 4 || rep.Embedded != 4 || rep.Kept != 6 || rep.Left != 0 || rep.Dims != modeltest.Dims {
			t.Errorf("resumed run: %d texts sent, report %+v; want 4 sent, 4 embedded, 6 kept, %d dims", after-before, rep, modeltest.Dims)
		}
		rows := vectorRows(t, e)
		if len(rows) != 10 {
			t.Fatalf("%d vectors, want 10", len(rows))
		}
		for id, v := range rows {
			if v != "fake-embed/64" {
				t.Errorf("page %d: vector %s, want fake-embed/64", id, v)
			}
		}

		// Nothing changed: nothing is sent.
		if rep, err = e.EmbedPages(ctx, nil); err != nil || rep.Embedded != 0 || rep.Kept != 10 {
			t.Errorf("a run with nothing to do: %+v, %v", rep, err)
		}
		if _, n := embeddedInputs(s); n != after {
			t.Errorf("a run with nothing to do sent %d texts", n-after)
		}

		// A page whose text changed is embedded again, alone.
		seed(t, e, &page{URL: "https://docs.example/p4", Title: "Page 4", Text: "Page 4 now says something else about helgrind."})
		if rep, err = e.EmbedPages(ctx, nil); err != nil || rep.Embedded != 1 {
			t.Errorf("after one page changed: %+v, %v; want 1 embedded", rep, err)
		}

		// A page removed takes its vector with it.
		if err := e.store.recordSource(ctx, "src", []string{"https://docs.example/p9"}, true); err != nil {
			t.Fatal(err)
		}
		if n, err := e.RemoveSource(ctx, "src"); err != nil || n != 1 {
			t.Fatalf("remove: %d, %v", n, err)
		}
		if n := len(vectorRows(t, e)); n != 9 {
			t.Errorf("%d vectors after a page was removed, want 9", n)
		}
	})
}

func TestChangedEmbeddingModelEmbedsAgain(t *testing.T) {
	backends(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		s := modeltest.NewOpenAI(t)
		s.AddEmbeddingModel("fake-embed-small", 16)
		e := vectorEngine(t, cfg, embedClient(t, s, modeltest.EmbeddingModel), 4)
		tenPages(t, e)
		if _, err := e.EmbedPages(ctx, nil); err != nil {
			t.Fatal(err)
		}

		// Another model: every page again, its vectors replacing the
		// old ones, and search reads only the new model's.
		cfg2 := cfg
		e2 := vectorEngine(t, cfg2, embedClient(t, s, "fake-embed-small"), 4)
		rep, err := e2.EmbedPages(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Embedded != 10 || rep.Kept != 0 || rep.Dims != 16 || rep.Model != "fake-embed-small" {
			t.Errorf("after the model changed: %+v, want all 10 embedded at 16 dims", rep)
		}
		for id, v := range vectorRows(t, e2) {
			if v != "fake-embed-small/16" {
				t.Errorf("page %d: vector %s, want fake-embed-small/16", id, v)
			}
		}
		// The old model's engine has no vectors of its own now: its
		// search is the lexical one and does not embed the query.
		_, sent := embeddedInputs(s)
		mustSearch(t, e, api.SearchInput{Query: "memcheck flags", MaxResults: 3})
		if _, n := embeddedInputs(s); n != sent {
			t.Errorf("a search without vectors of its model embedded the query")
		}
		c, err := e2.vectors.loaded(ctx)
		if err != nil || c == nil || c.dims != 16 || len(c.ids) != 10 {
			t.Fatalf("the new model's vectors as search reads them: %+v, %v", c, err)
		}
	})
}

// synonymEmbedding embeds "automobile" as "car": two texts near without
// a shared word, which full-text search cannot see.
func synonymEmbedding(text string, dims int) []float32 {
	return modeltest.EmbedDims(strings.ReplaceAll(strings.ToLower(text), "automobile", "car"), dims)
}

func TestHybridSearchFusesNearestPages(t *testing.T) {
	backends(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		s := modeltest.NewOpenAI(t)
		s.EmbedWith(synonymEmbedding)
		e := vectorEngine(t, cfg, embedClient(t, s, modeltest.EmbeddingModel), 8)
		seed(t, e,
			&page{URL: "https://a.example/repair", Title: "Car repair", Text: "How to repair a car: check the car's brakes and the car's oil."},
			&page{URL: "https://b.example/engine", Title: "Automobile engines", Text: "An automobile engine turns fuel into motion through pistons."},
			&page{URL: "https://c.example/bread", Title: "Banana bread", Text: "Mash three bananas, add flour, bake for an hour."},
		)
		in := api.SearchInput{Query: "car", MaxResults: 5}

		// With a model but no vectors yet: the lexical search, and the
		// query is not embedded.
		lexical := mustSearch(t, e, in)
		if got := searchURLs(lexical); !slices.Equal(got, []string{"https://a.example/repair"}) {
			t.Fatalf("lexical results %v", got)
		}
		if n, _ := embeddedInputs(s); n != 0 {
			t.Errorf("%d embeddings requests before any vector was stored", n)
		}

		if _, err := e.EmbedPages(ctx, nil); err != nil {
			t.Fatal(err)
		}
		hybrid := mustSearch(t, e, in)
		got := searchURLs(hybrid)
		if len(got) < 2 || got[0] != "https://a.example/repair" || got[1] != "https://b.example/engine" {
			t.Fatalf("hybrid results %v: want the car page (both lists) then the automobile page (nearest only)", got)
		}
		// The filters hold for the nearest pages too.
		in.ExcludeDomains = "b.example"
		if got := searchURLs(mustSearch(t, e, in)); slices.Contains(got, "https://b.example/engine") {
			t.Errorf("exclude_domains let a nearest page through: %v", got)
		}
		// Research's search reads the same fusion.
		r, err := e.SearchIndex(ctx, api.SearchInput{Query: "automobile", MaxResults: 5})
		if err != nil {
			t.Fatal(err)
		}
		if got := searchURLs(r); !slices.Contains(got, "https://a.example/repair") {
			t.Errorf("research's search of automobile %v lacks the car page", got)
		}

		// The model away: the search is the lexical one, not an error,
		// and the searches after it do not wait for the model again.
		s.FailEmbeddings(modeltest.Reply{Status: 500})
		if got := searchURLs(mustSearch(t, e, api.SearchInput{Query: "car", MaxResults: 5})); !slices.Equal(got, searchURLs(lexical)) {
			t.Errorf("with the model failing: %v, want the lexical %v", got, searchURLs(lexical))
		}
		asked, _ := embeddedInputs(s)
		if got := searchURLs(mustSearch(t, e, api.SearchInput{Query: "car", MaxResults: 5})); !slices.Equal(got, searchURLs(lexical)) {
			t.Errorf("just after the model failed: %v, want the lexical %v", got, searchURLs(lexical))
		}
		if n, _ := embeddedInputs(s); n != asked {
			t.Errorf("a search just after the model failed asked it again")
		}
		// Once the pause is over, search is hybrid again.
		e.vectors.mu.Lock()
		e.vectors.pausedUntil = time.Time{}
		e.vectors.mu.Unlock()
		if got := searchURLs(mustSearch(t, e, api.SearchInput{Query: "car", MaxResults: 5})); !slices.Contains(got, "https://b.example/engine") {
			t.Errorf("after the pause: %v, want the hybrid results again", got)
		}
	})
}

func TestWithoutAModelSearchIsUnchanged(t *testing.T) {
	db := webtest.DB(t)
	plain, err := New(Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	tenPages(t, plain)
	if plain.Embeds() {
		t.Fatal("an engine without an embedder embeds")
	}
	if _, err := plain.EmbedPages(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "model.embedding") {
		t.Errorf("EmbedPages without a model: %v", err)
	}
	s := modeltest.NewOpenAI(t)
	withModel := vectorEngine(t, Config{DB: db}, embedClient(t, s, modeltest.EmbeddingModel), 4)
	for _, q := range []string{"memcheck flags", "topic number 3", "page"} {
		in := api.SearchInput{Query: q, MaxResults: 5}
		a, b := mustSearch(t, plain, in), mustSearch(t, withModel, in)
		a.ResponseTime, b.ResponseTime = 0, 0
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%q: a model without vectors changed the results:\n%+v\n%+v", q, a, b)
		}
	}
}

// passageCounts is how many vectors each page has in web_vectors.
func passageCounts(t testing.TB, e *Engine) map[int64]int {
	t.Helper()
	rows, err := e.vectors.db.Query(context.Background(), `SELECT page_id, count(*) FROM web_vectors GROUP BY page_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64]int{}
	for rows.Next() {
		var id int64
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		out[id] = n
	}
	return out
}

// gardenText is n sentences about a garden, each of 79 characters, so
// that twelve fill one embedded passage (passageRunes).
func gardenText(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		s := fmt.Sprintf("Sentence %03d: the roses and tulips in bed %03d want water, compost and sun.", i, i)
		b.WriteString(s + strings.Repeat(" x", (79-len(s))/2) + "\n")
	}
	return b.String()
}

func TestPassagesAreEmbeddedAndSearchReadsTheNearest(t *testing.T) {
	backends(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		s := modeltest.NewOpenAI(t)
		s.EmbedWith(synonymEmbedding)
		e := vectorEngine(t, cfg, embedClient(t, s, modeltest.EmbeddingModel), 4)
		deep := "https://garden.example/notes"
		seed(t, e,
			// Its automobile passage comes after 1,900 characters of
			// garden: a vector of the page's head would not know it.
			&page{URL: deep, Title: "Garden notes", Text: gardenText(24) +
				"An automobile needs oil. The automobile engine turns pistons. Every automobile has brakes."},
			&page{URL: "https://long.example/manual", Title: "A long manual", Text: gardenText(200)},
			&page{URL: "https://c.example/bread", Title: "Banana bread", Text: "Mash three bananas, add flour, bake for an hour."},
		)
		rep, err := e.EmbedPages(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		counts := passageCounts(t, e)
		ids := map[string]int64{}
		rows, err := e.vectors.db.Query(ctx, `SELECT id, url FROM web_pages`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			var u string
			if err := rows.Scan(&id, &u); err != nil {
				t.Fatal(err)
			}
			ids[u] = id
		}
		rows.Close()
		if n := counts[ids[deep]]; n != 3 {
			t.Errorf("the garden notes have %d vectors, want their 3 passages'", n)
		}
		if n := counts[ids["https://long.example/manual"]]; n != maxEmbedPassages {
			t.Errorf("a page of 17 passages has %d vectors, want the bound's %d", n, maxEmbedPassages)
		}
		if n := counts[ids["https://c.example/bread"]]; n != 1 {
			t.Errorf("a one-sentence page has %d vectors, want 1", n)
		}
		if want := 3 + maxEmbedPassages + 1; rep.Embedded != 3 || rep.Passages != want {
			t.Errorf("report %+v, want 3 pages and %d passages embedded", rep, want)
		}
		// Batches carry whole pages: no request holds more than four
		// passages but the long page's own, sent four at a time.
		for _, r := range s.Requests() {
			if strings.HasSuffix(r.Path, "/embeddings") && len(r.Inputs) > 4 {
				t.Errorf("an embeddings request of %d inputs, batch 4", len(r.Inputs))
			}
		}

		// The lexical search does not find the garden notes for "car";
		// the hybrid one does, by their third passage.
		c, err := e.vectors.loaded(ctx)
		if err != nil || c == nil {
			t.Fatal(c, err)
		}
		q := synonymEmbedding("car", modeltest.Dims)
		normalize(q)
		near := c.nearest(q, 3)
		if len(near) == 0 || near[0].id != ids[deep] || near[0].sim < 0.5 {
			t.Errorf("nearest to car %+v, want the garden notes first by their automobile passage", near)
		}
		for i, n := range near {
			if i > 0 && n.id == near[i-1].id {
				t.Errorf("nearest lists page %d twice: %+v", n.id, near)
			}
		}
		if got := searchURLs(mustSearch(t, e, api.SearchInput{Query: "car", MaxResults: 5})); !slices.Contains(got, deep) {
			t.Errorf("hybrid search of car %v lacks the garden notes", got)
		}

		// One passage changed: the page is embedded again, alone; a page
		// that shrank keeps no vector of a passage it lost.
		seed(t, e, &page{URL: deep, Title: "Garden notes", Text: gardenText(13) + "Bicycles need no oil."})
		_, before := embeddedInputs(s)
		if rep, err = e.EmbedPages(ctx, nil); err != nil || rep.Embedded != 1 || rep.Kept != 2 {
			t.Errorf("after one page changed: %+v, %v; want 1 embedded, 2 kept", rep, err)
		}
		if _, after := embeddedInputs(s); after-before != 2 {
			t.Errorf("%d passages sent, want the changed page's 2", after-before)
		}
		if n := passageCounts(t, e)[ids[deep]]; n != 2 {
			t.Errorf("the shortened page has %d vectors, want 2", n)
		}

		// A page removed takes all its vectors with it.
		if err := e.store.recordSource(ctx, "src", []string{"https://long.example/manual"}, true); err != nil {
			t.Fatal(err)
		}
		if _, err := e.RemoveSource(ctx, "src"); err != nil {
			t.Fatal(err)
		}
		if n, ok := passageCounts(t, e)[ids["https://long.example/manual"]]; ok {
			t.Errorf("a removed page kept %d vectors", n)
		}
	})
}

func TestDotIsTheDotProduct(t *testing.T) {
	for _, n := range []int{0, 1, 3, 4, 7, 64} {
		a, b := make([]float32, n), make([]float32, n)
		var want float32
		for i := range a {
			a[i], b[i] = float32(i+1), float32(2*i-3)
			want += a[i] * b[i]
		}
		if got := dot(a, b); got != want {
			t.Errorf("dot of length %d: %v, want %v", n, got, want)
		}
	}
}

// TestFusionOrdersByBothRanks holds the order to reciprocal rank fusion:
// the page second in the full-text rank but nearest the query passes
// the one first in the full-text rank but third nearest (1/62 + 1/61
// against 1/61 + 1/63); without fusion the full-text order would stand.
func TestFusionOrdersByBothRanks(t *testing.T) {
	backends(t, func(t *testing.T, cfg Config) {
		ctx := context.Background()
		s := modeltest.NewOpenAI(t)
		s.EmbedWith(func(text string, dims int) []float32 {
			v := make([]float32, dims)
			switch l := strings.ToLower(text); {
			case l == "car" || strings.Contains(l, "a sedan is"):
				v[0] = 1
			case strings.Contains(l, "coupe"):
				v[0], v[1] = 0.9, 0.3
			default:
				v[0], v[1] = 0.1, 1
			}
			return v
		})
		e := vectorEngine(t, cfg, embedClient(t, s, modeltest.EmbeddingModel), 8)
		parts, sedan, coupe := "https://a.example/parts", "https://b.example/sedan", "https://c.example/coupe"
		seed(t, e,
			&page{URL: parts, Title: "Car parts", Text: "Car parts: car wheels, car doors, car seats and car mirrors."},
			&page{URL: sedan, Title: "Sedan", Text: "A sedan is a car with four doors and a boot."},
			&page{URL: coupe, Title: "Coupe", Text: "A coupe has two doors and a sloping roof."},
		)
		in := api.SearchInput{Query: "car", MaxResults: 5}
		if got := searchURLs(mustSearch(t, e, in)); !slices.Equal(got, []string{parts, sedan}) {
			t.Fatalf("lexical results %v, want parts then sedan", got)
		}
		if _, err := e.EmbedPages(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if got := searchURLs(mustSearch(t, e, in)); !slices.Equal(got, []string{sedan, parts, coupe}) {
			t.Errorf("hybrid results %v, want sedan (2nd and 1st), parts (1st and 3rd), coupe (nearest only)", got)
		}
	})
}
