package index

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gpusearch/gpusearch/index/bm25"
)

// An index directory holds the commit point meta.json, the generation
// directory it names (gen-N, the data files), and the lock file of its
// writer. A writer writes a new generation beside the committed one and
// commits it by renaming a new meta.json over the old; only then does it
// remove the old generation. A kill at any instant therefore leaves the
// old index or the new one, complete. What a killed writer leaves (an
// uncommitted generation, temporary files .NAME.tmp-*, scratch directories
// .NAME.tmp-*, and the .runs-* of version 2's indexer) the next writer
// removes, under the lock, so that it never races another writer. Other
// files (cost-model.json) are left alone.

// ErrLocked is wrapped when another writer holds an index directory.
var ErrLocked = errors.New("index directory is locked by another writer")

// ErrShrink is wrapped when a writer would replace an index with an empty
// one or one of fewer than half its documents, and WriterOptions.Force is
// not set: the sign of a crawl that went missing, not of a smaller one.
var ErrShrink = errors.New("refusing to replace an index with one of fewer than half its documents")

// shrinks reports whether replacing an index of old documents with one of
// new documents needs Force.
func shrinks(old, new uint64) bool { return old > 0 && 2*new < old }

// genPrefix starts a generation directory's name, followed by its number
// in decimal.
const genPrefix = "gen-"

func genName(n uint64) string { return genPrefix + strconv.FormatUint(n, 10) }

// parseGen returns a generation directory's number, if name is one.
func parseGen(name string) (uint64, bool) {
	n, err := strconv.ParseUint(strings.TrimPrefix(name, genPrefix), 10, 64)
	return n, err == nil && genName(n) == name
}

// isLeftover reports whether name is a killed writer's temporary file or
// scratch directory.
func isLeftover(name string) bool {
	return strings.HasPrefix(name, ".") && (strings.Contains(name, ".tmp-") || strings.HasPrefix(name, ".runs-"))
}

// Dir is an index directory opened for writing. Its one writer holds an
// exclusive lock on it (flock on .lock) from LockDir to Unlock.
type Dir struct {
	path string
	lock *os.File
	next uint64 // the number of the next generation
}

// LockDir opens dir for writing, creating it if missing: it takes the
// directory's lock, refusing with ErrLocked while another writer holds it,
// and removes what killed writers left.
func LockDir(dir string) (*Dir, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	f, err := lockFile(filepath.Join(dir, lockName))
	if errors.Is(err, ErrLocked) {
		return nil, fmt.Errorf("index: %s: another process is writing an index there (it holds %s): %w", dir, lockName, err)
	}
	if err != nil {
		return nil, fmt.Errorf("index: lock %s: %w", dir, err)
	}
	d := &Dir{path: dir, lock: f, next: 1}
	if err := d.removeLeftovers(); err != nil {
		d.Unlock()
		return nil, err
	}
	return d, nil
}

// Path is the directory's path.
func (d *Dir) Path() string { return d.path }

// Unlock releases the directory for other writers.
func (d *Dir) Unlock() error { return d.lock.Close() }

// TempDir creates a scratch directory inside the index directory for a
// writer's temporary files. The caller removes it; if a kill prevents
// that, the next LockDir does.
func (d *Dir) TempDir(name string) (string, error) {
	p, err := os.MkdirTemp(d.path, "."+name+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("index: %w", err)
	}
	return p, nil
}

// removeLeftovers removes temporary files, scratch directories and the
// generations the commit point does not name, and picks the next
// generation's number. When the commit point is damaged every generation
// stays: one of them may be what it named.
func (d *Dir) removeLeftovers() error {
	keep, keepAll := map[string]bool{}, false
	if m, err := ReadMeta(d.path); err == nil {
		keep = m.named()
		// A segmented commit's name is a number no directory holds.
		n, _ := parseGen(m.Generation)
		d.next = max(d.next, n+1)
	} else if _, serr := os.Stat(filepath.Join(d.path, fileMeta)); serr == nil {
		keepAll = !errors.Is(err, ErrVersion) // a version 2 index names no generation
	}
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		n, isGen := parseGen(name)
		if isGen {
			d.next = max(d.next, n+1)
		}
		_, c, isDel := parseDelName(name)
		if isDel {
			d.next = max(d.next, c+1)
		}
		if ((isGen || isDel) && !keep[name] && !keepAll) || isLeftover(name) {
			if err := os.RemoveAll(filepath.Join(d.path, name)); err != nil {
				return fmt.Errorf("index: remove a killed writer's %s: %w", name, err)
			}
		}
	}
	return nil
}

// removeOld removes, once m is committed, every generation and deletions
// file it does not name and the data files a version 2 index kept beside
// meta.json. A failure leaves them to the next writer's removeLeftovers.
func (d *Dir) removeOld(m Meta) {
	keep := m.named()
	entries, _ := os.ReadDir(d.path)
	for _, e := range entries {
		name := e.Name()
		_, isGen := parseGen(name)
		_, _, isDel := parseDelName(name)
		if ((isGen || isDel) && !keep[name]) || (!e.IsDir() && knownFile(name)) {
			os.RemoveAll(filepath.Join(d.path, name))
		}
	}
}

