package index_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/index"
)

// readAll decodes every posting of every list of ix, returning the first
// corrupt block met.
func readAll(ix *index.Index) error {
	for i := range ix.NumTerms() {
		c := ix.Cursor(ix.Term(i))
		for d := c.DocID(); d != index.NoMoreDocs; d = c.Next() {
			c.Freq()
		}
		if err := c.Err(); err != nil {
			return err
		}
	}
	return nil
}

// findFile is the path of the file named name under dir, wherever the
// index keeps it.
func findFile(t *testing.T, dir, name string) string {
	t.Helper()
	var found string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == name {
			found = p
		}
		return err
	})
	if err != nil || found == "" {
		t.Fatalf("no %s under %s: %v", name, dir, err)
	}
	return found
}

// TestGuard: a data file of an open index shrinks on disk, so that its
// mapped pages vanish. Reading them under Guard returns an error naming
// the file and wrapping ErrFault and ErrCorrupt, where it would kill the
// process (SIGBUS); Guard leaves faults fatal again after it, and lets
// other panics go on.
func TestGuard(t *testing.T) {
	for _, name := range []string{"docids.bin", "freqs.bin"} {
		t.Run(name, func(t *testing.T) {
			dir := goodIndex(t)
			ix, err := index.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			if err := ix.Guard(func() error { return readAll(ix) }); err != nil {
				t.Fatalf("sound index: %v", err)
			}
			if err := os.Truncate(findFile(t, dir, name), 0); err != nil {
				t.Fatal(err)
			}
			err = ix.Guard(func() error { return readAll(ix) })
			if !errors.Is(err, index.ErrFault) || !errors.Is(err, index.ErrCorrupt) || !strings.Contains(err.Error(), name) {
				t.Errorf("reading the shrunk %s: %v, want an error naming it, wrapping ErrFault and ErrCorrupt", name, err)
			}
			if debug.SetPanicOnFault(false) {
				t.Error("faults still panic after Guard returned")
			}
		})
	}
	t.Run("other panics", func(t *testing.T) {
		ix, err := index.Open(goodIndex(t))
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		defer func() {
			if r := recover(); r != "not a fault" {
				t.Errorf("recovered %v, want the guarded function's panic", r)
			}
		}()
		ix.Guard(func() error { panic("not a fault") })
	})
}

// TestOpenSurvivesShrinkingFiles: a file that shrinks while Open reads it
// (a copy over the index still running during a reload) fails the open
// with an error naming the file, where it would kill the process. Open's
// two reading steps, the checksums and the tables (read on several
// goroutines), run again on an open index whose files then shrank.
func TestOpenSurvivesShrinkingFiles(t *testing.T) {
	for _, tt := range []struct {
		name string
		read func(ix *index.Index, name string) error
	}{
		{"docids.bin", (*index.Index).VerifyChecksum},
		{"lexicon.bin", func(ix *index.Index, _ string) error { return ix.ReadTables() }},
		{"doclens.bin", func(ix *index.Index, _ string) error { return ix.ReadTables() }},
		{"urls.bin", func(ix *index.Index, _ string) error { return ix.ReadTables() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := goodIndex(t)
			ix, err := index.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			if err := os.Truncate(findFile(t, dir, tt.name), 0); err != nil {
				t.Fatal(err)
			}
			err = tt.read(ix, tt.name)
			if !errors.Is(err, index.ErrFault) || !strings.Contains(err.Error(), tt.name) {
				t.Errorf("reading the shrunk %s: %v, want an error naming it, wrapping ErrFault", tt.name, err)
			}
		})
	}
}
