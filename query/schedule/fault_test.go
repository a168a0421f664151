package schedule

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// shrinkDocIDs truncates the docid file of the index in dir to nothing,
// as a copy over it does first: reading its mapping then faults (SIGBUS).
func shrinkDocIDs(t *testing.T, dir string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != "docids.bin" {
			return err
		}
		n++
		return os.Truncate(p, 0)
	})
	if err != nil || n == 0 {
		t.Fatalf("truncating docids.bin under %s: %v (%d found)", dir, err, n)
	}
}

// TestWorkersSurviveFaults: the index's docid file shrinks on disk under
// the scheduler. The workers that read its vanished pages, CPU workers
// and GPU workers running batches, answer the query with an error that
// wraps index.ErrFault instead of killing the process, and go on
// answering.
func TestWorkersSurviveFaults(t *testing.T) {
	for _, policy := range []Policy{PolicyCPU, PolicyGPU} {
		t.Run(string(policy), func(t *testing.T) {
			ix := randomIndex(t, 3000)
			cpu, err := query.New(ix, "cpu")
			if err != nil {
				t.Fatal(err)
			}
			cfg := Config{Policy: policy, CPU: cpu, CPUWorkers: 2}
			if policy == PolicyGPU {
				cfg.GPUs = []query.Engine{&batchEngine{Engine: cpu}}
			}
			s, err := New(ix, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			q := query.Query{Terms: []string{"t001", "t002"}, Mode: query.Or, K: 10}
			if _, err := s.Search(context.Background(), q); err != nil {
				t.Fatalf("before the damage: %v", err)
			}
			shrinkDocIDs(t, ix.Dir())
			var wg sync.WaitGroup
			errs := make([]error, 8) // concurrent, so that a GPU worker takes batches
			for i := range errs {
				wg.Go(func() { _, errs[i] = s.Search(context.Background(), q) })
			}
			wg.Wait()
			for i, err := range errs {
				if !errors.Is(err, index.ErrFault) {
					t.Errorf("query %d after the damage: %v, want an error wrapping index.ErrFault", i, err)
				}
			}
			if _, err := s.Search(context.Background(), q); !errors.Is(err, index.ErrFault) {
				t.Errorf("a query after the faults: %v, want the workers still answering", err)
			}
		})
	}
}
