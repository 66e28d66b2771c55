//go:build cgo && linux

package voices

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/audio"
	"hark/audio/alsatest"
	"hark/gateway"
	"hark/gateway/config"
	"hark/gateway/engine"
	"hark/gateway/gatewaytest"
	"hark/gateway/store"
	"hark/gateway/voice"
	"hark/ui/common"
)

// The end-to-end test drives the pane in a real tea.Program: it lists the
// voices of hark's gateway (real HTTP on 127.0.0.1, the local espeak-ng and
// flite engines), filters to one voice, speaks by WebSocket stream, and
// plays through hark/audio's ALSA device. ALSA's default PCM is a "file"
// plugin writing float samples into a FIFO that this process reads at
// real-time pace, like a sound card. It runs in a child process because oto
// allows one context per process and ALSA_CONFIG_PATH must be set before it.
const (
	e2eChildEnv = "HARK_VOICES_E2E_CHILD"
	e2eDirEnv   = "HARK_VOICES_E2E_DIR"
	deviceRate  = 48000
	e2eVoice    = "flite:slt"
)

// e2eReport is what the child saw, printed as one JSON line.
type e2eReport struct {
	Voice     string
	OutKind   string
	First     time.Duration
	Received  int64
	Stats     audio.Stats
	Err       string
	Stopped   bool
	SavedPath string
	SaveErr   string
	Format    string
	Cached    bool // the second preview came from the cache
}

// e2eRoot is a minimal root model: it sizes the pane, forwards every
// message, and tells the test about the milestones.
type e2eRoot struct {
	p      *Pane
	events chan e2eEvent
}

type e2eEvent struct {
	msg    tea.Msg
	report e2eReport
}

func (r *e2eRoot) Init() tea.Cmd { r.p.SetSize(100, 30); return r.p.Init() }

func (r *e2eRoot) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(quitMsg); ok {
		return r, tea.Quit
	}
	_, cmd := r.p.Update(msg)
	switch m := msg.(type) {
	case voicesMsg, savedMsg:
		ev := e2eEvent{msg: m}
		if sm, ok := m.(savedMsg); ok {
			ev.report.SavedPath = sm.path
			if sm.err != nil {
				ev.report.SaveErr = sm.err.Error()
			}
		}
		r.events <- ev
	case ttsDoneMsg:
		if ps := r.p.play; ps != nil && ps.id == m.id {
			rep := e2eReport{Voice: ps.voice, OutKind: ps.outKind, First: ps.first, Received: ps.received,
				Stats: ps.stats, Stopped: ps.stopped, Cached: ps.cached}
			if ps.err != nil {
				rep.Err = ps.err.Error()
			}
			if m.clip != nil {
				rep.Format = m.clip.format
			}
			r.events <- e2eEvent{msg: m, report: rep}
		}
	}
	return r, cmd
}

var lastView atomic.Value // the last frame, for the failure message

func (r *e2eRoot) View() tea.View {
	v := r.p.View()
	lastView.Store(v)
	return tea.NewView(v)
}

type quitMsg struct{}

