package audio

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestStreamPlaysEverySampleInOrder(t *testing.T) {
	rec := newRecordingSink()
	p, err := rec.output().Play("pcm", 16000)
	if err != nil {
		t.Fatal(err)
	}
	want := testSignal(8000, 1) // 0.5 s
	data := s16Bytes(want)
	// Odd-sized chunks: a sample split across two frames must survive.
	for len(data) > 0 {
		n := min(777, len(data))
		if _, err := p.Write(data[:n]); err != nil {
			t.Fatal(err)
		}
		data = data[n:]
	}
	p.CloseWrite()
	waitDone(t, p, 5*time.Second)
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	equalSamples(t, rec.samples(), want)
	st := p.Stats()
	if st.Underruns != 0 {
		t.Errorf("underruns = %d, want 0 for a stream written ahead of playback", st.Underruns)
	}
	if st.BytesReceived != 16000 || st.BytesPlayed != 16000 {
		t.Errorf("bytes received/played = %d/%d, want 16000/16000", st.BytesReceived, st.BytesPlayed)
	}
	if st.Received != 500*time.Millisecond || p.Position() != 500*time.Millisecond {
		t.Errorf("received %v, position %v, want 500ms", st.Received, p.Position())
	}
	if st.FirstChunkToDevice <= 0 || st.FirstChunkToDevice > time.Second {
		t.Errorf("first chunk to device = %v", st.FirstChunkToDevice)
	}
}

func TestStallCountsUnderrunAndResumes(t *testing.T) {
	rec := newRecordingSink()
	p, err := rec.output().Play("pcm", 16000)
	if err != nil {
		t.Fatal(err)
	}
	first, second := testSignal(3200, 1), testSignal(3200, 2) // 200 ms each
	p.Write(s16Bytes(first))
	time.Sleep(450 * time.Millisecond) // the stream stalls for ~250 ms after the first part plays
	if st := p.Stats(); st.Underruns != 0 || st.UnderrunTime < 100*time.Millisecond {
		t.Errorf("during the stall: underruns %d (want 0 until audio resumes), open gap %v (want >= 100ms)", st.Underruns, st.UnderrunTime)
	}
	p.Write(s16Bytes(second))
	p.CloseWrite()
	waitDone(t, p, 5*time.Second)
	equalSamples(t, rec.samples(), append(first, second...))
	st := p.Stats()
	if st.Underruns != 1 {
		t.Fatalf("underruns = %d, want 1", st.Underruns)
	}
	if st.UnderrunTime < 150*time.Millisecond || st.UnderrunTime > 400*time.Millisecond {
		t.Errorf("underrun time = %v, want about 250ms", st.UnderrunTime)
	}
	if rec.silentTick == 0 {
		t.Errorf("the recording device never went silent, so the stall was not real")
	}
}

func TestPauseHoldsPositionWithoutUnderrun(t *testing.T) {
	rec := newRecordingSink()
	p, _ := rec.output().Play("pcm", 16000)
	want := testSignal(6400, 3) // 400 ms
	p.Write(s16Bytes(want))
	time.Sleep(100 * time.Millisecond)
	p.Pause()
	time.Sleep(30 * time.Millisecond)
	pos := p.Position()
	time.Sleep(200 * time.Millisecond)
	if got := p.Position(); got != pos {
		t.Errorf("position moved while paused: %v -> %v", pos, got)
	}
	p.Resume()
	p.CloseWrite()
	waitDone(t, p, 5*time.Second)
	equalSamples(t, rec.samples(), want)
	if st := p.Stats(); st.Underruns != 0 {
		t.Errorf("underruns = %d after a pause, want 0", st.Underruns)
	}
}

