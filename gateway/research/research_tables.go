package research

import (
	"slices"

	"hark/gateway/research/doc"
)

// rowAsked reports whether sentence s may answer a when it is a data
// table's row (doc/table.go): only when the question names what the
// row is about, its first cell ("What is the range of smallint?" and
// the row "smallint — … Range: -32768 to +32767"). A table's rows are
// many and alike; quoted for any question their words meet, a signals
// table or a version history would crowd out the prose that answers.
// Any other sentence may.
func rowAsked(a ask, d *rdoc, s *doc.Sentence) bool {
	blk := &d.Blocks[s.Block]
	if blk.Kind != doc.TableRow {
		return true
	}
	for _, t := range blk.Key {
		if slices.Contains(a.terms, t) {
			return true
		}
	}
	return false
}
