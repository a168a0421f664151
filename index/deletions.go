package index

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
)

// A segment's deleted documents lie in a deletions file of their own,
// named after the segment and the commit that wrote it (gen-S.del-M), so
// that a commit deleting documents writes a small new file and never
// rewrites a segment: the magic deletionsMagic, then a roaring bitmap of
// the deleted docids in roaring's portable serialization. The commit
// point records its size, CRC-32C and count.

const deletionsMagic = "gsdel001"

// DeletionsMeta is what a commit point records of a segment's deletions
// file.
type DeletionsMeta struct {
	File  string `json:"file"`
	Size  int64  `json:"size"`
	CRC32 uint32 `json:"crc32c"`
	Count uint64 `json:"count"`
}

// delName is the name of segment seg's deletions file written by commit.
func delName(seg, commit string) string { return seg + ".del-" + strings.TrimPrefix(commit, genPrefix) }

// parseDelName returns the segment and the commit number of a deletions
// file's name, if name is one.
func parseDelName(name string) (seg string, commit uint64, ok bool) {
	seg, num, found := strings.Cut(name, ".del-")
	if !found {
		return "", 0, false
	}
	if _, isGen := parseGen(seg); !isGen {
		return "", 0, false
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil || delName(seg, genName(n)) != name {
		return "", 0, false
	}
	return seg, n, true
}

// writeDeletions writes a deletions file into dir and fsyncs it.
func writeDeletions(dir, name string, del *roaring.Bitmap) (DeletionsMeta, error) {
	var buf bytes.Buffer
	buf.WriteString(deletionsMagic)
	del.RunOptimize()
	if _, err := del.WriteTo(&buf); err != nil {
		return DeletionsMeta{}, fmt.Errorf("index: %s: %w", name, err)
	}
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return DeletionsMeta{}, fmt.Errorf("index: %w", err)
	}
	_, err = f.Write(buf.Bytes())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return DeletionsMeta{}, fmt.Errorf("index: write %s: %w", name, err)
	}
	return DeletionsMeta{File: name, Size: int64(buf.Len()), CRC32: crc32.Checksum(buf.Bytes(), castagnoli), Count: del.GetCardinality()}, nil
}

// readDeletions reads and checks a segment's deletions file: its size and
// checksum as the commit point records them, its magic, its bitmap, its
// count, and every docid below the segment's docs.
func readDeletions(dir string, dm DeletionsMeta, docs uint64) (*roaring.Bitmap, error) {
	raw, err := os.ReadFile(filepath.Join(dir, dm.File))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, corruptf(dm.File, "missing")
		}
		return nil, fmt.Errorf("index: %w", err)
	}
	if int64(len(raw)) != dm.Size {
		return nil, corruptf(dm.File, "size %d, meta.json says %d", len(raw), dm.Size)
	}
	if sum := crc32.Checksum(raw, castagnoli); sum != dm.CRC32 {
		return nil, corruptf(dm.File, "checksum %08x, meta.json says %08x", sum, dm.CRC32)
	}
	if !bytes.HasPrefix(raw, []byte(deletionsMagic)) {
		return nil, corruptf(dm.File, "no magic %q", deletionsMagic)
	}
	del := roaring.New()
	if _, err := del.FromBuffer(raw[len(deletionsMagic):]); err != nil {
		return nil, corruptf(dm.File, "bitmap: %v", err)
	}
	if err := del.Validate(); err != nil {
		return nil, corruptf(dm.File, "bitmap: %v", err)
	}
	del = del.Clone() // FromBuffer's bitmap shares raw
	if n := del.GetCardinality(); n != dm.Count {
		return nil, corruptf(dm.File, "%d deleted documents, meta.json says %d", n, dm.Count)
	}
	if !del.IsEmpty() && uint64(del.Maximum()) >= docs {
		return nil, corruptf(dm.File, "deletes document %d of a segment of %d", del.Maximum(), docs)
	}
	return del, nil
}