func startGateway(t *testing.T) *api.Client {
	t.Helper()
	dir := t.TempDir()
	db, err := store.OpenDB(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	const key = "hark_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	local, err := voice.New(voice.Config{Decoders: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.Close() })
	base := gatewaytest.Serve(t, db, key, gateway.Engines{Voice: func(_, _ string, _ config.Voice) (engine.VoiceProvider, error) {
		return local, nil
	}})
	c, err := api.New(api.Options{BaseURL: base, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestVoicesE2EChild(t *testing.T) {
	if os.Getenv(e2eChildEnv) == "" {
		t.Skip("runs only as the child of TestTTSStreamEndToEnd")
	}
	dir := os.Getenv(e2eDirEnv)
	client := startGateway(t)
	var alsaLog bytes.Buffer
	var outOnce sync.Once
	var out *audio.Output
	var outErr error
	c := &common.Common{
		Client:    client,
		Styles:    common.NewStyles(true, true),
		Provider:  api.DefaultProvider,
		OutputDir: dir,
		Audio: func() (*audio.Output, error) {
			outOnce.Do(func() { out, outErr = audio.Open(audio.Options{Sink: "device", Log: &alsaLog}) })
			return out, outErr
		},
	}
	p := New(c)
	root := &e2eRoot{p: p, events: make(chan e2eEvent, 16)}
	prog := tea.NewProgram(root, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithoutSignalHandler(), tea.WithWindowSize(100, 30))
	c.Send = prog.Send
	runDone := make(chan error, 1)
	go func() { _, err := prog.Run(); runDone <- err }()

	wait := func(what string, ok func(e2eEvent) bool) e2eEvent {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			select {
			case ev := <-root.events:
				if ok(ev) {
					return ev
				}
			case err := <-runDone:
				t.Fatalf("program ended while waiting for %s: %v", what, err)
			case <-timeout:
				prog.Kill()
				t.Fatalf("timed out waiting for %s; screen:\n%s", what, lastView.Load())
			}
		}
	}
	keys := func(ks ...string) {
		for _, k := range ks {
			prog.Send(keyMsg(k))
		}
	}
	isDone := func(ev e2eEvent) bool { _, ok := ev.msg.(ttsDoneMsg); return ok }

	t0 := time.Now()
	ev := wait("the voice list", func(ev e2eEvent) bool { _, ok := ev.msg.(voicesMsg); return ok })
	if err := ev.msg.(voicesMsg).err; err != nil {
		t.Fatalf("voices: %v", err)
	}

	// Filter to one voice, preview it twice (the second from the cache),
	// then speak the default text by stream and save it.
	keys("/")
	for _, r := range e2eVoice {
		prog.Send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	keys("enter", "p")
	first := wait("the first preview", isDone).report
	keys("p")
	second := wait("the cached preview", isDone).report
	keys("enter", "enter")
	spoken := wait("the speech", isDone).report
	keys("w", "enter")
	saved := wait("the saved file", func(ev e2eEvent) bool { _, ok := ev.msg.(savedMsg); return ok }).report
	spoken.SavedPath, spoken.SaveErr = saved.SavedPath, saved.SaveErr

	prog.Send(quitMsg{})
	if err := <-runDone; err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]e2eReport{"preview": first, "cached": second, "speech": spoken} {
		b, _ := json.Marshal(r)
		fmt.Printf("REPORT %s %s\n", name, b)
	}
	fmt.Printf("ALSALOG %q\n", alsaLog.String())
	fmt.Printf("TIMING %v\n", time.Since(t0))
}

func TestTTSStreamEndToEnd(t *testing.T) {
	t.Parallel()
	if os.Getenv(e2eChildEnv) != "" {
		t.Skip("child")
	}
	if testing.Short() {
		t.Skip("plays a few seconds of speech through ALSA")
	}
	dir := t.TempDir()
	checkALSAFileSink(t, dir)
	rig := alsatest.New(t, deviceRate)

	childStart := time.Now()
	dev, stdout := rig.RunChild(t, 90*time.Second, "TestVoicesE2EChild", e2eChildEnv+"=1", e2eDirEnv+"="+dir)

	reports := map[string]e2eReport{}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 3)
		if len(f) == 3 && f[0] == "REPORT" {
			var r e2eReport
			if err := json.Unmarshal([]byte(f[2]), &r); err != nil {
				t.Fatal(err)
			}
			reports[f[1]] = r
		}
	}
	speech, ok := reports["speech"]
	if !ok || reports["preview"].Voice == "" {
		t.Fatalf("child reported %v; stdout:\n%s", reports, stdout)
	}

	for name, r := range reports {
		if r.Err != "" || r.Stopped {
			t.Errorf("%s: err %q stopped %v", name, r.Err, r.Stopped)
		}
		if r.Voice != e2eVoice {
			t.Errorf("%s: voice %q, want %q (the filter picked the wrong one)", name, r.Voice, e2eVoice)
		}
		if r.OutKind != "device" {
			t.Errorf("%s: output %q, want the ALSA device", name, r.OutKind)
		}
		if r.First <= 0 || r.Received <= 0 {
			t.Errorf("%s: first audio %v, received %d", name, r.First, r.Received)
		}
	}
	if reports["preview"].Cached || !reports["cached"].Cached {
		t.Errorf("preview cache: first cached=%v, second cached=%v", reports["preview"].Cached, reports["cached"].Cached)
	}
	if speech.Format != api.FormatWAV {
		t.Errorf("stream with no rate chosen came as %q, want wav", speech.Format)
	}
	if speech.Stats.BytesReceived != speech.Received || speech.Stats.Played <= 0 {
		t.Errorf("speech stats %+v, pane counted %d bytes", speech.Stats, speech.Received)
	}
	if speech.SaveErr != "" || speech.SavedPath == "" {
		t.Fatalf("save: %q %q", speech.SavedPath, speech.SaveErr)
	}

	// The device must have played the very speech that was saved.
	wav, err := os.ReadFile(speech.SavedPath)
	if err != nil {
		t.Fatal(err)
	}
	pcm, rate, err := audio.DecodeToPCM("wav", wav, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := resampleLinear(s16(pcm), rate, deviceRate)
	got := dev.Samples()
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "TIMING ") {
			t.Logf("child drove the pane in %s", strings.TrimPrefix(line, "TIMING "))
		}
	}
	t.Logf("child ran for %v", time.Since(childStart).Round(time.Millisecond))
	matchStart := time.Now()
	score, gaps := matchWithGaps(got, want)
	t.Logf("matching took %v", time.Since(matchStart).Round(time.Millisecond))
	t.Logf("%.0f%% of voiced 40 ms blocks matched; %v of silence squeezed out of what the device played (between clips and in underruns; the pane counted %d underruns, %v); first audio %v, to device %v",
		100*score, gaps, speech.Stats.Underruns, speech.Stats.UnderrunTime, speech.First, speech.Stats.FirstChunkToDevice)
	// Blocks that straddle an underrun's silence cannot match whole, hence
	// not 100%; speech from another text or voice matches almost none.
	if score < 0.8 {
		t.Errorf("only %.0f%% of the saved speech's voiced blocks were found, in order, in what the device played; want >= 80%%", 100*score)
	}
}