// newGeneration creates the next generation's directory.
func (d *Dir) newGeneration() (string, error) {
	name := genName(d.next)
	d.next++
	if err := os.Mkdir(filepath.Join(d.path, name), 0o755); err != nil {
		return "", fmt.Errorf("index: %w", err)
	}
	return name, nil
}

// commit makes m the index of the directory: meta.json is written under a
// temporary name, fsynced and renamed over the old one; the caller fsyncs
// the directory. m's generation must be durable already.
func (d *Dir) commit(m Meta) error {
	raw, err := encodeMeta(m)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(d.path, "."+fileMeta+".tmp-*")
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
		err = os.Rename(tmp, filepath.Join(d.path, fileMeta))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("index: write %s: %w", fileMeta, err)
	}
	return nil
}

// envelope is meta.json as it lies on disk: the format version, outside
// the checksum so that an index of another version is told apart before
// its content is decoded; the CRC-32C of the index value's bytes exactly
// as they lie; and the index value, a Meta.
type envelope struct {
	Version int             `json:"version"`
	CRC32   uint32          `json:"crc32c"`
	Index   json.RawMessage `json:"index"`
}

// encodeMeta lays out meta.json: readable, indented JSON whose checksum
// covers the index value's bytes.
func encodeMeta(m Meta) ([]byte, error) {
	body, err := json.MarshalIndent(m, "  ", "  ")
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	version := FormatVersion
	if len(m.Segments) > 0 {
		version = SegmentedVersion
	}
	return fmt.Appendf(nil, "{\n  \"version\": %d,\n  \"crc32c\": %d,\n  \"index\": %s\n}\n",
		version, crc32.Checksum(body, castagnoli), body), nil
}

// ReadMeta reads and checks an index's commit point, meta.json, without
// opening the rest: its version, its checksum, its keys (exactly those of
// Meta, no more, no fewer) and the values it alone vouches for. Open
// cross-checks the rest against the data files.
func ReadMeta(dir string) (Meta, error) {
	raw, err := os.ReadFile(filepath.Join(dir, fileMeta))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Meta{}, fmt.Errorf("index: %s has no %s (not an index, or an unfinished one): %w", dir, fileMeta, ErrCorrupt)
		}
		return Meta{}, fmt.Errorf("index: %w", err)
	}
	return decodeMeta(raw)
}

func decodeMeta(raw []byte) (Meta, error) {
	var v struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return Meta{}, corruptf(fileMeta, "%v", err)
	}
	if v.Version < minReadVersion || v.Version > SegmentedVersion {
		hint := "written by a newer gpusearch"
		if v.Version < minReadVersion {
			hint = "rebuild it with gpusearch index"
		}
		return Meta{}, fmt.Errorf("index: %s: file is version %d, this build reads %d to %d (%s): %w", fileMeta, v.Version, minReadVersion, SegmentedVersion, hint, ErrVersion)
	}
	var env envelope
	if err := decodeStrict(raw, &env); err != nil {
		return Meta{}, corruptf(fileMeta, "%v", err)
	}
	if sum := crc32.Checksum(env.Index, castagnoli); sum != env.CRC32 {
		return Meta{}, corruptf(fileMeta, "checksum %d of its index value, it says %d", sum, env.CRC32)
	}
	var m Meta
	if env.Version >= SegmentedVersion {
		var sm segmentedMeta
		if err := decodeStrict(env.Index, &sm, metaOptional...); err != nil {
			return Meta{}, corruptf(fileMeta, "index: %v", err)
		}
		m = sm.Meta
		m.Segments = sm.Segments
	} else if hasKey(env.Index, "shard") {
		var sm shardMeta
		if err := decodeStrict(env.Index, &sm, metaOptional...); err != nil {
			return Meta{}, corruptf(fileMeta, "index: %v", err)
		}
		m = sm.Meta
		m.Shard = sm.Shard
	} else if err := decodeStrict(env.Index, &m, metaOptional...); err != nil {
		return Meta{}, corruptf(fileMeta, "index: %v", err)
	}
	m.Version = env.Version
	return m, m.check()
}

// segmentedMeta is a version 7 commit point's index value: Meta, whose
// segments key is then required.
type segmentedMeta struct {
	Meta
	Segments []SegmentMeta `json:"segments"`
}

// shardMeta is a shard's index value: Meta, whose shard key is then
// required.
type shardMeta struct {
	Meta
	Shard *ShardInfo `json:"shard"`
}

// hasKey reports whether the JSON object raw has key k.
func hasKey(raw []byte, k string) bool {
	var keys map[string]json.RawMessage
	if json.Unmarshal(raw, &keys) != nil {
		return false
	}
	_, ok := keys[k]
	return ok
}

