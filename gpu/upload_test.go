package gpu

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/internal/testindex"
)

// copyBackend is a device that keeps uploads in host memory, reading
// each upload's bytes as the CUDA driver does: a read of a vanished
// mapped page faults there, outside any Go code that could recover.
type copyBackend struct{ next devPtr }

func (b *copyBackend) alloc(size int64) (devPtr, error) {
	b.next += devPtr((size + 255) &^ 255)
	return b.next, nil
}
func (b *copyBackend) free(devPtr) error { return nil }
func (b *copyBackend) upload(_ devPtr, src []byte) error {
	_ = append([]byte(nil), src...)
	return nil
}
func (b *copyBackend) run(int, func(stream) error) error {
	return errors.New("copyBackend runs nothing")
}
func (b *copyBackend) multiprocessors() int { return 1 }

// TestUploadSurvivesShrinkingFiles: the index's postings file shrinks on
// disk after Open, as when a copy over a served index is still running
// when the server reloads. The engine's upload, direct (a GPU format)
// or through re-encoding, fails with an error wrapping index.ErrFault
// instead of the process dying on the fault.
func TestUploadSurvivesShrinkingFiles(t *testing.T) {
	for _, codec := range []string{"gpu-bp128", "varint-SU"} {
		t.Run(codec, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 8))
			const docs = 50000
			lens, urls := make([]uint32, docs), make([]string, docs)
			for i := range lens {
				lens[i], urls[i] = 10, fmt.Sprintf("doc%05d", i)
			}
			var postings []testindex.Postings
			for i := range 8 {
				ids := randomList(rng, docs/2, docs)
				freqs := make([]uint32, len(ids))
				for j := range freqs {
					freqs[j] = 1
				}
				postings = append(postings, testindex.Postings{Term: fmt.Sprintf("t%d", i), DocIDs: ids, Freqs: freqs})
			}
			ix := testindex.Write(t, index.WriterOptions{DocIDCodec: codec, FreqCodec: codec}, lens, urls, postings...)
			files, err := filepath.Glob(filepath.Join(ix.Dir(), "gen-*", "docids.bin"))
			if err != nil || len(files) != 1 {
				t.Fatalf("docids.bin of %s: %v %v", ix.Dir(), files, err)
			}
			if err := os.Truncate(files[0], 0); err != nil {
				t.Fatal(err)
			}
			_, err = newQEngine(ix, &copyBackend{})
			if !errors.Is(err, index.ErrFault) {
				t.Errorf("upload of a shrunk docids.bin: %v, want an error wrapping index.ErrFault", err)
			}
		})
	}
}
