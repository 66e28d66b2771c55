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
	engineEspeak   = "espeak"
	engineFlite    = "flite"
	engineFestival = "festival"
)

// Scenes of the voice list; docs/voice.md explains them.
const (
	SceneGeneral   = "general"   // everyday speech: espeak-ng languages, plain variants, flite and festival diphone voices
	SceneNarration = "narration" // flite's and festival's statistical voices, smoother over long passages
	SceneCharacter = "character" // espeak-ng novelty variants: robots, whisper, croak...
)

// voiceInfo is a voice the provider can speak with.
type voiceInfo struct {
	api.Voice
	engine  string
	name    string // engine's own voice name: espeak "en-us+f3", flite "slt", festival "kal_diphone"
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
	name, lang, scene, gender string
	rate                      int
	noPitch                   bool
}{
	"slt":   {"SLT (US English, female)", "en-us", SceneNarration, "female", 16000, false},
	"rms":   {"RMS (US English, male)", "en-us", SceneNarration, "male", 16000, true},
	"awb":   {"AWB (Scottish English, male)", "en-gb-scotland", SceneNarration, "male", 16000, false},
	"kal16": {"Kal16 (US English, male, diphone)", "en-us", SceneGeneral, "male", 16000, false},
	"kal":   {"Kal (US English, male, 8 kHz diphone)", "en-us", SceneGeneral, "male", 8000, false},
}

const espeakRate = 22050

type voiceCatalog struct {
	list     []api.Voice
	byCode   map[string]*voiceInfo
	espeakLg map[string]espeakRow // language -> its row
	variants map[string]espeakRow // variant file id -> its row
}

// espeakRow is a row of espeak-ng's voice table.
type espeakRow struct{ id, name, gender string }

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
// the language or variant id, display name and gender of each.
func parseEspeakVoices(out []byte, variants bool) []espeakRow {
	var rows []espeakRow
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 || f[0] == "Pty" {
			continue
		}
		lang, name, file := f[1], strings.ReplaceAll(f[3], "_", " "), f[4]
		gender := map[string]string{"M": "male", "F": "female"}[f[2][strings.LastIndexByte(f[2], '/')+1:]]
		if variants {
			// A variant file with a space in its name ("!v/Mr serious")
			// splits the columns; such a file cannot be named on the
			// command line anyway, so it is skipped.
			if !strings.HasPrefix(file, "!v/") || len(f) != 5 {
				continue
			}
			rows = append(rows, espeakRow{strings.TrimPrefix(file, "!v/"), name, gender})
			continue
		}
		if strings.HasPrefix(lang, "mb-") || strings.HasPrefix(file, "mb/") {
			continue // MBROLA voices need databases that are not installed
		}
		rows = append(rows, espeakRow{lang, name, gender})
	}
	return rows
}

