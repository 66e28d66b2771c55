// Package api defines the gateway interface of ../shared/spec/gateway-interface.md
// once: the wire types used by both hark's client and its embedded gateway,
// and the client itself. Nothing here knows about the TUI or the local engines.
package api

import (
	"encoding/json"
)

// Paths of the gateway interface, relative to the base URL.
const (
	PathPrefix    = "/v1/openapi/third-party-service"
	SearchService = "vendor_search"
	PathTools     = PathPrefix + "/" + SearchService + "/tools"
	PathInvokeFmt = PathPrefix + "/" + SearchService + "/%s/invoke" // %s = tool slug
	PathVoicesFmt = PathPrefix + "/voice/%s/voices"                 // %s = provider
	// PathTTSInputsFmt is hark's own endpoint (the spec leaves the
	// ranges of the TTS controls unshown): a provider's TTS inputs with
	// their rules, as TTSInputs.
	PathTTSInputsFmt = PathPrefix + "/voice/%s/tts/inputs" // %s = provider
	PathTTS          = PathPrefix + "/voice/tts"
	PathSTT          = PathPrefix + "/voice/stt"
	PathTTSStream    = PathPrefix + "/voice/tts/stream"
	PathSTTStream    = PathPrefix + "/voice/stt/stream"
	// PathVoiceProviders is hark's own endpoint: the voice providers the
	// gateway knows and whether the calling workspace may use each, as
	// []VoiceProviderStatus.
	PathVoiceProviders = PathPrefix + "/voice/providers"
	DefaultProvider    = "vendor_speech"
)

// Messages the spec fixes verbatim.
const (
	MsgSuccess             = "success"
	MsgCredentialsMissing  = "三方服务凭证未配置"
	MsgResearchWaitTimeout = "research 任务等待超时"
)

// CodeOK is the envelope code of a successful response.
const CodeOK = 200

// Envelope wraps every REST response.
type Envelope struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
	TraceID string          `json:"trace_id"`
}

// InvokeRequest is the body of a tool invocation.
type InvokeRequest struct {
	Inputs map[string]any `json:"inputs"`
}

// InvokeResult is the data of a tool invocation.
type InvokeResult struct {
	Service string          `json:"service"`
	Tool    string          `json:"tool"`
	Output  json.RawMessage `json:"output"`
}

// Tool slugs the spec names. The runtime tool list is authoritative; these
// only select richer views and typed decoders for outputs hark recognises.
const (
	ToolSearch   = "vendor_search"
	ToolExtract  = "vendor_extract"
	ToolCrawl    = "vendor_crawl"
	ToolMap      = "vendor_map"
	ToolResearch = "vendor_research"
)

// Extra holds the fields of a JSON object that a typed decoder does not
// know, so that nothing the gateway sends is dropped.
type Extra map[string]json.RawMessage

// SearchInput is the inputs of vendor_search. Zero values are omitted so
// the gateway applies the spec's defaults.
type SearchInput struct {
	Query                    string `json:"query"`
	MaxResults               int    `json:"max_results,omitempty"`
	SearchDepth              string `json:"search_depth,omitempty"`
	Topic                    string `json:"topic,omitempty"`
	TimeRange                string `json:"time_range,omitempty"`
	StartDate                string `json:"start_date,omitempty"`
	EndDate                  string `json:"end_date,omitempty"`
	Country                  string `json:"country,omitempty"`
	IncludeAnswer            bool   `json:"include_answer,omitempty"`
	IncludeImages            bool   `json:"include_images,omitempty"`
	IncludeImageDescriptions bool   `json:"include_image_descriptions,omitempty"`
	IncludeRawContent        bool   `json:"include_raw_content,omitempty"`
	IncludeFavicon           bool   `json:"include_favicon,omitempty"`
	ExactMatch               bool   `json:"exact_match,omitempty"`
	IncludeDomains           string `json:"include_domains,omitempty"`
	ExcludeDomains           string `json:"exclude_domains,omitempty"`
}

// SearchOutput is the output of vendor_search.
type SearchOutput struct {
	Query        string         `json:"query"`
	Answer       string         `json:"answer,omitempty"`
	ResponseTime float64        `json:"response_time"`
	Results      []SearchResult `json:"results"`
	Images       []SearchImage  `json:"images,omitempty"`
	Extra        Extra          `json:"-"`
}

// SearchResult is one element of SearchOutput.Results.
type SearchResult struct {
	Title         string  `json:"title"`
	URL           string  `json:"url"`
	Content       string  `json:"content"`
	Score         float64 `json:"score"`
	RawContent    string  `json:"raw_content,omitempty"`
	PublishedDate string  `json:"published_date,omitempty"`
	Favicon       string  `json:"favicon,omitempty"`
	Extra         Extra   `json:"-"`
}

// SearchImage is one element of SearchOutput.Images. The gateway may send a
// bare URL string instead of an object; UnmarshalJSON accepts both.
type SearchImage struct {
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
	Extra       Extra  `json:"-"`
}

// URLList is the urls input of vendor_extract: one URL, a comma-separated
// string of URLs, or an array of URLs.
type URLList []string