func TestStopEndsAtOnce(t *testing.T) {
	rec := newRecordingSink()
	p, _ := rec.output().Play("pcm", 16000)
	p.Write(s16Bytes(testSignal(16000*5, 1)))
	time.Sleep(50 * time.Millisecond)
	p.Stop()
	waitDone(t, p, time.Second)
	if p.Err() != nil {
		t.Errorf("Err after Stop = %v, want nil", p.Err())
	}
	if _, err := p.Write([]byte{1, 2}); err == nil {
		t.Error("Write after Stop succeeded")
	}
	if pos := p.Position(); pos > time.Second {
		t.Errorf("position %v after stopping a 5 s stream at 50 ms", pos)
	}
}

func TestVolumeScalesSamples(t *testing.T) {
	rec := newRecordingSink()
	p, _ := rec.output().Play("pcm", 16000)
	p.SetVolume(0.5)
	in := []int16{1000, -1000, 20000, -32768}
	p.Write(s16Bytes(in))
	p.CloseWrite()
	waitDone(t, p, 5*time.Second)
	equalSamples(t, rec.samples(), []int16{500, -500, 10000, -16384})
	p.SetVolume(7) // clamped, no panic
}

func TestLevelMeter(t *testing.T) {
	out, _ := Open(Options{Sink: "null"})
	p, _ := out.Play("pcm", 16000)
	// 250 ms of a full-scale square wave, then 250 ms of silence.
	sq := make([]int16, 4000)
	for i := range sq {
		sq[i] = 32767
		if i%2 == 1 {
			sq[i] = -32767
		}
	}
	p.Write(s16Bytes(sq))
	p.Write(make([]byte, 8000))
	p.CloseWrite()
	waitDone(t, p, 5*time.Second)
	lv := p.Levels(100)
	if len(lv) != 10 {
		t.Fatalf("got %d level windows for 500 ms, want 10 (50 ms each)", len(lv))
	}
	if lv[0] < 0.99 || lv[4] < 0.99 || lv[5] != 0 || lv[9] != 0 {
		t.Errorf("levels = %v, want ~1 for the square wave then 0", lv)
	}
	if p.Level() != 0 {
		t.Errorf("latest level = %v, want 0 (silence)", p.Level())
	}
	if got := p.Levels(3); len(got) != 3 {
		t.Errorf("Levels(3) returned %d", len(got))
	}
	if got := p.Levels(-1); len(got) != 0 {
		t.Errorf("Levels(-1) returned %d", len(got))
	}
}

func TestResampledToDeviceRate(t *testing.T) {
	rec := newRecordingSink()
	rec.rate = 48000
	p, _ := rec.output().Play("pcm", 24000)
	in := make([]int16, 2400) // 100 ms of 440 Hz
	for i := range in {
		in[i] = int16(10000 * math.Sin(2*math.Pi*440*float64(i)/24000))
	}
	p.Write(s16Bytes(in))
	p.CloseWrite()
	waitDone(t, p, 5*time.Second)
	got := rec.samples()
	if len(got) < 4798 || len(got) > 4800 {
		t.Fatalf("got %d samples at 48 kHz for 2400 at 24 kHz", len(got))
	}
	for i, v := range got {
		want := 10000 * math.Sin(2*math.Pi*440*float64(i)/48000)
		if math.Abs(float64(v)-want) > 120 {
			t.Fatalf("sample %d = %d, want about %.0f", i, v, want)
		}
	}
	if st := p.Stats(); st.Played < 99*time.Millisecond {
		t.Errorf("played %v, want 100ms", st.Played)
	}
}

