// Package engine is the seam between the gateway's HTTP and WebSocket
// server and the engines that do the work: the web tools and the voice
// providers. It holds interfaces and the typed errors engines return, and
// nothing that does I/O, so that the server, the local engines and the
// pass-through backends can each depend on it without depending on each
// other.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"hark/api"
)

// Web tools. Inputs reach an engine already validated, with the spec's
// defaults applied (see the gateway's tool registry), so an engine need not
// check ranges or enums again.
type (
	Searcher interface {
		Search(ctx context.Context, in api.SearchInput) (*api.SearchOutput, error)
	}
	Extractor interface {
		Extract(ctx context.Context, in api.ExtractInput) (*api.ExtractOutput, error)
	}
	Crawler interface {
		Crawl(ctx context.Context, in api.CrawlInput) (*api.CrawlOutput, error)
	}
	Mapper interface {
		Map(ctx context.Context, in api.MapInput) (*api.MapOutput, error)
	}
	// Researcher submits a research task and waits for it to end. It
	// returns the task's output whatever its final status; ctx carries
	// the gateway's wait limit (5 minutes), and when ctx ends first the
	// gateway answers api.MsgResearchWaitTimeout.
	Researcher interface {
		Research(ctx context.Context, in api.ResearchInput) (*api.ResearchOutput, error)
	}
)

// Web bundles a workspace's web tools. A nil member means that tool is not
// available in the workspace; the tool list says so and invoking it fails
// with a clear error.
type Web struct {
	Search   Searcher
	Extract  Extractor
	Crawl    Crawler
	Map      Mapper
	Research Researcher
}

// AudioSink receives synthesized audio as it is produced. Each Write is one
// fragment in the requested format (for wav, the header comes first; for
// pcm, raw s16le samples only); the streaming endpoint sends each as one
// binary WebSocket frame, and the REST endpoint concatenates them.
type AudioSink interface {
	Write(p []byte) (int, error)
}

// Synthesis describes audio a provider produced.
type Synthesis struct {
	Format     string // pcm, wav or mp3
	SampleRate int    // Hz
	DurationMs int    // exact duration of the audio
}

// Transcript is one recognition result. Partial results may be followed by
// more; the last results of an utterance have Final set.
type Transcript struct {
	Text       string
	Confidence float64 // 0..1; meaningful on final results
	Partial    bool
	Final      bool
	DurationMs int // audio consumed so far
	// Queued, on a transcript with no text, says the recognition waits
	// for a recogniser: its place in the queue, 1 for the next served.
	Queued int
}

// VoiceProvider is one voice vendor. A provider validates the request fields
// whose ranges are its own (sample_rate, speech_rate, pitch, loudness,
// voice_code, language, extra) and returns *InputError for a bad one.
type VoiceProvider interface {
	// Voices lists the provider's voices.
	Voices(ctx context.Context) ([]api.Voice, error)
	// Synthesize writes audio for req to sink fragment by fragment as
	// synthesis proceeds, so the first fragment leaves early. When it
	// fails after some fragments were written, it returns the error and
	// the caller reports it after the audio already sent.
	Synthesize(ctx context.Context, req api.TTSRequest, sink AudioSink) (Synthesis, error)
	// Recognize reads audio from r until EOF (end of stream) and calls
	// emit for each result, partials while audio arrives and the final
	// result(s) after EOF. cfg.AudioData is empty; the format is detected
	// from the bytes. emit's error aborts recognition.
	Recognize(ctx context.Context, cfg api.STTRequest, r io.Reader, emit func(Transcript) error) error
}

// TTSDescriber is a VoiceProvider that says which TTS inputs it takes
// and within what bounds, for the gateway to serve (the spec leaves them
// unshown). A provider without it gets a 404 there.
type TTSDescriber interface {
	TTSInputs() []api.Field
}

// InputError is invalid input: it names the field and the rule it breaks.
// The gateway answers it with HTTP 400. It is api.FieldError, so that
// what an engine refuses reads as what api.Validate refuses.
type InputError = api.FieldError

// VendorError is a failure of an upstream vendor. The gateway renders it in
// one of the spec's two forms: "<Vendor> API request failed: <Detail>" when
// Status is 0, else "<Vendor> API returned status code <Status>: <Detail>".
type VendorError struct {
	Vendor string
	Status int
	Detail string
	// RetryAfter is how long the vendor asked to wait (a 429's
	// Retry-After); the gateway answers a vendor's 429 with its own 429
	// and that header, so the client waits as long as the vendor asked.
	RetryAfter time.Duration
}

// RateLimited reports whether the vendor refused for its rate limit or
// its quota (HTTP 429): the caller may try again later.
func (e *VendorError) RateLimited() bool { return e.Status == 429 }

func (e *VendorError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("%s API request failed: %s", e.Vendor, e.Detail)
	}
	return fmt.Sprintf("%s API returned status code %d: %s", e.Vendor, e.Status, e.Detail)
}

// ErrCredentialsMissing means the workspace has no credentials for the
// backend; the gateway answers api.MsgCredentialsMissing.
var ErrCredentialsMissing = errors.New(api.MsgCredentialsMissing)

// ErrUnavailable means no engine is registered for a tool or capability.
var ErrUnavailable = errors.New("not available in this workspace")

// Rechecker reads a watched page again, politely and conditionally (an
// extractor that can: the local web engine). The watches' checks use it.
type Rechecker interface {
	Recheck(ctx context.Context, url, etag, lastModified string) (*Rechecked, error)
}

// Rechecked is a watched page read again: unchanged (a 304 to the
// conditional request), or its extracted text now, with the validators
// to send next time.
type Rechecked struct {
	NotModified  bool
	Text         string
	ETag         string
	LastModified string
}

// RetryAfter is how long a site asked to be left alone when err is its
// refusal (a 429 or 503 with Retry-After), 0 for any other error. The
// watches' checks wait at least that long before the next.
func RetryAfter(err error) time.Duration {
	var ra interface{ RetryAfter() time.Duration }
	if errors.As(err, &ra) {
		return ra.RetryAfter()
	}
	return 0
}
