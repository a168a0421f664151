package index

// ShardInfo says which part of a sharded collection an index holds: a
// shard is an index of the documents of one URL range, scored under the
// statistics of the whole collection, whose docid d is d+FirstDoc in the
// collection, so that the shards' top k, merged, are the collection's.
type ShardInfo struct {
	Collection     string // the sharded collection's identity, the same in every shard
	Index          int    // this shard's position, 0 to Count-1, in URL order
	Count          int    // the collection's shards
	FirstDoc       uint32 // the collection's docid of this shard's docid 0
	CollectionDocs uint64 // the collection's documents
}

// Shard returns the part of a sharded collection ix holds, and whether ix
// is a shard; an index that is not is the whole of its collection: shard
// 0 of 1, its docids the collection's.
func (ix *Index) Shard() (ShardInfo, bool) {
	return ShardInfo{Count: 1, CollectionDocs: ix.meta.Docs}, false
}
