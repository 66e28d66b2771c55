package gateway

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/config"
)

// searchCodes runs n calls of vendor_search at rate calls a second (0:
// all at once) and counts their statuses; a refusal's message is kept.
func searchCodes(t *testing.T, g *testGW, query string, n, rate int) (map[int]int, []string) {
	t.Helper()
	var mu sync.Mutex
	codes := map[int]int{}
	var refusals []string
	var wg sync.WaitGroup
	for i := range n {
		if rate > 0 && i > 0 {
			time.Sleep(time.Second / time.Duration(rate))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, env, _ := g.call(t, "POST", invokePath(api.ToolSearch), g.key, map[string]any{"inputs": map[string]any{"query": query}})
			mu.Lock()
			defer mu.Unlock()
			codes[status]++
			if status != 200 {
				refusals = append(refusals, env.Message)
			}
		}()
	}
	wg.Wait()
	return codes, refusals
}

// Two clients sending their bodies at just over body_min_rate hold no
// admission slot: a body is read whole before its call asks for one. Ten
// searches a second beside them, with both search slots otherwise
// theirs, are all served; the slow bodies' own calls are served when
// their bodies end. The queue's budget (1.5 s) is shorter than the
// bodies (2.4 s), so searches kept waiting for slots the bodies held
// would be refused; it is longer than the default 500 ms, which a 50 ms
// search slowed fourfold by the race detector on a loaded machine
// overran (551 ms of work ahead) with no slow body holding anything.
func TestSlowBodiesHoldNoSlot(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) {
		c.Limits.MaxInvoke, c.Limits.CPUSeats = 2, 2
		c.Limits.BodyTimeout, c.Limits.BodyMinRate = config.Duration(time.Second), 1000
		c.Limits.QueueWait = config.Duration(1500 * time.Millisecond)
	})
	body := `{"inputs":{"query":"q"}}` + strings.Repeat(" ", 2600)
	slow := make(chan int, 2)
	for range 2 {
		c, err := net.Dial("tcp", strings.TrimPrefix(g.base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
			invokePath(api.ToolSearch), g.key, len(body))
		go func() {
			for off := 0; off < len(body); off += 110 { // 1.1 KB/s
				c.Write([]byte(body[off:min(off+110, len(body))]))
				time.Sleep(100 * time.Millisecond)
			}
		}()
		go func() {
			c.SetReadDeadline(time.Now().Add(20 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				slow <- 0
				return
			}
			resp.Body.Close()
			slow <- resp.StatusCode
		}()
	}
	time.Sleep(200 * time.Millisecond) // both bodies under way
	codes, refusals := searchCodes(t, g, "slow", 20, 10)
	if codes[200] != 20 {
		t.Errorf("searches beside two slow bodies: %v %q", codes, refusals)
	}
	for range 2 {
		if code := <-slow; code != 200 {
			t.Errorf("a slow body's own call: %d", code)
		}
	}
}

// A burst of 16 searches from one client on an idle gateway all wait
// their turn: the queue is sized by the expected wait (14 waiting × the
// time a call holds its slot, over 2 slots, within queue_wait), not by a
// count. A burst whose expected wait is past the budget is refused at
// once, saying so. (The budget is long here: under the race detector on
// a busy machine a call holds its slot for 50 to 300 ms. The queue's
// count is set past the burst, so that the expected wait alone refuses:
// at 50 ms a call, the default 128 would fill at 4 s of work ahead,
// before the 5 s budget.)
func TestBurstIsQueuedByExpectedWait(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) {
		c.Limits.MaxInvoke, c.Limits.CPUSeats = 2, 2
		c.Limits.QueueWait = config.Duration(5 * time.Second)
		c.Limits.QueueLength = 1000
	})
	for round := range 2 { // the second with the service time learned
		if codes, refusals := searchCodes(t, g, "slow", 16, 0); codes[200] != 16 {
			t.Errorf("burst %d of 16: %v %q", round+1, codes, refusals)
		}
	}
	codes, refusals := searchCodes(t, g, "slow", 200, 0) // under max_conns_per_client
	if codes[200] < 16 || codes[503] == 0 || codes[200]+codes[503] != 200 {
		t.Errorf("a burst of 200: %v", codes)
	}
	for _, m := range refusals {
		if !strings.Contains(m, "of work ahead (queue_wait 5s)") && !strings.Contains(m, "waited queue_wait") {
			t.Errorf("refusal %q", m)
			break
		}
	}
}

