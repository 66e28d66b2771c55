package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hark/gateway/voice/relay/relaytest"
)

// providersEnv is a hook whose gateway.toml gives the embedded gateway
// openai_speech and elevenlabs at the fakes.
func providersEnv(t *testing.T) (func(*hooks), *relaytest.Server, *relaytest.Server) {
	t.Helper()
	oai, xi := relaytest.NewOpenAI(t), relaytest.NewElevenLabs(t)
	cfgHome := t.TempDir()
	os.MkdirAll(filepath.Join(cfgHome, "hark"), 0o700)
	toml := "[voice.openai_speech]\nenabled = true\nurl = \"" + oai.URL + "\"\napi_key = \"" + oai.Key + "\"\n\n" +
		"[voice.elevenlabs]\nenabled = true\nurl = \"" + xi.URL + "\"\napi_key = \"" + xi.Key + "\"\n"
	if err := os.WriteFile(filepath.Join(cfgHome, "hark", "gateway.toml"), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	return withEnv("HARK_BASE_URL", "", "HARK_API_KEY", "", "XDG_CONFIG_HOME", cfgHome), oai, xi
}

// noVendorKey fails the test when a vendor key shows in any of texts.
func noVendorKey(t *testing.T, keys []string, texts ...string) {
	t.Helper()
	for _, k := range keys {
		for _, s := range texts {
			if strings.Contains(s, k) || strings.Contains(s, k[len(k)-6:]) {
				t.Fatalf("a vendor key shows: %s", s)
			}
		}
	}
}

func TestVoicesListsEveryEnabledProvider(t *testing.T) {
	t.Parallel()
	env, oai, xi := providersEnv(t)
	data := t.TempDir()
	code, out, errs := harkDataWith(t, env, nil, data, "", "voices", "--providers")
	if code != 0 || !strings.Contains(out, "openai_speech  openai") || !strings.Contains(out, "elevenlabs") || strings.Contains(out, "false") {
		t.Fatalf("voices --providers: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = harkDataWith(t, env, nil, data, "", "voices", "--all")
	rows := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 3 {
			rows[strings.Join(f[:3], " ")] = true
		}
	}
	for _, want := range []string{"openai_speech af_bella Bella", "elevenlabs 21m00Tcm4TlvDq8ikWAM Rachel", "vendor_speech flite:slt SLT"} {
		if code != 0 || !rows[want] {
			t.Fatalf("voices --all lacks %q: %d\n%s\n%s", want, code, out, errs)
		}
	}
	// hark config shows them, keys masked to their last four.
	code, cfg, errs := harkDataWith(t, env, nil, data, "", "config")
	if code != 0 || !strings.Contains(cfg, "voice.openai_speech.api_key") || !strings.Contains(cfg, "****"+oai.Key[len(oai.Key)-4:]) ||
		!strings.Contains(cfg, "voice.elevenlabs.url") {
		t.Fatalf("config: %d\n%s\n%s", code, cfg, errs)
	}
	log, _ := os.ReadFile(filepath.Join(data, "hark.log"))
	noVendorKey(t, []string{oai.Key, xi.Key}, out, errs, string(log), cfg)
}

// An audition across three providers written as a sample sheet: each
// take's figures, the round trip through pocketsphinx, sheet.md's table.
func TestAuditionAcrossProvidersWritesASampleSheet(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs flite and pocketsphinx")
	}
	env, oai, xi := providersEnv(t)
	data := t.TempDir()
	dir := filepath.Join(t.TempDir(), "sheet")
	code, out, errs := harkDataWith(t, env, nil, data, "", "--json", "audition",
		"--voices", "flite:rms,openai_speech/af_bella,elevenlabs/21m00Tcm4TlvDq8ikWAM", "-o", dir, "Hello world.")
	var m auditionManifest
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil || len(m.Voices) != 3 {
		t.Fatalf("audition: %d\n%s\n%s", code, out, errs)
	}
	for i, want := range []string{"vendor_speech", "openai_speech", "elevenlabs"} {
		v := m.Voices[i]
		if v.Provider != want || v.Credits < 1 || v.RTF <= 0 || v.FirstAudio <= 0 || v.Duration <= 0 || v.WER == nil {
			t.Fatalf("take %d: %+v", i, v)
		}
		if _, err := os.Stat(filepath.Join(dir, v.File)); err != nil {
			t.Fatal(err)
		}
	}
	// flite's rms says it back word for word (docs/voice.md); the fakes'
	// tone is heard as no words at all.
	if *m.Voices[0].WER != 0 || *m.Voices[1].WER < 0.99 {
		t.Errorf("round trips: %q (%.2f), %q (%.2f)", m.Voices[0].Heard, *m.Voices[0].WER, m.Voices[1].Heard, *m.Voices[1].WER)
	}
	sheet, err := os.ReadFile(filepath.Join(dir, "sheet.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"> Hello world.", "| voice | first audio | duration | RTF | credits | WER | heard | name | file |",
		"| vendor_speech/flite:rms |", "| 0.00 | \"hello world\" |", "[02-openai_speech-af_bella.wav](02-openai_speech-af_bella.wav)", "[01-flite_rms.wav](01-flite_rms.wav)", "| Rachel |"} {
		if !strings.Contains(string(sheet), want) {
			t.Errorf("sheet.md lacks %q:\n%s", want, sheet)
		}
	}
	log, _ := os.ReadFile(filepath.Join(data, "hark.log"))
	manifest, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
	noVendorKey(t, []string{oai.Key, xi.Key}, out, errs, string(log), string(sheet), string(manifest))
}

// A blind A/B: the takes play as A and B, no name shown until the pick,
// then the names, and the tally kept across rounds.
func TestBlindAuditionHidesNamesUntilThePick(t *testing.T) {
	t.Parallel()
	env, _, _ := providersEnv(t)
	data := t.TempDir()
	args := []string{"--audio-sink", "file", "audition", "--blind", "--stt-provider", "none",
		"--voices", "openai_speech/af_bella,elevenlabs/21m00Tcm4TlvDq8ikWAM", "Pick one of us."}
	code, out, errs := harkDataWith(t, env, nil, data, "x\nA\n", args...)
	if code != 0 {
		t.Fatalf("blind: %d\n%s\n%s", code, out, errs)
	}
	before, after, ok := strings.Cut(out, "Revealed:")
	if !ok || strings.Contains(before, "af_bella") || strings.Contains(before, "Rachel") || strings.Contains(before, "21m00") ||
		!strings.Contains(before, "1/2 A") || !strings.Contains(before, "2/2 B") || !strings.Contains(before, `"x" is not one of them`) {
		t.Fatalf("before the reveal:\n%s", before)
	}
	if !strings.Contains(after, "A  ") || !strings.Contains(after, "← your pick") || !strings.Contains(after, "af_bella") || !strings.Contains(after, "1 of 1") || !strings.Contains(after, "0 of 1") {
		t.Fatalf("after the reveal:\n%s", after)
	}
	code, out, errs = harkDataWith(t, env, nil, data, "=\n", args...)
	if code != 0 || !strings.Contains(out, "1 of 2") || !strings.Contains(out, "0 of 2") {
		t.Fatalf("second round: %d\n%s\n%s", code, out, errs)
	}
	var tally []tallyRow
	b, _ := os.ReadFile(filepath.Join(data, tallyFile))
	if json.Unmarshal(b, &tally) != nil || len(tally) != 2 || tally[0].Rounds != 2 {
		t.Fatalf("tally file: %s", b)
	}
	code, _, errs = harkDataWith(t, env, nil, data, "", "audition", "--blind", "--voices", "openai_speech/af_bella", "x")
	if code == 0 || !strings.Contains(errs, "at least two voices") {
		t.Fatalf("blind with one voice: %d %s", code, errs)
	}
}