// checkALSAFileSink plays a tenth of a second through alsa-utils' aplay
// into an ALSA file plugin, as the child will, so that a machine whose
// ALSA cannot do that fails here with ALSA's own words rather than later
// as a fault of the pane. Without aplay the test is skipped.
func checkALSAFileSink(t *testing.T, dir string) {
	t.Helper()
	aplay, err := exec.LookPath("aplay")
	if err != nil {
		t.Skip("alsa-utils is not installed (no aplay): it checks the ALSA file sink this test plays into; scripts/setup.sh installs it")
	}
	out := filepath.Join(dir, "check.raw")
	conf := filepath.Join(dir, "check.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("pcm.!default {\n\ttype file\n\tslave.pcm \"hark_null\"\n\tfile %q\n\tformat \"raw\"\n}\npcm.hark_null {\n\ttype null\n}\n", out)), 0o600); err != nil {
		t.Fatal(err)
	}
	var tone bytes.Buffer
	pcm := make([]byte, 2*4800)
	for i := range 4800 {
		binary.LittleEndian.PutUint16(pcm[2*i:], uint16(int16(8000*math.Sin(float64(i)*2*math.Pi*440/48000))))
	}
	if err := audio.WriteWAV(&tone, pcm, 48000); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(aplay, "-q", "-D", "default", "-")
	cmd.Env = append(os.Environ(), "ALSA_CONFIG_PATH="+conf)
	cmd.Stdin = &tone
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ALSA cannot play into a file sink here (aplay: %v): %s", err, msg)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() == 0 {
		t.Fatalf("aplay played into ALSA's file plugin but %s is empty or missing (%v)", out, err)
	}
}

func s16(pcm []byte) []float64 {
	out := make([]float64, len(pcm)/2)
	for i := range out {
		out[i] = float64(int16(binary.LittleEndian.Uint16(pcm[2*i:]))) / 32768
	}
	return out
}

