package apitest

import (
	_ "embed" // the fixtures the gateway tests write
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

// ttsInputs is what unscripted TTS-inputs calls answer: the local
// voice provider's TTS inputs and ranges, written by a test of
// gateway/voice (go test ./gateway/voice -run TestTTSInputsFixture
// -update), never edited by hand.
//
//go:embed ttsinputs.json
var ttsInputs []byte

// DefaultTTSInputs is ttsInputs as the server serves it.
var DefaultTTSInputs = json.RawMessage(ttsInputs)
