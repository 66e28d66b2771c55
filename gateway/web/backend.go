package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"hark/api"
	"hark/gateway/engine"
	"hark/gateway/text"
)

// BackendConfig selects a workspace's web backend.
type BackendConfig struct {
	Kind   string // "local" (default), "searxng" or "tavily"
	URL    string // searxng: the instance's base URL (required); tavily: default https://api.tavily.com
	APIKey string // tavily: the workspace's vendor key, sent as a Bearer token

	HTTPClient   *http.Client  // default: a client with a 60 s timeout per request
	PollInterval time.Duration // tavily research polling; default 2 s
}

// DefaultTavilyURL is the Tavily API's base URL.
const DefaultTavilyURL = "https://api.tavily.com"

// NewBackend returns a workspace's five web tools for cfg.Kind:
//
//   - local: the local engine for all but research;
//   - searxng: search from the SearXNG instance's JSON API; extract, crawl
//     and map from the local engine;
//   - tavily: all five passed through to Tavily's HTTP API.
//
// local may be nil for tavily; searxng then offers search only. Research
// is left nil for local and searxng: gateway/research runs it over the
// backend's search and the local fetcher (research.Engine.For).
func NewBackend(cfg BackendConfig, local *Engine) (engine.Web, error) {
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 60 * time.Second}
	}
	switch strings.ToLower(strings.TrimSpace(cfg.Kind)) {
	case "", "local":
		if local == nil {
			return engine.Web{}, errors.New("web backend local: no local engine")
		}
		return local.Web(), nil
	case "searxng":
		u, err := backendURL(cfg.URL, "")
		if err != nil {
			return engine.Web{}, fmt.Errorf("web backend searxng: %w", err)
		}
		sx := &SearXNG{base: u, client: client, local: local}
		w := engine.Web{Search: sx}
		if local != nil {
			w.Extract, w.Crawl, w.Map = local, local, local
		}
		return w, nil
	case "tavily":
		u, err := backendURL(cfg.URL, DefaultTavilyURL)
		if err != nil {
			return engine.Web{}, fmt.Errorf("web backend tavily: %w", err)
		}
		poll := cfg.PollInterval
		if poll <= 0 {
			poll = 2 * time.Second
		}
		tv := &Tavily{base: u, key: cfg.APIKey, client: client, poll: poll}
		return engine.Web{Search: tv, Extract: tv, Crawl: tv, Map: tv, Research: tv}, nil
	}
	return engine.Web{}, fmt.Errorf("web backend %q: unknown kind; use local, searxng or tavily", cfg.Kind)
}

func backendURL(raw, def string) (string, error) {
	if strings.TrimSpace(raw) == "" {
		if def == "" {
			return "", errors.New("url is required")
		}
		raw = def
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("url %q must be an absolute http(s) URL", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// vendorError reads a failed vendor response into the spec's second form,
// with the vendor's own message as detail and any secret scrubbed.
func vendorError(vendor string, resp *http.Response, secret string) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	detail := vendorDetail(body)
	if detail == "" {
		detail = http.StatusText(resp.StatusCode)
	}
	return &engine.VendorError{Vendor: vendor, Status: resp.StatusCode, Detail: scrub(detail, secret)}
}

func vendorDetail(body []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) == nil {
		for _, k := range []string{"detail", "error", "message"} {
			raw, ok := m[k]
			if !ok {
				continue
			}
			var s string
			if json.Unmarshal(raw, &s) == nil && s != "" {
				return text.TruncateRunes(s, 300)
			}
			var inner map[string]json.RawMessage
			if json.Unmarshal(raw, &inner) == nil {
				for _, ik := range []string{"error", "message", "detail"} {
					if json.Unmarshal(inner[ik], &s) == nil && s != "" {
						return text.TruncateRunes(s, 300)
					}
				}
			}
			return text.TruncateRunes(string(raw), 300)
		}
	}
	return text.TruncateRunes(strings.TrimSpace(string(body)), 300)
}

// requestFailed is the spec's first form, for failures before a response.
func requestFailed(vendor string, err error, secret string) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &engine.VendorError{Vendor: vendor, Detail: scrub(unwrapURLError(err).Error(), secret)}
}

