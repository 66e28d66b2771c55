package audio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"hark/audio/wav"
)

// streamedWAV is a WAV as a TTS stream sends it: the header with
// placeholder sizes, then the samples.
func streamedWAV(rate int, s []int16) []byte {
	return append(wav.Header(rate, wav.StreamSize), s16Bytes(s)...)
}

// fetchFrames writes data in frames of n bytes, pausing between them, as
// a stream arriving faster than real time does.
func fetchFrames(ctx context.Context, w io.Writer, data []byte, n int, pause time.Duration) error {
	for len(data) > 0 {
		k := min(n, len(data))
		if _, err := w.Write(data[:k]); err != nil {
			return err
		}
		data = data[k:]
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
	}
	return nil
}

// Three parts, each streamed in frames while the one before plays, play
// as one stream: every sample in order, no silent tick between them, and
// each part is said to play only once its audio has reached the device.
func TestSequencePlaysPartsInTurnWithoutGap(t *testing.T) {
	rec := newRecordingSink()
	q := rec.output().Sequence(0)
	parts := [][]int16{testSignal(4000, 1), testSignal(2400, 2), testSignal(3200, 3)} // 250, 150, 200 ms at 16 kHz
	var mu sync.Mutex
	var events []string
	var heardAt []int
	err := q.Run(context.Background(), Turns{
		Count: len(parts), Format: FormatWAV,
		Fetch: func(ctx context.Context, i int, w io.Writer) error {
			return fetchFrames(ctx, w, streamedWAV(16000, parts[i]), 1000, 2*time.Millisecond)
		},
		Arrived: func(i int, length time.Duration, err error) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, fmt.Sprintf("arrived %d %v %v", i, length, err))
		},
		Playing: func(i int) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, fmt.Sprintf("playing %d", i))
			heardAt = append(heardAt, len(rec.samples()))
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var all []int16
	for _, p := range parts {
		all = append(all, p...)
	}
	equalSamples(t, rec.samples(), all)
	if rec.silentTick != 0 {
		t.Errorf("%d silent ticks: a gap opened between parts", rec.silentTick)
	}
	want := []string{"playing 0", "arrived 0 250ms <nil>", "playing 1", "arrived 1 150ms <nil>", "playing 2", "arrived 2 200ms <nil>"}
	// A part arrives while the one before it plays: only the order of
	// each part's own events, and of the plays, is fixed.
	order := map[string]int{}
	for i, e := range events {
		order[e] = i
	}
	if len(events) != len(want) {
		t.Fatalf("events %q, want %q in some interleaving", events, want)
	}
	for _, pair := range [][2]string{{want[1], want[2]}, {want[3], want[4]}, {want[0], want[2]}, {want[2], want[4]}} {
		a, ok1 := order[pair[0]]
		b, ok2 := order[pair[1]]
		if !ok1 || !ok2 || a > b {
			t.Errorf("events %q: %q must come before %q", events, pair[0], pair[1])
		}
	}
	for i, start := range []int{0, 4000, 6400} {
		if heardAt[i] < start {
			t.Errorf("part %d was said to play after %d samples, before its first (%d) was played", i, heardAt[i], start)
		}
	}
}

