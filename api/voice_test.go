package api

import "testing"

func TestDefaultVoice(t *testing.T) {
	vs := []Voice{{Value: "af", Language: "af"}, {Value: "gb", Language: "en-gb"}, {Value: "us", Language: "en-us"},
		{Value: "us-smooth", Language: "en-us", Scene: SceneNarration}, {Value: "fr", Language: "fr-fr"}}
	for loc, want := range map[string]string{"en_US.UTF-8": "us-smooth", "en_GB.UTF-8": "gb", "C": "us-smooth", "": "us-smooth",
		"fr_FR": "fr", "de_DE": "af", "en_AU": "us-smooth"} {
		if got := DefaultVoice(vs, loc).Value; got != want {
			t.Errorf("%q: %s, want %s", loc, got, want)
		}
	}
	if got := DefaultVoice(vs[:3], "en_US"); got.Value != "us" {
		t.Errorf("no narration voice: %s, want the first en-us", got.Value)
	}
	if got := DefaultVoice(nil, "en_US"); got.Value != "" {
		t.Errorf("empty list: %+v", got)
	}
}
