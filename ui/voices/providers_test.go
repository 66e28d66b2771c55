//go:build cgo && linux

package voices

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/audio"
	"hark/gateway"
	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/engine"
	"hark/gateway/gatewaytest"
	"hark/gateway/store"
	"hark/gateway/voice"
	"hark/gateway/voice/relay"
	"hark/gateway/voice/relay/relaytest"
	"hark/ui/common"
)

// providersGateway serves a workspace with vendor_speech (the local
// engines) and openai_speech and elevenlabs at the fakes.
func providersGateway(t *testing.T, mutate ...func(*config.Workspace)) (*api.Client, *relaytest.Server) {
	t.Helper()
	oai, xi := relaytest.NewOpenAI(t), relaytest.NewElevenLabs(t)
	db, err := store.OpenDB(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	const key = "hark_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	ws := config.LocalWorkspace(auth.HashKey(key))
	ws.Voice[config.ProviderOpenAI] = config.Voice{Enabled: true, URL: oai.URL, APIKey: oai.Key}
	ws.Voice[config.ProviderElevenLabs] = config.Voice{Enabled: true, URL: xi.URL, APIKey: xi.Key}
	for _, m := range mutate {
		m(&ws)
	}
	local, err := voice.New(voice.Config{Decoders: 1, WarmAfter: voice.WarmOnDemand})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.Close() })
	base := gatewaytest.ServeWorkspace(t, db, ws, gateway.Engines{Voice: func(_, provider string, c config.Voice) (engine.VoiceProvider, error) {
		if c.EngineOf(provider) == config.BackendLocal {
			return local, nil
		}
		return relay.New(relay.Config{Engine: c.EngineOf(provider), URL: c.URL, APIKey: c.APIKey})
	}})
	client, err := api.New(api.Options{BaseURL: base, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	return client, oai
}

// The Voices pane lists the voices of every provider the workspace
// enables, each with its provider shown, and speaks another provider's
// voice through that provider.
func TestVoicesOfEveryEnabledProvider(t *testing.T) {
	t.Parallel()
	client, oai := providersGateway(t)
	out, err := audio.Open(audio.Options{Sink: "null"})
	if err != nil {
		t.Fatal(err)
	}
	c := &common.Common{Client: client, Styles: common.NewStyles(true, true), OutputDir: t.TempDir(),
		Audio: func() (*audio.Output, error) { return out, nil }}
	p := New(c)
	p.SetSize(100, 30)
	drive(t, p, p.Init(), func(m tea.Msg) bool { _, ok := m.(voicesMsg); return ok })
	if p.voicesErr != nil || !p.list.Select("openai_speech/af_bella") || !p.list.Select("elevenlabs/21m00Tcm4TlvDq8ikWAM") {
		t.Fatalf("voice list: %v", p.voicesErr)
	}
	view := ansi.Strip(p.View())
	if !strings.Contains(view, "Rachel  · elevenlabs") || !strings.Contains(view, "vendor_speech + elevenlabs, openai_speech") {
		t.Fatalf("the providers are not shown:\n%s", view)
	}
	p.list.Select("openai_speech/af_bella")
	drive(t, p, p.preview(), func(m tea.Msg) bool { _, ok := m.(ttsDoneMsg); return ok })
	if p.play == nil || p.play.err != nil {
		t.Fatalf("preview: %+v", p.play)
	}
	calls := oai.Calls()
	if c := calls[len(calls)-1]; c.Path != "/v1/audio/speech" || c.JSON["voice"] != "af_bella" {
		t.Fatalf("the preview did not reach the provider: %+v", c)
	}
	// enter on it: the Speak controls take openai_speech's bounds (no
	// pitch control), asked of the gateway.
	cmd := p.update(t, keyMsg("enter"))
	if cmd == nil {
		t.Fatal("choosing another provider's voice asked for no TTS inputs")
	}
	p.Update(cmd())
	if p.ranges.Pitch.Min != 0 || p.ranges.Pitch.Max != 0 || !p.ranges.Pitch.Known || p.ranges.SpeechRate.Max != 100 {
		t.Fatalf("Speak ranges after choosing af_bella: %+v", p.ranges)
	}
	if p.c.Voice != "openai_speech/af_bella" {
		t.Fatalf("read aloud's voice %q", p.c.Voice)
	}
	if got := voiceTargetOf(p, "elevenlabs/21m00Tcm4TlvDq8ikWAM"); got != "elevenlabs 21m00Tcm4TlvDq8ikWAM" {
		t.Fatalf("target %q", got)
	}
	if got := voiceTargetOf(p, "espeak:en-us+f3"); got != "vendor_speech espeak:en-us+f3" {
		t.Fatalf("target %q", got)
	}
}

func voiceTargetOf(p *Pane, value string) string {
	prov, code := voiceTarget(p.provider, value)
	return prov + " " + code
}

// A blind A/B in the pane: B plays the marked voices as A and B with no
// name shown, the letter picks, the names and the session's tally show.
func TestBlindABInThePane(t *testing.T) {
	t.Parallel()
	client, _ := providersGateway(t)
	msgs := make(chan tea.Msg, 256)
	dir := t.TempDir()
	c := &common.Common{Client: client, Styles: common.NewStyles(true, true), OutputDir: t.TempDir(),
		Send:  func(m tea.Msg) { msgs <- m },
		Audio: func() (*audio.Output, error) { return audio.Open(audio.Options{Sink: audio.SinkFile, Dir: dir}) }}
	p := New(c)
	p.SetSize(110, 30)
	drive(t, p, p.Init(), func(m tea.Msg) bool { _, ok := m.(voicesMsg); return ok })
	voices := []string{"openai_speech/af_bella", "elevenlabs/21m00Tcm4TlvDq8ikWAM"}
	p.list.Select(voices[0])
	press(p, t, "space", "B")
	if v := ansi.Strip(p.View()); !strings.Contains(v, "two marked voices or more") {
		t.Fatalf("B with one voice marked:\n%s", v)
	}
	p.list.Select(voices[1])
	press(p, t, "space")
	_, cmd := p.Update(keyMsg("B"))
	done := make(chan tea.Msg, 8)
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c != nil {
			go func() { done <- c() }()
		}
	}
	run(cmd)
	for finished := false; !finished; {
		select {
		case m := <-msgs:
			p.Update(m)
		case m := <-done:
			switch m := m.(type) {
			case tea.BatchMsg:
				for _, c := range m {
					run(c)
				}
			case auditionMsg:
				for len(msgs) > 0 {
					p.Update(<-msgs)
				}
				p.Update(m)
				finished = m.done
			}
		case <-time.After(60 * time.Second):
			t.Fatal("the blind round timed out")
		}
	}
	v := ansi.Strip(p.View())
	_, panel, _ := strings.Cut(v, "Audition")
	if strings.Contains(panel, "af_bella") || strings.Contains(panel, "21m00") || !strings.Contains(panel, "Which did you prefer? A–B") {
		t.Fatalf("before the pick:\n%s", v)
	}
	press(p, t, "Z") // not a take's letter: the round still waits
	if !p.awaitingPick() {
		t.Fatal("Z was taken as a pick")
	}
	press(p, t, "B")
	v = ansi.Strip(p.View())
	pickedVoice := p.aud.takes[1].voice
	if !strings.Contains(v, "B (your pick)  "+pickedVoice) || !strings.Contains(v, "A  "+p.aud.takes[0].voice) ||
		!strings.Contains(p.aud.note, pickedVoice+" 1 of 1 · "+p.aud.takes[0].voice+" 0 of 1") {
		t.Fatalf("after the pick (%s):\n%s", p.aud.note, v)
	}
}

// A provider whose voices cannot be listed (here its key is refused) is
// named in the status bar; the others' voices are listed all the same.
func TestAProviderThatCannotListIsNamed(t *testing.T) {
	t.Parallel()
	client, _ := providersGateway(t, func(ws *config.Workspace) {
		v := ws.Voice[config.ProviderElevenLabs]
		v.APIKey = "xi-wrong"
		ws.Voice[config.ProviderElevenLabs] = v
	})
	p := New(&common.Common{Client: client, Styles: common.NewStyles(true, true), OutputDir: t.TempDir()})
	p.SetSize(100, 30)
	drive(t, p, p.Init(), func(m tea.Msg) bool { _, ok := m.(voicesMsg); return ok })
	v := ansi.Strip(p.View())
	if p.voicesErr != nil || !p.list.Select("openai_speech/af_bella") || !strings.Contains(v, "vendor_speech + openai_speech · not listed: elevenlabs") {
		t.Fatalf("%v\n%s", p.voicesErr, v)
	}
}
