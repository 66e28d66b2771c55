package voice

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"time"

	"hark/api"
)

// Engines behind the voice codes.
const (
	engineEspeak = "espeak"
	engineFlite  = "flite"
)

// Scenes of the voice list; docs/voice.md explains them.
const (
	SceneGeneral   = "general"   // everyday speech: espeak-ng languages, plain variants, flite diphone voices
	SceneNarration = "narration" // flite's statistical voices, smoother over long passages
	SceneCharacter = "character" // espeak-ng novelty variants: robots, whisper, croak...
)

// voiceInfo is a voice the provider can speak with.
type voiceInfo struct {
	api.Voice
	engine  string
	name    string // engine's own voice name: espeak "en-us+f3", flite "slt"
	rate    int    // native sample rate, Hz
	noPitch bool   // the engine ignores pitch for this voice
}

// variantListed says which espeak-ng languages get their variants listed as
// voices of their own: the English ones hark's demos use. Any other
// language+variant pair is still accepted as a voice_code.
var variantListed = map[string]bool{"en-us": true, "en-gb": true}

// characterVariants are espeak-ng variants that are effects rather than
// ordinary speakers.
var characterVariants = map[string]bool{
	"whisper": true, "whisperf": true, "croak": true, "Demonic": true, "announcer": true,
	"UniRobot": true, "anikaRobot": true, "Tweaky": true, "Storm": true, "AnxiousAndy": true,
	"fast": true, "grandpa": true, "grandma": true, "kaukovalta": true,
}

// fliteVoices describes flite's stock voices. awb_time is left out: it is a
// limited-domain talking clock that cannot say arbitrary text.
var fliteVoices = map[string]struct {
	name, lang, scene string
	rate              int
	noPitch           bool
}{
	"slt":   {"SLT (US English, female)", "en-us", SceneNarration, 16000, false},
	"rms":   {"RMS (US English, male)", "en-us", SceneNarration, 16000, true},
	"awb":   {"AWB (Scottish English, male)", "en-gb-scotland", SceneNarration, 16000, false},
	"kal16": {"Kal16 (US English, male, diphone)", "en-us", SceneGeneral, 16000, false},
	"kal":   {"Kal (US English, male, 8 kHz diphone)", "en-us", SceneGeneral, 8000, false},
}

const espeakRate = 22050

type voiceCatalog struct {
	list     []api.Voice
	byCode   map[string]*voiceInfo
	espeakLg map[string]string // language -> display name
	variants map[string]string // variant file id -> display name
}

func runList(path string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v %s", path, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// parseEspeakVoices reads the table of `espeak-ng --voices[=variant]`:
// Pty Language Age/Gender VoiceName File Other-languages. It returns
// (language or variant id, display name) pairs.
func parseEspeakVoices(out []byte, variants bool) [][2]string {
	var rows [][2]string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 || f[0] == "Pty" {
			continue
		}
		lang, name, file := f[1], strings.ReplaceAll(f[3], "_", " "), f[4]
		if variants {
			// A variant file with a space in its name ("!v/Mr serious")
			// splits the columns; such a file cannot be named on the
			// command line anyway, so it is skipped.
			if !strings.HasPrefix(file, "!v/") || len(f) != 5 {
				continue
			}
			rows = append(rows, [2]string{strings.TrimPrefix(file, "!v/"), name})
			continue
		}
		if strings.HasPrefix(lang, "mb-") || strings.HasPrefix(file, "mb/") {
			continue // MBROLA voices need databases that are not installed
		}
		rows = append(rows, [2]string{lang, name})
	}
	return rows
}

func loadCatalog(espeak, flite string) (*voiceCatalog, error) {
	c := &voiceCatalog{
		byCode:   map[string]*voiceInfo{},
		espeakLg: map[string]string{},
		variants: map[string]string{},
	}
	var errs []string
	if espeak != "" {
		langs, err := runList(espeak, "--voices")
		if err == nil {
			var vars []byte
			vars, err = runList(espeak, "--voices=variant")
			for _, r := range parseEspeakVoices(vars, true) {
				c.variants[r[0]] = r[1]
			}
		}
		if err != nil {
			errs = append(errs, err.Error())
		}
		for _, r := range parseEspeakVoices(langs, false) {
			if _, dup := c.espeakLg[r[0]]; dup {
				continue
			}
			c.espeakLg[r[0]] = r[1]
			c.add(&voiceInfo{Voice: api.Voice{Name: r[1], Value: "espeak:" + r[0], Language: r[0], Scene: SceneGeneral},
				engine: engineEspeak, name: r[0], rate: espeakRate})
			if !variantListed[r[0]] {
				continue
			}
			ids := make([]string, 0, len(c.variants))
			for id := range c.variants {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			for _, id := range ids {
				scene := SceneGeneral
				if characterVariants[id] || strings.HasPrefix(id, "klatt") || strings.HasPrefix(id, "robosoft") {
					scene = SceneCharacter
				}
				c.add(&voiceInfo{
					Voice:  api.Voice{Name: r[1] + ", " + c.variants[id], Value: "espeak:" + r[0] + "+" + id, Language: r[0], Scene: scene},
					engine: engineEspeak, name: r[0] + "+" + id, rate: espeakRate})
			}
		}
	}
	if flite != "" {
		out, err := runList(flite, "-lv")
		if err != nil {
			errs = append(errs, err.Error())
		}
		s := strings.TrimSpace(string(out))
		s = strings.TrimPrefix(s, "Voices available:")
		for _, id := range strings.Fields(s) {
			fv, ok := fliteVoices[id]
			if !ok {
				continue // unknown voices have unknown rates and domains
			}
			c.add(&voiceInfo{Voice: api.Voice{Name: fv.name, Value: "flite:" + id, Language: fv.lang, Scene: fv.scene},
				engine: engineFlite, name: id, rate: fv.rate, noPitch: fv.noPitch})
		}
	}
	if len(c.list) == 0 {
		return nil, fmt.Errorf("no voices: neither espeak-ng nor flite is usable (%s)", strings.Join(errs, "; "))
	}
	return c, nil
}

func (c *voiceCatalog) add(v *voiceInfo) {
	c.list = append(c.list, v.Voice)
	c.byCode[v.Value] = v
}

// lookup finds a voice by code. Besides the listed voices it accepts any
// espeak-ng language with any variant, "espeak:<lang>+<variant>".
func (c *voiceCatalog) lookup(code string) (*voiceInfo, bool) {
	if v, ok := c.byCode[code]; ok {
		return v, true
	}
	rest, ok := strings.CutPrefix(code, "espeak:")
	if !ok {
		return nil, false
	}
	lang, variant, ok := strings.Cut(rest, "+")
	if !ok {
		return nil, false
	}
	name, okL := c.espeakLg[lang]
	vname, okV := c.variants[variant]
	if !okL || !okV {
		return nil, false
	}
	return &voiceInfo{Voice: api.Voice{Name: name + ", " + vname, Value: code, Language: lang, Scene: SceneGeneral},
		engine: engineEspeak, name: rest, rate: espeakRate}, true
}
