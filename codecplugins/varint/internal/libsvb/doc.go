// Package libsvb measures codecplugins/varint's streamvbyte against the C
// reference, Debian's libstreamvbyte, on the same blocks. It builds only
// with the libstreamvbyte tag and cgo, so that neither CI nor go test ./...
// needs the library:
//
//	apt-get install libstreamvbyte-dev
//	go test -tags libstreamvbyte -run . -bench . ./codecplugins/varint/internal/libsvb
//
// The two formats are the same (control bytes first, value j's length-1 in
// bits 2j..2j+1, then little-endian data bytes), so the C decoder reads
// blocks written by the Go encoder, and the test checks that it gives the
// same values. The C side loops over the blocks itself, so that the cost of
// a cgo call is not counted per block.
package libsvb
