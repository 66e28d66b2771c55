// Package modeltest is a scriptable language-model service for tests: an
// httptest server on 127.0.0.1 that speaks OpenAI's chat completions
// (with SSE streaming) and embeddings, or Anthropic's messages (with its
// streaming events), with their real error bodies. A test scripts each
// answer: an honest or a careless writer, a slow stream, a stream that
// drops mid-answer, 429 with Retry-After, 500, an unknown model, a bad
// key. It is a stand-in for a third-party service and holds no hark
// logic; embeddings are a deterministic hash of words, for plumbing only.
package modeltest

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/gateway/text"
)

// Key is the API key a Server accepts.
const Key = "sk-modeltest-7f3a9c1e5b2d4f60"

// Default model names a Server knows.
const (
	ChatModel      = "fake-writer"
	EmbeddingModel = "fake-embed"
)

// Dims is the length of the fake embeddings.
const Dims = 64

// Reply is what the server answers to one chat request.
type Reply struct {
	// Text is the answer. It is streamed in pieces of Chunk runes
	// (default 7), or all at once to a request that did not ask to stream.
	Text  string
	Chunk int
	// Delay waits before each piece: a slow stream.
	Delay time.Duration
	// DropAfter, when > 0, cuts the connection after that many pieces,
	// without the stream's end: a stream that drops mid-answer.
	DropAfter int
	// Status, when set, answers with that HTTP error instead; RetryAfter
	// is then sent as the Retry-After header (with 429, say).
	Status     int
	RetryAfter string
	Message    string // the error's message; a default fits Status
}

// Request is one request the server received.
type Request struct {
	At       time.Time
	Path     string
	Model    string
	Stream   bool
	System   string
	User     string   // the last user message's text
	Inputs   []string // an embeddings request's texts
	KeyValid bool
}

// Writer answers a chat request from what it asked: the scripted writers
// read the numbered passages from the prompt.
type Writer func(r Request) Reply

// Server is one fake provider.
type Server struct {
	*httptest.Server
	anthropic bool

	mu        sync.Mutex
	key       string
	chat      map[string]bool
	embedding map[string]bool
	embedDims map[string]int // an embedding model's length, when not Dims
	embedPass int            // embeddings requests answered before embedErr applies
	embedFunc func(text string, dims int) []float32
	queue     []Reply
	writer    Writer
	embedErr  []Reply
	requests  []Request
	aborted   int
}

// Aborted is how many streams the client closed before they ended: a
// cancelled call.
func (s *Server) Aborted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.aborted
}

// NewOpenAI starts an OpenAI-compatible server (…/v1/chat/completions,
// …/v1/embeddings); its base URL is URL+"/v1", as ollama's is.
func NewOpenAI(t testing.TB) *Server { return start(t, false) }

// NewAnthropic starts an Anthropic messages server (…/v1/messages); its
// base URL is URL, as the SDK expects.
func NewAnthropic(t testing.TB) *Server { return start(t, true) }

func start(t testing.TB, anthropic bool) *Server {
	s := &Server{
		anthropic: anthropic,
		key:       Key,
		chat:      map[string]bool{ChatModel: true},
		embedding: map[string]bool{EmbeddingModel: true},
	}
	mux := http.NewServeMux()
	if anthropic {
		mux.HandleFunc("POST /v1/messages", s.messages)
	} else {
		mux.HandleFunc("POST /v1/chat/completions", s.completions)
		mux.HandleFunc("POST /v1/embeddings", s.embeddings)
	}
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// BaseURL is what a client configures: URL+"/v1" for OpenAI, URL for
// Anthropic (whose SDK adds /v1 itself).
func (s *Server) BaseURL() string {
	if s.anthropic {
		return s.URL
	}
	return s.URL + "/v1"
}

// Script queues replies, used in order before the writer.
func (s *Server) Script(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, r...)
}

// Write sets the writer that answers requests once the queue is empty.
func (s *Server) Write(w Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writer = w
}

// FailEmbeddings queues error replies for the next embeddings requests.
func (s *Server) FailEmbeddings(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedErr = append(s.embedErr, r...)
}

