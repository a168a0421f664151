// Package indexer turns a crawl directory into an index: it walks the
// directory, assigns docids, extracts and analyzes text in parallel, inverts
// it under a memory budget, and hands the sorted posting lists to the index
// writer.
//
// Walk. The crawl is laid out as `wget --recursive` leaves it
// (host/path/file). Hidden files and directories (names starting with a
// dot) are not crawled; the report counts them. A symbolic
// link to a file inside the crawl is indexed under its own path; a link
// that leads outside the crawl, or to a directory, is never followed and is
// reported. HTML (.html, .htm, or sniffed), .txt and .md files become
// documents; other files are skipped and counted. A file larger than the
// configured maximum is truncated to it (or skipped, by configuration) and
// reported. A file that cannot be read is reported (count and first names)
// and skipped; it never stops the run. Files are opened without blocking
// and without following a final symbolic link, and must then be a regular
// file with the device and inode the walk saw: a file replaced, or turned
// into a link, a directory, a named pipe or a device between the walk and
// the read is skipped and reported (ErrChanged), never read and never
// waited on. Every stage (walk, parse, spills, merge) stops when the
// build's context ends.
//
// URLs and docids. A document whose first path component looks like a host
// name (it has a dot, a port, or is "localhost") gets the URL "http://" +
// its relative path; otherwise its URL is the relative path itself. Docids
// are assigned before any parsing, from the sorted URL list (order "url",
// the default), the walk order ("crawl") or a seeded shuffle ("random"), so
// that parsing in parallel never changes the result: the index is
// byte-for-byte the same for one worker or many. Files that fail while
// being read give up their slot and later docids close the gap.
//
// Passages. With Options.Passages = N, each document is cut into
// max(1, round(L/N)) consecutive passages of nearly equal length (L terms
// in all), each indexed as a document with URL <url>#p<i>, i from 1. How
// many passages a slot yields is known only once it is parsed, so a
// passage's postings carry a temporary id, given in the order documents
// are collected; when every document is in, docids are assigned slot by
// slot, a slot's passages consecutively in text order (so document order
// is kept, and #p10 follows #p9 although it sorts before #p2), and each
// list is re-sorted after the remap. The index is still the same for one
// worker or many.
//
// Inversion. Workers send each document's term frequencies to one
// collector, which appends postings per term. When the estimated memory of
// what it holds passes the budget, it writes a sorted run to a scratch
// directory and starts over; at the end the runs and what is left in memory
// are merged term by term (k-way, streaming: one term's list in memory at
// a time) into the index writer.
package indexer