func resampleLinear(in []float64, from, to int) []float64 {
	n := len(in) * to / from
	out := make([]float64, n)
	for i := range out {
		x := float64(i) * float64(from) / float64(to)
		j := int(x)
		if j+1 >= len(in) {
			out[i] = in[len(in)-1]
			continue
		}
		f := x - float64(j)
		out[i] = in[j]*(1-f) + in[j+1]*f
	}
	return out
}

// matchWithGaps finds the blocks of want (40 ms at the device rate) in
// got, in order from the end, allowing silence of any length to have been
// inserted (underruns: under load the device may play a second or more of
// silence mid-speech). Inserted silence is digital zero, so runs of zeros
// are squeezed out of both signals first and the blocks then line up
// again; what the squeezing cannot undo (the edges of a run) is followed
// by a small search around the expected place. It returns the share of
// voiced blocks whose best normalised correlation is at least 0.9, and
// the silence squeezed out of got beyond what want had.
func matchWithGaps(got []float32, want []float64) (float64, time.Duration) {
	const block = deviceRate / 25
	const drift = deviceRate / 20 // 50 ms each way
	g := make([]float64, len(got))
	for i, v := range got {
		g[i] = float64(v)
	}
	g, gCut := squeezeZeros(g)
	w, wCut := squeezeZeros(want)
	last := func(xs []float64) int {
		for i := len(xs) - 1; i >= 0; i-- {
			if math.Abs(xs[i]) > 0.01 {
				return i + 1
			}
		}
		return -1
	}
	gEnd, wEnd := last(g), last(w)
	if gEnd < 0 || wEnd < 0 {
		return 0, 0
	}
	corr := func(off, from int) float64 {
		var xy, xx, yy float64
		for i := from; i < from+block; i++ {
			j := off + i
			if j < 0 || j >= len(g) {
				continue
			}
			xy += g[j] * w[i]
			xx += g[j] * g[j]
			yy += w[i] * w[i]
		}
		if xx == 0 || yy == 0 {
			return 0
		}
		return xy / math.Sqrt(xx*yy)
	}
	// search scans offsets around off in steps, then refines around the
	// best one sample by sample.
	search := func(from, off, span, step int) (float64, int) {
		best, bestOff := -1.0, off
		for d := off + span; d >= off-span; d -= step {
			if c := corr(d, from); c > best {
				best, bestOff = c, d
			}
		}
		for d := bestOff + step; d >= bestOff-step; d-- {
			if c := corr(d, from); c > best {
				best, bestOff = c, d
			}
		}
		return best, bestOff
	}
	off := gEnd - wEnd // g index = w index + off
	voiced, matched := 0, 0
	for from := wEnd - block; from >= 0; from -= block {
		peak := 0.0
		for _, v := range w[from : from+block] {
			peak = max(peak, math.Abs(v))
		}
		if peak < 0.05 {
			continue
		}
		voiced++
		// Near where the last block says first (the usual case), then
		// wider.
		best, bestOff := search(from, off, 48, 3)
		if best < 0.9 {
			best, bestOff = search(from, off, drift, 6)
		}
		if best >= 0.9 {
			matched++
			off = bestOff
		}
	}
	if voiced == 0 {
		return 0, 0
	}
	gap := time.Duration(max(0, gCut-wCut)) * time.Second / deviceRate
	return float64(matched) / float64(voiced), gap
}

// squeezeZeros drops every run of more than 48 samples (1 ms) of exact
// zeros, and says how many samples it dropped.
func squeezeZeros(xs []float64) ([]float64, int) {
	const minRun = 48
	out := make([]float64, 0, len(xs))
	cut := 0
	for i := 0; i < len(xs); {
		if xs[i] != 0 {
			out = append(out, xs[i])
			i++
			continue
		}
		j := i
		for j < len(xs) && xs[j] == 0 {
			j++
		}
		if j-i > minRun {
			cut += j - i
		} else {
			out = append(out, xs[i:j]...)
		}
		i = j
	}
	return out, cut
}
