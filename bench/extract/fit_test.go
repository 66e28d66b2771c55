package main

import (
	"os"
	"path/filepath"
	"testing"

	"hark/gateway/extract"
)

// TestWriteWeightsFile: what -fit -write writes, the extractor reads
// back as the same weights.
func TestWriteWeightsFile(t *testing.T) {
	w := extract.DefaultWeights
	w.ClassName, w.CaptionLevels = 17, 2
	file := filepath.Join(t.TempDir(), "weights.json")
	if err := writeWeightsFile(file, "a test", w); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	got, err := extract.ParseWeights(b)
	if err != nil || got != w {
		t.Fatalf("read back %+v, %v; wrote %+v", got, err, w)
	}
}
