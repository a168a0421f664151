package schedule

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/internal/testindex"
	"github.com/gpusearch/gpusearch/query"
)

// fakeGPU stands in for the GPU engine: device 9 is missing, device 7 is
// a build without CUDA, the others open and report one run each.
type fakeGPU struct {
	device int
	closed *[]int
}

func (f fakeGPU) Search(context.Context, query.Query) (query.Result, error) {
	return query.Result{}, nil
}

func (f fakeGPU) DeviceUsage() query.DeviceUsage {
	return query.DeviceUsage{Runs: 1, Held: time.Duration(f.device) * time.Second, Busy: time.Second}
}

func (f fakeGPU) Close() error {
	*f.closed = append(*f.closed, f.device)
	return nil
}

var closedGPUs []int

func init() {
	query.Register("gpu", query.Driver{Needs: query.Needs{GPU: true}, Open: func(_ *index.Index, o query.Options) (query.Engine, error) {
		switch o.GPU.Device {
		case 9:
			return nil, errors.New("no such device")
		case 7:
			return nil, fmt.Errorf("built without CUDA: %w", query.ErrNoGPU)
		}
		return fakeGPU{o.GPU.Device, &closedGPUs}, nil
	}})
}

func TestOpenGPUs(t *testing.T) {
	tests := []struct {
		devices []int
		opened  int
		err     string
	}{
		{nil, 0, ""},
		{[]int{0, 1}, 2, ""},
		{[]int{0, 9, 2}, 2, "device 9: no such device"},
		{[]int{7, 0, 1}, 0, "device 7: built without CUDA: no GPU available"}, // the first ErrNoGPU stops
	}
	for _, tt := range tests {
		closedGPUs = nil
		gs, err := OpenGPUs(nil, query.Options{}, tt.devices)
		var msg string
		if err != nil {
			msg = err.Error()
		}
		if len(gs) != tt.opened || msg != tt.err {
			t.Errorf("OpenGPUs(%v) = %d engines, %v; want %d, %q", tt.devices, len(gs), err, tt.opened, tt.err)
		}
		if u := gs.Usage(); u.Runs != int64(tt.opened) || u.Busy != time.Duration(tt.opened)*time.Second {
			t.Errorf("OpenGPUs(%v).Usage() = %+v, want %d runs", tt.devices, u, tt.opened)
		}
		if err := gs.Close(); err != nil || len(closedGPUs) != tt.opened {
			t.Errorf("OpenGPUs(%v).Close() = %v, closed %v", tt.devices, err, closedGPUs)
		}
	}
}

// TestOpenShardedGPUs: over a collection of two shards, the devices make
// gangs of two, each a processor answering over both shards; with fewer
// devices than shards one gang shares them; devices past the last whole
// gang stay unused; a build without CUDA stops at the first gang.
func TestOpenShardedGPUs(t *testing.T) {
	const docs = 40
	lens, urls := make([]uint32, docs), make([]string, docs)
	for i := range lens {
		lens[i], urls[i] = 5, fmt.Sprintf("doc/%03d", i)
	}
	var ids, freqs []uint32
	for d := range uint32(docs) {
		ids, freqs = append(ids, d), append(freqs, 1)
	}
	ix := testindex.Write(t, index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU"}, lens, urls,
		testindex.Postings{Term: "alpha", DocIDs: ids, Freqs: freqs})
	shards := testindex.Shards(t, ix, 2)
	tests := []struct {
		devices []int
		held    []time.Duration // per gang: the sum of its shards' devices (fakeGPU's Held)
		err     string
		closed  []int // the engines closed: a failed gang's at once, then the gangs'
	}{
		{nil, nil, "", nil},
		{[]int{1, 2}, []time.Duration{3 * time.Second}, "", []int{1, 2}},
		{[]int{1, 2, 3, 4}, []time.Duration{3 * time.Second, 7 * time.Second}, "", []int{1, 2, 3, 4}},
		{[]int{1, 2, 3}, []time.Duration{3 * time.Second}, "", []int{1, 2}},
		{[]int{5}, []time.Duration{10 * time.Second}, "", []int{5, 5}},
		{[]int{1, 9, 3, 4}, []time.Duration{7 * time.Second}, "devices [1 9]: no such device", []int{1, 3, 4}},
		{[]int{7, 1, 3, 4}, nil, "devices [7 1]: built without CUDA: no GPU available", nil},
	}
	for _, tt := range tests {
		closedGPUs = nil
		gs, err := OpenShardedGPUs(shards, "gpu", query.Options{}, tt.devices)
		var msg string
		if err != nil {
			msg = err.Error()
		}
		var held []time.Duration
		for _, g := range gs {
			held = append(held, g.(query.DeviceEngine).DeviceUsage().Held)
		}
		if !slices.Equal(held, tt.held) || msg != tt.err {
			t.Errorf("OpenShardedGPUs(%v): gangs on %v, %v; want %v, %q", tt.devices, held, err, tt.held, tt.err)
		}
		if err := gs.Close(); err != nil || !slices.Equal(closedGPUs, tt.closed) {
			t.Errorf("OpenShardedGPUs(%v).Close() = %v, closed %v, want %v", tt.devices, err, closedGPUs, tt.closed)
		}
	}
}
