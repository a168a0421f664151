package gpu

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/gpusearch/gpusearch/index"
)

// columns are an index's docid, frequency and last-docid columns on a
// backend. The query engines of successive index generations share them
// where a segment is unchanged (the same files of the same segment of
// the same directory, on the same device with the same options), so that
// a reload after an update uploads only the new segments: the lists are
// the segment's, deleted documents included, and only the norms and idf
// follow the collection's statistics, which each engine keeps its own of.
type columns struct {
	key       string // residents' key; "" for columns no other engine may share
	be        backend
	doc, freq devColumn
	lastDoc   devPtr
	reencoded bool
	owned     []devPtr
	refs      int // guarded by residents.mu
	// dev and dbe are the device and backend they live on, which close
	// with the last engine; nil on other backends (the emulator).
	dev *Device
	dbe *deviceBackend
	// qc is the list cache when the long lists do not stay resident: the
	// lists are laid out for it, and its host memory is the columns'.
	qc *qcache
}

// residents are the shareable columns some open engine holds, by key.
var residents = struct {
	mu sync.Mutex
	m  map[string]*columns
}{m: map[string]*columns{}}

// residentKey names ix's columns on a device opened with opts: the index
// directory, the segment's generation and its files' sizes and checksums,
// and the device options. It is "" for an index with no directory or
// generation (one built in memory), or none, whose columns are never
// shared.
func residentKey(ix *index.Index, opts Options) string {
	if ix == nil {
		return ""
	}
	m := ix.Meta()
	if ix.Dir() == "" || m.Generation == "" || len(m.Files) == 0 {
		return ""
	}
	dir, err := filepath.Abs(ix.Dir())
	if err != nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d|%d|%s|%t|%s|%d|%d|%s|%s", opts.Device, opts.MemoryBudgetMB, opts.Wait, opts.NoGraphs, opts.CachePolicy,
		opts.CacheMB, opts.LongListBytes, dir, m.Generation)
	names := make([]string, 0, len(m.Files))
	for name := range m.Files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		f := m.Files[name]
		fmt.Fprintf(&b, "|%s:%d:%08x", name, f.Size, f.CRC32)
	}
	return b.String()
}

// acquireColumns returns the resident columns of key, taking a reference,
// or, when none are (or key is ""), those upload makes, registered under
// key.
func acquireColumns(key string, upload func() (*columns, error)) (*columns, error) {
	residents.mu.Lock()
	defer residents.mu.Unlock()
	if c, ok := residents.m[key]; ok && key != "" {
		c.refs++
		return c, nil
	}
	// Uploading under the lock keeps two engines opened at once on the
	// same segment from uploading it twice; opens are rare.
	c, err := upload()
	if err != nil {
		return nil, err
	}
	c.key, c.refs = key, 1
	if key != "" {
		residents.m[key] = c
	}
	return c, nil
}

// uploadColumns uploads ix's columns to be. A column whose codec has no
// GPU decoder is re-encoded first (see gpuColumn).
func uploadColumns(ix *index.Index, be backend) (*columns, error) {
	return uploadColumnsCache(ix, be, cacheOptions{})
}

// uploadColumnsCache is uploadColumns with a list cache where co asks for
// one (see wantCache).
func uploadColumnsCache(ix *index.Index, be backend, co cacheOptions) (*columns, error) {
	c := &columns{be: be}
	alloc := func(size int64) (devPtr, error) {
		p, err := be.alloc(max(size, 16))
		if err == nil {
			c.owned = append(c.owned, p)
		}
		return p, err
	}
	fail := func(err error) (*columns, error) {
		return nil, errors.Join(err, freeAll(be, c.owned...))
	}
	dh, fh := IndexColumns(ix)
	// The columns' data are the index's mapped files. They are read into
	// memory under Guard first, so that a file shrinking on disk (a copy
	// over a served index still running at a reload) fails the upload
	// instead of faulting inside the CUDA driver, where no Go code can
	// recover. The copies live until the upload ends.
	err := ix.Guard(func() error {
		dh.Data, fh.Data = slices.Clone(dh.Data), slices.Clone(fh.Data)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: %w", err)
	}
	var re [2]bool
	if dh, re[0], err = gpuColumn(dh); err != nil {
		return nil, fmt.Errorf("gpu: docid column: %w", err)
	}
	if fh, re[1], err = gpuColumn(fh); err != nil {
		return nil, fmt.Errorf("gpu: frequency column: %w", err)
	}
	c.reencoded = re[0] || re[1]
	if wantCache(ix, &dh, &fh, co) {
		if err := c.uploadCached(ix, &dh, &fh, co, alloc); err != nil {
			return fail(err)
		}
		return c, nil
	}
	if c.doc, err = uploadColumn(be, &dh, alloc); err != nil {
		return fail(fmt.Errorf("gpu: upload docids: %w", err))
	}
	if c.freq, err = uploadColumn(be, &fh, alloc); err != nil {
		return fail(fmt.Errorf("gpu: upload frequencies: %w", err))
	}
	sk := ix.Skips()
	if c.lastDoc, err = alloc(4 * int64(len(sk.LastDocIDs))); err != nil {
		return fail(err)
	}
	if err = be.upload(c.lastDoc, bytesOf(sk.LastDocIDs)); err != nil {
		return fail(err)
	}
	return c, nil
}

// drop lets go of one reference; the last frees the columns and closes
// their device, if they own one.
func (c *columns) drop() error {
	residents.mu.Lock()
	c.refs--
	last := c.refs == 0
	if last && c.key != "" {
		delete(residents.m, c.key)
	}
	residents.mu.Unlock()
	if !last {
		return nil
	}
	err := errors.Join(freeAll(c.be, c.owned...), c.qc.release())
	c.owned = nil
	if c.dev != nil {
		err = errors.Join(err, c.dbe.close(), c.dev.Close())
	}
	return err
}
