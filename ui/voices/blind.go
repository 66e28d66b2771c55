package voices

import (
	"fmt"
	"sort"
	"strings"
)

// A blind A/B (B in the Voices section): the marked voices play as A, B,
// ... in a shuffled order with their names hidden; the listener presses
// the letter of the one preferred (= for none), the names are revealed,
// and the session's tally of blind picks is shown.

// blindTally is one voice's blind picks this session.
type blindTally struct{ wins, rounds int }

// blindLetter is the letter of the i-th take of a blind round.
func blindLetter(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprintf("#%d", i+1)
}

// awaitingPick says a blind round has played and waits for its pick.
func (p *Pane) awaitingPick() bool {
	a := p.aud
	return a.blind && !a.revealed && !a.running && len(a.takes) > 0
}

// blindPick takes key as the pick of the blind round, when it is one of
// its letters or =; it reports whether it was.
func (p *Pane) blindPick(key string) bool {
	a := &p.aud
	picked := -1
	if key != "=" {
		for i, t := range a.takes {
			if t.label == key {
				picked = i
			}
		}
		if picked < 0 {
			return false
		}
	}
	a.revealed, a.picked = true, picked
	if p.tally == nil {
		p.tally = map[string]*blindTally{}
	}
	var voices []string
	for i, t := range a.takes {
		bt := p.tally[t.voice]
		if bt == nil {
			bt = &blindTally{}
			p.tally[t.voice] = bt
		}
		bt.rounds++
		if i == picked {
			bt.wins++
		}
		voices = append(voices, t.voice)
	}
	sort.SliceStable(voices, func(i, j int) bool { return p.tally[voices[i]].wins > p.tally[voices[j]].wins })
	var parts []string
	for _, v := range voices {
		parts = append(parts, fmt.Sprintf("%s %d of %d", v, p.tally[v].wins, p.tally[v].rounds))
	}
	what := "no preference"
	if picked >= 0 {
		what = "you picked " + a.takes[picked].label + ": " + a.takes[picked].voice
	}
	a.note = what + " · blind tally this session: " + strings.Join(parts, " · ")
	return true
}