func TestFileSinkSavesWhatArrivedWhenInputDies(t *testing.T) {
	dir := t.TempDir()
	out, err := Open(Options{Sink: "file", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind() != "file" || !strings.Contains(out.Describe(), dir) {
		t.Errorf("kind %q describe %q", out.Kind(), out.Describe())
	}
	p, err := out.Play("wav", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := testSignal(5000, 4)
	stream := append(streamedWAVHeader(22050, 0xFFFFFFFF), s16Bytes(want)...)
	p.Write(stream)
	p.Write([]byte{0x12}) // half a sample, then the connection drops
	p.CloseWithError(errors.New("websocket: close 1006 (abnormal closure)"))
	waitDone(t, p, 5*time.Second)
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "input ended early") {
		t.Errorf("Err = %v, want the input error", err)
	}
	path := p.SavedTo()
	if !strings.HasPrefix(path, dir) {
		t.Fatalf("SavedTo = %q, want a file in %s", path, dir)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pcm, rate, err := DecodeToPCM("wav", data, 0)
	if err != nil || rate != 22050 {
		t.Fatalf("saved file: rate %d err %v", rate, err)
	}
	if !bytes.Equal(pcm, s16Bytes(want)) {
		t.Errorf("saved %d bytes, want the %d that arrived", len(pcm), len(want)*2)
	}
	if size := int(data[40]) | int(data[41])<<8 | int(data[42])<<16 | int(data[43])<<24; size != len(want)*2 {
		t.Errorf("saved header data size %d, want %d (sizes fixed at the end)", size, len(want)*2)
	}
}

func TestFileSinkKeepsAudioOnStop(t *testing.T) {
	out, _ := Open(Options{Sink: "file", Dir: t.TempDir()})
	p, _ := out.Play("pcm", 16000)
	p.Write(s16Bytes(testSignal(1600, 1)))
	for p.Stats().BytesPlayed < 3200 {
		time.Sleep(time.Millisecond)
	}
	p.Stop()
	waitDone(t, p, 5*time.Second)
	data, err := os.ReadFile(p.SavedTo())
	if err != nil {
		t.Fatal(err)
	}
	if pcm, _, _ := DecodeToPCM("wav", data, 0); len(pcm) != 3200 {
		t.Errorf("saved %d bytes after Stop, want 3200", len(pcm))
	}
}

// The file sink is a bounded cache: after each file it keeps the newest
// Keep of its own files, and nothing else in the folder is touched.
func TestFileSinkKeepsTheNewest(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "hark-tts-kept-by-hand.mp3")
	os.WriteFile(mine, []byte("ID3"), 0o644)
	out, _ := Open(Options{Sink: "file", Dir: dir, Keep: 3})
	var saved []string
	for range 5 {
		p, _ := out.Play("pcm", 16000)
		p.Write(s16Bytes(testSignal(160, 1)))
		p.CloseWithError(nil)
		waitDone(t, p, 5*time.Second)
		saved = append(saved, p.SavedTo())
		time.Sleep(10 * time.Millisecond) // distinct modification times
	}
	left, _ := filepath.Glob(filepath.Join(dir, "hark-*.wav"))
	slices.Sort(left)
	slices.Sort(saved[2:])
	if !slices.Equal(left, saved[2:]) {
		t.Errorf("kept %q, want the newest three %q", left, saved[2:])
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a file the sink did not write was removed: %v", err)
	}
}

func TestBadStreamsFailClearly(t *testing.T) {
	out, _ := Open(Options{Sink: "null"})
	cases := []struct {
		format string
		data   []byte
		want   string
	}{
		{"mp3", readFile(t, "testdata/tone-8k-mpeg25.mp3"), "MPEG 2.5"},
		{"wav", []byte("RIFX....WAVEfmt "), "RIFF"},
		{"wav", append(streamedWAVHeader(22050, 0)[:20], []byte{9, 0, 1, 0}...), "fmt"},
		{"mp3", []byte("not an mp3 at all"), "mp3"},
	}
	for _, c := range cases {
		p, err := out.Play(c.format, 0)
		if err != nil {
			t.Fatal(err)
		}
		p.Write(c.data)
		p.CloseWrite()
		waitDone(t, p, 5*time.Second)
		if err := p.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q...: Err = %v, want one mentioning %q", c.format, c.data[:min(8, len(c.data))], err, c.want)
		}
	}
	if _, err := out.Play("pcm", 0); err == nil || !strings.Contains(err.Error(), "sample_rate") {
		t.Errorf("pcm without a rate: %v", err)
	}
	if _, err := out.Play("pcm", 1); err == nil || !strings.Contains(err.Error(), "4000..192000") {
		t.Errorf("pcm at 1 Hz: %v", err)
	}
	if _, err := out.Play("ogg", 0); err == nil || !strings.Contains(err.Error(), "format") {
		t.Errorf("ogg: %v", err)
	}
}

func TestWriteAfterDecodeErrorReturnsIt(t *testing.T) {
	out, _ := Open(Options{Sink: "null"})
	p, _ := out.Play("mp3", 0)
	p.Write(readFile(t, "testdata/tone-8k-mpeg25.mp3"))
	waitDone(t, p, 5*time.Second)
	if _, err := p.Write([]byte{0}); !errors.Is(err, ErrMPEG25) {
		t.Errorf("Write after MPEG 2.5 = %v, want ErrMPEG25", err)
	}
}

func TestOpenChoosesSink(t *testing.T) {
	t.Setenv("SSH_CONNECTION", "10.0.0.1 5555 10.0.0.2 22")
	t.Setenv("PULSE_SERVER", "")
	dir := t.TempDir()
	out, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind() != "file" || out.Describe() != "file: "+dir+" (SSH without PULSE_SERVER)" {
		t.Errorf("over SSH: kind %q describe %q", out.Kind(), out.Describe())
	}
	if out, _ := Open(Options{Sink: "null"}); out.Kind() != "null" || out.Describe() != "null" {
		t.Errorf("null: %q %q", out.Kind(), out.Describe())
	}
	for _, o := range []Options{{Sink: "speakers"}, {SampleRate: 100}, {BufferSize: time.Hour}} {
		if _, err := Open(o); err == nil {
			t.Errorf("Open(%+v) succeeded", o)
		}
	}
}

func TestRebufferAfterUnderrun(t *testing.T) {
	rec := newRecordingSink()
	p, _ := rec.output().Play("pcm", 16000)
	a, b, c := testSignal(1600, 1), testSignal(320, 2), testSignal(1600, 3) // 100, 20, 100 ms
	p.Write(s16Bytes(a))
	time.Sleep(250 * time.Millisecond) // played out; a gap has begun
	p.Write(s16Bytes(b))               // 20 ms is less than the 60 ms rebuffer: held back
	time.Sleep(60 * time.Millisecond)
	if pos := p.Position(); pos > 100*time.Millisecond {
		t.Errorf("position %v: a 20 ms burst after a gap played at once instead of rebuffering", pos)
	}
	p.Write(s16Bytes(c))
	p.CloseWrite()
	waitDone(t, p, 5*time.Second)
	equalSamples(t, rec.samples(), append(append(a, b...), c...))
	if st := p.Stats(); st.Underruns != 1 {
		t.Errorf("underruns = %d, want 1", st.Underruns)
	}
}

func TestFileSinkLeavesNoEmptyFile(t *testing.T) {
	dir := t.TempDir()
	out, _ := Open(Options{Sink: "file", Dir: dir})
	p, _ := out.Play("pcm", 16000)
	p.CloseWithError(errors.New("vendor API returned status code 500: busy"))
	waitDone(t, p, 5*time.Second)
	if p.SavedTo() != "" {
		t.Errorf("SavedTo = %q for a stream with no audio", p.SavedTo())
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("left %d files behind", len(files))
	}
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "status code 500") {
		t.Errorf("Err = %v", err)
	}
}

