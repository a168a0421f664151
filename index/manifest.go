package index

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
)

// ManifestFile is the manifest of a sharded collection directory: the
// collection's shards, written last by Split, so that the collection
// exists once every shard is committed.
const ManifestFile = "shards.json"

// manifestVersion is the version of shards.json this package writes and
// reads.
const manifestVersion = 1

// Manifest is the content of shards.json: a sharded collection's
// identity, size and shards, in docid (URL) order.
type Manifest struct {
	Collection string          `json:"collection"`
	Docs       uint64          `json:"docs"`
	Tokens     uint64          `json:"tokens"`
	Shards     []ManifestShard `json:"shards"`
}

// ManifestShard is one shard of a manifest: its index directory,
// relative to the collection's, and its docids in the collection.
type ManifestShard struct {
	Dir      string `json:"dir"`
	FirstDoc uint32 `json:"first_doc"`
	Docs     uint64 `json:"docs"`
}

// manifestEnvelope is shards.json as it lies on disk, as meta.json's
// envelope: the version, the CRC-32C of the collection value's bytes as
// they lie, and the value.
type manifestEnvelope struct {
	Version    int             `json:"version"`
	CRC32      uint32          `json:"crc32c"`
	Collection json.RawMessage `json:"collection"`
}

// IsSharded reports whether dir is a sharded collection's directory (it
// has a shards.json).
func IsSharded(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ManifestFile))
	return err == nil
}

// writeManifest commits m as dir's shards.json: written under a
// temporary name, fsynced, renamed over the old one, and the directory
// fsynced.
func writeManifest(dir string, m Manifest) error {
	body, err := json.MarshalIndent(m, "  ", "  ")
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	raw := fmt.Appendf(nil, "{\n  \"version\": %d,\n  \"crc32c\": %d,\n  \"collection\": %s\n}\n",
		manifestVersion, crc32.Checksum(body, castagnoli), body)
	f, err := os.CreateTemp(dir, "."+ManifestFile+".tmp-*")
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(raw)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, ManifestFile))
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("index: write %s: %w", ManifestFile, err)
	}
	return nil
}

// ReadManifest reads and checks a sharded collection's shards.json: its
// version, checksum and keys, and shards that tile the collection's
// docids in order, each in a directory of its own.
func ReadManifest(dir string) (Manifest, error) {
	raw, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Manifest{}, fmt.Errorf("index: %s has no %s (not a sharded collection, or an unfinished one): %w", dir, ManifestFile, ErrCorrupt)
		}
		return Manifest{}, fmt.Errorf("index: %w", err)
	}
	var env manifestEnvelope
	if err := decodeStrict(raw, &env); err != nil {
		return Manifest{}, corruptf(ManifestFile, "%v", err)
	}
	if env.Version != manifestVersion {
		return Manifest{}, fmt.Errorf("index: %s: version %d, this build reads %d: %w", ManifestFile, env.Version, manifestVersion, ErrVersion)
	}
	if sum := crc32.Checksum(env.Collection, castagnoli); sum != env.CRC32 {
		return Manifest{}, corruptf(ManifestFile, "checksum %d of its collection value, it says %d", sum, env.CRC32)
	}
	var m Manifest
	if err := decodeStrict(env.Collection, &m); err != nil {
		return Manifest{}, corruptf(ManifestFile, "collection: %v", err)
	}
	return m, m.check()
}

// check validates a manifest's shards.
func (m Manifest) check() error {
	if m.Collection == "" || len(m.Shards) == 0 {
		return corruptf(ManifestFile, "collection %q of %d shards", m.Collection, len(m.Shards))
	}
	next := uint64(0)
	seen := map[string]bool{}
	for j, s := range m.Shards {
		if s.Dir == "" || s.Dir != filepath.Base(s.Dir) || s.Dir == "." || s.Dir == ".." || seen[s.Dir] {
			return corruptf(ManifestFile, "shard %d: directory %q is not a fresh name inside the collection's", j, s.Dir)
		}
		seen[s.Dir] = true
		if uint64(s.FirstDoc) != next || s.Docs == 0 {
			return corruptf(ManifestFile, "shard %d holds %d documents from %d, the shards before it end at %d", j, s.Docs, s.FirstDoc, next)
		}
		next += s.Docs
	}
	if next != m.Docs {
		return corruptf(ManifestFile, "shards of %d documents, the collection has %d", next, m.Docs)
	}
	return nil
}

// OpenSharded opens every shard of the sharded collection in dir, in
// order, checking each against the manifest: the same collection, its
// position, count, first docid and documents.
func OpenSharded(dir string) ([]*Index, Manifest, error) { return OpenShardedWith(dir, Mapped) }

// OpenShardedWith is OpenSharded keeping each shard as mem says
// (OpenWith); AutoMemory weighs each shard alone.
func OpenShardedWith(dir string, mem Memory) ([]*Index, Manifest, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, Manifest{}, err
	}
	var shards []*Index
	fail := func(err error) ([]*Index, Manifest, error) {
		for _, s := range shards {
			s.Close()
		}
		return nil, Manifest{}, err
	}
	for j, ms := range m.Shards {
		ix, err := OpenWith(filepath.Join(dir, ms.Dir), mem)
		if err != nil {
			return fail(err)
		}
		shards = append(shards, ix)
		want := ShardInfo{Collection: m.Collection, Index: j, Count: len(m.Shards), FirstDoc: ms.FirstDoc, CollectionDocs: m.Docs}
		if got, ok := ix.Shard(); !ok || got != want || uint64(ix.NumDocs()) != ms.Docs {
			return fail(corruptf(ManifestFile, "shard %d (%s) is %+v of %d documents, the manifest says %+v of %d (a shard of another collection, or rewritten since)",
				j, ms.Dir, got, ix.NumDocs(), want, ms.Docs))
		}
	}
	return shards, m, nil
}