// check validates the values meta.json alone vouches for.
func (m Meta) check() error {
	if _, ok := parseGen(m.Generation); !ok {
		return corruptf(fileMeta, "generation %q is not a generation directory's name", m.Generation)
	}
	for _, name := range slices.Sorted(maps.Keys(m.Files)) {
		if !knownFile(name) || m.Version < sinceVersion(name) {
			return corruptf(fileMeta, "files names %q, not a file of a version %d index", name, m.Version)
		}
	}
	if !(m.K1 >= 0) || math.IsInf(float64(m.K1), 0) {
		return corruptf(fileMeta, "k1 is %v: want a finite value of at least 0", m.K1)
	}
	if !(m.B >= 0 && m.B <= 1) {
		return corruptf(fileMeta, "b is %v: want a value from 0 to 1", m.B)
	}
	if m.TitleWeight > bm25.MaxTitleWeight {
		return corruptf(fileMeta, "title_weight is %d: want at most %d", m.TitleWeight, bm25.MaxTitleWeight)
	}
	if m.Version >= SegmentedVersion {
		return m.checkSegments()
	}
	if m.Shard != nil {
		return m.Shard.check(m)
	}
	if _, ok := m.Files[fileCollection]; ok {
		return corruptf(fileMeta, "files names %s, but meta.json has no shard section", fileCollection)
	}
	return nil
}

// checkSegments validates a version 7 commit point's segments: each
// segment's own value, names and counts, and the values every segment
// must share with the summary.
func (m Meta) checkSegments() error {
	if len(m.Segments) == 0 {
		return corruptf(fileMeta, "version %d names no segments", m.Version)
	}
	if len(m.Files) != 0 {
		return corruptf(fileMeta, "a segmented commit names files of its own")
	}
	seen := map[string]bool{}
	for i, s := range m.Segments {
		sm := s.Meta
		sm.Version = FormatVersion
		if err := sm.check(); err != nil {
			return fmt.Errorf("segment %d: %w", i, err)
		}
		switch {
		case len(sm.Segments) != 0:
			return corruptf(fileMeta, "segment %d has segments", i)
		case sm.Shard != nil:
			return corruptf(fileMeta, "segment %d is a shard: a shard is not updated in segments yet", i)
		case seen[sm.Generation]:
			return corruptf(fileMeta, "segment %s named twice", sm.Generation)
		case sm.DocIDCodec != m.DocIDCodec || sm.FreqCodec != m.FreqCodec || sm.BlockSize != m.BlockSize || sm.Order != m.Order:
			return corruptf(fileMeta, "segment %s has codecs, block size or order unlike the index's", sm.Generation)
		case math.Float32bits(sm.K1) != math.Float32bits(m.K1) || math.Float32bits(sm.B) != math.Float32bits(m.B):
			return corruptf(fileMeta, "segment %s has BM25 parameters unlike the index's", sm.Generation)
		}
		seen[sm.Generation] = true
		if d := s.Deletions; d != nil {
			if seg, _, ok := parseDelName(d.File); !ok || seg != sm.Generation {
				return corruptf(fileMeta, "segment %s: deletions file %q is not one of its names", sm.Generation, d.File)
			}
			if d.Count > sm.Docs {
				return corruptf(fileMeta, "segment %s: %d deletions of %d documents", sm.Generation, d.Count, sm.Docs)
			}
		}
	}
	return nil
}

// named returns the generation directories and deletions files a commit
// point names.
func (m Meta) named() map[string]bool {
	keep := map[string]bool{m.Generation: true}
	for _, s := range m.Segments {
		keep[s.Meta.Generation] = true
		if s.Deletions != nil {
			keep[s.Deletions.File] = true
		}
	}
	return keep
}

// metaOptional are the keys of a meta.json index value that may be left
// out: title_weight is written only when it is not 0, so that an index
// built without a title weight keeps the meta.json of before the key.
var metaOptional = []string{"title_weight"}

// decodeStrict decodes a JSON object into v, refusing unknown keys, keys
// in another case than v's (which encoding/json would take), missing keys
// other than optional ones and data after the object.
func decodeStrict(raw []byte, v any, optional ...string) error {
	var got, want map[string]json.RawMessage
	if err := json.Unmarshal(raw, &got); err != nil {
		return err
	}
	all, err := json.Marshal(v) // every key of v's type
	if err != nil {
		return err
	}
	if err := json.Unmarshal(all, &want); err != nil {
		return err
	}
	var problems []string
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok && !slices.Contains(optional, k) {
			problems = append(problems, fmt.Sprintf("unknown key %q", k))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if _, ok := got[k]; !ok {
			problems = append(problems, fmt.Sprintf("missing key %q", k))
		}
	}
	if problems != nil {
		return errors.New(strings.Join(problems, ", "))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields() // in nested objects
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON object")
	}
	return nil
}

// syncDir fsyncs a directory so that the entries made in it are durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
