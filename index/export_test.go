package index

import (
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
)

// SetSegmentTerms sets the terms per lexicon segment for a test and
// returns the function that restores it.
func SetSegmentTerms(n uint64) (restore func()) {
	old := segmentTerms
	segmentTerms = n
	return func() { segmentTerms = old }
}

// EditMeta rewrites the index value of dir's meta.json through edit and
// puts its checksum right, as a tool that edits the values would.
func EditMeta(dir string, edit func(value []byte) []byte) error {
	p := filepath.Join(dir, fileMeta)
	raw, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	var env envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return err
	}
	body := edit(env.Index)
	out := fmt.Appendf(nil, `{"version": %d, "crc32c": %d, "index": %s}`, env.Version, crc32.Checksum(body, castagnoli), body)
	return os.WriteFile(p, out, 0o644)
}

// ReadTables reads the in-memory tables from the mapped files again, as
// Open does.
func (ix *Index) ReadTables() error { return ix.readTables() }

// VerifyChecksum checks the named mapped file's checksum again, as Open
// does.
func (ix *Index) VerifyChecksum(name string) error { return ix.verifyChecksum(name) }

// Resolve is resolve, for the tests.
func (m Memory) Resolve(meta Meta) Memory { return m.resolve(meta) }

// SetMeetWindows turns Meet's AVX2 stepper on (where the CPU has it) or
// off, and returns whether it was on.
func SetMeetWindows(on bool) bool {
	was := haveWindows
	haveWindows = on && cpuWindows
	return was
}
