package analytics

import (
	"context"
	"os"
	"testing"
)

// BenchmarkTasks runs every task on the compressed corpus named by
// $GPUSEARCH_ANALYTICS_CORPUS (a directory gpusearch compress wrote), with
// each traversal and the plain baseline. It is skipped without one.
func BenchmarkTasks(b *testing.B) {
	dir := os.Getenv("GPUSEARCH_ANALYTICS_CORPUS")
	if dir == "" {
		b.Skip("set GPUSEARCH_ANALYTICS_CORPUS to a compressed corpus directory")
	}
	c, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	docs := c.Decompress()
	ctx := context.Background()
	for _, task := range Tasks() {
		for _, tr := range []Traversal{TopDown, BottomUp} {
			b.Run(string(task)+"/"+tr.String(), func(b *testing.B) {
				for b.Loop() {
					if _, err := Run(ctx, c, task, Options{Traversal: tr}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(string(task)+"/plain", func(b *testing.B) {
			for b.Loop() {
				if _, err := RunPlain(ctx, docs, len(c.Dict), task, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
