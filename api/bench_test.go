package api_test

import (
	"context"
	"testing"

	"hark/api"
	"hark/api/apitest"
)

// BenchmarkToolsLoopback is one tool-list call (GET, envelope, tolerant
// decode of five JSON Schema tools) against the loopback test gateway.
func BenchmarkToolsLoopback(b *testing.B) {
	s := apitest.New(b)
	c, _ := api.New(api.Options{BaseURL: s.URL, APIKey: s.APIKey})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Tools(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeToolList is the tolerant decoder alone.
func BenchmarkDecodeToolList(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(apitest.DefaultToolList)))
	for b.Loop() {
		if _, err := api.DecodeToolList(apitest.DefaultToolList); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSTTStreamLoopback is one STT stream: handshake, configuration
// frame, 10 audio frames of 3200 bytes (100 ms of 16 kHz pcm each) with
// their partial results, close, final result, close handshake.
func BenchmarkSTTStreamLoopback(b *testing.B) {
	s := apitest.New(b)
	c, _ := api.New(api.Options{BaseURL: s.URL, APIKey: s.APIKey})
	ctx := context.Background()
	chunk := make([]byte, 3200)
	b.ReportAllocs()
	for b.Loop() {
		st, err := c.STTStream(ctx, api.STTRequest{SampleRate: 16000})
		if err != nil {
			b.Fatal(err)
		}
		go func() {
			for i := 0; i < 10; i++ {
				st.Write(chunk)
			}
			st.CloseSend()
		}()
		n := 0
		for range st.Results() {
			n++
		}
		if err := st.Err(); err != nil || n != 11 {
			b.Fatal(n, err)
		}
		st.Close()
	}
}