// ParseURLList splits a comma-separated string into trimmed, non-empty URLs.
func ParseURLList(s string) URLList { return SplitList(s) }

// ExtractInput is the inputs of vendor_extract.
type ExtractInput struct {
	URLs           URLList `json:"urls"`
	ExtractDepth   string  `json:"extract_depth,omitempty"`
	Format         string  `json:"format,omitempty"`
	IncludeImages  bool    `json:"include_images,omitempty"`
	IncludeFavicon bool    `json:"include_favicon,omitempty"`
	Query          string  `json:"query,omitempty"`
}

// ExtractOutput is the output of vendor_extract.
type ExtractOutput struct {
	Results       []PageContent   `json:"results"`
	FailedResults []FailedExtract `json:"failed_results"`
	ResponseTime  float64         `json:"response_time"`
	Extra         Extra           `json:"-"`
}

// PageContent is a page's extracted body, in extract and crawl results.
// Images is filled by extract when include_images is set.
type PageContent struct {
	URL        string `json:"url"`
	RawContent string `json:"raw_content"`
	// Title is the page's title, when the gateway sends one (hark's
	// does; the interface does not require it): a page extracted as text
	// has no heading to take it from.
	Title   string   `json:"title,omitempty"`
	Favicon string   `json:"favicon,omitempty"`
	Images  []string `json:"images,omitempty"`
	Extra   Extra    `json:"-"`
}

// FailedExtract is a URL that extract could not read, and why.
type FailedExtract struct {
	URL   string `json:"url"`
	Error string `json:"error"`
	Extra Extra  `json:"-"`
}

// CrawlInput is the inputs of vendor_crawl.
type CrawlInput struct {
	URL            string `json:"url"`
	MaxDepth       int    `json:"max_depth,omitempty"`
	MaxBreadth     int    `json:"max_breadth,omitempty"`
	Limit          int    `json:"limit,omitempty"`
	Instructions   string `json:"instructions,omitempty"`
	ExtractDepth   string `json:"extract_depth,omitempty"`
	Format         string `json:"format,omitempty"`
	IncludeFavicon bool   `json:"include_favicon,omitempty"`
	// AllowExternal defaults to true, so it is a pointer: nil means default.
	AllowExternal *bool  `json:"allow_external,omitempty"`
	SelectPaths   string `json:"select_paths,omitempty"`
	SelectDomains string `json:"select_domains,omitempty"`
}

// CrawlOutput is the output of vendor_crawl.
type CrawlOutput struct {
	BaseURL      string        `json:"base_url"`
	Results      []PageContent `json:"results"`
	ResponseTime float64       `json:"response_time"`
	Extra        Extra         `json:"-"`
}

// MapInput is the inputs of vendor_map.
type MapInput struct {
	URL           string `json:"url"`
	MaxDepth      int    `json:"max_depth,omitempty"`
	MaxBreadth    int    `json:"max_breadth,omitempty"`
	Limit         int    `json:"limit,omitempty"`
	Instructions  string `json:"instructions,omitempty"`
	AllowExternal *bool  `json:"allow_external,omitempty"`
	SelectPaths   string `json:"select_paths,omitempty"`
	SelectDomains string `json:"select_domains,omitempty"`
}

// MapOutput is the output of vendor_map. The gateway may send results as
// bare URL strings or as objects with url; MapLink accepts both.
type MapOutput struct {
	BaseURL      string    `json:"base_url"`
	Results      []MapLink `json:"results"`
	ResponseTime float64   `json:"response_time"`
	Extra        Extra     `json:"-"`
}

// MapLink is one discovered URL.
type MapLink struct {
	URL   string `json:"url"`
	Extra Extra  `json:"-"`
}

// ResearchInput is the inputs of vendor_research.
type ResearchInput struct {
	Input string `json:"input"`
	Model string `json:"model,omitempty"`
	// Strict drops the sentences of a model-written answer that their
	// passages do not support (a gateway without a model ignores it).
	Strict bool `json:"strict,omitempty"`
}

// Research task states.
const (
	ResearchPending    = "pending"
	ResearchInProgress = "in_progress"
	ResearchCompleted  = "completed"
	ResearchFailed     = "failed"
)

// ResearchOutput is the output of vendor_research.
type ResearchOutput struct {
	RequestID string           `json:"request_id"`
	Status    string           `json:"status"`
	Content   string           `json:"content,omitempty"`
	Sources   []ResearchSource `json:"sources"`
	// Passages say where each quote of Content sits in its source; an
	// addition to the spec's output that other gateways leave out.
	Passages []ResearchPassage `json:"passages,omitempty"`
	// Written is present when a language model wrote Content: which
	// model, and each sentence's check against the passages it cites.
	Written *ResearchWritten `json:"written,omitempty"`
	Extra   Extra            `json:"-"`
}

// ResearchWritten says who wrote a report and how its sentences held up.
type ResearchWritten struct {
	Model     string          `json:"model"`
	Supported int             `json:"supported"` // sentences supported by their passages
	Sentences int             `json:"sentences"` // sentences that claim something
	Dropped   int             `json:"dropped,omitempty"`
	Stopped   string          `json:"stopped,omitempty"` // why the answer ends early, when it does
	Checks    []ResearchCheck `json:"checks"`
}