// A default directory that is taken (here $TMPDIR/hark is a regular file)
// must not stop the file sink: it saves into a fresh directory and says so.
func TestFileSinkDirTakenFallsBack(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	taken := filepath.Join(tmp, "hark")
	if err := os.WriteFile(taken, []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"", taken} {
		var log strings.Builder
		out, err := Open(Options{Sink: "file", Dir: dir, Log: &log})
		if err != nil {
			t.Fatal(err)
		}
		saveDir := strings.TrimPrefix(out.Describe(), "file: ")
		if saveDir == taken || filepath.Dir(saveDir) != tmp || !strings.HasPrefix(filepath.Base(saveDir), "hark-audio-") {
			t.Errorf("Dir %q: Describe = %q, want a fresh hark-audio-* directory in %s", dir, out.Describe(), tmp)
		}
		if !strings.Contains(log.String(), taken) {
			t.Errorf("Dir %q: the log does not say why %s was not used: %q", dir, taken, log.String())
		}
		p, _ := out.Play("pcm", 16000)
		p.Write(s16Bytes(testSignal(1600, 1)))
		p.CloseWrite()
		waitDone(t, p, 5*time.Second)
		if p.Err() != nil || filepath.Dir(p.SavedTo()) != saveDir {
			t.Fatalf("Dir %q: err %v, saved to %q, want it in %s", dir, p.Err(), p.SavedTo(), saveDir)
		}
		data, err := os.ReadFile(p.SavedTo())
		if err != nil {
			t.Fatal(err)
		}
		if pcm, rate, err := DecodeToPCM("wav", data, 0); err != nil || rate != 16000 || len(pcm) != 3200 {
			t.Errorf("saved WAV: %d bytes at %d Hz, err %v", len(pcm), rate, err)
		}
	}
	// A usable directory is used as given, named absolutely.
	dir := filepath.Join(tmp, "given")
	if out, _ := Open(Options{Sink: "file", Dir: dir}); out.Describe() != "file: "+dir {
		t.Errorf("Describe = %q, want file: %s", out.Describe(), dir)
	}
	t.Chdir(tmp)
	if out, _ := Open(Options{Sink: "file", Dir: "."}); out.Describe() != "file: "+tmp {
		t.Errorf("Dir \".\": Describe = %q, want file: %s", out.Describe(), tmp)
	}
}

