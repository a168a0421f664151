// Package codectest is the conformance suite every codec passes: round trips
// at the sizes and bit widths that break codecs, trailing junk left unread,
// truncated input rejected, garbage never panicking (Run, RoundTrip,
// Garbage, and Fuzz for fuzz targets), and RunPrefix for the optional
// codecplugins.PrefixDecoder. The tests of codecplugins/all run them on
// every registered codec.
//
// It also holds what the codec families' tests and benchmarks share, so
// that each is written once and their numbers compare: the test lists
// (ClusteredGaps, GeometricGaps, GoldenBlocks), EncodeList, the
// golden-size and exact-format checks (ClusteredSize, GoldenSizes, Format)
// and the decoding benchmark (BenchDecode).
//
// Decisions.
//
// The generators are deterministic functions of their arguments, and the
// families' golden tests pin encoded sizes of their output: changing a
// generator changes those numbers, so add a new one instead.
//
// BenchDecode takes a whole number of blocks and decodes them in turn, each
// from exactly its own bytes, so that a decoder cannot read a neighbour's
// bytes unnoticed and every op decodes BlockSize values.
package codectest
