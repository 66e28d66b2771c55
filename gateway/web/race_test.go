//go:build race

package web

// raceEnabled: TestPostgresIndexRanksAsSQLite runs without the race
// detector only (scripts/test.sh runs it so).
const raceEnabled = true
