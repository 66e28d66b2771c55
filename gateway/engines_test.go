package gateway

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"hark/api"
	"hark/gateway/engine"
)

// Small real engines for the tests: the web engine fetches pages over
// HTTP from servers the tests start on 127.0.0.1; the voice engine
// synthesizes a tone per word and "recognizes" audio by measuring it.

type testWeb struct {
	mu         sync.Mutex
	lastSearch api.SearchInput
	lastCrawl  api.CrawlInput
	client     *http.Client
	// gate holds the searches for "gate" until a test closes it.
	gate chan struct{}
}

func newTestWeb() *testWeb {
	return &testWeb{client: &http.Client{Timeout: 5 * time.Second}, gate: make(chan struct{})}
}

func (e *testWeb) bundle() engine.Web {
	return engine.Web{Search: e, Extract: e, Crawl: e, Map: e, Research: e}
}

func (e *testWeb) Search(ctx context.Context, in api.SearchInput) (*api.SearchOutput, error) {
	e.mu.Lock()
	e.lastSearch = in
	e.mu.Unlock()
	switch in.Query {
	case "vendor-down":
		return nil, &engine.VendorError{Vendor: "Tavily", Detail: "dial tcp: connection refused"}
	case "vendor-quota":
		return nil, &engine.VendorError{Vendor: "Tavily", Status: 432, Detail: "plan limit exceeded"}
	case "block":
		<-ctx.Done()
		return nil, ctx.Err()
	case "gate":
		select {
		case <-e.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case "gate-ignore-ctx": // an engine that overruns its deadline
		<-e.gate
	case "ignore-ctx":
		time.Sleep(time.Second)
		return &api.SearchOutput{Query: in.Query}, nil
	case "panic":
		panic("search engine bug")
	case "slow":
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	out := &api.SearchOutput{Query: in.Query, ResponseTime: 0.01}
	for i := range in.MaxResults {
		out.Results = append(out.Results, api.SearchResult{
			Title: fmt.Sprintf("%s %d", in.Query, i+1), URL: fmt.Sprintf("https://example.test/%d", i+1),
			Content: in.Topic, Score: 1 / float64(i+1),
		})
	}
	if in.IncludeAnswer {
		out.Answer = "answer to " + in.Query
	}
	return out, nil
}

func (e *testWeb) fetch(ctx context.Context, u string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return string(b), nil
}

func (e *testWeb) Extract(ctx context.Context, in api.ExtractInput) (*api.ExtractOutput, error) {
	out := &api.ExtractOutput{Results: []api.PageContent{}, FailedResults: []api.FailedExtract{}}
	for _, u := range in.URLs {
		body, err := e.fetch(ctx, u)
		if err != nil {
			out.FailedResults = append(out.FailedResults, api.FailedExtract{URL: u, Error: err.Error()})
			continue
		}
		out.Results = append(out.Results, api.PageContent{URL: u, RawContent: body})
	}
	return out, nil
}

func (e *testWeb) Crawl(ctx context.Context, in api.CrawlInput) (*api.CrawlOutput, error) {
	e.mu.Lock()
	e.lastCrawl = in
	e.mu.Unlock()
	engine.Progress(ctx, "fetching %s", in.URL)
	body, err := e.fetch(ctx, in.URL)
	if err != nil {
		return nil, &engine.VendorError{Vendor: "crawler", Detail: err.Error()}
	}
	return &api.CrawlOutput{BaseURL: in.URL, Results: []api.PageContent{{URL: in.URL, RawContent: body}}}, nil
}

func (e *testWeb) Map(ctx context.Context, in api.MapInput) (*api.MapOutput, error) {
	body, err := e.fetch(ctx, in.URL)
	if err != nil {
		return nil, err
	}
	out := &api.MapOutput{BaseURL: in.URL}
	for _, f := range strings.Fields(body) {
		if strings.HasPrefix(f, "http") && len(out.Results) < in.Limit {
			out.Results = append(out.Results, api.MapLink{URL: f})
		}
	}
	return out, nil
}

func (e *testWeb) Research(ctx context.Context, in api.ResearchInput) (*api.ResearchOutput, error) {
	switch in.Input {
	case "forever":
		<-ctx.Done()
		return nil, ctx.Err()
	case "doomed":
		return &api.ResearchOutput{RequestID: "r2", Status: api.ResearchFailed}, nil
	case "unfinished":
		return &api.ResearchOutput{RequestID: "r3", Status: api.ResearchInProgress}, nil
	case "empty":
		return &api.ResearchOutput{RequestID: "r4", Status: api.ResearchCompleted}, nil
	case "odd":
		return &api.ResearchOutput{RequestID: "r5", Status: "done"}, nil
	}
	return &api.ResearchOutput{RequestID: "r1", Status: api.ResearchCompleted,
		Content: "report on " + in.Input + " (" + in.Model + ")", Sources: []api.ResearchSource{}}, nil
}

// testVoice synthesizes 16 kHz s16le PCM: 100 ms of tone per word, one
// fragment per word. Recognize reports the audio's duration: a partial
// every 3200 bytes and one final after EOF.
type testVoice struct{}

const testRate = 16000

func (testVoice) Voices(context.Context) ([]api.Voice, error) {
	return []api.Voice{{Name: "Tone", Value: "tone", Language: "en", Scene: "test"}}, nil
}

func (testVoice) Synthesize(ctx context.Context, req api.TTSRequest, sink engine.AudioSink) (engine.Synthesis, error) {
	if req.VoiceCode != "tone" {
		return engine.Synthesis{}, &engine.InputError{Field: "voice_code", Rule: "unknown voice " + req.VoiceCode}
	}
	words := strings.Fields(req.Text)
	for i, w := range words {
		if w == "FAIL" {
			return engine.Synthesis{}, &engine.VendorError{Vendor: "Tone", Status: 500, Detail: "synthesizer crashed"}
		}
		if w == "SLOW" { // a word of 100 ms of CPU, in its turn
			release, err := engine.Turn(ctx)
			if err != nil {
				return engine.Synthesis{}, err
			}
			select {
			case <-time.After(100 * time.Millisecond):
				release()
			case <-ctx.Done():
				release()
				return engine.Synthesis{}, ctx.Err()
			}
		}
		frag := make([]byte, testRate/10*2)
		for j := 0; j < len(frag)/2; j++ {
			v := int16(8000 * math.Sin(2*math.Pi*float64(440+40*i)*float64(j)/testRate))
			binary.LittleEndian.PutUint16(frag[2*j:], uint16(v))
		}
		if _, err := sink.Write(frag); err != nil {
			return engine.Synthesis{}, err
		}
	}
	return engine.Synthesis{Format: req.Format, SampleRate: testRate, DurationMs: 100 * len(words)}, nil
}

func (testVoice) Recognize(ctx context.Context, cfg api.STTRequest, r io.Reader, emit func(engine.Transcript) error) error {
	buf := make([]byte, 3200)
	total := 0
	for {
		n, err := io.ReadFull(r, buf)
		total += n
		if n == len(buf) {
			if err := emit(engine.Transcript{Text: fmt.Sprintf("%d", total), Partial: true, DurationMs: total / 32}); err != nil {
				return err
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return err
		}
		if cfg.Language == "fail" && total >= 6400 {
			return &engine.VendorError{Vendor: "Tone", Detail: "recognizer lost"}
		}
		if cfg.Language == "busy" && total >= 6400 { // heard some, then no recogniser came free in time
			return fmt.Errorf("speech recognition busy: every recogniser stayed busy: %w", engine.ErrUnavailable)
		}
	}
	if cfg.Language == "slowfinal" {
		select {
		case <-time.After(300 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return emit(engine.Transcript{Text: fmt.Sprintf("heard %d bytes", total), Final: true, Confidence: 0.9, DurationMs: total / 32})
}
