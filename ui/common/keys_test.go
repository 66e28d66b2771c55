package common

import (
	"reflect"
	"testing"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
)

// Every binding of every pane has keys and a help line, so the help drawn
// from the bindings never shows an empty entry.
func TestDefaultKeyMapsAreWhole(t *testing.T) {
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		if b, ok := v.Interface().(key.Binding); ok {
			if len(b.Keys()) == 0 || b.Help().Key == "" || b.Help().Desc == "" {
				t.Errorf("%s: keys %q, help %+v", path, b.Keys(), b.Help())
			}
			return
		}
		if v.Kind() != reflect.Struct {
			t.Fatalf("%s: %s in a key map", path, v.Type())
		}
		for i := range v.NumField() {
			walk(path+"."+v.Type().Field(i).Name, v.Field(i))
		}
	}
	walk("KeyMaps", reflect.ValueOf(DefaultKeyMaps()))
}

// The help of each pane comes from the same bindings it matches.
func TestKeyMapsHelpFromTheBindings(t *testing.T) {
	k := DefaultKeyMaps()
	for name, m := range map[string]help.KeyMap{"root": k.Root, "search": k.Search, "pages": k.Pages, "tools": k.Tools, "library": k.Library, "form": k.Form} {
		if len(m.ShortHelp()) == 0 || len(m.FullHelp()) == 0 {
			t.Errorf("%s: no help", name)
		}
	}
	found := false
	for _, col := range k.Tools.FullHelp() {
		for _, b := range col {
			if b.Help().Desc == k.Tools.Tree.ExpandAll.Help().Desc {
				found = true
			}
		}
	}
	if !found {
		t.Error("the Tools help does not list the result tree's bindings")
	}
}

// Common hands out the defaults until given others, and then those.
func TestCommonHoldsTheKeys(t *testing.T) {
	c := &Common{}
	if got := c.Keys().Search.Dictate.Keys(); !reflect.DeepEqual(got, []string{"ctrl+r"}) {
		t.Fatalf("default dictate keys %q", got)
	}
	k := DefaultKeyMaps()
	k.Search.Dictate = key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "dictate"))
	c.SetKeys(k)
	if got := c.Keys().Search.Dictate.Keys(); !reflect.DeepEqual(got, []string{"ctrl+d"}) {
		t.Fatalf("after SetKeys: %q", got)
	}
	if DefaultKeyMaps().Search.Dictate.Keys()[0] != "ctrl+r" {
		t.Fatal("SetKeys changed the defaults")
	}
}
