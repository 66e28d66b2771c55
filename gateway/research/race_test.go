//go:build race

package research

// raceEnabled: under the race detector TestResearchQuestionSet asks a
// sample of the set (each report costs about twenty times as much there)
// and leaves the floors to its run without the detector, which
// scripts/test.sh makes.
const raceEnabled = true