// Twenty TTS streams, each a series of sentences that take the CPU's
// turns, do not starve the searches: with two CPU seats shared 2:1,
// every search a few a second beside them is served, and the searches
// had at least their share of the seats' time per weight.
func TestSearchKeepsItsShareBesideTTSStreams(t *testing.T) {
	t.Parallel()
	g := startGateway(t, func(c *config.Config) {
		c.Limits.MaxInvoke, c.Limits.CPUSeats, c.Limits.ShareSearch, c.Limits.ShareTTS = 2, 2, 2, 1
		c.Limits.MaxStreams, c.Limits.StreamsPerKey = 32, 32
	})
	text := strings.TrimSpace(strings.Repeat("SLOW ", 15)) // 15 turns of 100 ms each
	var wg sync.WaitGroup
	var mu sync.Mutex
	ends := map[string]int{}
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := g.client(t, g.key).TTSStream(context.Background(), api.TTSRequest{Provider: api.DefaultProvider, VoiceCode: "tone", Text: text})
			end := "complete"
			if err != nil {
				end = "refused: " + err.Error()
			} else {
				for {
					if _, err := st.Next(); err != nil {
						if !errors.Is(err, io.EOF) {
							end = "error: " + err.Error()
						}
						break
					}
				}
				st.Close()
			}
			mu.Lock()
			ends[end]++
			mu.Unlock()
		}()
	}
	waitFor(t, "the streams queue for turns", func() bool { return g.srv.ttsTurns.Waiting() >= 10 })
	codes, refusals := searchCodes(t, g, "slow", 15, 5)
	wg.Wait()
	if codes[200] != 15 {
		t.Errorf("searches beside 20 TTS streams: %v %q", codes, refusals)
	}
	if ends["complete"] != 20 {
		t.Errorf("TTS streams: %v", ends)
	}
	// Seat time per weight: the scheduler evens it out among the classes
	// with work, so the searches' never fell behind the streams'.
	if s, tts := g.srv.admitSearch.SeatTime(), g.srv.ttsTurns.SeatTime(); s > tts {
		t.Errorf("seat time per weight: search %.2f s, TTS %.2f s", s, tts)
	}
}

// An STT stream the gateway could not serve to its end (no recogniser
// came free in time) is not charged, whatever it heard first.
func TestRefusedSTTStreamIsNotCharged(t *testing.T) {
	t.Parallel()
	g := startGateway(t, nil)
	st, err := g.client(t, g.key).STTStream(context.Background(), api.STTRequest{Provider: api.DefaultProvider, Language: "busy", SampleRate: 16000})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range st.Results() {
		}
	}()
	for i := 0; i < 9600; i += 1000 {
		if _, err := st.Write(make([]byte, 1000)); err != nil {
			break
		}
	}
	st.CloseSend()
	var se *api.StreamError
	for range st.Results() {
	}
	if err := st.Err(); !errors.As(err, &se) || !strings.Contains(se.Message, "busy") {
		t.Fatalf("stream: %v", err)
	}
	waitFor(t, "the stream's usage row", func() bool {
		rows, _ := g.srv.Usage(context.Background(), "local", 10)
		return len(rows) == 1 && rows[0].Status != "pending"
	})
	rows, _ := g.srv.Usage(context.Background(), "local", 10)
	if rows[0].Credits != 0 || rows[0].Status != "error" {
		t.Errorf("the refused stream's row: %+v", rows[0])
	}
}