// A part added while the one before still streams is held, decoded, and
// follows it; a part of another rate is resampled to the sequence's.
func TestSequenceHoldsAPartAndResamples(t *testing.T) {
	rec := newRecordingSink()
	q := rec.output().Sequence(0)
	a, err := q.Add(FormatWAV, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := q.Add(FormatWAV, 0)
	q.Close()
	first, second := testSignal(1600, 1), testSignal(800, 2)
	b.Write(streamedWAV(8000, second)) // arrives first, at half the rate
	b.Close(nil)
	a.Write(streamedWAV(16000, first))
	a.Close(nil)
	select {
	case <-q.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the sequence did not end")
	}
	got := rec.samples()
	equalSamples(t, got[:1600], first)
	if n := len(got) - 1600; n < 1590 || n > 1600 {
		t.Errorf("the 8 kHz part gave %d samples at 16 kHz, want about 1600", n)
	}
	if d, err := b.Wait(); d != 100*time.Millisecond || err != nil {
		t.Errorf("second part: %v %v", d, err)
	}
}

// With the file sink a whole sequence is one WAV file with its true
// sizes; a part that fails keeps what arrived before it, and Run says
// which part failed.
func TestSequenceFileSinkOneFileAndAFailedPart(t *testing.T) {
	dir := t.TempDir()
	out, err := Open(Options{Sink: SinkFile, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	q := out.Sequence(0)
	boom := errors.New("the stream dropped")
	parts := [][]int16{testSignal(1600, 1), testSignal(1600, 2), testSignal(1600, 3)}
	err = q.Run(context.Background(), Turns{Count: 3, Format: FormatWAV,
		Fetch: func(ctx context.Context, i int, w io.Writer) error {
			data := streamedWAV(16000, parts[i])
			if i == 1 {
				w.Write(data[:44+1600]) // half of it, then the stream dies
				return boom
			}
			_, err := w.Write(data)
			return err
		}})
	var pe *PartError
	if !errors.As(err, &pe) || pe.Part != 1 || !errors.Is(err, boom) {
		t.Fatalf("Run: %v, want part 2's error", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "hark-*.wav"))
	if len(files) != 1 || q.SavedTo() != files[0] {
		t.Fatalf("files %v, SavedTo %q: want one file for the sequence", files, q.SavedTo())
	}
	f, _ := os.Open(files[0])
	defer f.Close()
	h, err := wav.ReadHeader(f)
	if err != nil || h.DataBytes != 2*(1600+800) || !h.SizeKnown() {
		t.Errorf("header %+v, %v: want the true size of part 1 and half of part 2", h, err)
	}
}

// Stop ends a sequence at once, mid-fetch; Run returns nil when its
// context ends.
func TestSequenceStopAndCancel(t *testing.T) {
	rec := newRecordingSink()
	q := rec.output().Sequence(16000)
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- q.Run(ctx, Turns{Count: 2, Format: FormatWAV,
			Fetch: func(ctx context.Context, i int, w io.Writer) error {
				w.Write(streamedWAV(16000, testSignal(16000, 1))) // 1 s
				close(started)
				<-ctx.Done() // a stream that never ends
				return ctx.Err()
			}})
	}()
	<-started
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run after cancel: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	select {
	case <-q.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the stopped sequence is not done")
	}
	if n := len(rec.samples()); n >= 16000 {
		t.Errorf("played %d samples after the stop: all of it", n)
	}
}

// A part plays from its first frames: the fetch here cannot finish until
// the part has been said to play, as a long take's stream goes on while
// its start is heard.
func TestSequencePlaysAPartBeforeItHasArrived(t *testing.T) {
	rec := newRecordingSink()
	q := rec.output().Sequence(0)
	playing := make(chan struct{})
	err := q.Run(context.Background(), Turns{Count: 1, Format: FormatWAV,
		Fetch: func(ctx context.Context, i int, w io.Writer) error {
			w.Write(streamedWAV(16000, testSignal(1600, 1))) // the first 100 ms
			select {
			case <-playing:
			case <-time.After(10 * time.Second):
				return errors.New("the part did not play before its stream ended")
			}
			_, err := w.Write(s16Bytes(testSignal(1600, 2)))
			return err
		},
		Playing: func(int) { close(playing) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rec.samples()); n != 3200 {
		t.Errorf("played %d samples, want 3200", n)
	}
}

// A part whose fetch fails before any audio (a stream refused at once)
// reports the fetch's error, never the truncated header its empty input
// also is: the two used to race, and "wav header: truncated" hid
// "invalid speech_rate".
func TestSequencePartRefusedBeforeAudioSaysWhy(t *testing.T) {
	refused := errors.New("invalid speech_rate: must be within -100..100")
	for range 50 {
		out, err := Open(Options{Sink: SinkNull})
		if err != nil {
			t.Fatal(err)
		}
		err = out.Sequence(0).Run(context.Background(), Turns{Count: 1, Format: FormatWAV,
			Fetch: func(ctx context.Context, i int, w io.Writer) error {
				time.Sleep(time.Millisecond) // the decoder is waiting on its input
				return refused
			}})

		if !errors.Is(err, refused) {
			t.Fatalf("Run: %v, want the fetch's error", err)
		}
	}
}