// loadCatalog lists the voices of espeak-ng and flite; festival's are
// listed apart (festivalListing), as they take a festival start.
func loadCatalog(espeak, flite string) (*voiceCatalog, error) {
	c := &voiceCatalog{
		byCode:   map[string]*voiceInfo{},
		espeakLg: map[string]espeakRow{},
		variants: map[string]espeakRow{},
	}
	var errs []string
	if espeak != "" {
		langs, err := runList(espeak, "--voices")
		if err == nil {
			var vars []byte
			vars, err = runList(espeak, "--voices=variant")
			for _, r := range parseEspeakVoices(vars, true) {
				c.variants[r.id] = r
			}
		}
		if err != nil {
			errs = append(errs, err.Error())
		}
		for _, r := range parseEspeakVoices(langs, false) {
			if _, dup := c.espeakLg[r.id]; dup {
				continue
			}
			c.espeakLg[r.id] = r
			c.add(&voiceInfo{Voice: api.Voice{Name: r.name, Value: "espeak:" + r.id, Language: r.id, Scene: SceneGeneral, Gender: r.gender},
				engine: engineEspeak, name: r.id, rate: espeakRate})
			if !variantListed[r.id] {
				continue
			}
			ids := make([]string, 0, len(c.variants))
			for id := range c.variants {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			for _, id := range ids {
				c.add(espeakVariant(r, c.variants[id]))
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
			c.add(&voiceInfo{Voice: api.Voice{Name: fv.name, Value: "flite:" + id, Language: fv.lang, Scene: fv.scene, Gender: fv.gender},
				engine: engineFlite, name: id, rate: fv.rate, noPitch: fv.noPitch})
		}
	}
	if len(c.list) == 0 && (espeak != "" || flite != "") {
		return nil, fmt.Errorf("no voices: neither espeak-ng nor flite is usable (%s)", strings.Join(errs, "; "))
	}
	return c, nil
}

// espeakVariant is an espeak-ng language spoken with a variant: the
// variant's gender, and the character scene for effects.
func espeakVariant(lang, variant espeakRow) *voiceInfo {
	scene := SceneGeneral
	if characterVariants[variant.id] || strings.HasPrefix(variant.id, "klatt") || strings.HasPrefix(variant.id, "robosoft") {
		scene = SceneCharacter
	}
	return &voiceInfo{
		Voice:  api.Voice{Name: lang.name + ", " + variant.name, Value: "espeak:" + lang.id + "+" + variant.id, Language: lang.id, Scene: scene, Gender: variant.gender},
		engine: engineEspeak, name: lang.id + "+" + variant.id, rate: espeakRate}
}

// festivalLanguages maps festival's language names to language codes;
// festivalDialects its English dialects to regions.
var (
	festivalLanguages = map[string]string{
		"english": "en", "spanish": "es", "castillian_spanish": "es", "czech": "cs", "finnish": "fi",
		"italian": "it", "russian": "ru", "catalan": "ca", "hindi": "hi", "marathi": "mr",
		"telugu": "te", "welsh": "cy", "german": "de", "french": "fr", "polish": "pl",
	}
	festivalDialects = map[string]string{"american": "us", "british": "gb", "scottish": "gb-scotland"}
)

// festivalVoiceInfo names a festival voice from what festival says of
// it: "cmu_us_slt_arctic_hts", English, American, female, HTS becomes
// "SLT (US English, female, HTS)" with language en-us.
func festivalVoiceInfo(fv festivalVoice) *voiceInfo {
	lang := festivalLanguages[fv.language]
	if lang == "" {
		lang = fv.language
	}
	if d := festivalDialects[fv.dialect]; d != "" && lang == "en" {
		lang += "-" + d
	}
	var speaker []string
	for _, part := range strings.Split(fv.name, "_") {
		switch part {
		case "cmu", "cstr", "nitech", "us", "uk", "arctic", "hts", "diphone", "clunits", "cg", "ldom", "mbrola":
		default:
			speaker = append(speaker, strings.ToUpper(part))
		}
	}
	if len(speaker) == 0 {
		speaker = []string{fv.name}
	}
	what := map[string]string{"en-us": "US English", "en-gb": "British English", "en-gb-scotland": "Scottish English"}[lang]
	if what == "" {
		what = fv.language
	}
	kind, scene := "diphone", SceneGeneral
	switch fv.method {
	case "HTS":
		kind, scene = "HTS", SceneNarration
	case "ClusterGen", "clunits":
		kind, scene = fv.method, SceneNarration
	case "UniSyn":
	default:
		kind = fv.method
	}
	gender := fv.gender
	if gender != "male" && gender != "female" {
		gender = ""
	}
	desc := []string{what}
	if gender != "" {
		desc = append(desc, gender)
	}
	desc = append(desc, kind)
	return &voiceInfo{
		Voice: api.Voice{Name: strings.Join(speaker, " ") + " (" + strings.Join(desc, ", ") + ")",
			Value: "festival:" + fv.name, Language: lang, Scene: scene, Gender: gender},
		engine: engineFestival, name: fv.name, rate: fv.rate,
		noPitch: fv.method == "HTS" || !fv.pitchLR,
	}
}

func (c *voiceCatalog) add(v *voiceInfo) {
	v.SampleRate = v.rate
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
	l, okL := c.espeakLg[lang]
	v, okV := c.variants[variant]
	if !okL || !okV {
		return nil, false
	}
	info := espeakVariant(l, v)
	info.SampleRate = info.rate
	return info, true
}
