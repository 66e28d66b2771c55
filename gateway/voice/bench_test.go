package voice

import (
	"context"
	"io"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/engine"
)

// percentile of sorted durations, p in 0..100.
func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[min(len(d)-1, (len(d)*p+99)/100-1)]
}

// firstFragment measures the time from the call to the first audio
// fragment reaching the sink.
func benchFirstFragment(b *testing.B, voice, format string) {
	l := provider(b)
	req := api.TTSRequest{Text: "Hello, this is a short sentence.", VoiceCode: voice, Format: format}
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var first time.Duration
		start := time.Now()
		sink := sinkFunc(func(p []byte) (int, error) {
			if first == 0 {
				first = time.Since(start)
			}
			return len(p), nil
		})
		if _, err := l.Synthesize(context.Background(), req, sink); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, first)
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(lat, 50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(lat, 95).Microseconds())/1000, "p95-ms")
}

func BenchmarkTTSFirstFragmentEspeak(b *testing.B) {
	benchFirstFragment(b, "espeak:en-us", api.FormatPCM)
}
func BenchmarkTTSFirstFragmentEspeakWAV(b *testing.B) {
	benchFirstFragment(b, "espeak:en-us", api.FormatWAV)
}
func BenchmarkTTSFirstFragmentFlite(b *testing.B) { benchFirstFragment(b, "flite:slt", api.FormatPCM) }
func BenchmarkTTSFirstFragmentFestivalHTS(b *testing.B) {
	festivalProvider(b)
	benchFirstFragment(b, festivalHTS, api.FormatPCM)
}
func BenchmarkTTSFirstFragmentFestivalKal(b *testing.B) {
	festivalProvider(b)
	benchFirstFragment(b, festivalKal, api.FormatPCM)
}

// BenchmarkSTTStream feeds about five seconds of flite speech through a
// pipe in 100 ms pieces at real-time pace, as a microphone would, and
// reports the interval between partial results, the latency of the final
// result after the end of audio, and the real-time factor (decoder busy
// time over audio time, measured by a separate unpaced run).
func BenchmarkSTTStream(b *testing.B) {
	l := provider(b)
	text := "Please call me back tomorrow morning. I would like a cup of coffee."
	pcm, syn, _ := synth(b, l, api.TTSRequest{Text: text, VoiceCode: "flite:slt", Format: api.FormatPCM})
	audio := time.Duration(syn.DurationMs) * time.Millisecond

	// Unpaced: how fast the recogniser goes through the audio, after a
	// first run that makes sure a decoder is loaded; median of three.
	recognize(b, l, api.STTRequest{SampleRate: 16000}, pcm)
	var runs []time.Duration
	for range 3 {
		start := time.Now()
		recognize(b, l, api.STTRequest{SampleRate: 16000}, pcm)
		runs = append(runs, time.Since(start))
	}
	rtf := percentile(runs, 50).Seconds() / audio.Seconds()

	var intervals, finals []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pr, pw := io.Pipe()
		var mu sync.Mutex
		var last time.Time
		var finalAt time.Time
		done := make(chan error, 1)
		go func() {
			done <- l.Recognize(context.Background(), api.STTRequest{SampleRate: 16000}, pr, func(tr engine.Transcript) error {
				mu.Lock()
				defer mu.Unlock()
				now := time.Now()
				if tr.Partial {
					if !last.IsZero() {
						intervals = append(intervals, now.Sub(last))
					}
					last = now
				}
				if tr.Final {
					finalAt = now
				}
				return nil
			})
		}()
		const piece = 3200 // 100 ms
		t0 := time.Now()
		for off := 0; off < len(pcm); off += piece {
			time.Sleep(time.Until(t0.Add(time.Duration(off/piece) * 100 * time.Millisecond)))
			pw.Write(pcm[off:min(off+piece, len(pcm))])
		}
		end := time.Now()
		pw.Close()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		finals = append(finals, finalAt.Sub(end))
	}
	b.StopTimer()
	b.ReportMetric(rtf, "RTF")
	b.ReportMetric(float64(percentile(intervals, 50).Milliseconds()), "partial-p50-ms")
	b.ReportMetric(float64(percentile(finals, 50).Milliseconds()), "final-p50-ms")
	b.ReportMetric(float64(percentile(finals, 95).Milliseconds()), "final-p95-ms")
}