func scrub(s, secret string) string {
	if secret != "" {
		s = strings.ReplaceAll(s, secret, "[redacted]")
	}
	return s
}

// --- Tavily ---

// Tavily passes the five tools through to Tavily's HTTP API, whose fields
// the tools mirror one to one.
type Tavily struct {
	base   string
	key    string
	client *http.Client
	poll   time.Duration
}

const tavilyName = "Tavily"

func (t *Tavily) call(ctx context.Context, method, path string, in, out any) error {
	if strings.TrimSpace(t.key) == "" {
		return engine.ErrCredentialsMissing
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, t.base+path, body)
	if err != nil {
		return requestFailed(tavilyName, err, t.key)
	}
	req.Header.Set("Authorization", "Bearer "+t.key)
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return requestFailed(tavilyName, err, t.key)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return vendorError(tavilyName, resp, t.key)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return requestFailed(tavilyName, err, t.key)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return &engine.VendorError{Vendor: tavilyName, Detail: "unreadable response: " + err.Error()}
	}
	return nil
}

// flexNumber decodes a number sent as a JSON number or a string.
type flexNumber float64

func (f *flexNumber) UnmarshalJSON(b []byte) error {
	var n float64
	if json.Unmarshal(b, &n) == nil {
		*f = flexNumber(n)
		return nil
	}
	var s string
	if json.Unmarshal(b, &s) == nil {
		n, _ = strconv.ParseFloat(strings.TrimSpace(s), 64)
		*f = flexNumber(n)
	}
	return nil
}

// flexImage decodes an image sent as a bare URL or an object.
type flexImage api.SearchImage

