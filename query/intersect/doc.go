// Package intersect holds list intersection algorithms on decoded posting
// lists: sorted, strictly increasing []uint32. They are the algorithms of
// the list-intersection literature that the GPU work starts from, measured
// by `gpusearch bench intersect` on lists of the shapes of a course report
// on GPU list intersection (Tang and Zhu, "倒排索引求交 GPU 实验", in
// Chinese; "the report" below).
//
//	Merge      linear merge of two lists, O(m+n); MergeAll folds it over
//	           more lists, shortest first
//	Galloping  the shorter list drives; each element is found in the longer
//	           list by exponential then binary search, O(m log(n/m));
//	           GallopingAll folds it over more lists, shortest first
//	SVS        set-versus-set: the shortest list gives the candidates, and
//	           each longer list, in order of length, filters them by binary
//	           search from the last position found
//	ADP        adaptive (Demaine, Lopez-Ortiz, Munro), element at a time
//	           across all lists: an eliminator is galloped for in each list
//	           in turn until every list holds it or one overshoots, whose
//	           successor becomes the new eliminator
//	Hash       bucketed hash table, as the report describes: a list is cut
//	           into buckets by the high bits of its docids (each bucket a
//	           sorted run of the list), and a candidate is looked up in its
//	           bucket only
//	Bitmap     a bit per docid of the universe for each longer list; a
//	           candidate costs one bit test per list
//
// Every function appends the intersection to dst and returns it; the input
// lists are never modified. Functions over any number of lists take the
// lists in any order and start from the shortest. Hash tables and bitsets
// are built ahead (NewHashTable, NewBitset), as an index would store them;
// their build cost is measured apart.
//
// Decision: the report fixes its hash table at 512 buckets for lists of
// about 20,000 docids, some 40 per bucket. Here a table's bucket width is
// the power of two that gives about BucketLoad (8) docids per bucket, so
// that a lookup, which scans its bucket, costs the same whatever the
// list's length; 8 measured faster than 4 or 16 (BenchmarkIntersect/hash).
package intersect
