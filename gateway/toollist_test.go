package gateway

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"hark/api"
)

var update = flag.Bool("update", false, "rewrite the tool-list fixture the client tests read (api/apitest/toollist.json)")

// toolListFixture is where the client's tests find a gateway's tool list:
// api/apitest serves it, ui/internal/uitest draws forms from it. It is
// this registry's list, written here, never kept by hand.
var toolListFixture = filepath.Join("..", "api", "apitest", "toollist.json")

// TestToolListFixture checks that the fixture is the tool list this
// gateway serves (every tool available); go test ./gateway -run
// TestToolListFixture -update rewrites it after a change to the registry.
func TestToolListFixture(t *testing.T) {
	list := ToolList{Service: api.SearchService}
	for _, tl := range newRegistry() {
		list.Tools = append(list.Tools, tl.entry(true, false))
	}
	got, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(toolListFixture, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(toolListFixture)
	if err != nil {
		t.Fatalf("%v (go test ./gateway -run TestToolListFixture -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not the registry's tool list: go test ./gateway -run TestToolListFixture -update rewrites it", toolListFixture)
	}
	// The client reads back every rule the gateway enforces.
	tools, err := api.DecodeToolList(got)
	if err != nil {
		t.Fatal(err)
	}
	reg := newRegistry()
	for i, tl := range tools {
		for j, f := range tl.Inputs {
			w := reg[i].fields[j]
			if f.Name != w.Name || f.Type != w.Type || f.Required != w.Required || f.MaxLength != w.MaxLength ||
				f.MaxItems != w.MaxItems || f.Separator != w.Separator || f.Format != w.Format || f.ItemFormat != w.ItemFormat ||
				!sameBound(f.Min, w.Min) || !sameBound(f.Max, w.Max) || len(f.Enum) != len(w.Enum) {
				t.Errorf("%s.%s reads back as %+v, served %+v", tl.Slug, w.Name, f, w)
			}
		}
	}
}

func sameBound(a, b *float64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
