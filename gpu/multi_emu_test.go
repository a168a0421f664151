//go:build !cuda

package gpu

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/internal/testindex"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

// emuDevices is the "gpu-emu-dev" driver's emulated devices: one
// emulator process per device ordinal, and the device each shard's
// engine opened on (by the shard's first docid).
var emuDevices struct {
	once   sync.Once
	mu     sync.Mutex
	t      *testing.T
	bin    string
	procs  map[int]*emuBackend
	placed map[uint32][]int
}

// TestShardsOnDevicesEmulated: a sharded collection's GPU engines on
// several emulated devices (an emulator process each) answer every mode
// exactly as the exhaustive scorer over the whole index, one query at a
// time and in a batch: two and three shards over two devices (shard i on
// device i mod 2), and two shards over four devices as two gangs, each
// a processor of its own, each answering alone.
func TestShardsOnDevicesEmulated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the kernels under a C++ emulation")
	}
	d := &emuDevices
	d.once.Do(func() {
		query.Register("gpu-emu-dev", query.Driver{Needs: query.Needs{GPU: true}, Open: func(ix *index.Index, o query.Options) (query.Engine, error) {
			d.mu.Lock()
			defer d.mu.Unlock()
			be, ok := d.procs[o.GPU.Device]
			if !ok {
				be = startEmu(d.t, d.bin)
				d.procs[o.GPU.Device] = be
			}
			info, _ := ix.Shard()
			d.placed[info.FirstDoc] = append(d.placed[info.FirstDoc], o.GPU.Device)
			e, err := newQEngine(ix, be)
			if err != nil {
				return nil, err
			}
			return emuSearcher{e}, nil
		}})
	})
	d.mu.Lock()
	d.t, d.bin, d.procs, d.placed = t, buildEmu(t), map[int]*emuBackend{}, map[uint32][]int{}
	d.mu.Unlock()

	spec := corpusSpec{Docs: 4000, Vocab: 150, Zipf: 1.0, Density: 0.5, Codec: "gpu-bp256", Seed: 51}
	ix := openCorpus(t, spec)
	ref := query.NewExhaustive(ix)
	qs := randomQueries(rand.New(rand.NewPCG(51, 2)), 30, spec.Vocab)
	want := make([]query.Result, len(qs))
	for i, q := range qs {
		var err error
		if want[i], err = ref.Search(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		shards  int
		devices []int
		gangs   int
		placed  [][]int // per shard, in docid order: the devices its engines opened on
	}{
		{2, []int{0, 1}, 1, [][]int{{0}, {1}}},
		{3, []int{0, 1}, 1, [][]int{{0}, {1}, {0}}},
		{2, []int{0, 1, 2, 3}, 2, [][]int{{0, 2}, {1, 3}}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d-shards-%d-devices", tt.shards, len(tt.devices)), func(t *testing.T) {
			shards := testindex.Shards(t, ix, tt.shards)
			d.mu.Lock()
			clear(d.placed)
			d.mu.Unlock()
			gs, err := schedule.OpenShardedGPUs(shards, "gpu-emu-dev", query.Options{}, tt.devices)
			if err != nil {
				t.Fatal(err)
			}
			defer gs.Close()
			if len(gs) != tt.gangs {
				t.Fatalf("%d gangs, want %d", len(gs), tt.gangs)
			}
			var placed [][]int
			for _, s := range shards {
				info, _ := s.Shard()
				placed = append(placed, d.placed[info.FirstDoc])
			}
			if !slices.EqualFunc(placed, tt.placed, slices.Equal) {
				t.Errorf("shards placed on %v, want %v", placed, tt.placed)
			}
			for g, e := range gs {
				batch, err := e.(query.BatchEngine).SearchBatch(context.Background(), qs)
				if err != nil {
					t.Fatal(err)
				}
				for i, q := range qs {
					got, err := e.Search(context.Background(), q)
					if err != nil {
						t.Fatalf("gang %d, %v: %v", g, q, err)
					}
					if !slices.Equal(got.Hits, want[i].Hits) || !slices.Equal(batch[i].Hits, want[i].Hits) {
						t.Errorf("gang %d, %v:\n got %v\nbatch %v\n want %v", g, q, got.Hits, batch[i].Hits, want[i].Hits)
					}
				}
			}
		})
	}
}
