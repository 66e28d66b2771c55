package audio

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// benchDecode reports decoding speed as a multiple of real time.
func benchDecode(b *testing.B, format, file string) {
	data := readFile(b, file)
	pcm, rate, err := DecodeToPCM(format, data, 0)
	if err != nil {
		b.Fatal(err)
	}
	audio := time.Duration(len(pcm)/2) * time.Second / time.Duration(rate)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, _, err := DecodeToPCM(format, data, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(audio)*float64(b.N)/float64(time.Since(start)), "x-realtime")
}

func BenchmarkDecodeWAV(b *testing.B) { benchDecode(b, "wav", "testdata/espeak-hark.wav") }
func BenchmarkDecodeMP3(b *testing.B) { benchDecode(b, "mp3", "testdata/tone-44k-stereo.mp3") }

// BenchmarkStreamPipeline pushes 24 kHz pcm in 100 ms frames through a
// whole Playback (decode, resample to 48 kHz, jitter buffer, level meter) into
// the null sink.
func BenchmarkStreamPipeline(b *testing.B) {
	out := &Output{kind: SinkNull, sink: nullSink{}, rate: 48000}
	frame := s16Bytes(testSignal(2400, 1))
	const frames = 50 // 5 s
	b.SetBytes(int64(len(frame) * frames))
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		p, _ := out.Play("pcm", 24000)
		for j := 0; j < frames; j++ {
			p.Write(frame)
		}
		p.CloseWrite()
		<-p.Done()
	}
	b.ReportMetric(float64(5*time.Second)*float64(b.N)/float64(time.Since(start)), "x-realtime")
}

// TestBuildWithoutCgo checks that hark still builds with CGO_ENABLED=0 and
// then falls back to the file sink.
func TestBuildWithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the package again without cgo")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain on PATH")
	}
	cmd := exec.Command(gobin, "test", "-count=1", "-v", "-run", "^TestNoCgoFallsBackToFile$", ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestNoCgoFallsBackToFile") {
		t.Fatalf("CGO_ENABLED=0 go test: %v\n%s", err, out)
	}
}

func BenchmarkDecodeMP3Mono24k(b *testing.B) { benchDecode(b, "mp3", "testdata/tone-24k.mp3") }
