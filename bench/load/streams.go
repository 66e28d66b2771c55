package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"hark/api"
	"hark/gateway/config"
)

func (c *client) dial(path string) (*websocket.Conn, int, error) {
	url := "ws" + strings.TrimPrefix(c.base, "http") + path
	conn, resp, err := websocket.DefaultDialer.Dial(url, http.Header{"Authorization": {"Bearer " + c.streamKey()}})
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		return nil, status, err
	}
	return conn, 101, nil
}

// outcomes counts how streams ended and times their first answer.
type outcomes struct {
	mu     sync.Mutex
	ends   map[string]int
	firsts []time.Duration
}

func (o *outcomes) end(what string, first time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ends == nil {
		o.ends = map[string]int{}
	}
	o.ends[what]++
	if first > 0 {
		o.firsts = append(o.firsts, first)
	}
}

func (o *outcomes) String() string {
	var parts []string
	for k, v := range o.ends {
		parts = append(parts, fmt.Sprintf("%d %s", v, k))
	}
	var t tally
	return fmt.Sprintf("%s; first answer p50 %s, p99 %s", strings.Join(parts, ", "), ms(t.pct(o.firsts, 50)), ms(t.pct(o.firsts, 99)))
}

// ttsStreams opens n TTS streams at once.
func ttsStreams(c *client, n int) {
	var o outcomes
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			conn, status, err := c.dial(api.PathTTSStream)
			if err != nil {
				o.end(fmt.Sprintf("refused %d", status), 0)
				return
			}
			defer conn.Close()
			conn.SetReadDeadline(time.Now().Add(60 * time.Second))
			conn.WriteJSON(api.TTSRequest{Provider: api.DefaultProvider, VoiceCode: "flite:slt", Format: api.FormatPCM,
				Text: "The river runs past the old mill. Open the window and let the fresh air in."})
			var first time.Duration
			for {
				mt, data, err := conn.ReadMessage()
				if err != nil {
					o.end("cut off", first)
					return
				}
				if mt == websocket.BinaryMessage {
					if first == 0 {
						first = time.Since(start)
					}
					continue
				}
				f, _ := api.DecodeTTSFrame(data)
				if f.Error != "" {
					o.end("error: "+firstWords(f.Error), first)
				} else {
					o.end("complete", first)
				}
				return
			}
		}()
	}
	wg.Wait()
	fmt.Printf("%d TTS streams at once: %s\n", n, &o)
	expect(o.ends["complete"] > 0, "no TTS stream completed")
}

func firstWords(s string) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(4, len(f))], " ")
}

// heard reports whether a transcript has most of the clip's key words.
func heard(text string) bool {
	n := 0
	for _, w := range []string{"river", "mill", "window", "fresh", "air"} {
		if strings.Contains(text, w) {
			n++
		}
	}
	return n >= 3
}

// sttStream sends clip in 100 ms frames, every pace (0: at once), and
// returns the time from the first audio to the first result, the finals
// joined, and the error frame or failure, if any.
func sttStream(c *client, clip []byte, pace time.Duration) (time.Duration, string, string) {
	conn, status, err := c.dial(api.PathSTTStream)
	if err != nil {
		return 0, "", fmt.Sprintf("refused %d", status)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(120 * time.Second))
	conn.WriteJSON(api.STTRequest{Provider: api.DefaultProvider, SampleRate: 16000})
	start := time.Now()
	type result struct {
		first  time.Duration
		finals []string
		err    string
	}
	done := make(chan result, 1)
	go func() {
		var r result
		for {
			_, data, err := conn.ReadMessage()
			if err != nil {
				if ce, ok := err.(*websocket.CloseError); !ok || ce.Code != websocket.CloseNormalClosure {
					if r.err == "" {
						r.err = "connection: " + err.Error()
					}
				}
				done <- r
				return
			}
			var f api.STTResultFrame
			json.Unmarshal(data, &f)
			if f.Queued > 0 {
				continue // a place in the recognisers' queue, not a result
			}
			if r.first == 0 {
				r.first = time.Since(start)
			}
			if f.Error != "" {
				r.err = f.Error
			}
			if f.IsFinal && f.Text != "" {
				r.finals = append(r.finals, f.Text)
			}
		}
	}()
	for off := 0; off < len(clip); off += 3200 {
		if err := conn.WriteMessage(websocket.BinaryMessage, clip[off:min(off+3200, len(clip))]); err != nil {
			break
		}
		if pace > 0 {
			time.Sleep(pace)
		}
	}
	conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
	r := <-done
	return r.first, strings.Join(r.finals, " "), r.err
}

