package api

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// batchDeviceFake stands in for the GPU engine: batches, device usage, Close.
type batchDeviceFake struct {
	batchRecorder
	closed bool
}

func (f *batchDeviceFake) DeviceUsage() query.DeviceUsage { return query.DeviceUsage{Runs: 7} }

func (f *batchDeviceFake) Close() error {
	f.closed = true
	return nil
}

// TestBatchGPU checks that a batching device engine is wrapped (answers
// unchanged, usage passed through, closed with the wrapper) and any other
// engine, nil included, is not.
func TestBatchGPU(t *testing.T) {
	ix, err := index.Open(indexA)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	cpu, err := query.New(ix, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default().GPU
	if got := batchGPU(ix, cpu, cfg); got != cpu {
		t.Errorf("batchGPU(cpu engine) = %T, want it unwrapped", got)
	}
	if got := batchGPU(ix, nil, cfg); got != nil {
		t.Errorf("batchGPU(nil) = %T, want nil", got)
	}
	dev := &batchDeviceFake{batchRecorder: batchRecorder{Engine: cpu}}
	eng := batchGPU(ix, dev, cfg)
	b, ok := eng.(*gpuBatcher)
	if !ok {
		t.Fatalf("batchGPU(device) = %T, want a *gpuBatcher", eng)
	}
	q := query.Query{Terms: []string{"alpha", "bravo"}, Mode: query.Or, K: 5}
	want, _ := cpu.Search(context.Background(), q)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := eng.Search(context.Background(), q)
			if err != nil || !reflect.DeepEqual(got.Hits, want.Hits) {
				t.Errorf("Search = %v, %v; want %v", got.Hits, err, want.Hits)
			}
		}()
	}
	wg.Wait()
	if u := b.DeviceUsage(); u.Runs != 7 {
		t.Errorf("DeviceUsage = %+v, want the device's", u)
	}
	if err := b.Close(); err != nil || !dev.closed {
		t.Errorf("Close = %v, device closed %v; want nil, true", err, dev.closed)
	}
}