// ResearchCheck is one written sentence's check: the sources it cites
// (the report's citation numbers) and, unsupported, why.
type ResearchCheck struct {
	Sentence  string `json:"sentence"`
	Cites     []int  `json:"cites"`
	Supported bool   `json:"supported"`
	Reason    string `json:"reason,omitempty"`
	Dropped   bool   `json:"dropped,omitempty"` // left out of the report (strict)
}

// ResearchPassage is one quote of a research report and where it comes
// from: the source it cites, and its place in that source's kept text
// (the page text the gateway's index and extract keep). Quote is the
// anchor: found again by its words when the page has moved.
type ResearchPassage struct {
	Source int    `json:"source"` // the citation number, 1-based into sources
	URL    string `json:"url"`
	Quote  string `json:"quote"`          // the quoted words, plain text
	Code   bool   `json:"code,omitempty"` // a code block, not sentences
	Start  int    `json:"start"`          // byte offsets of the quote in the kept text
	End    int    `json:"end"`
}

// ResearchSource is one reference of a research report.
type ResearchSource struct {
	Title string `json:"title"`
	URL   string `json:"url"`
	Extra Extra  `json:"-"`
}

// Voice is one element of the voice list. Gender and SampleRate are
// hark's additions to the spec's item (other gateways may omit them):
// "female" or "male" where the voice says, and the rate in Hz the voice
// speaks at when the request names none.
type Voice struct {
	Name       string `json:"name"`
	Value      string `json:"value"`
	Language   string `json:"language"`
	Scene      string `json:"scene"`
	Gender     string `json:"gender,omitempty"`
	SampleRate int    `json:"sample_rate,omitempty"`
	Extra      Extra  `json:"-"`
}

// VoiceProviderStatus is one voice provider as the calling workspace
// has it (GET PathVoiceProviders, hark's addition): Enabled when a call
// naming it would be served (listed, enabled, with its credentials and an
// engine), else Reason says why not, in the words a call would get.
type VoiceProviderStatus struct {
	Provider string `json:"provider"`
	Engine   string `json:"engine,omitempty"` // local, openai, elevenlabs
	Enabled  bool   `json:"enabled"`
	Reason   string `json:"reason,omitempty"`
}

// Audio formats of TTS.
const (
	FormatPCM = "pcm"
	FormatMP3 = "mp3"
	FormatWAV = "wav"
)

// TTSRequest is the TTS REST body and the first frame of the TTS stream.
type TTSRequest struct {
	Provider   string         `json:"provider"`
	Text       string         `json:"text"`
	VoiceCode  string         `json:"voice_code"`
	Format     string         `json:"format,omitempty"`
	SampleRate int            `json:"sample_rate,omitempty"`
	SpeechRate int            `json:"speech_rate,omitempty"`
	Pitch      int            `json:"pitch,omitempty"`
	Loudness   int            `json:"loudness,omitempty"`
	Extra      map[string]any `json:"extra,omitempty"`
}

// TTSResponse is the data of a TTS REST call. AudioData is base64 on the
// wire; the client decodes it.
type TTSResponse struct {
	AudioData  string `json:"audio_data"`
	Format     string `json:"format"`
	SampleRate int    `json:"sample_rate"`
	DurationMs int    `json:"duration_ms"`
}

// STTRequest is the STT REST body. Without AudioData it is the STT stream's
// configuration frame.
type STTRequest struct {
	Provider   string         `json:"provider"`
	AudioData  string         `json:"audio_data,omitempty"`
	SampleRate int            `json:"sample_rate,omitempty"`
	Language   string         `json:"language,omitempty"`
	Extra      map[string]any `json:"extra,omitempty"`
}

// STTResponse is the data of an STT REST call.
type STTResponse struct {
	Text       string  `json:"text"`
	Confidence float64 `json:"confidence"`
	DurationMs int     `json:"duration_ms"`
}

// TTSFinalFrame is the terminal JSON text frame of the TTS stream.
type TTSFinalFrame struct {
	IsFinal bool   `json:"is_final"`
	Error   string `json:"error,omitempty"`
	// Credits is hark's addition on a stream that ended well: what it
	// cost the workspace (other gateways may omit it).
	Credits int64 `json:"credits,omitempty"`
}

// STTResultFrame is a JSON text frame of the STT stream. Confidence is an
// addition of hark's gateway on final frames; other gateways may omit it.
type STTResultFrame struct {
	Sequence   int     `json:"sequence"`
	Text       string  `json:"text"`
	IsFinal    bool    `json:"is_final"`
	IsPartial  bool    `json:"is_partial"`
	Error      string  `json:"error,omitempty"`
	Confidence float64 `json:"confidence,omitempty"`
	// Queued is hark's addition on a frame with no text: the recognition
	// waits for a free recogniser, at this place in the queue (1 = next).
	Queued int `json:"queued,omitempty"`
}
