package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/audio"
	"hark/gateway/embedded"
	"hark/ui/common"
)

// Dictation latency: the time from the end of speech to the query
// filled, through the embedded gateway's recogniser, for a query flite
// speaks ("the quick brown fox jumps over the lazy dog", 2.9 s).

func dictationSetup(b *testing.B) (*api.Client, []byte) {
	ctx := context.Background()
	g, err := embedded.Start(ctx, b.TempDir(), embedded.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(g.Stop)
	cl, err := api.New(api.Options{BaseURL: g.URL, APIKey: g.APIKey})
	if err != nil {
		b.Fatal(err)
	}
	sp, err := cl.TTS(ctx, api.TTSRequest{Provider: api.DefaultProvider, VoiceCode: "flite:slt", Text: "the quick brown fox jumps over the lazy dog", Format: api.FormatWAV})
	if err != nil {
		b.Fatal(err)
	}
	return cl, sp.Data
}

// BenchmarkDictateFile: hark search --dictate FILE, from the whole file
// (the speech has ended) to the words heard. The file goes the way
// ctrl+r's microphone goes (common.Transcribe over the STT WebSocket),
// sent as fast as it is read.
func BenchmarkDictateFile(b *testing.B) {
	_, wav := dictationSetup(b)
	file := filepath.Join(b.TempDir(), "q.wav")
	os.WriteFile(file, wav, 0o644)
	a := &App{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	b.Setenv("HARK_BASE_URL", "")
	b.Setenv("HARK_DATA_DIR", b.TempDir())
	if err := a.load(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer a.close()
	var took []float64
	for b.Loop() {
		t := time.Now()
		heard, err := a.dictate(context.Background(), file)
		if err != nil || !strings.Contains(heard, "quick brown fox") {
			b.Fatalf("heard %q: %v", heard, err)
		}
		took = append(took, float64(time.Since(t).Microseconds())/1000)
	}
	slices.Sort(took)
	b.ReportMetric(took[len(took)/2], "p50-ms")
}

// spoken reads pcm at the pace it was spoken, 100 ms at a time, as a
// microphone does, and notes when it ran out (the end of speech).
type spoken struct {
	pcm   []byte
	frame int
	ended time.Time
}

func (s *spoken) Read(b []byte) (int, error) {
	if len(s.pcm) == 0 {
		if s.ended.IsZero() {
			s.ended = time.Now()
		}
		return 0, io.EOF
	}
	time.Sleep(100 * time.Millisecond)
	n := copy(b[:min(len(b), s.frame)], s.pcm)
	s.pcm = s.pcm[n:]
	return n, nil
}

// BenchmarkDictateStream: the TUI's ctrl+r path (common.Transcribe), the
// speech read at the pace it was spoken; from the end of speech to the
// words heard.
func BenchmarkDictateStream(b *testing.B) {
	cl, wav := dictationSetup(b)
	pcm, rate, err := audio.DecodeToPCM("wav", wav, 0)
	if err != nil {
		b.Fatal(err)
	}
	pcm = audio.Resample(pcm, rate, 16000)
	var took []float64
	for b.Loop() {
		src := &spoken{pcm: pcm, frame: 3200}
		heard, err := common.Transcribe(context.Background(), cl, api.DefaultProvider, src, 16000, nil)
		took = append(took, float64(time.Since(src.ended).Microseconds())/1000)
		if err != nil || !strings.Contains(heard, "quick brown fox") {
			b.Fatalf("heard %q: %v", heard, err)
		}
	}
	slices.Sort(took)
	b.ReportMetric(took[len(took)/2], "p50-ms")
	b.ReportMetric(took[len(took)-1], "max-ms")
}
