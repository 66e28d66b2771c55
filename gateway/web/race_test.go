//go:build race

package web

// raceEnabled: under the race detector, TestPostgresIndexRanksAsSQLite
// compares a sample of its queries (every fifth takes a minute there);
// scripts/test.sh runs it whole without the detector.
const raceEnabled = true
