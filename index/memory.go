package index

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/gpusearch/gpusearch/internal/hugemem"
)

// Memory says where an open index keeps what its queries read at random:
// the postings (docids.bin, freqs.bin) and the tables over them.
type Memory int

const (
	// Mapped maps the files, as Open does: the index opens at once,
	// shares the page cache with other processes, may be larger than
	// memory, and suits sequential readers such as the indexer's merges.
	Mapped Memory = iota
	// HugePages reads the postings into memory of the process's own and
	// moves the tables queries probe (skip table, block offsets and
	// maxima, norms, lexicon and its hash) there too, on transparent huge
	// pages (package hugemem): a probe then seldom misses the TLB. It
	// costs a private copy of the postings and their reading at open.
	HugePages
	// AutoMemory is HugePages for an index whose postings take at most a
	// quarter of the machine's memory, where the kernel gives transparent
	// huge pages; else Mapped.
	AutoMemory
)

// memoryNames are the Memory values' names, as configs spell them.
var memoryNames = [...]string{Mapped: "mapped", HugePages: "huge", AutoMemory: "auto"}

// String is the name ParseMemory reads.
func (m Memory) String() string {
	if m < 0 || int(m) >= len(memoryNames) {
		return fmt.Sprintf("Memory(%d)", int(m))
	}
	return memoryNames[m]
}

// ParseMemory reads a Memory by name: mapped, huge or auto.
func ParseMemory(s string) (Memory, error) {
	for m, name := range memoryNames {
		if s == name {
			return Memory(m), nil
		}
	}
	return 0, fmt.Errorf("index: memory %q: want mapped, huge or auto", s)
}

// inMemoryFiles are the files HugePages reads into memory: those the
// query loops probe at random, block by block.
var inMemoryFiles = []string{fileDocIDs, fileFreqs}

// Memory is where the index keeps its postings and query tables: Mapped
// or HugePages (OpenWith's AutoMemory resolved).
func (ix *Index) Memory() Memory { return ix.mem }

// inMemory reports whether the index keeps file name in memory of its
// own rather than mapped.
func (ix *Index) inMemory(name string) bool {
	return ix.mem == HugePages && slices.Contains(inMemoryFiles, name)
}

// resolve turns AutoMemory into HugePages or Mapped for the index meta
// describes (its segments' postings added up).
func (m Memory) resolve(meta Meta) Memory {
	if m != AutoMemory {
		return m
	}
	total := hugemem.Total()
	if total == 0 || !hugemem.Available() {
		return Mapped
	}
	var size uint64
	metas := []Meta{meta}
	for _, s := range meta.Segments {
		metas = append(metas, s.Meta)
	}
	for _, m := range metas {
		for _, name := range inMemoryFiles {
			size += uint64(m.Files[name].Size)
		}
	}
	if size <= total/4 {
		return HugePages
	}
	return Mapped
}

// readFile reads f, size bytes, into memory from hugemem, which Close
// frees: mapFile's twin for the files HugePages keeps in memory.
func readFile(f *os.File, size int64) ([]byte, error) {
	if int64(int(size)) != size {
		return nil, fmt.Errorf("file too large to read")
	}
	b, err := hugemem.Make[byte](int(size))
	if err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(f, b); err != nil {
		hugemem.Free(b)
		return nil, err
	}
	return b, nil
}

// pinTables moves the tables the query loops probe, of the index or of
// each segment, out of the Go heap into memory from hugemem, where the
// index keeps its postings there (HugePages): each a copy, the old of
// which the collector frees; Close frees the new. The term strings stay
// on the heap: TermInfo.Term aliases them, and callers may keep one
// past Close.
func (ix *Index) pinTables() error {
	if ix.mem != HugePages {
		return nil
	}
	if ix.seg != nil {
		for _, p := range ix.seg.parts {
			if err := p.pinTables(); err != nil {
				return err
			}
		}
		return nil
	}
	return errors.Join(
		pinned(ix, &ix.lastDoc), pinned(ix, &ix.blockMax), pinned(ix, &ix.offs),
		pinned(ix, &ix.norms), pinned(ix, &ix.lexicon), pinned(ix, &ix.byTerm.slots))
}

// pinned replaces *v with a copy from hugemem and has Close free it.
func pinned[T any](ix *Index, v *[]T) error {
	c, err := hugemem.Copy(*v)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	*v = c
	ix.free = append(ix.free, func() error { return hugemem.Free(c) })
	return nil
}