// FailEmbeddingsAfter answers the next n embeddings requests, then the
// queued error replies: a batch that fails part way through a run.
func (s *Server) FailEmbeddingsAfter(n int, r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedPass = n
	s.embedErr = append(s.embedErr, r...)
}

// EmbedWith makes f the server's embedding (EmbedDims by default): a
// test that needs two texts near without sharing a word.
func (s *Server) EmbedWith(f func(text string, dims int) []float32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedFunc = f
}

// AddEmbeddingModel makes an embedding model known whose vectors have
// dims dimensions (EmbedDims).
func (s *Server) AddEmbeddingModel(name string, dims int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedding[name] = true
	if s.embedDims == nil {
		s.embedDims = map[string]int{}
	}
	s.embedDims[name] = dims
}

// Requests are the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
}

func (s *Server) next(r Request) Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) > 0 {
		q := s.queue[0]
		s.queue = s.queue[1:]
		return q
	}
	if s.writer != nil {
		return s.writer(r)
	}
	return Reply{Text: "No passage was given [1]."}
}

// pieces cuts text into pieces of n runes.
func pieces(text string, n int) []string {
	if n <= 0 {
		n = 7
	}
	rs := []rune(text)
	var out []string
	for i := 0; i < len(rs); i += n {
		out = append(out, string(rs[i:min(i+n, len(rs))]))
	}
	return out
}

// streamed writes the reply's pieces through emit, waiting Delay before
// each, and reports false when it dropped the connection or the client
// went away.
func (s *Server) streamed(w http.ResponseWriter, r *http.Request, rep Reply, emit func(string)) bool {
	fl, _ := w.(http.Flusher)
	for i, p := range pieces(rep.Text, rep.Chunk) {
		if rep.DropAfter > 0 && i >= rep.DropAfter {
			drop(w)
			return false
		}
		if rep.Delay > 0 {
			select {
			case <-time.After(rep.Delay):
			case <-r.Context().Done():
				s.mu.Lock()
				s.aborted++
				s.mu.Unlock()
				return false
			}
		}
		emit(p)
		if fl != nil {
			fl.Flush()
		}
	}
	return true
}

// drop closes the connection under the response, as a proxy or a
// crashed server does.
func drop(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			_ = c.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// Embed is the fake embedding of one text: each word's term hashed into
// Dims buckets, normalised to length 1. Texts sharing words are near.
func Embed(s string) []float32 { return EmbedDims(s, Dims) }

// EmbedDims is Embed into dims buckets.
func EmbedDims(s string, dims int) []float32 {
	v := make([]float64, dims)
	for _, t := range text.Terms(s) {
		h := fnv.New64a()
		_, _ = h.Write([]byte(t))
		x := h.Sum64()
		sign := 1.0
		if x&1 == 1 {
			sign = -1
		}
		v[(x>>1)%uint64(dims)] += sign
	}
	var n float64
	for _, x := range v {
		n += x * x
	}
	out := make([]float32, dims)
	if n == 0 {
		out[0] = 1
		return out
	}
	n = math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Passages reads the numbered passages of a prompt: a line that opens
// with "[n] " starts passage n, which runs to the next such line. A
// writer script uses them to write its answer.
func Passages(prompt string) map[int]string {
	out := map[int]string{}
	cur := 0
	for _, line := range strings.Split(prompt, "\n") {
		if n, rest, ok := numbered(line); ok {
			cur = n
			out[cur] = rest
			continue
		}
		if cur > 0 {
			out[cur] = strings.TrimSpace(out[cur] + "\n" + line)
		}
	}
	return out
}

func numbered(line string) (int, string, bool) {
	if len(line) < 4 || line[0] != '[' {
		return 0, "", false
	}
	i := strings.Index(line, "] ")
	if i < 2 {
		return 0, "", false
	}
	n := 0
	for _, c := range line[1:i] {
		if c < '0' || c > '9' {
			return 0, "", false
		}
		n = n*10 + int(c-'0')
	}
	return n, strings.TrimSpace(line[i+2:]), true
}