// sttStreams opens n STT streams at once, each sending the clip at
// real-time pace.
func sttStreams(c *client, clip []byte, n int) {
	var o outcomes
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first, text, errMsg := sttStream(c, clip, 100*time.Millisecond)
			switch {
			case errMsg != "":
				o.end("error: "+firstWords(errMsg), first)
			case heard(text):
				o.end("heard right", first)
			default:
				o.end("heard wrong", first)
			}
		}()
	}
	wg.Wait()
	fmt.Printf("%d STT streams at once (%.1f s clips, real-time pace): %s\n", n, float64(len(clip))/32000, &o)
	expect(o.ends["heard right"] > 0, "no STT stream heard the clip")
	expect(o.ends["heard wrong"] == 0, "%d STT streams heard the clip wrong", o.ends["heard wrong"])
}

// slowSTT holds two streams that send a frame every 2 s, and recognises
// the clip sent at once beside them.
func slowSTT(c *client, clip []byte) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, _, err := c.dial(api.PathSTTStream)
			if err != nil {
				return
			}
			defer conn.Close()
			conn.WriteJSON(api.STTRequest{Provider: api.DefaultProvider, SampleRate: 16000})
			go func() { // drain results
				for {
					if _, _, err := conn.ReadMessage(); err != nil {
						return
					}
				}
			}()
			for off := 0; ; off = (off + 3200) % (len(clip) - 3200) {
				conn.WriteMessage(websocket.BinaryMessage, clip[off:off+3200])
				select {
				case <-stop:
					return
				case <-time.After(2 * time.Second):
				}
			}
		}()
	}
	time.Sleep(3 * time.Second) // both hold a recogniser by now
	first, text, errMsg := sttStream(c, clip, 0)
	close(stop)
	wg.Wait()
	fmt.Printf("with two slow STT streams open, a %.1f s clip: first result after %s, heard right: %v, error: %q\n",
		float64(len(clip))/32000, ms(first), heard(text), errMsg)
	expect(errMsg == "" && heard(text), "the clip beside two slow streams: %q %q", text, errMsg)
}

// slowBodies sends n POSTs whose body comes a byte a second, and times
// how long the server lets each hold its connection.
func slowBodies(c *client, base string, n int) {
	var o outcomes
	var wg sync.WaitGroup
	limit := time.Duration(config.DefaultLimits().BodyTimeout)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
			if err != nil {
				o.end("dial failed", 0)
				return
			}
			defer conn.Close()
			auth := ""
			if i%2 == 0 { // with and without a key
				auth = "Authorization: Bearer " + c.key + "\r\n"
			}
			start := time.Now()
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\n%sContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
				fmt.Sprintf(api.PathInvokeFmt, api.ToolSearch), auth)
			go func() {
				for range 120 {
					time.Sleep(time.Second)
					if _, err := conn.Write([]byte(" ")); err != nil {
						return
					}
				}
			}()
			conn.SetReadDeadline(time.Now().Add(2 * time.Minute))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			took := time.Since(start)
			if err != nil {
				o.end("no answer", took)
				return
			}
			o.end(fmt.Sprintf("answered %d", resp.StatusCode), took)
			// Generous slack: the bound is the server's deadline, the slack
			// only the scheduling of a busy machine.
			expect(took <= limit+5*time.Second, "a slow body held its connection %s (body_timeout %s)", took, limit)
		}()
	}
	wg.Wait()
	fmt.Printf("%d slow-body clients (a byte a second, half without a key): %s (body_timeout %s)\n", n, &o, limit)
}