func (f *flexImage) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*f = flexImage{URL: s}
		return nil
	}
	var o struct {
		URL         string `json:"url"`
		Description string `json:"description"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	*f = flexImage{URL: o.URL, Description: o.Description}
	return nil
}

// flexText decodes a string, or any other JSON value as its JSON text.
type flexText string

func (f *flexText) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*f = flexText(s)
		return nil
	}
	if string(b) == "null" {
		return nil
	}
	*f = flexText(b)
	return nil
}

type tavilyPage struct {
	URL        string      `json:"url"`
	RawContent flexText    `json:"raw_content"`
	Favicon    string      `json:"favicon"`
	Images     []flexImage `json:"images"`
	Error      string      `json:"error"`
}

func (p tavilyPage) content() api.PageContent {
	pc := api.PageContent{URL: p.URL, RawContent: string(p.RawContent), Favicon: p.Favicon}
	for _, im := range p.Images {
		pc.Images = append(pc.Images, im.URL)
	}
	return pc
}

func (t *Tavily) Search(ctx context.Context, in api.SearchInput) (*api.SearchOutput, error) {
	var r struct {
		Query        string      `json:"query"`
		Answer       flexText    `json:"answer"`
		ResponseTime flexNumber  `json:"response_time"`
		Images       []flexImage `json:"images"`
		Results      []struct {
			Title         string     `json:"title"`
			URL           string     `json:"url"`
			Content       string     `json:"content"`
			Score         flexNumber `json:"score"`
			RawContent    flexText   `json:"raw_content"`
			PublishedDate string     `json:"published_date"`
			Favicon       string     `json:"favicon"`
		} `json:"results"`
	}
	if err := t.call(ctx, http.MethodPost, "/search", in, &r); err != nil {
		return nil, err
	}
	out := &api.SearchOutput{Query: r.Query, Answer: string(r.Answer), ResponseTime: float64(r.ResponseTime), Results: []api.SearchResult{}}
	if out.Query == "" {
		out.Query = in.Query
	}
	for _, x := range r.Results {
		out.Results = append(out.Results, api.SearchResult{Title: x.Title, URL: x.URL, Content: x.Content, Score: float64(x.Score),
			RawContent: string(x.RawContent), PublishedDate: x.PublishedDate, Favicon: x.Favicon})
	}
	if in.IncludeImages {
		out.Images = []api.SearchImage{}
		for _, im := range r.Images {
			out.Images = append(out.Images, api.SearchImage(im))
		}
	}
	return out, nil
}

func (t *Tavily) Extract(ctx context.Context, in api.ExtractInput) (*api.ExtractOutput, error) {
	var r struct {
		Results       []tavilyPage `json:"results"`
		FailedResults []tavilyPage `json:"failed_results"`
		ResponseTime  flexNumber   `json:"response_time"`
	}
	if err := t.call(ctx, http.MethodPost, "/extract", in, &r); err != nil {
		return nil, err
	}
	out := &api.ExtractOutput{Results: []api.PageContent{}, FailedResults: []api.FailedExtract{}, ResponseTime: float64(r.ResponseTime)}
	for _, p := range r.Results {
		out.Results = append(out.Results, p.content())
	}
	for _, p := range r.FailedResults {
		out.FailedResults = append(out.FailedResults, api.FailedExtract{URL: p.URL, Error: p.Error})
	}
	return out, nil
}

func (t *Tavily) Crawl(ctx context.Context, in api.CrawlInput) (*api.CrawlOutput, error) {
	var r struct {
		BaseURL      string       `json:"base_url"`
		Results      []tavilyPage `json:"results"`
		ResponseTime flexNumber   `json:"response_time"`
	}
	if err := t.call(ctx, http.MethodPost, "/crawl", in, &r); err != nil {
		return nil, err
	}
	out := &api.CrawlOutput{BaseURL: r.BaseURL, Results: []api.PageContent{}, ResponseTime: float64(r.ResponseTime)}
	for _, p := range r.Results {
		out.Results = append(out.Results, p.content())
	}
	return out, nil
}

func (t *Tavily) Map(ctx context.Context, in api.MapInput) (*api.MapOutput, error) {
	var r struct {
		BaseURL      string      `json:"base_url"`
		Results      []flexImage `json:"results"` // bare URLs or {url}
		ResponseTime flexNumber  `json:"response_time"`
	}
	if err := t.call(ctx, http.MethodPost, "/map", in, &r); err != nil {
		return nil, err
	}
	out := &api.MapOutput{BaseURL: r.BaseURL, Results: []api.MapLink{}, ResponseTime: float64(r.ResponseTime)}
	for _, l := range r.Results {
		out.Results = append(out.Results, api.MapLink{URL: l.URL})
	}
	return out, nil
}

type tavilyResearch struct {
	RequestID string   `json:"request_id"`
	Status    string   `json:"status"`
	Content   flexText `json:"content"`
	Sources   []struct {
		Title string `json:"title"`
		URL   string `json:"url"`
	} `json:"sources"`
	Error string `json:"error"`
}

func (r *tavilyResearch) output() *api.ResearchOutput {
	out := &api.ResearchOutput{RequestID: r.RequestID, Status: r.Status, Sources: []api.ResearchSource{}}
	if r.Status == api.ResearchCompleted {
		out.Content = string(r.Content)
	}
	for _, s := range r.Sources {
		out.Sources = append(out.Sources, api.ResearchSource{Title: s.Title, URL: s.URL})
	}
	if r.Error != "" {
		ej, _ := json.Marshal(r.Error)
		out.Extra = api.Extra{"error": ej}
	}
	return out
}

// Research submits the task, then polls GET /research/{request_id} until
// it completes or fails, or ctx ends (then it returns the last state seen
// with ctx's error).
func (t *Tavily) Research(ctx context.Context, in api.ResearchInput) (*api.ResearchOutput, error) {
	var r tavilyResearch
	if err := t.call(ctx, http.MethodPost, "/research", in, &r); err != nil {
		return nil, err
	}
	if r.RequestID == "" {
		return nil, &engine.VendorError{Vendor: tavilyName, Detail: "research response has no request_id"}
	}
	id := r.RequestID
	tick := time.NewTicker(t.poll)
	defer tick.Stop()
	for r.Status != api.ResearchCompleted && r.Status != api.ResearchFailed {
		select {
		case <-ctx.Done():
			return r.output(), ctx.Err()
		case <-tick.C:
		}
		var next tavilyResearch
		if err := t.call(ctx, http.MethodGet, "/research/"+url.PathEscape(id), nil, &next); err != nil {
			if ctx.Err() != nil {
				return r.output(), ctx.Err()
			}
			return nil, err
		}
		if next.RequestID == "" {
			next.RequestID = id
		}
		r = next
	}
	return r.output(), nil
}

// --- SearXNG ---

// SearXNG answers search from a SearXNG instance's JSON API
// (GET /search?format=json); the instance must have the json format
// enabled in its settings.
type SearXNG struct {
	base   string
	client *http.Client
	local  *Engine // reads raw content when asked; may be nil
}

const searxName = "SearXNG"

type searxResult struct {
	URL           string     `json:"url"`
	Title         string     `json:"title"`
	Content       string     `json:"content"`
	Score         flexNumber `json:"score"`
	PublishedDate string     `json:"publishedDate"`
	ImgSrc        string     `json:"img_src"`
	Thumbnail     string     `json:"thumbnail_src"`
}

type searxResponse struct {
	Query   string            `json:"query"`
	Results []searxResult     `json:"results"`
	Answers []json.RawMessage `json:"answers"`
}

func (s *SearXNG) get(ctx context.Context, q url.Values) (*searxResponse, error) {
	q.Set("format", "json")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/search?"+q.Encode(), nil)
	if err != nil {
		return nil, requestFailed(searxName, err, "")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, requestFailed(searxName, err, "")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		err := vendorError(searxName, resp, "")
		if resp.StatusCode == http.StatusForbidden {
			var ve *engine.VendorError
			if errors.As(err, &ve) {
				ve.Detail += " (is the json format enabled in the instance's settings.yml?)"
			}
		}
		return nil, err
	}
	var r searxResponse
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&r); err != nil {
		return nil, &engine.VendorError{Vendor: searxName, Detail: "unreadable response: " + err.Error()}
	}
	return &r, nil
}

// Search maps vendor_search onto SearXNG. Scores are SearXNG's divided by
// the best score of the page (rank-based when the instance sends none);
// topic news uses the news category; time_range passes through; dates,
// domains and exact_match filter the results SearXNG returns (undated
// results are kept by date filters); country boosts its ccTLD; answers
// come from SearXNG's answers, else are extractive from the snippets.
func (s *SearXNG) Search(ctx context.Context, in api.SearchInput) (*api.SearchOutput, error) {
	start := time.Now()
	if in.MaxResults <= 0 {
		in.MaxResults = 5
	}
	q := url.Values{}
	query := in.Query
	if in.ExactMatch {
		query = `"` + strings.Trim(query, `"`) + `"`
	}
	q.Set("q", query)
	q.Set("pageno", "1")
	cat := "general"
	if in.Topic == "news" && in.Country == "" {
		cat = "news"
	}
	q.Set("categories", cat)
	switch in.TimeRange {
	case "day", "week", "month", "year":
		q.Set("time_range", in.TimeRange)
	}
	r, err := s.get(ctx, q)
	if err != nil {
		return nil, err
	}
	lo, hi, err := timeWindow(api.SearchInput{StartDate: in.StartDate, EndDate: in.EndDate}, time.Now())
	if err != nil {
		return nil, err
	}
	inc, exc := api.SplitList(in.IncludeDomains), api.SplitList(in.ExcludeDomains)
	phrase := normPhrase(in.Query)
	tld := countryTLD(in.Country)
	type scored struct {
		r   searxResult
		key float64
		pub time.Time
	}
	var kept []scored
	best := 0.0
	for _, x := range r.Results {
		best = max(best, float64(x.Score))
	}
	for i, x := range r.Results {
		h := hostOf(x.URL)
		if len(inc) > 0 && !anyDomain(h, inc) || anyDomain(h, exc) {
			continue
		}
		if in.ExactMatch && !strings.Contains(normPhrase(x.Title+" "+x.Content), phrase) {
			continue
		}
		pub, hasDate := parseDate(x.PublishedDate)
		if hasDate && (lo > 0 && pub.Unix() < lo || hi > 0 && pub.Unix() >= hi) {
			continue
		}
		sc := 1 - float64(i)/float64(len(r.Results)+1)
		if best > 0 {
			sc = float64(x.Score) / best
		}
		key := sc
		if tld != "" && strings.HasSuffix(h, "."+tld) {
			key *= 1.25
		}
		kept = append(kept, scored{x, key, pub})
		kept[len(kept)-1].r.Score = flexNumber(sc)
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].key > kept[j].key })
	if len(kept) > in.MaxResults {
		kept = kept[:in.MaxResults]
	}
	out := &api.SearchOutput{Query: in.Query, Results: []api.SearchResult{}}
	for _, k := range kept {
		res := api.SearchResult{Title: k.r.Title, URL: k.r.URL, Content: k.r.Content, Score: math01(float64(k.r.Score))}
		if !k.pub.IsZero() {
			res.PublishedDate = k.pub.Format(time.RFC3339)
		}
		if in.IncludeFavicon {
			if u, err := url.Parse(k.r.URL); err == nil {
				res.Favicon = u.Scheme + "://" + u.Host + "/favicon.ico"
			}
		}
		out.Results = append(out.Results, res)
	}
	if in.IncludeRawContent && s.local != nil {
		var wg sync.WaitGroup
		for i := range out.Results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				fctx, cancel := context.WithTimeout(ctx, 15*time.Second)
				defer cancel()
				if p, err := s.local.readPage(fctx, out.Results[i].URL, indexed); err == nil {
					out.Results[i].RawContent = p.Text
				}
			}()
		}
		wg.Wait()
	}
	if in.IncludeAnswer {
		out.Answer = searxAnswer(r.Answers)
		if out.Answer == "" {
			var cands []*candidate
			for _, res := range out.Results {
				cands = append(cands, &candidate{content: res.Content, body: res.RawContent})
			}
			out.Answer = extractiveAnswer(in.Query, cands)
		}
	}
	if in.IncludeImages {
		out.Images = []api.SearchImage{}
		iq := url.Values{}
		iq.Set("q", in.Query)
		iq.Set("categories", "images")
		if ir, err := s.get(ctx, iq); err == nil {
			for _, x := range ir.Results {
				src := x.ImgSrc
				if src == "" {
					src = x.Thumbnail
				}
				if src == "" || len(out.Images) == 10 {
					continue
				}
				im := api.SearchImage{URL: src}
				if in.IncludeImageDescriptions {
					im.Description = strings.TrimSpace(x.Title + " " + x.Content)
				}
				out.Images = append(out.Images, im)
			}
		} else if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	out.ResponseTime = elapsed(start)
	return out, nil
}

func searxAnswer(answers []json.RawMessage) string {
	for _, a := range answers {
		var s string
		if json.Unmarshal(a, &s) == nil && s != "" {
			return s
		}
		var o struct {
			Answer string `json:"answer"`
		}
		if json.Unmarshal(a, &o) == nil && o.Answer != "" {
			return o.Answer
		}
	}
	return ""
}

func anyDomain(host string, domains []string) bool {
	for _, d := range domains {
		if domainMatch(host, d) {
			return true
		}
	}
	return false
}

func math01(x float64) float64 {
	return max(0, min(1, float64(int(x*10000+0.5))/10000))
}
