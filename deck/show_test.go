package deck

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/api"
	"hark/audio"
	"hark/audio/wav"
	"hark/gateway"
	"hark/gateway/config"
	"hark/gateway/engine"
	"hark/gateway/gatewaytest"
	"hark/gateway/store"
	"hark/gateway/voice"
)

// localGateway serves the local voices on loopback, as the embedded
// gateway does.
func localGateway(t *testing.T) *api.Client {
	t.Helper()
	for _, tool := range []string{"espeak-ng", "flite"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	db, err := store.OpenDB(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	local, err := voice.New(voice.Config{Decoders: 1, WarmAfter: voice.WarmOnDemand, FestivalPath: "/nonexistent/festival"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.Close() })
	const key = "hark_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	base := gatewaytest.Serve(t, db, key, gateway.Engines{Voice: func(_, _ string, _ config.Voice) (engine.VoiceProvider, error) {
		return local, nil
	}})
	c, err := api.New(api.Options{BaseURL: base, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// recordingSpeaker notes when each line's speech was asked for.
type recordingSpeaker struct {
	Speaker
	mu    sync.Mutex
	asked map[string]time.Time
}

func (r *recordingSpeaker) TTSStream(ctx context.Context, req api.TTSRequest, opts ...api.TTSStreamOption) (*api.TTSStream, error) {
	r.mu.Lock()
	r.asked[req.Text] = time.Now()
	r.mu.Unlock()
	return r.Speaker.TTSStream(ctx, req, opts...)
}

const showDeck = `
voice = "espeak:en-us"

[[line]]
text = "One, the first line."

[[line]]
text = "Two, in another voice."
voice = "flite:slt"

[[line]]
pause = 0.4

[[line]]
text = "Three, the last."
speed = 40
`

// A show plays its lines in order as one stream, each line's speech asked
// for while the one before plays (not all at the start, not after it
// ended), and keeps the show's time on an output that plays nothing
// (the null sink): the run lasts as long as its audio.
func TestShowPlaysInOrderFetchingAhead(t *testing.T) {
	t.Parallel()
	cl := localGateway(t)
	d, err := Parse("show.toml", []byte(showDeck))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Check(context.Background(), cl, api.DefaultProvider); err != nil {
		t.Fatal(err)
	}
	sp := &recordingSpeaker{Speaker: cl, asked: map[string]time.Time{}}
	show := NewShow(d, sp, api.DefaultProvider)
	defer show.Close()
	out, err := audio.Open(audio.Options{Sink: audio.SinkNull})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	playing := map[int]time.Time{}
	var order []int
	lengths := map[int]time.Duration{}
	start := time.Now()
	err = show.NewRun(out, 0).Play(context.Background(), func(ev Event) {
		mu.Lock()
		defer mu.Unlock()
		if ev.Playing {
			playing[ev.Line] = time.Now()
			order = append(order, ev.Line)
		}
		if ev.Arrived {
			lengths[ev.Line] = ev.Length
		}
	})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != 4 || order[0] != 0 || order[1] != 1 || order[2] != 2 || order[3] != 3 {
		t.Fatalf("lines played in the order %v", order)
	}
	var total time.Duration
	for _, l := range lengths {
		total += l
	}
	if len(lengths) != 4 || took < total*9/10 {
		t.Errorf("the run took %v for %v of audio (%v): a show on the null sink keeps the audio's time", took, total, lengths)
	}
	for i, text := range []string{"Two, in another voice.", "Three, the last."} {
		line := []int{1, 3}[i]
		asked := sp.asked[text]
		// Asked for while the line with speech before it played: after
		// that line began (for line 4, line 2: the pause between needs
		// nothing fetched), before it itself began.
		before := playing[[]int{0, 1}[i]]
		if asked.Before(before) || !asked.Before(playing[line]) {
			t.Errorf("line %d asked for at %v; the line before began at %v, it began at %v",
				line+1, asked.Sub(start), before.Sub(start), playing[line].Sub(start))
		}
	}
	if first := sp.asked["One, the first line."]; first.Sub(start) > time.Second {
		t.Errorf("the first line was asked for %v after the start", first.Sub(start))
	}
	if n := len(sp.asked); n != 3 {
		t.Errorf("%d lines asked for, want 3", n)
	}

	// Played again from line 2: nothing is asked for again.
	err = show.NewRun(out, 1).Play(context.Background(), nil)
	if err != nil || len(sp.asked) != 3 {
		t.Errorf("replay from line 2: %v, %d asked", err, len(sp.asked))
	}
}

// A paused run goes no further until it resumes.
func TestRunPauses(t *testing.T) {
	t.Parallel()
	cl := localGateway(t)
	d, err := Parse("p.toml", []byte("voice = \"espeak:en-us\"\n[[line]]\ntext = \"Hi.\"\n[[line]]\ntext = \"There.\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	show := NewShow(d, cl, api.DefaultProvider)
	defer show.Close()
	out, _ := audio.Open(audio.Options{Sink: audio.SinkNull})
	run := show.NewRun(out, 0)
	var mu sync.Mutex
	var pausedAt, second time.Time
	done := make(chan error, 1)
	go func() {
		done <- run.Play(context.Background(), func(ev Event) {
			if !ev.Playing {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			switch ev.Line {
			case 0:
				run.Pause()
				pausedAt = time.Now()
				go func() {
					time.Sleep(1500 * time.Millisecond)
					mu.Lock()
					defer mu.Unlock()
					if !second.IsZero() {
						t.Errorf("line 2 began %v into a pause", second.Sub(pausedAt))
					}
					run.Resume()
				}()
			case 1:
				second = time.Now()
			}
		})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the run never ended")
	}
	if second.IsZero() {
		t.Fatal("line 2 never played")
	}
}

// The performance as one WAV: the lines in order at the highest rate of
// their voices (espeak-ng's 22050 Hz over flite's 16000), the pauses as
// silence, as long as the parts together.
func TestRender(t *testing.T) {
	t.Parallel()
	cl := localGateway(t)
	d, err := Parse("show.toml", []byte(showDeck))
	if err != nil {
		t.Fatal(err)
	}
	show := NewShow(d, cl, api.DefaultProvider)
	defer show.Close()
	var buf bytes.Buffer
	length, err := show.Render(context.Background(), &buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(buf.Bytes())
	f, err := wav.ReadHeader(r)
	if err != nil || f.Rate != 22050 || f.Channels != 1 || !f.SizeKnown() || int(f.DataBytes) != r.Len() {
		t.Fatalf("WAV %+v (%d bytes after the header): %v", f, r.Len(), err)
	}
	var want time.Duration
	for i, l := range d.Lines {
		if l.IsPause() {
			want += l.Pause
			continue
		}
		data, _ := show.Wait(context.Background(), i)
		b, rate, err := audio.DecodeToPCM("wav", data, 0)
		if err != nil {
			t.Fatal(err)
		}
		want += time.Duration(float64(len(b)/2) / float64(rate) * float64(time.Second))
	}
	if diff := length - want; diff < -5*time.Millisecond || diff > 5*time.Millisecond {
		t.Errorf("rendered %v, the parts make %v", length, want)
	}
	if got := time.Duration(float64(f.DataBytes/2) / 22050 * float64(time.Second)); got != length {
		t.Errorf("the file holds %v, Render said %v", got, length)
	}
	// The pause is silence: 0.4 s of zeros somewhere after the first line.
	zeros := bytes.Repeat([]byte{0}, 8600*2) // 0.39 s at 22050 Hz
	if !bytes.Contains(buf.Bytes()[44:], zeros) {
		t.Error("no 0.4 s of silence for the pause")
	}
}

// A line that fails mid-way stops the show there, after what arrived of
// it has played, and the error names the line and its voice.
func TestRunLineFails(t *testing.T) {
	t.Parallel()
	cl := localGateway(t)
	d, err := Parse("f.toml", []byte("voice = \"espeak:en-us\"\n[[line]]\ntext = \"Fine.\"\n[[line]]\ntext = \"Refused.\"\nvoice = \"flite:slt\"\npitch = 500\n[[line]]\ntext = \"Never.\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	show := NewShow(d, cl, api.DefaultProvider)
	defer show.Close()
	out, _ := audio.Open(audio.Options{Sink: audio.SinkNull})
	var played []int
	err = show.NewRun(out, 0).Play(context.Background(), func(ev Event) {
		if ev.Playing {
			played = append(played, ev.Line)
		}
	})
	if err == nil || !strings.Contains(err.Error(), "line 2 (flite:slt)") || !strings.Contains(err.Error(), "pitch") {
		t.Fatalf("run with a refused line: %v", err)
	}
	if len(played) != 1 || played[0] != 0 {
		t.Errorf("played %v, want only line 1", played)
	}
}
