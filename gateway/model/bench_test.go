package model_test

import (
	"context"
	"fmt"
	"testing"

	"hark/gateway/model"
	"hark/gateway/model/modeltest"
)

// BenchmarkEmbed is embedding throughput through the client against the
// local fake (docs/model.md): what the client and the wire cost per
// passage, not what a real model costs.
func BenchmarkEmbed(b *testing.B) {
	for _, batch := range []int{1, 16, 64} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			s := modeltest.NewOpenAI(b)
			c, err := model.New(model.Config{Provider: model.ProviderOpenAI, BaseURL: s.BaseURL(), APIKey: modeltest.Key,
				Chat: modeltest.ChatModel, Embedding: modeltest.EmbeddingModel})
			if err != nil {
				b.Fatal(err)
			}
			texts := make([]string, batch)
			for i := range texts {
				texts[i] = fmt.Sprintf("Passage %d: the --leak-check option turns on the detailed memory leak detector, and Memcheck reports each block that was definitely lost.", i)
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := c.Embed(context.Background(), texts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "passages/s")
		})
	}
}