// The meter moves with what is heard, not with what the sink was handed: a
// device's player holds audio ahead of the speaker.
func TestLevelFollowsWhatIsHeard(t *testing.T) {
	rec := newRecordingSink()
	rec.buffer = 300 * time.Millisecond // a player holding 300 ms ahead
	p, _ := rec.output().Play("pcm", 16000)
	sq := make([]int16, 16000) // 1 s, full scale
	for i := range sq {
		sq[i] = 32767
	}
	p.Write(s16Bytes(sq))
	p.CloseWrite()
	deadline := time.Now().Add(5 * time.Second)
	for p.Stats().BytesPlayed < 2*4800 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	p.mu.Lock()
	handed := len(p.levels)
	p.mu.Unlock()
	heard := int(p.Position() / levelWindow)
	if got := len(p.Levels(100)); got > heard+1 {
		t.Errorf("%d readings shown with %v heard (%d handed to the sink), want at most %d", got, p.Position(), handed, heard+1)
	}
	waitDone(t, p, 5*time.Second)
	if got := len(p.Levels(100)); got != 20 || p.Level() < 0.99 {
		t.Errorf("after the end: %d readings, level %v; want 20 of ~1", got, p.Level())
	}
}

func TestOverSSHWithoutPulse(t *testing.T) {
	for _, c := range []struct {
		conn, tty, pulse string
		want             bool
	}{
		{"", "", "", false},
		{"10.0.0.1 5555 10.0.0.2 22", "", "", true},
		{"", "/dev/pts/3", "", true},
		{"10.0.0.1 5555 10.0.0.2 22", "/dev/pts/3", "tcp:127.0.0.1:24713", false},
		{"", "", "tcp:127.0.0.1:24713", false},
	} {
		t.Setenv("SSH_CONNECTION", c.conn)
		t.Setenv("SSH_TTY", c.tty)
		t.Setenv("PULSE_SERVER", c.pulse)
		if got := overSSHWithoutPulse(); got != c.want {
			t.Errorf("SSH_CONNECTION=%q SSH_TTY=%q PULSE_SERVER=%q: %v, want %v", c.conn, c.tty, c.pulse, got, c.want)
		}
	}
}
