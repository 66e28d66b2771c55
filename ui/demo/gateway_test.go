//go:build cgo && linux

package demo

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/audio"
	"hark/audio/wav"
	"hark/gateway"
	"hark/gateway/config"
	"hark/gateway/engine"
	"hark/gateway/gatewaytest"
	"hark/gateway/store"
	"hark/gateway/voice"
	"hark/ui/common"
)

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

// driver runs the stage's commands as a tea.Program would (Send is nil:
// runs report through the channel-reading command) and feeds their
// messages back.
type driver struct {
	t    *testing.T
	m    *Model
	msgs chan tea.Msg
	seen []tea.Msg
}

func (d *driver) run(cmd tea.Cmd) {
	if cmd != nil {
		go func() { d.msgs <- cmd() }()
	}
}

func (d *driver) key(k string) { d.run(d.m.Update(keyPress(k))) }

// until feeds messages to the stage until ok holds after one.
func (d *driver) until(what string, ok func(tea.Msg) bool) tea.Msg {
	d.t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case msg := <-d.msgs:
			switch msg := msg.(type) {
			case nil:
				continue
			case tea.BatchMsg:
				for _, c := range msg {
					d.run(c)
				}
				continue
			}
			d.seen = append(d.seen, msg)
			d.run(d.m.Update(msg))
			if ok(msg) {
				return msg
			}
		case <-timeout:
			d.t.Fatalf("waited 60 s for %s; the stage shows:\n%s", what, ansi.Strip(d.m.View()))
		}
	}
}

func playing(line int) func(tea.Msg) bool {
	return func(msg tea.Msg) bool {
		e, ok := msg.(eventMsg)
		return ok && e.ev.Playing && e.ev.Line == line
	}
}

// A three-line deck through hark's gateway and the local voices, on the
// null sink (which the stage paces as if heard): each caption in turn,
// pause holding the show, n going on to the next line at once, r
// replaying it, the end, w saving the performance as one WAV, and q
// stopping and closing.
func TestStagePlaysADeck(t *testing.T) {
	t.Parallel()
	cl := localGateway(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "three.toml")
	os.WriteFile(path, []byte(`title = "Three"
voice = "espeak:en-us"
[[line]]
text = "Good morning, and welcome to the show."
caption = "Welcome"
[[line]]
text = "This is the second line, in another voice."
voice = "flite:slt"
caption = "Second"
[[line]]
text = "And the third."
caption = "Third"
`), 0o644)
	out, err := audio.Open(audio.Options{Sink: audio.SinkNull})
	if err != nil {
		t.Fatal(err)
	}
	c := &common.Common{Client: cl, Styles: common.NewStyles(true, true), Provider: api.DefaultProvider, OutputDir: dir,
		Audio: func() (*audio.Output, error) { return out, nil }}
	m := New(c)
	m.SetSize(80, 24)
	d := &driver{t: t, m: m, msgs: make(chan tea.Msg, 64)}
	d.run(m.Open(path))

	d.until("line 1", playing(0))
	if v := ansi.Strip(m.View()); !strings.Contains(v, "line 1 of 3 · ▶ playing") || !strings.Contains(v, "caption: Welcome") ||
		!strings.Contains(v, "█   █ █▀▀ █   ▄▀▀ ▄▀▄ █▄ ▄█ █▀▀") {
		t.Fatalf("line 1 on stage:\n%s", v)
	}
	// Paused, the show stays on line 1.
	d.key("space")
	if m.State() != Paused || !strings.Contains(ansi.Strip(m.View()), "❚❚ paused") {
		t.Fatalf("after space: state %v", m.State())
	}
	hold := time.After(2500 * time.Millisecond)
	for waiting := true; waiting; {
		select {
		case msg := <-d.msgs:
			if e, ok := msg.(eventMsg); ok && e.ev.Playing && e.ev.Line > 0 {
				t.Fatalf("line %d began while paused", e.ev.Line+1)
			}
			if msg != nil {
				d.run(m.Update(msg))
			}
		case <-hold:
			waiting = false
		}
	}
	d.key("space")
	if m.State() != Playing {
		t.Fatalf("after space again: state %v", m.State())
	}
	d.until("line 2", playing(1))
	if v := ansi.Strip(m.View()); !strings.Contains(v, "caption: Second") || !strings.Contains(v, "This is the second line") {
		t.Fatalf("line 2 on stage:\n%s", v)
	}
	// n goes on at once, r plays the line again.
	d.key("n")
	d.until("line 3 after n", playing(2))
	if !strings.Contains(ansi.Strip(m.View()), "caption: Third") {
		t.Fatalf("line 3 on stage:\n%s", ansi.Strip(m.View()))
	}
	d.key("r")
	d.until("line 3 again after r", playing(2))
	d.until("the end", func(msg tea.Msg) bool { _, ok := msg.(endedMsg); return ok && m.State() == Ended })
	if v := ansi.Strip(m.View()); !strings.Contains(v, "✓ the end") || !strings.Contains(v, "✓ 1  ✓ 2  ▶ 3") {
		t.Fatalf("the end:\n%s", v)
	}

	// w: the performance, every line in order, as one WAV.
	d.key("w")
	msg := d.until("the saved performance", func(msg tea.Msg) bool { _, ok := msg.(renderedMsg); return ok })
	saved := msg.(renderedMsg)
	if saved.err != nil {
		t.Fatal(saved.err)
	}
	data, err := os.ReadFile(saved.path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := wav.ReadHeader(bytes.NewReader(data))
	if err != nil || f.Rate != 22050 || !f.SizeKnown() || int(f.DataBytes) != len(data)-44 {
		t.Fatalf("saved WAV %+v: %v", f, err)
	}
	if secs := float64(f.DataBytes) / 2 / 22050; secs < 5 || secs > 12 {
		t.Errorf("the performance lasts %.1f s", secs)
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "performance saved to") || !strings.Contains(v, saved.path) {
		t.Errorf("the saved path is not on screen:\n%s", v)
	}

	// q on an ended show closes the stage.
	cmd := m.Update(keyPress("q"))
	if cmd == nil {
		t.Fatal("q gave nothing")
	}
	if _, ok := cmd().(ClosedMsg); !ok || m.Active() {
		t.Error("q on an ended show does not close the stage")
	}
}

// A deck whose voice the gateway lacks is refused before anything plays,
// naming the line.
func TestStageRefusesAnUnknownVoice(t *testing.T) {
	t.Parallel()
	cl := localGateway(t)
	path := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(path, []byte("voice = \"flite:nobody\"\n[[line]]\ntext = \"Hi.\"\n"), 0o644)
	c := &common.Common{Client: cl, Styles: common.NewStyles(true, true), Provider: api.DefaultProvider}
	m := New(c)
	m.SetSize(80, 24)
	d := &driver{t: t, m: m, msgs: make(chan tea.Msg, 8)}
	d.run(m.Open(path))
	d.until("the refusal", func(msg tea.Msg) bool { _, ok := msg.(loadedMsg); return ok })
	v := ansi.Strip(m.View())
	if flat := strings.Join(strings.Fields(v), " "); m.State() != Failed || !strings.Contains(flat, `line 1: voice: "flite:nobody" is not a voice of vendor_speech`) {
		t.Errorf("state %v:\n%s", m.State(), v)
	}
}
