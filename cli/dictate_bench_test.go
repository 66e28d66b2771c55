package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/audio"
	"hark/gateway/embedded"
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
// (the speech has ended) to the words heard.
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

// BenchmarkDictateStream: the TUI's path, the speech streamed at the pace
// it was spoken; from the last frame sent (the end of speech) to the
// final result.
func BenchmarkDictateStream(b *testing.B) {
	cl, wav := dictationSetup(b)
	pcm, rate, err := audio.DecodeToPCM("wav", wav, 0)
	if err != nil {
		b.Fatal(err)
	}
	frame := rate * 2 / 10
	var took []float64
	for b.Loop() {
		s, err := cl.STTStream(context.Background(), api.STTRequest{Provider: api.DefaultProvider, SampleRate: rate})
		if err != nil {
			b.Fatal(err)
		}
		for off := 0; off < len(pcm); off += frame {
			s.Write(pcm[off:min(off+frame, len(pcm))])
			time.Sleep(100 * time.Millisecond)
		}
		end := time.Now()
		s.CloseSend()
		var final string
		for f := range s.Results() {
			if f.IsFinal {
				final += f.Text
			}
		}
		took = append(took, float64(time.Since(end).Microseconds())/1000)
		s.Close()
		if !strings.Contains(final, "quick brown fox") {
			b.Fatalf("heard %q", final)
		}
	}
	slices.Sort(took)
	b.ReportMetric(took[len(took)/2], "p50-ms")
	b.ReportMetric(took[len(took)-1], "max-ms")
}
