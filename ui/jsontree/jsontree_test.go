package jsontree

import (
	"strings"
	"testing"

	"hark/ui/common"
	"hark/ui/internal/uitest"
)

func TestOrderFoldAndNavigate(t *testing.T) {
	root, err := Parse([]byte(`{"z": 1, "a": {"b": [true, null, "s"]}, "m": "x"}`))
	if err != nil {
		t.Fatal(err)
	}
	tr := New(root, common.NewStyles(true, true))
	tr.SetSize(60, 10)
	v := uitest.Plain(tr.View())
	if strings.Index(v, "z: 1") > strings.Index(v, "a: {") || strings.Index(v, "a: {") > strings.Index(v, `m: "x"`) {
		t.Errorf("keys reordered:\n%s", v)
	}
	// depth-2 array starts folded
	if !strings.Contains(v, "b: [ 3 items ]") {
		t.Errorf("deep array not folded:\n%s", v)
	}
	tr.Update(uitest.Press("E"))
	if !strings.Contains(uitest.Plain(tr.View()), "[2]: \"s\"") {
		t.Errorf("E did not unfold:\n%s", uitest.Plain(tr.View()))
	}
	tr.Update(uitest.Press("j"))
	tr.Update(uitest.Press("j"))
	tr.Update(uitest.Press("left")) // fold "a"
	if strings.Contains(uitest.Plain(tr.View()), "b: [") {
		t.Errorf("left did not fold:\n%s", uitest.Plain(tr.View()))
	}
	tr.Update(uitest.Press("left")) // to parent
	if tr.Cursor() != 0 {
		t.Errorf("left on folded node should go to parent, cursor %d", tr.Cursor())
	}
	if _, err := Parse([]byte(`{"a":`)); err == nil {
		t.Error("broken JSON accepted")
	}
}
