package gpuengine

import (
	"errors"
	"testing"

	_ "github.com/gpusearch/gpusearch/codecplugins/all"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/internal/testindex"
	"github.com/gpusearch/gpusearch/query"
)

// TestRegistered checks that "gpu" is registered as needing a GPU, and
// that without one (a build without CUDA, or no device) opening it fails
// with query.ErrNoGPU.
func TestRegistered(t *testing.T) {
	d, err := query.Lookup("gpu")
	if err != nil {
		t.Fatal(err)
	}
	if !d.Needs.GPU {
		t.Errorf("gpu: Needs = %+v, want GPU", d.Needs)
	}
	ix := testindex.Write(t, index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU"}, []uint32{3}, []string{"doc/0"},
		testindex.Postings{Term: "alpha", DocIDs: []uint32{0}, Freqs: []uint32{1}})
	e, err := query.New(ix, "gpu")
	switch {
	case err == nil:
		if _, ok := e.(query.DeviceEngine); !ok {
			t.Errorf("gpu engine %T does not report its device usage", e)
		}
		e.(interface{ Close() error }).Close()
	case !errors.Is(err, query.ErrNoGPU):
		t.Errorf("New(gpu) error = %v, want one that wraps query.ErrNoGPU", err)
	}
}
