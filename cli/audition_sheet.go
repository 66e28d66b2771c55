package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"hark/api"
	gwtext "hark/gateway/text"
)

// What an audition reports of its takes: the round trip through
// recognition, the table (on the terminal and in the sample sheet), and
// the blind A/B's pick and tally.

// hearTakes has each take recognised by provider and scores what was
// heard against text. A take recognition fails on keeps its figures and
// says why on stderr.
func (a *App) hearTakes(ctx context.Context, cl *api.Client, provider, text string, takes []auditionTake) {
	for i := range takes {
		t := &takes[i]
		if len(t.data) == 0 {
			continue
		}
		res, err := cl.STT(ctx, api.STTRequest{Provider: provider}, t.data)
		if err != nil {
			fmt.Fprintf(a.stderr, "hark: audition: %s/%s not heard back by %s: %v\n", t.Provider, t.Voice, provider, err)
			continue
		}
		t.Heard = res.Text
		w := gwtext.WordErrorRate(text, res.Text)
		t.WER = &w
	}
}

// auditionRow is a take's figures as the table shows them.
func auditionRow(t auditionTake) []string {
	heard, wer := "-", "-"
	if t.WER != nil {
		heard, wer = fmt.Sprintf("%q", t.Heard), fmt.Sprintf("%.2f", *t.WER)
	}
	return []string{t.Provider + "/" + t.Voice, fmt.Sprintf("%.0f ms", t.FirstAudio), fmt.Sprintf("%.2f s", t.Duration),
		fmt.Sprintf("%.2f", t.RTF), fmt.Sprint(t.Credits), wer, heard}
}

var auditionColumns = []string{"voice", "first audio", "duration", "RTF", "credits", "WER", "heard"}

// auditionTable is the takes' figures, aligned for a terminal.
func auditionTable(takes []auditionTake) string {
	if len(takes) == 0 {
		return ""
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(auditionColumns, "\t"))
	for _, t := range takes {
		fmt.Fprintln(tw, strings.Join(auditionRow(t), "\t"))
	}
	tw.Flush()
	return b.String()
}

// sampleSheet is the markdown page of an audition written with -o: the
// line, the settings, and the table with each take's WAV linked.
func sampleSheet(m auditionManifest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Voice audition\n\n> %s\n\n", strings.ReplaceAll(m.Text, "\n", "\n> "))
	fmt.Fprintf(&b, "Made %s; speech_rate %d, pitch %d, loudness %d. RTF is the time a take took to arrive over its length; WER is the word error rate of what recognition heard back.\n\n",
		m.Created.Format("2006-01-02 15:04 UTC"), m.Settings["speech_rate"], m.Settings["pitch"], m.Settings["loudness"])
	fmt.Fprintf(&b, "| %s | name | file |\n|%s---|---|\n", strings.Join(auditionColumns, " | "), strings.Repeat("---|", len(auditionColumns)))
	for _, t := range m.Voices {
		row := auditionRow(t)
		for i := range row {
			row[i] = strings.ReplaceAll(row[i], "|", "\\|")
		}
		file := "-"
		if t.File != "" {
			file = fmt.Sprintf("[%s](%s)", t.File, t.File)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", strings.Join(row, " | "), strings.ReplaceAll(t.Name, "|", "\\|"), file)
	}
	return b.String()
}

// blindLabel is the letter a take plays under in a blind A/B.
func blindLabel(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprintf("#%d", i+1)
}

// blindResult is a blind A/B's pick and the names behind the letters.
type blindResult struct {
	Labels map[string]string `json:"labels"` // letter → provider/voice
	Picked string            `json:"picked"` // the letter chosen; "=" for none
	Tally  []tallyRow        `json:"tally"`
}

// tallyRow is one voice's blind picks so far.
type tallyRow struct {
	Voice  string `json:"voice"`
	Wins   int    `json:"wins"`
	Rounds int    `json:"rounds"`
}

// tallyFile keeps every blind pick, in the data directory.
const tallyFile = "audition-tally.json"

// blindPick asks which take was preferred, reveals the names and adds
// the pick to the tally.
func (a *App) blindPick(order []auditionVoice, takes []auditionTake) (*blindResult, error) {
	res := &blindResult{Labels: map[string]string{}}
	var letters []string
	for i, v := range order {
		res.Labels[blindLabel(i)] = v.String()
		letters = append(letters, blindLabel(i))
	}
	in := bufio.NewReader(a.stdin)
	for {
		fmt.Fprintf(a.stdout, "Which did you prefer? %s, or = for no preference: ", strings.Join(letters, ", "))
		line, err := in.ReadString('\n')
		pick := strings.ToUpper(strings.TrimSpace(line))
		if pick == "=" || res.Labels[pick] != "" {
			res.Picked = pick
			break
		}
		if err != nil {
			return nil, usagef("--blind: no pick was read (answer %s or =)", strings.Join(letters, ", "))
		}
		fmt.Fprintf(a.stdout, "%q is not one of them.\n", strings.TrimSpace(line))
	}
	fmt.Fprintln(a.stdout, "Revealed:")
	for i, l := range letters {
		mark := ""
		if l == res.Picked {
			mark = "  ← your pick"
		}
		name := ""
		if i < len(takes) && takes[i].Name != "" {
			name = "  " + takes[i].Name
		}
		fmt.Fprintf(a.stdout, "  %s  %s%s%s\n", l, res.Labels[l], name, mark)
	}
	tally, err := a.addToTally(res)
	if err != nil {
		return nil, err
	}
	res.Tally = tally
	fmt.Fprintln(a.stdout, "Blind tally of these voices (wins of rounds):")
	for _, r := range tally {
		fmt.Fprintf(a.stdout, "  %-40s %d of %d\n", r.Voice, r.Wins, r.Rounds)
	}
	return res, nil
}

// addToTally records the round in the data directory's tally and returns
// the tally of the round's voices, most wins first.
func (a *App) addToTally(res *blindResult) ([]tallyRow, error) {
	path := filepath.Join(a.cfg.DataDir, tallyFile)
	all := map[string]tallyRow{}
	if b, err := os.ReadFile(path); err == nil {
		var rows []tallyRow
		if json.Unmarshal(b, &rows) != nil {
			return nil, fmt.Errorf("blind tally %s: not the tally hark writes; move it aside", path)
		}
		for _, r := range rows {
			all[r.Voice] = r
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("blind tally: %w", err)
	}
	var these []string
	for l, v := range res.Labels {
		r := all[v]
		r.Voice = v
		r.Rounds++
		if l == res.Picked {
			r.Wins++
		}
		all[v] = r
		these = append(these, v)
	}
	rows := make([]tallyRow, 0, len(all))
	for _, r := range all {
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Voice < rows[j].Voice })
	b, _ := json.MarshalIndent(rows, "", "  ")
	if err := os.MkdirAll(a.cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("blind tally: %w", err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return nil, fmt.Errorf("blind tally: %w", err)
	}
	var out []tallyRow
	for _, v := range these {
		out = append(out, all[v])
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Wins != out[j].Wins {
			return out[i].Wins > out[j].Wins
		}
		return out[i].Voice < out[j].Voice
	})
	return out, nil
}
