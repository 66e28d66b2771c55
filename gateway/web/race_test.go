//go:build race

package web

// raceEnabled: TestPostgresIndexRanksAsSQLite runs without the race
// detector only, and TestSnippetIsFTS5s and the concurrent-replicas test
// on fewer pages under it (scripts/test.sh runs them whole without it).
const raceEnabled = true
