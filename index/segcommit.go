package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/RoaringBitmap/roaring/v2"
)

// CommitSegment is one segment of a commit CommitSegments writes.
type CommitSegment struct {
	Meta Meta // the segment's meta.json value (Index.Meta of a segment, Writer.Segment, AdoptSegment)
	// Deleted, when not nil, is the segment's deleted docids as of the
	// new commit (empty: none): a new deletions file holds them. When nil
	// the segment keeps Prior, the deletions file the last commit named
	// (nil: none).
	Deleted *roaring.Bitmap
	Prior   *DeletionsMeta
}

// CommitSegments commits an index of the given segments, each a
// generation directory of d already durable (a segment of the committed
// index, or one that NewSegmentWriter, MergeSegment or AdoptSegment
// wrote), with their deletions: it writes the new deletions files, then
// the commit point (version 7; version 6 for one segment without
// deletions), and removes the segments and deletions files the new commit
// no longer names. It refuses with ErrShrink to leave fewer than half the
// committed index's live documents unless force is set. It returns the
// commit point's value.
func (d *Dir) CommitSegments(segs []CommitSegment, force bool) (Meta, error) {
	if len(segs) == 0 {
		return Meta{}, errors.New("index: a commit of no segments")
	}
	commit := genName(d.next)
	d.next++
	first := segs[0].Meta
	out := Meta{
		Generation: commit, DocIDCodec: first.DocIDCodec, FreqCodec: first.FreqCodec, BlockSize: first.BlockSize,
		Order: first.Order, K1: first.K1, B: first.B, TitleWeight: first.TitleWeight, Files: map[string]FileMeta{},
	}
	for _, s := range segs {
		if s.Meta.TitleWeight != first.TitleWeight {
			return Meta{}, fmt.Errorf("index: segment %s has title weight %d, segment %s %d: merge or update with the index's weight", s.Meta.Generation, s.Meta.TitleWeight, first.Generation, first.TitleWeight)
		}
		sm := SegmentMeta{Meta: s.Meta, Deletions: s.Prior}
		sm.Meta.Version, sm.Meta.Segments = 0, nil
		if s.Deleted != nil {
			sm.Deletions = nil
			if !s.Deleted.IsEmpty() {
				if uint64(s.Deleted.Maximum()) >= s.Meta.Docs {
					return Meta{}, fmt.Errorf("index: segment %s: deleting document %d of %d", s.Meta.Generation, s.Deleted.Maximum(), s.Meta.Docs)
				}
				dm, err := writeDeletions(d.path, delName(s.Meta.Generation, commit), s.Deleted)
				if err != nil {
					return Meta{}, err
				}
				sm.Deletions = &dm
			}
		}
		lens, err := segmentDocLens(d.path, s.Meta)
		if err != nil {
			return Meta{}, err
		}
		var del *roaring.Bitmap
		if sm.Deletions != nil {
			if del, err = readDeletions(d.path, *sm.Deletions, s.Meta.Docs); err != nil {
				return Meta{}, err
			}
		}
		for doc, l := range lens {
			if del == nil || !del.Contains(uint32(doc)) {
				out.Docs++
				out.Tokens += uint64(l)
			}
		}
		out.Terms += s.Meta.Terms
		out.Postings += s.Meta.Postings
		out.Blocks += s.Meta.Blocks
		out.Segments = append(out.Segments, sm)
	}
	out.AvgDocLength = float64(avgDocLen(out.Tokens, int(out.Docs)))
	if len(out.Segments) == 1 && out.Segments[0].Deletions == nil {
		out = out.Segments[0].Meta
	}
	if old, err := ReadMeta(d.path); err == nil && !force && shrinks(old.Docs, out.Docs) {
		return Meta{}, fmt.Errorf("index: %s holds an index of %d documents and the new one has %d: %w",
			d.path, old.Docs, out.Docs, ErrShrink)
	}
	out.Version = FormatVersion
	if len(out.Segments) > 0 {
		out.Version = SegmentedVersion
	}
	if err := out.check(); err != nil {
		return Meta{}, err
	}
	if err := syncDir(d.path); err != nil {
		return Meta{}, fmt.Errorf("index: sync %s: %w", d.path, err)
	}
	if err := d.commit(out); err != nil {
		return Meta{}, err
	}
	if err := syncDir(d.path); err != nil {
		return Meta{}, fmt.Errorf("index: sync %s: %w", d.path, err)
	}
	d.removeOld(out)
	return out, nil
}

// segmentDocLens reads a segment's document lengths.
func segmentDocLens(dir string, m Meta) ([]uint32, error) {
	raw, err := os.ReadFile(filepath.Join(dir, m.Generation, fileDocLens))
	if err != nil {
		return nil, fmt.Errorf("index: segment %s: %w", m.Generation, err)
	}
	s := newStreamReader(fileDocLens, raw)
	lens := make([]uint32, 0, initialCap(m.Docs))
	for uint64(len(lens)) < m.Docs && s.more() {
		lens = append(lens, s.uint32())
	}
	if err := s.end(); err != nil {
		return nil, err
	}
	if uint64(len(lens)) != m.Docs {
		return nil, corruptf(fileDocLens, "segment %s holds %d lengths, its meta says %d documents", m.Generation, len(lens), m.Docs)
	}
	return lens, nil
}

// AdoptSegment moves the generation that the index directory src (a
// scratch directory inside d, written by a writer of its own) commits
// into d as a new segment, durable but not committed, and returns its
// meta.json value for CommitSegments.
func (d *Dir) AdoptSegment(src string) (Meta, error) {
	m, err := ReadMeta(src)
	if err != nil {
		return Meta{}, err
	}
	if len(m.Segments) > 0 {
		return Meta{}, fmt.Errorf("index: %s: a segmented index is not a segment", src)
	}
	name := genName(d.next)
	d.next++
	if err := os.Rename(filepath.Join(src, m.Generation), filepath.Join(d.path, name)); err != nil {
		return Meta{}, fmt.Errorf("index: %w", err)
	}
	if err := syncDir(d.path); err != nil {
		return Meta{}, fmt.Errorf("index: sync %s: %w", d.path, err)
	}
	m.Generation = name
	m.Version = 0
	return m, nil
}
