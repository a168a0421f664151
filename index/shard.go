package index

// ShardInfo says which part of a sharded collection an index holds: a
// shard is an index of the documents of one URL range, scored under the
// statistics of the whole collection, whose docid d is d+FirstDoc in the
// collection, so that the shards' top k, merged, are the collection's.
type ShardInfo struct {
	Collection     string `json:"collection"`      // the sharded collection's identity, the same in every shard
	Index          int    `json:"index"`           // this shard's position, 0 to Count-1, in URL order
	Count          int    `json:"count"`           // the collection's shards
	FirstDoc       uint32 `json:"first_doc"`       // the collection's docid of this shard's docid 0
	CollectionDocs uint64 `json:"collection_docs"` // the collection's documents
}

// Shard returns the part of a sharded collection ix holds, and whether ix
// is a shard; an index that is not is the whole of its collection: shard
// 0 of 1, its docids the collection's.
func (ix *Index) Shard() (ShardInfo, bool) {
	if ix.meta.Shard != nil {
		return *ix.meta.Shard, true
	}
	return ShardInfo{Count: 1, CollectionDocs: ix.meta.Docs}, false
}

// ShardSpec makes a writer write a shard (WriterOptions.Shard): its part
// of the collection and the collection's statistics.
type ShardSpec struct {
	Info   ShardInfo
	Tokens uint64 // the collection's tokens
	// DF is the collection's df of a term the shard has: at least the
	// shard's own.
	DF func(term string) uint64
}

// check validates a shard section against the rest of meta.json.
func (s *ShardInfo) check(m Meta) error {
	switch {
	case s.Collection == "":
		return corruptf(fileMeta, "shard: no collection identity")
	case s.Count < 1 || s.Index < 0 || s.Index >= s.Count:
		return corruptf(fileMeta, "shard %d of %d", s.Index, s.Count)
	case s.CollectionDocs >= uint64(NoMoreDocs) || uint64(s.FirstDoc)+m.Docs > s.CollectionDocs:
		return corruptf(fileMeta, "shard of %d documents from docid %d in a collection of %d (at most 2^32-1)", m.Docs, s.FirstDoc, s.CollectionDocs)
	}
	if _, ok := m.Files[fileCollection]; !ok {
		return corruptf(fileMeta, "a shard without %s", fileCollection)
	}
	return nil
}
