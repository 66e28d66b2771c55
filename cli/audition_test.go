package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hark/audio/wav"
)

// readWAV reads a WAV file's header and size.
func readWAV(t *testing.T, path string) (wav.Format, int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := wav.ReadHeader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	fi, _ := f.Stat()
	return h, fi.Size()
}

// hark audition -o writes each take with its true RIFF and data sizes, so
// players and soxi read its real length, as hark tts -o does.
func TestAuditionFilesHaveTrueSizes(t *testing.T) {
	t.Parallel()
	env := withEnv("HARK_BASE_URL", "", "HARK_API_KEY", "")
	if testing.Short() {
		t.Skip("runs flite")
	}
	dir := filepath.Join(t.TempDir(), "takes")
	code, out, errs := harkDataWith(t, env, nil, t.TempDir(), "", "--json", "audition", "--voices", "flite:slt,flite:kal", "-o", dir, "x")
	var m auditionManifest
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil || len(m.Voices) != 2 {
		t.Fatalf("audition -o: %d\n%s\n%s", code, out, errs)
	}
	for _, v := range m.Voices {
		h, size := readWAV(t, filepath.Join(dir, v.File))
		if !h.SizeKnown() || int64(h.DataBytes)+wav.HeaderSize != size {
			t.Errorf("%s: data size %d in a file of %d bytes; want the true size", v.File, h.DataBytes, size)
		}
		if secs := float64(h.DataBytes) / float64(h.Rate*h.FrameBytes()); secs > 10 || secs != v.Duration {
			t.Errorf("%s: %.3f s by its header, %.3f s in the manifest", v.File, secs, v.Duration)
		}
	}
}

// With no sound device, an audition and a reading are each one file in
// the played cache (not one per take or sentence), and stderr says where;
// the reading's lines still come in order.
func TestPlayedToTheFileSinkIsOneFile(t *testing.T) {
	t.Parallel()
	env := withEnv("HARK_BASE_URL", "", "HARK_API_KEY", "")
	if testing.Short() {
		t.Skip("runs flite")
	}
	data := t.TempDir()
	played := filepath.Join(data, "played")
	code, out, errs := harkDataWith(t, env, nil, data, "", "--audio-sink", "file", "audition", "--voices", "flite:slt,flite:kal", "One two.")
	files, _ := filepath.Glob(filepath.Join(played, "hark-*.wav"))
	if code != 0 || len(files) != 1 || !strings.Contains(errs, "The audition was saved to "+files[0]) {
		t.Fatalf("audition: %d %v\n%s\n%s", code, files, out, errs)
	}
	if !strings.Contains(out, "1/2 flite:slt") || !strings.Contains(out, "2/2 flite:kal") {
		t.Errorf("audition lines:\n%s", out)
	}
	doc := filepath.Join(t.TempDir(), "doc.md")
	var md strings.Builder
	for i := range 25 {
		md.WriteString("Sentence number " + string(rune('a'+i)) + " is here. ")
	}
	os.WriteFile(doc, []byte(md.String()), 0o644)
	code, out, errs = harkDataWith(t, env, nil, data, "", "--audio-sink", "file", "--voice", "flite:slt", "read", doc)
	all, _ := filepath.Glob(filepath.Join(played, "hark-*.wav"))
	if code != 0 || len(all) != 2 || strings.Count(out, "\n") != 25 {
		t.Fatalf("read: %d, %d files\n%s\n%s", code, len(all), out, errs)
	}
	if !strings.HasPrefix(out, "Sentence number a is here.\nSentence number b") || !strings.Contains(errs, "the reading was saved to "+played) {
		t.Errorf("read:\n%s\n%s", out, errs)
	}
	var reading string
	for _, f := range all {
		if f != files[0] {
			reading = f
		}
	}
	h, size := readWAV(t, reading)
	if !h.SizeKnown() || int64(h.DataBytes)+wav.HeaderSize != size || float64(h.DataBytes)/float64(h.Rate*2) < 20 {
		t.Errorf("the reading's file: %+v, %d bytes; want one WAV of the whole reading", h, size)
	}
}
