package apitest

import (
	_ "embed" // the tool-list fixture
	"encoding/json"
)

// toolList is the tool list of unscripted calls: the embedded
// gateway's own list of the spec's five tools, as its tool-list endpoint
// serves it. A gateway test writes the file (go test ./gateway -run
// TestToolListFixture -update); it is never edited by hand.
//
//go:embed toollist.json
var toolList []byte

// DefaultToolList is toolList as the server serves it.
var DefaultToolList = json.RawMessage(toolList)