// werSentences are Harvard sentences (IEEE 1969, public domain).
var werSentences = []string{
	"The birch canoe slid on the smooth planks.",
	"Glue the sheet to the dark blue background.",
	"It's easy to tell the depth of a well.",
	"These days a chicken leg is a rare dish.",
	"Rice is often served in round bowls.",
	"The juice of lemons makes fine punch.",
	"The box was thrown beside the parked truck.",
	"The hogs were fed chopped corn and garbage.",
	"Four hours of steady work faced us.",
	"A large size in stockings is hard to sell.",
	"The boy was there when the sun rose.",
	"A rod is used to catch pink salmon.",
	"The source of the huge river is the clear spring.",
	"Kick the ball straight and follow through.",
	"Help the woman get back to her feet.",
	"A pot of tea helps to pass the evening.",
	"Smoky fires lack flame and heat.",
	"The soft cushion broke the man's fall.",
	"The salt breeze came across from the sea.",
	"The girl at the booth sold fifty bonds.",
	"The small pup gnawed a hole in the sock.",
	"The fish twisted and turned on the bent hook.",
	"Press the pants and sew a button on the vest.",
	"The swan dive was far short of perfect.",
}

// benchWER reports the corpus word error rate (word edits over reference
// words, all sentences together) of pocketsphinx on werSentences spoken by
// voice. Each iteration recognises with a decoder of its own, freshly
// loaded: pocketsphinx adapts its cepstral mean to what a decoder has
// heard, so a shared, warm decoder would make the figure depend on the
// tests and benchmarks run before. With a fresh one it is repeatable to
// the last digit.
func benchWER(b *testing.B, voice string) {
	l := provider(b)
	var audios [][]byte
	refWords := 0
	for _, s := range werSentences {
		a, _, _ := synth(b, l, api.TTSRequest{Text: s, VoiceCode: voice, Format: api.FormatWAV})
		audios = append(audios, a)
		refWords += len(strings.Fields(s))
	}
	var edits float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		fresh, err := New(Config{Decoders: 1, WarmAfter: -1})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		edits = 0
		for j, a := range audios {
			final, _ := recognize(b, fresh, api.STTRequest{}, a)
			w := wer(werSentences[j], final.Text)
			edits += w * float64(len(strings.Fields(werSentences[j])))
			if i == 0 && testing.Verbose() {
				b.Logf("%.2f %q -> %q", w, werSentences[j], final.Text)
			}
		}
		fresh.Close()
	}
	b.ReportMetric(edits/float64(refWords), "WER")
	b.ReportMetric(float64(len(audios)), "sentences")
	b.ReportMetric(float64(refWords), "words")
}

func BenchmarkWERFliteSLT(b *testing.B)    { benchWER(b, "flite:slt") }
func BenchmarkWERFliteRMS(b *testing.B)    { benchWER(b, "flite:rms") }
func BenchmarkWERFliteAWB(b *testing.B)    { benchWER(b, "flite:awb") }
func BenchmarkWERFliteKal16(b *testing.B)  { benchWER(b, "flite:kal16") }
func BenchmarkWEREspeakEnUS(b *testing.B)  { benchWER(b, "espeak:en-us") }
func BenchmarkWERFestivalHTS(b *testing.B) { festivalProvider(b); benchWER(b, festivalHTS) }
func BenchmarkWERFestivalKal(b *testing.B) { festivalProvider(b); benchWER(b, festivalKal) }
func BenchmarkWERFestivalKed(b *testing.B) { festivalProvider(b); benchWER(b, festivalKed) }

// BenchmarkFestivalFirstFrameCold is what a festival started for each
// call would cost before its first audio: the start, the voice's load
// and the first sentence. The warm processes of the pool pay only the
// last (BenchmarkTTSFirstFragmentFestival*).
func BenchmarkFestivalFirstFrameCold(b *testing.B) {
	festivalProvider(b)
	path, _ := exec.LookPath("festival")
	for _, voice := range []string{"kal_diphone", "cmu_us_slt_arctic_hts"} {
		b.Run(voice, func(b *testing.B) {
			var lat []time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				p, err := startFestival(path)
				if err != nil {
					b.Fatal(err)
				}
				var first time.Duration
				_, err = p.speak(context.Background(), voice, festivalControls(0, 0), []string{"Hello, this is a short sentence."},
					func(int, []int16) error {
						if first == 0 {
							first = time.Since(start)
						}
						return nil
					})
				p.kill()
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, first)
			}
			b.ReportMetric(float64(percentile(lat, 50).Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(percentile(lat, 95).Microseconds())/1000, "p95-ms")
		})
	}
}
